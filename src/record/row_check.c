/* Results rows read back (row_check.h). */
#include "record/row_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/csv.h"
#include "status.h"
#include "case/values.h"

/* What a cell holds, as case_row.c writes it. */
enum cell {
    TEXT,      /* anything, empty included */
    WORD,      /* not empty */
    SCHEMA,    /* MPB_CSV_SCHEMA_VERSION */
    INTEGER,   /* %PRId64 */
    DIM,       /* an integer >= 1 */
    COUNT,     /* an integer >= 0 */
    COUNT_OPT, /* the same, or empty */
    INT_OPT,   /* an integer, or empty */
    REAL_OPT,  /* %.17g (inf included), or empty (NaN: missing) */
    HASH,      /* 16 lowercase hex digits */
    HASH_OPT,
    TARGET, FIELD, IMPL, REF, STATUS,
    GRADE_OPT, /* A, B, C, F, or empty */
};

static const enum cell cells[MPB_COL_COUNT] = {
    [MPB_COL_schema_version] = SCHEMA, [MPB_COL_run_id] = WORD, [MPB_COL_case_id] = HASH,
    [MPB_COL_scheme] = WORD, [MPB_COL_scheme_version] = INTEGER, [MPB_COL_target] = TARGET,
    [MPB_COL_impl] = IMPL, [MPB_COL_m] = DIM, [MPB_COL_n] = DIM, [MPB_COL_k] = DIM, [MPB_COL_gen] = WORD,
    [MPB_COL_seed] = COUNT, [MPB_COL_warmup] = COUNT, [MPB_COL_reps] = COUNT,
    [MPB_COL_time_ms_median] = REAL_OPT, [MPB_COL_time_ms_min] = REAL_OPT, [MPB_COL_time_ms_max] = REAL_OPT,
    [MPB_COL_noise_pct] = REAL_OPT, [MPB_COL_tflops] = REAL_OPT, [MPB_COL_split_ms] = REAL_OPT,
    [MPB_COL_gemm_ms] = REAL_OPT, [MPB_COL_accum_ms] = REAL_OPT, [MPB_COL_slices] = INT_OPT,
    [MPB_COL_fallback] = INT_OPT, [MPB_COL_ref] = REF, [MPB_COL_ref_entries] = COUNT_OPT,
    [MPB_COL_err_fro_rel] = REAL_OPT, [MPB_COL_err_max_rel] = REAL_OPT, [MPB_COL_err_median_rel] = REAL_OPT,
    [MPB_COL_rho_a_max] = REAL_OPT, [MPB_COL_rho_b_max] = REAL_OPT, [MPB_COL_rho_c_max] = REAL_OPT,
    [MPB_COL_grade] = GRADE_OPT, [MPB_COL_nonfinite] = COUNT_OPT, [MPB_COL_out_hash] = HASH_OPT,
    [MPB_COL_status] = STATUS, [MPB_COL_mpbench_version] = WORD, [MPB_COL_git_sha] = WORD,
    [MPB_COL_case] = WORD, [MPB_COL_ref_check] = REAL_OPT, [MPB_COL_cr_mismatch] = COUNT_OPT,
    [MPB_COL_max_abs_vs_native] = REAL_OPT, [MPB_COL_power_w] = REAL_OPT, [MPB_COL_joules_per_call] = REAL_OPT,
    [MPB_COL_gflops_per_w] = REAL_OPT, [MPB_COL_field] = FIELD, [MPB_COL_rho_a_re_max] = REAL_OPT,
    [MPB_COL_rho_a_im_max] = REAL_OPT,
};

/* An integer exactly as %PRId64 prints it (no leading zeros, no "-0"), at least lo. */
static bool integer(const char *s, int64_t lo)
{
    int64_t v;
    char again[32];
    if (!mpb_int_parse(s, &v) || v < lo)
        return false;
    snprintf(again, sizeof again, "%" PRId64, v);
    return !strcmp(again, s);
}

/* A double exactly as %.17g prints it: the text reads back to a value that prints as the text. */
static bool real(const char *s)
{
    char *end, again[40];
    double x = strtod(s, &end);
    if (!*s || *end)
        return false;
    snprintf(again, sizeof again, "%.17g", x);
    return !strcmp(again, s);
}

static bool hash(const char *s)
{
    return strlen(s) == 16 && strspn(s, "0123456789abcdef") == 16;
}

static bool one_of(const char *s, const char *const *words)
{
    for (; *words; words++)
        if (!strcmp(s, *words))
            return true;
    return false;
}

