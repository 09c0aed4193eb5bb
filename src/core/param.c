#include "param.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mpb_format_double(double x, char *buf, size_t len)
{
    /* Shortest of %.15g..%.17g that reads back to x: 0.1 prints as "0.1",
     * and every printed value parses to the same double. */
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, x);
        if (strtod(buf, NULL) == x)
            return;
    }
}

static bool parse_number(const char *text, double *out)
{
    char *end;
    if (*text == '\0')
        return false;
    double v = strtod(text, &end);
    if (*end != '\0' || isnan(v))
        return false;
    *out = v;
    return true;
}

void mpb_param_describe_range(const struct mpb_param_spec *spec, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    if (spec->kind == MPB_PARAM_CHOICE) {
        for (int i = 0; spec->choices[i]; i++)
            used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s",
                                     i ? "|" : "", spec->choices[i]);
        return;
    }
    char lo[32], hi[32];
    mpb_format_double(spec->lo, lo, sizeof lo);
    mpb_format_double(spec->hi, hi, sizeof hi);
    snprintf(buf, len, "%s %s..%s%s", spec->kind == MPB_PARAM_INT ? "integer" : "real", lo, hi,
             spec->allow_auto ? " or auto" : "");
}

/* A choice spelt in digits (refine_fp16's tau = 010) also matches the
 * number the value grammar makes of it (10): equal once leading zeros go. */
static bool same_digits(const char *text, const char *choice)
{
    if (strspn(text, "0123456789") != strlen(text) || strspn(choice, "0123456789") != strlen(choice) || !*text ||
        !*choice)
        return false;
    while (*text == '0' && text[1])
        text++;
    while (*choice == '0' && choice[1])
        choice++;
    return strcmp(text, choice) == 0;
}

bool mpb_param_parse(const struct mpb_param_spec *spec, const char *text, double *value,
                     char *why, size_t why_len)
{
    char allowed[256];
    mpb_param_describe_range(spec, allowed, sizeof allowed);
    if (spec->kind == MPB_PARAM_CHOICE) {
        for (int i = 0; spec->choices[i]; i++) {
            if (strcmp(text, spec->choices[i]) == 0 || same_digits(text, spec->choices[i])) {
                *value = i;
                return true;
            }
        }
        snprintf(why, why_len, "'%s' is not one of %s", text, allowed);
        return false;
    }
    if (spec->allow_auto && strcmp(text, "auto") == 0) {
        *value = NAN;
        return true;
    }
    double v;
    if (!parse_number(text, &v)) {
        snprintf(why, why_len, "'%s' is not a number (allowed: %s)", text, allowed);
        return false;
    }
    if (spec->kind == MPB_PARAM_INT && v != floor(v)) {
        snprintf(why, why_len, "'%s' is not an integer (allowed: %s)", text, allowed);
        return false;
    }
    if (!(v >= spec->lo && v <= spec->hi)) {
        snprintf(why, why_len, "%s is out of range (allowed: %s)", text, allowed);
        return false;
    }
    *value = v;
    return true;
}

void mpb_param_format(const struct mpb_param_spec *spec, double value, char *buf, size_t len)
{
    if (spec->kind == MPB_PARAM_CHOICE)
        snprintf(buf, len, "%s", spec->choices[(int)value]);
    else if (isnan(value))
        snprintf(buf, len, "auto");
    else
        mpb_format_double(value, buf, len);
}

void mpb_param_format_changed(const struct mpb_param_spec *specs, int n, const double *values,
                              char *buf, size_t len)
{
    size_t used = 0;
    double defaults[MPB_MAX_PARAMS];
    mpb_param_defaults(specs, n, defaults);
    buf[0] = '\0';
    for (int i = 0; i < n && used < len; i++) {
        char v[64], d[64];
        mpb_param_format(&specs[i], values[i], v, sizeof v);
        mpb_param_format(&specs[i], defaults[i], d, sizeof d);
        if (strcmp(v, d) != 0)
            used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", specs[i].name, v);
    }
}

int mpb_param_find(const struct mpb_param_spec *specs, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(specs[i].name, name) == 0)
            return i;
    return -1;
}

void mpb_param_defaults(const struct mpb_param_spec *specs, int n, double *values)
{
    char why[256];
    for (int i = 0; i < n; i++) {
        /* Defaults are part of the descriptor tables; a bad one is a
         * programming error that the registry test catches. */
        if (!mpb_param_parse(&specs[i], specs[i].def, &values[i], why, sizeof why))
            values[i] = NAN;
    }
}

void mpb_param_format_all(const struct mpb_param_spec *specs, int n, const double *values,
                          char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < len; i++) {
        char v[64];
        mpb_param_format(&specs[i], values[i], v, sizeof v);
        used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", i ? " " : "", specs[i].name, v);
    }
}

/* Whether "k=v" is one of the space-separated tokens of `list`. */
static bool has_token(const char *list, const char *tok, size_t len)
{
    for (const char *t = list; *t;) {
        size_t n = strcspn(t, " ");
        if (n == len && !strncmp(t, tok, len))
            return true;
        t += n;
        t += strspn(t, " ");
    }
    return false;
}

bool mpb_param_added_at_default(const struct mpb_param_spec *specs, int n, const char *was, const char *now)
{
    if (n > MPB_MAX_PARAMS || !strcmp(was, now))
        return false;
    double values[MPB_MAX_PARAMS];
    char defaults[1024];
    mpb_param_defaults(specs, n, values);
    mpb_param_format_all(specs, n, values, defaults, sizeof defaults);
    for (const char *t = was; *t;) { /* every old parameter kept as it was */
        size_t len = strcspn(t, " ");
        if (!has_token(now, t, len))
            return false;
        t += len;
        t += strspn(t, " ");
    }
    for (const char *t = now; *t;) { /* every other one at its default */
        size_t len = strcspn(t, " ");
        if (!has_token(was, t, len) && !has_token(defaults, t, len))
            return false;
        t += len;
        t += strspn(t, " ");
    }
    return true;
}
