#include "gate/gate_row.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "case/metrics.h"

/* Relative slack of relations that hold exactly in real arithmetic between
 * values rounded apart: ρ_B ≤ ρ_A on test2's diagonal, where Cauchy–Schwarz
 * is an equality, came out 1 ulp above (results/h200). */
#define SLACK 1e-9

enum kind { HEX16, HASH, NAME, COUNT, COUNT_OR_EMPTY, POSITIVE, TIME, ERROR, GRADE, STATUS, TARGET, IMPL, REF };

/* In column order, so that the first bad cell of a row is the one named. */
static const struct {
    enum mpb_col col;
    enum kind kind;
} checked[] = {
    {MPB_COL_case_id, HEX16},        {MPB_COL_scheme, NAME},         {MPB_COL_scheme_version, COUNT},
    {MPB_COL_target, TARGET},        {MPB_COL_impl, IMPL},           {MPB_COL_m, POSITIVE},
    {MPB_COL_n, POSITIVE},           {MPB_COL_k, POSITIVE},          {MPB_COL_gen, NAME},
    {MPB_COL_reps, COUNT},           {MPB_COL_time_ms_median, TIME}, {MPB_COL_time_ms_min, TIME},
    {MPB_COL_time_ms_max, TIME},     {MPB_COL_noise_pct, TIME},      {MPB_COL_ref, REF},
    {MPB_COL_err_fro_rel, ERROR},    {MPB_COL_err_max_rel, ERROR},   {MPB_COL_err_median_rel, ERROR},
    {MPB_COL_rho_a_max, ERROR},      {MPB_COL_rho_b_max, ERROR},     {MPB_COL_rho_c_max, ERROR},
    {MPB_COL_grade, GRADE},          {MPB_COL_nonfinite, COUNT_OR_EMPTY}, {MPB_COL_out_hash, HASH},
    {MPB_COL_status, STATUS},
};

static const enum mpb_col error_cols[] = {MPB_COL_err_fro_rel, MPB_COL_err_max_rel, MPB_COL_err_median_rel,
                                          MPB_COL_rho_a_max,   MPB_COL_rho_b_max,   MPB_COL_rho_c_max};
#define N_ERRORS (sizeof error_cols / sizeof error_cols[0])

static const char *text(const struct mpb_row *row, enum mpb_col col)
{
    return row->cell[col] ? row->cell[col] : "";
}

/* A cell already checked to be a number; NaN when empty. */
static double value(const struct mpb_row *row, enum mpb_col col)
{
    double x;
    return row->cell[col] && mpb_csv_read_real(row->cell[col], &x) ? x : NAN;
}

static bool is_hex16(const char *s)
{
    return strlen(s) == 16 && strspn(s, "0123456789abcdef") == 16;
}