static bool cell_ok(enum cell kind, const char *s)
{
    static const char *const targets[] = {"fp64", "fp32", NULL}, *const fields[] = {"real", "complex", NULL},
                             *const impls[] = {"cuda", "host", NULL},
                             *const refs[] = {"mpfr", "dd", "none", NULL}, *const grades[] = {"A", "B", "C", "F", NULL};
    char schema[16];
    switch (kind) {
    case TEXT: return true;
    case WORD: return *s != '\0';
    case SCHEMA: return snprintf(schema, sizeof schema, "%d", MPB_CSV_SCHEMA_VERSION) > 0 && !strcmp(s, schema);
    case INTEGER: return integer(s, INT64_MIN);
    case DIM: return integer(s, 1);
    case COUNT: return integer(s, 0);
    case COUNT_OPT: return !*s || integer(s, 0);
    case INT_OPT: return !*s || integer(s, INT64_MIN);
    case REAL_OPT: return !*s || real(s);
    case HASH: return hash(s);
    case HASH_OPT: return !*s || hash(s);
    case TARGET: return one_of(s, targets);
    case FIELD: return one_of(s, fields);
    case IMPL: return one_of(s, impls);
    case REF: return one_of(s, refs);
    case GRADE_OPT: return !*s || one_of(s, grades);
    case STATUS:
        for (int st = MPB_STATUS_OK; st <= MPB_STATUS_SKIPPED; st++)
            if (!strcmp(s, mpb_status_name((enum mpb_status)st)))
                return true;
        return false;
    }
    return false;
}

bool mpb_row_col_numeric(enum mpb_col c)
{
    switch (cells[c]) {
    case SCHEMA: case INTEGER: case DIM: case COUNT: case COUNT_OPT: case INT_OPT: case REAL_OPT: return true;
    default: return false;
    }
}

bool mpb_row_cells_check(char **fields, char *why, size_t why_len)
{
    static const char *const expected[] = {
        [TEXT] = "text", [WORD] = "a non-empty word", [SCHEMA] = "this mpbench's schema_version",
        [INTEGER] = "an integer", [DIM] = "an integer >= 1", [COUNT] = "an integer >= 0",
        [COUNT_OPT] = "an integer >= 0 or empty", [INT_OPT] = "an integer or empty",
        [REAL_OPT] = "a number as mpbench writes one (%.17g) or empty", [HASH] = "16 lowercase hex digits",
        [HASH_OPT] = "16 lowercase hex digits or empty", [TARGET] = "fp64 or fp32", [FIELD] = "real or complex", [IMPL] = "cuda or host",
        [REF] = "mpfr, dd or none", [STATUS] = "ok, incorrect, not_supported, error or skipped",
        [GRADE_OPT] = "A, B, C, F or empty",
    };
    for (int c = 0; c < MPB_COL_COUNT; c++)
        if (!cell_ok(cells[c], fields[c])) {
            snprintf(why, why_len, "column %s: '%.64s' is not %s", mpb_csv_column_names[c], fields[c],
                     expected[cells[c]]);
            return false;
        }
    return true;
}

/* The columns that name case c; with `added`, params may be the row's plus
 * parameters at their defaults, and case_id and case (which spell params)
 * are not compared. */
static bool names_case(char **fields, const struct mpb_case *c, bool added, char *why, size_t why_len)
{
    char params[512], gen_params[512], m[24], n[24], k[24], seed[24];
    mpb_case_params(c, params, sizeof params);
    mpb_case_gen_params(c, gen_params, sizeof gen_params);
    snprintf(m, sizeof m, "%" PRId64, c->m);
    snprintf(n, sizeof n, "%" PRId64, c->n);
    snprintf(k, sizeof k, "%" PRId64, c->k);
    snprintf(seed, sizeof seed, "%" PRIu64, c->seed);
    const struct {
        enum mpb_col col;
        const char *want;
    } same[] = {{MPB_COL_case_id, c->id}, {MPB_COL_case, c->text}, {MPB_COL_scheme, c->scheme->name},
                {MPB_COL_params, params}, {MPB_COL_target, mpb_target_name(c->scheme->target)},
                {MPB_COL_field, mpb_field_name(c->scheme->field)},
                {MPB_COL_impl, mpb_impl_name(c->impl)}, {MPB_COL_m, m}, {MPB_COL_n, n}, {MPB_COL_k, k},
                {MPB_COL_gen, c->gen->name}, {MPB_COL_gen_params, gen_params}, {MPB_COL_seed, seed}};
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        if (added && (same[i].col == MPB_COL_case_id || same[i].col == MPB_COL_case))
            continue;
        if (added && same[i].col == MPB_COL_params) {
            if (!mpb_param_added_at_default(c->scheme->params, c->scheme->n_params, fields[MPB_COL_params], params))
                return false;
        } else if (strcmp(fields[same[i].col], same[i].want)) {
            snprintf(why, why_len, "column %s: '%.64s', where case_id %s has '%.64s'",
                     mpb_csv_column_names[same[i].col], fields[same[i].col], c->id, same[i].want);
            return false;
        }
    }
    return true;
}

bool mpb_row_is_case(char **fields, const struct mpb_case *c, char *why, size_t why_len)
{
    return names_case(fields, c, false, why, why_len);
}

bool mpb_row_is_case_before_added(char **fields, const struct mpb_case *c)
{
    char why[256];
    return names_case(fields, c, true, why, sizeof why);
}
