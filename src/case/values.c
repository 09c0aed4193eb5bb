#include "case/values.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "param.h"

static bool push(struct mpb_values *v, const char *item, char *why, size_t why_len)
{
    if (v->n >= MPB_VALUES_MAX) {
        snprintf(why, why_len, "expands to more than %d values", MPB_VALUES_MAX);
        return false;
    }
    /* Capacity doubles at each power of two (items grows only here): one
     * element at a time is quadratic, a minute for 1:100000 under ASan. */
    char **grown = v->items;
    if ((v->n & (v->n - 1)) == 0)
        grown = realloc(v->items, sizeof *grown * (size_t)(v->n ? 2 * v->n : 1));
    char *copy = strdup(item);
    if (!grown || !copy) {
        free(copy);
        if (grown)
            v->items = grown;
        snprintf(why, why_len, "out of memory");
        return false;
    }
    v->items = grown;
    v->items[v->n++] = copy;
    return true;
}

static bool is_plain_integer(const char *s)
{
    s += *s == '+' || *s == '-';
    return *s && !s[strspn(s, "0123456789")];
}

/* Whether a plain integer literal is exactly x: the decimal expansion of x
 * is the typed digits (above 2^53 most integers are not doubles). */
static bool exact_integer(const char *s, double x)
{
    s += *s == '+' || *s == '-';
    s += strspn(s, "0");
    char digits[400];
    snprintf(digits, sizeof digits, "%.0f", fabs(x));
    return strcmp(digits, *s ? s : "0") == 0;
}

/* A number: decimal/real as strtod reads it, or 2^e with an integer e.
 * false with `why` empty when `s` is not a number (it may be a word);
 * false with a sentence in `why` when it is one that a double cannot hold
 * as typed: overflow, underflow to 0, an integer that is not exact. */
static bool parse_number(const char *s, double *out, char *why, size_t why_len)
{
    char *end;
    why[0] = '\0';
    if (*s == '\0' || isspace((unsigned char)*s))
        return false;
    if (s[0] == '2' && s[1] == '^') {
        int64_t e;
        if (!mpb_int_parse(s + 2, &e) || e < -1074 || e > 1023)
            return false;
        *out = ldexp(1.0, (int)e);
        return true;
    }
    errno = 0;
    double x = strtod(s, &end);
    if (*end != '\0' || isnan(x) || (isinf(x) && errno != ERANGE))
        return false; /* "inf" and "nan" are words */
    if (errno == ERANGE && isinf(x))
        snprintf(why, why_len, "'%s' overflows a double (largest %g)", s, DBL_MAX);
    else if (errno == ERANGE && x == 0)
        snprintf(why, why_len, "'%s' underflows to 0 (smallest double %g)", s, 0x1p-1074);
    else if (is_plain_integer(s) && !exact_integer(s, x))
        snprintf(why, why_len, "'%s' is not exactly representable as a double (it would become %.0f; "
                 "integers are exact up to 2^53)", s, x);
    if (why[0])
        return false;
    *out = x;
    return true;
}

static bool is_word(const char *s)
{
    if (!isalpha((unsigned char)*s) && *s != '_')
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("_.-+", *s))
            return false;
    return true;
}

/* A typed number keeps its value (the shortest string that reads back to
 * it); a range's values print with 15 significant digits, as range
 * arithmetic a + i·step leaves binary noise (0.1 + 2·0.1) and users type
 * at most 15. Integers print in full (sizes, seeds). */
static bool push_number(struct mpb_values *v, double x, bool typed, char *why, size_t why_len)
{
    char buf[64];
    if (x == floor(x) && fabs(x) <= 0x1p53)
        snprintf(buf, sizeof buf, "%.0f", x);
    else if (typed)
        mpb_format_double(x, buf, sizeof buf);
    else
        snprintf(buf, sizeof buf, "%.15g", x);
    return push(v, buf, why, why_len);
}

/* A number of range `item`; else a sentence in `why`: what parse_number
 * says, or `expected` when `part` is no number at all. */
static bool range_number(const char *item, const char *part, const char *expected, double *out, char *why,
                         size_t why_len)
{
    char held[192];
    if (parse_number(part, out, held, sizeof held))
        return true;
    snprintf(why, why_len, "range '%s': %s", item, held[0] ? held : expected);
    return false;
}

