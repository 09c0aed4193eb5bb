/* Parameters of schemes and generators: one spec table per descriptor,
 * values held as doubles (a choice is held as its index in `choices`). */
#ifndef MPB_PARAM_H
#define MPB_PARAM_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPB_MAX_PARAMS 8

enum mpb_param_kind {
    MPB_PARAM_INT,    /* integer in [lo, hi] */
    MPB_PARAM_REAL,   /* real in [lo, hi] */
    MPB_PARAM_CHOICE, /* one word of `choices` */
};

struct mpb_param_spec {
    const char *name;
    enum mpb_param_kind kind;
    const char *def;              /* default, written as a user would write it */
    double lo, hi;                /* INT and REAL: inclusive range */
    const char *const *choices;   /* CHOICE: NULL-terminated list of words */
    const char *help;             /* one line */
    /* INT/REAL: the word "auto" is accepted and held as NaN until the owning
     * descriptor resolves it for a case (e.g. Test 2's b = b_max(k)). */
    bool allow_auto;
};

/* Parse `text` as a value of `spec`. On failure returns false and writes a
 * sentence saying what is allowed into `why`. */
bool mpb_param_parse(const struct mpb_param_spec *spec, const char *text,
                     double *value, char *why, size_t why_len);

/* Write `value` as the user would type it (shortest round-trip for reals). */
void mpb_param_format(const struct mpb_param_spec *spec, double value,
                      char *buf, size_t len);

/* "3..20", "dynamic|fixed", "0..1e+300": the allowed values, for help and errors. */
void mpb_param_describe_range(const struct mpb_param_spec *spec, char *buf, size_t len);

/* Index of the parameter named `name`, or -1. */
int mpb_param_find(const struct mpb_param_spec *specs, int n, const char *name);

/* Fill `values` with the defaults of every spec. */
void mpb_param_defaults(const struct mpb_param_spec *specs, int n, double *values);

/* "k1=v1 k2=v2" in spec order (the CSV `params`/`gen_params` cells). */
void mpb_param_format_all(const struct mpb_param_spec *specs, int n,
                          const double *values, char *buf, size_t len);

/* "k=v ..." of the values that differ from their spec's default, as
 * written (the run summary's; "" when every one is the default). */
void mpb_param_format_changed(const struct mpb_param_spec *specs, int n,
                              const double *values, char *buf, size_t len);

/* Whether `now` is `was` and, besides its "k=v" tokens, only parameters at
 * their defaults (both as mpb_param_format_all writes them for `specs`;
 * false when they are equal): a parameter the owner gained after `was`
 * was written, at the value that runs the old configuration. */
bool mpb_param_added_at_default(const struct mpb_param_spec *specs, int n, const char *was, const char *now);

/* Shortest "%.Ng" that reads back to exactly `x`. */
void mpb_format_double(double x, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
