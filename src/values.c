#include "values.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool push(struct mpb_values *v, const char *item, char *why, size_t why_len)
{
    if (v->n >= MPB_VALUES_MAX) {
        snprintf(why, why_len, "expands to more than %d values", MPB_VALUES_MAX);
        return false;
    }
    char **grown = realloc(v->items, sizeof *grown * (size_t)(v->n + 1));
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

/* A number: decimal/real as strtod reads it, or 2^e with an integer e. */
static bool parse_number(const char *s, double *out)
{
    char *end;
    if (*s == '\0' || isspace((unsigned char)*s))
        return false;
    if (s[0] == '2' && s[1] == '^') {
        long e = strtol(s + 2, &end, 10);
        if (end == s + 2 || *end != '\0' || e < -1074 || e > 1023)
            return false;
        *out = ldexp(1.0, (int)e);
        return true;
    }
    double x = strtod(s, &end);
    if (*end != '\0' || !isfinite(x))
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

static bool push_number(struct mpb_values *v, double x, char *why, size_t why_len)
{
    char buf[64];
    /* Integers print in full (sizes, seeds); otherwise range arithmetic
     * a + i·step leaves binary noise (0.1+2·0.1), and users type at most 15
     * significant digits, so print with 15. */
    if (x == floor(x) && fabs(x) <= 0x1p53)
        snprintf(buf, sizeof buf, "%.0f", x);
    else
        snprintf(buf, sizeof buf, "%.15g", x);
    return push(v, buf, why, why_len);
}

static bool expand_range(const char *item, char *parts[3], int nparts, struct mpb_values *v,
                         char *why, size_t why_len)
{
    double a, b;
    if (!parse_number(parts[0], &a) || !parse_number(parts[1], &b)) {
        snprintf(why, why_len, "range '%s': ends must be numbers (e.g. 1:8, 2^10:2^14:*2)", item);
        return false;
    }
    if (nparts == 3 && parts[2][0] == '*') {
        double f;
        if (!parse_number(parts[2] + 1, &f) || f <= 1.0) {
            snprintf(why, why_len, "range '%s': a geometric step '*f' needs a number f > 1", item);
            return false;
        }
        if (a <= 0 || b < a) {
            snprintf(why, why_len, "range '%s': a geometric range needs 0 < start <= end", item);
            return false;
        }
        for (double x = a; x <= b * (1 + 1e-12); x *= f)
            if (!push_number(v, x, why, why_len))
                return false;
        return true;
    }
    double step = 1.0;
    if (nparts == 3 && !parse_number(parts[2], &step)) {
        snprintf(why, why_len, "range '%s': step '%s' is not a number", item, parts[2]);
        return false;
    }
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
        if (!push_number(v, a + (double)i * step, why, why_len))
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
    else if (parse_number(item, &x))
        ok = push_number(v, x, why, why_len);
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