static bool expand_range(const char *item, char *parts[3], int nparts, struct mpb_values *v,
                         char *why, size_t why_len)
{
    static const char ends[] = "ends must be numbers (e.g. 1:8, 2^10:2^14:*2)";
    double a, b;
    if (!range_number(item, parts[0], ends, &a, why, why_len) ||
        !range_number(item, parts[1], ends, &b, why, why_len))
        return false;
    if (nparts == 3 && parts[2][0] == '*') {
        double f;
        if (!range_number(item, parts[2] + 1, "a geometric step '*f' needs a number f > 1", &f, why, why_len))
            return false;
        if (f <= 1.0) {
            snprintf(why, why_len, "range '%s': a geometric step '*f' needs a number f > 1", item);
            return false;
        }
        if (a <= 0 || b < a) {
            snprintf(why, why_len, "range '%s': a geometric range needs 0 < start <= end", item);
            return false;
        }
        for (double x = a; x <= b * (1 + 1e-12); x *= f)
            if (!push_number(v, x, false, why, why_len))
                return false;
        return true;
    }
    double step = 1.0;
    char not_number[128];
    snprintf(not_number, sizeof not_number, "step '%s' is not a number", nparts == 3 ? parts[2] : "");
    if (nparts == 3 && !range_number(item, parts[2], not_number, &step, why, why_len))
        return false;
    if (step == 0 || (b - a) * step < 0) {
        snprintf(why, why_len, "range '%s' is empty: the step must be non-zero and point from start to end", item);
        return false;
    }
    double count = floor((b - a) / step * (1 + 1e-12) + 1e-9) + 1;
    if (count > MPB_VALUES_MAX) {
        snprintf(why, why_len, "range '%s' expands to more than %d values", item, MPB_VALUES_MAX);
        return false;
    }
    for (long i = 0; i < (long)count; i++)
        if (!push_number(v, a + (double)i * step, false, why, why_len))
            return false;
    return true;
}

static bool expand_item(char *item, struct mpb_values *v, char *why, size_t why_len)
{
    if (*item == '\0') {
        snprintf(why, why_len, "empty item (two commas in a row, or a comma at an end)");
        return false;
    }
    char *parts[3];
    int nparts = 0;
    char *original = strdup(item);
    if (!original) {
        snprintf(why, why_len, "out of memory");
        return false;
    }
    for (char *p = item, *tok; (tok = strsep(&p, ":")) != NULL;) {
        if (nparts == 3) {
            snprintf(why, why_len, "range '%s' has more than three parts (a:b or a:b:step)", original);
            free(original);
            return false;
        }
        parts[nparts++] = tok;
    }
    bool ok;
    double x;
    if (nparts > 1)
        ok = expand_range(original, parts, nparts, v, why, why_len);
    else if (parse_number(item, &x, why, why_len))
        ok = push_number(v, x, true, why, why_len);
    else if (why[0])
        ok = false;
    else if (is_word(item))
        ok = push(v, item, why, why_len);
    else {
        snprintf(why, why_len, "'%s' is neither a number, a word, a range a:b[:step] nor 2^e", item);
        ok = false;
    }
    free(original);
    return ok;
}

bool mpb_values_parse(const char *text, struct mpb_values *out, char *why, size_t why_len)
{
    out->n = 0;
    out->items = NULL;
    char *copy = strdup(text);
    if (!copy) {
        snprintf(why, why_len, "out of memory");
        return false;
    }
    bool ok = true;
    for (char *p = copy, *tok; ok && (tok = strsep(&p, ",")) != NULL;)
        ok = expand_item(tok, out, why, why_len);
    free(copy);
    if (!ok)
        mpb_values_free(out);
    return ok;
}

void mpb_values_free(struct mpb_values *v)
{
    for (int i = 0; i < v->n; i++)
        free(v->items[i]);
    free(v->items);
    v->items = NULL;
    v->n = 0;
}

bool mpb_int_parse_n(const char *s, size_t len, int64_t *out)
{
    bool negative = len > 0 && *s == '-';
    size_t at = negative;
    if (at == len)
        return false;
    uint64_t v = 0;
    for (; at < len; at++) {
        if (s[at] < '0' || s[at] > '9')
            return false;
        unsigned digit = (unsigned)(s[at] - '0');
        if (v > (UINT64_MAX - digit) / 10)
            return false;
        v = v * 10 + digit;
    }
    if (v > (uint64_t)INT64_MAX + negative)
        return false;
    *out = negative ? (v ? -(int64_t)(v - 1) - 1 : 0) : (int64_t)v;
    return true;
}

bool mpb_int_parse(const char *s, int64_t *out)
{
    return mpb_int_parse_n(s, strlen(s), out);
}