static bool is_name(const char *s)
{
    return *s && !s[strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_")];
}

static bool is_integer_from(const char *s, int64_t lo)
{
    int64_t x;
    return mpb_csv_read_int(s, &x) && x >= lo;
}

static bool is_nonnegative(const char *s, bool inf)
{
    double x;
    return mpb_csv_read_real(s, &x) && x >= 0 && (inf || isfinite(x));
}

static bool is_word_of(const char *s, const char *const *words)
{
    for (; *words; words++)
        if (!strcmp(s, *words))
            return true;
    return false;
}

/* NULL when `s` is a cell of this kind as mpbench writes it, else what it should be. */
static const char *malformed(enum kind kind, const char *s)
{
    static const char *const grades[] = {"", "A", "B", "C", "F", NULL};
    static const char *const statuses[] = {"ok", "incorrect", "not_supported", "error", "skipped", NULL};
    static const char *const targets[] = {"fp64", "fp32", NULL}, *const impls[] = {"cuda", "host", NULL};
    static const char *const refs[] = {"mpfr", "dd", "none", NULL};
    switch (kind) {
    case HEX16:
        return is_hex16(s) ? NULL : "16 hex digits (0-9, a-f)";
    case HASH:
        return !*s || is_hex16(s) ? NULL : "16 hex digits (0-9, a-f) or empty";
    case NAME:
        return is_name(s) ? NULL : "a name (a-z, 0-9, _)";
    case COUNT:
        return is_integer_from(s, 0) ? NULL : "an integer >= 0";
    case COUNT_OR_EMPTY:
        return !*s || is_integer_from(s, 0) ? NULL : "an integer >= 0 or empty";
    case POSITIVE:
        return is_integer_from(s, 1) ? NULL : "an integer >= 1";
    case TIME:
        return !*s || is_nonnegative(s, false) ? NULL : "a finite number >= 0 or empty";
    case ERROR:
        return !*s || is_nonnegative(s, true) ? NULL : "a number >= 0, inf or empty";
    case GRADE:
        return is_word_of(s, grades) ? NULL : "A, B, C, F or empty";
    case STATUS:
        return is_word_of(s, statuses) ? NULL : "ok, incorrect, not_supported, error or skipped";
    case TARGET:
        return is_word_of(s, targets) ? NULL : "fp64 or fp32";
    case IMPL:
        return is_word_of(s, impls) ? NULL : "cuda or host";
    case REF:
        return is_word_of(s, refs) ? NULL : "mpfr, dd or none";
    }
    return NULL;
}

/* The header is one schema_version's exact column list: column c is field c + 1. */
static bool refuse(char *why, size_t why_len, enum mpb_col col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool refuse(char *why, size_t why_len, enum mpb_col col, const char *fmt, ...)
{
    int used = snprintf(why, why_len, "column %s (field %d): ", mpb_csv_column_names[col], (int)col + 1);
    va_list ap;
    va_start(ap, fmt);
    if (used >= 0 && (size_t)used < why_len)
        vsnprintf(why + used, why_len - (size_t)used, fmt, ap);
    va_end(ap);
    return false;
}

/* A case that ran has a time, a hash and a non-finite count; one that did
 * not (not_supported, skipped) has no measurement at all. */
static bool status_consistent(const struct mpb_row *row, char *why, size_t why_len)
{
    static const enum mpb_col ran[] = {MPB_COL_time_ms_median, MPB_COL_nonfinite, MPB_COL_out_hash};
    static const enum mpb_col measured[] = {
        MPB_COL_time_ms_median, MPB_COL_err_fro_rel, MPB_COL_err_max_rel, MPB_COL_err_median_rel,
        MPB_COL_rho_a_max,      MPB_COL_rho_b_max,   MPB_COL_rho_c_max,   MPB_COL_grade,
        MPB_COL_nonfinite,      MPB_COL_out_hash};
    const char *status = text(row, MPB_COL_status);
    if (!strcmp(status, "ok")) {
        for (size_t i = 0; i < sizeof ran / sizeof ran[0]; i++)
            if (!row->cell[ran[i]])
                return refuse(why, why_len, ran[i], "empty, but status is ok (mpbench writes it for every case that ran)");
    } else if (!strcmp(status, "not_supported") || !strcmp(status, "skipped")) {
        for (size_t i = 0; i < sizeof measured / sizeof measured[0]; i++)
            if (row->cell[measured[i]])
                return refuse(why, why_len, measured[i], "'%s', but status is %s (the case did not run)",
                              row->cell[measured[i]], status);
    }
    return true;
}

/* a ≤ b up to SLACK, when both are there. */
static bool at_most(const struct mpb_row *row, enum mpb_col a, enum mpb_col b, const char *because, char *why,
                    size_t why_len)
{
    double x = value(row, a), y = value(row, b);
    if (isnan(x) || isnan(y) || x <= y * (1 + SLACK))
        return true;
    return refuse(why, why_len, a, "'%s' is above %s '%s' (%s)", text(row, a), mpb_csv_column_names[b],
                  text(row, b), because);
}

/* A grade is computed from the ρ (README "Accuracy: the reference and the
 * grades"), so a graded row holds them and the grade they give. */
static bool grade_consistent(const struct mpb_row *row, const char *grade, char *why, size_t why_len)
{
    for (size_t i = 0; i < N_ERRORS; i++) {
        double x = value(row, error_cols[i]);
        if (isnan(x))
            return refuse(why, why_len, error_cols[i], "empty, but the row is graded %s (a grade is computed "
                          "from the errors)", grade);
        if (isinf(x) && strcmp(grade, "F"))
            return refuse(why, why_len, error_cols[i], "'%s', but the row is graded %s (a row graded A, B or C "
                          "holds six finite errors)", text(row, error_cols[i]), grade);
    }
    int64_t k = 0;
    mpb_csv_read_int(text(row, MPB_COL_k), &k);
    char want = mpb_grade_of(value(row, MPB_COL_rho_a_max), value(row, MPB_COL_rho_b_max),
                             value(row, MPB_COL_rho_c_max), k, 0);
    if (want != grade[0])
        return refuse(why, why_len, MPB_COL_grade,
                      "'%s', but rho_a_max %s, rho_b_max %s, rho_c_max %s at k %s give %c (README \"Accuracy: the "
                      "reference and the grades\")",
                      grade, text(row, MPB_COL_rho_a_max), text(row, MPB_COL_rho_b_max), text(row, MPB_COL_rho_c_max),
                      text(row, MPB_COL_k), want);
    /* Grade A bounds the error by |A||B|_ij, so every entry where that is 0
     * (test1a's and test1b's zeros of C) is exact, and the Frobenius error
     * is a mean of the entries' relative errors. Only an exact C_ij = 0
     * from cancellation could break it; no generator of mpbench makes one. */
    return strcmp(grade, "A") ||
           at_most(row, MPB_COL_err_fro_rel, MPB_COL_err_max_rel, "grade A: no entry's relative error is that "
                   "large", why, why_len);
}

/* What the reference says about the errors (ref none: there are none). */
static bool reference_consistent(const struct mpb_row *row, char *why, size_t why_len)
{
    if (!strcmp(text(row, MPB_COL_ref), "none")) {
        for (size_t i = 0; i <= N_ERRORS; i++) {
            enum mpb_col col = i < N_ERRORS ? error_cols[i] : MPB_COL_grade;
            if (row->cell[col])
                return refuse(why, why_len, col, "'%s', but ref is none (no reference checked the case)",
                              row->cell[col]);
        }
        return true;
    }
    /* Entry by entry ρ_C ≤ ρ_B ≤ ρ_A (their denominators grow), and the
     * median of the relative errors is one of them (or an exact 0). */
    static const char ladder[] = "entry by entry rho_c <= rho_b <= rho_a";
    if (!at_most(row, MPB_COL_rho_c_max, MPB_COL_rho_b_max, ladder, why, why_len) ||
        !at_most(row, MPB_COL_rho_b_max, MPB_COL_rho_a_max, ladder, why, why_len) ||
        !at_most(row, MPB_COL_err_median_rel, MPB_COL_err_max_rel, "the median is one of the entries' errors",
                 why, why_len))
        return false;
    const char *grade = text(row, MPB_COL_grade);
    return !*grade || grade_consistent(row, grade, why, why_len);
}

/* Median, min and max are of the same timed calls; noise_pct is
 * 100·1.4826·MAD/median, and the MAD is at most max − min. */
static bool times_consistent(const struct mpb_row *row, char *why, size_t why_len)
{
    double median = value(row, MPB_COL_time_ms_median), lo = value(row, MPB_COL_time_ms_min),
           hi = value(row, MPB_COL_time_ms_max), noise = value(row, MPB_COL_noise_pct);
    if (isnan(lo) || isnan(hi) || isnan(median))
        return true;
    if (!(lo <= median && median <= hi))
        return refuse(why, why_len, MPB_COL_time_ms_median, "'%s' is outside [time_ms_min, time_ms_max] = [%s, %s]",
                      text(row, MPB_COL_time_ms_median), text(row, MPB_COL_time_ms_min),
                      text(row, MPB_COL_time_ms_max));
    double most = median > 0 ? 148.26 * (hi - lo) / median : INFINITY;
    if (!isnan(noise) && noise > most * (1 + SLACK))
        return refuse(why, why_len, MPB_COL_noise_pct, "'%s' is more than the spread of the times allows "
                      "(100 * 1.4826 * (max - min) / median = %.3g)", text(row, MPB_COL_noise_pct), most);
    return true;
}

bool mpb_gate_row_check(const struct mpb_row *row, char *why, size_t why_len)
{
    for (size_t i = 0; i < sizeof checked / sizeof checked[0]; i++) {
        const char *want = malformed(checked[i].kind, text(row, checked[i].col));
        if (want)
            return refuse(why, why_len, checked[i].col, "'%s' is not %s", text(row, checked[i].col), want);
    }
    return status_consistent(row, why, why_len) && reference_consistent(row, why, why_len) &&
           times_consistent(row, why, why_len);
}
