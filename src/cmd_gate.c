/* `mpbench gate`: the command line, the markdown report and the JSON
 * (gate.h does the comparing). */
#include "commands.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "gate/gate.h"
#include "record/meta.h"
#include "status.h"

struct gate_opts {
    const char *baseline, *candidate, *json;
    struct mpb_gate_tol tol;
    bool report_only;
};

static const enum mpb_col version_cols[] = {MPB_COL_driver_version, MPB_COL_cuda_runtime,
                                            MPB_COL_cublas_version, MPB_COL_mpbench_version, MPB_COL_git_sha};
#define N_VERSION_COLS ((int)(sizeof version_cols / sizeof version_cols[0]))

static const char gate_help_text[] =
"usage: mpbench gate --baseline B.csv --candidate C.csv [--perf-tol PCT]\n"
"                    [--min-ms MS] [--err-tol FACTOR] [--json FILE] [--report-only]\n"
"                    [--pair-params]\n"
"\n"
"Compares two results CSVs case by case, joined on case_id. Prints both sides'\n"
"driver, CUDA runtime, cuBLAS, mpbench and commit versions (\"mixed\" when they\n"
"vary inside a file), a markdown table of every case whose verdict is not\n"
"SAME, and the count of each verdict.\n"
"\n"
"  --baseline FILE    the results to hold the candidate to\n"
"  --candidate FILE   the results under test\n"
"  --perf-tol PCT     time band in percent (default 5); widened to twice the\n"
"                     larger noise_pct of the two rows\n"
"  --min-ms MS        no speed verdict (AMBIGUOUS) when either side's median\n"
"                     call is shorter than MS milliseconds (default 0.1)\n"
"  --err-tol FACTOR   allowed growth of each error column (default 2, >= 1)\n"
"  --json FILE        also write every joined row with its verdicts, the\n"
"                     counts and both sides' versions as JSON\n"
"  --report-only      exit 0 even when the gate fails\n"
"  --pair-params      compare each MISSING row with the NEW row that is the same\n"
"                     case (scheme, target, impl, m, n, k, gen, gen_params,\n"
"                     seed) but for the scheme's params, where a case has as\n"
"                     many of one as of the other (in file order); without it,\n"
"                     a hint says how many such rows there are\n"
"\n"
"Accuracy: SAME identical out_hash (a failed baseline: the same status);\n"
"CHANGED other bits, but each of err_fro_rel, err_max_rel, err_median_rel,\n"
"rho_a_max, rho_b_max, rho_c_max <= FACTOR * max(baseline, floor) and the grade\n"
"(A > B > C > F, compared when both are graded) not lower; WORSE an error past\n"
"that (or present in the baseline and empty in the candidate), a lower grade,\n"
"or status ok -> not ok. The floor is 2^-10 u for err_* (u = 2^-53 fp64,\n"
"2^-24 fp32) and 2^-10 for rho_* (in units of u). MISSING: only in the\n"
"baseline; NEW: only in the candidate; INCOMPARABLE: scheme_version, gpu_name\n"
"or impl differ, or both rows were checked against a reference and only one\n"
"is graded.\n"
"Performance, for comparable impl=cuda rows with status ok on both sides\n"
"(else -):\n"
"r = candidate / baseline time_ms_median, t = max(PCT, 2 * noise_pct);\n"
"SAME |r-1| <= t/100, FAST below, SLOW above; AMBIGUOUS with fewer than 3\n"
"reps, no time on a side, or a call shorter than --min-ms.\n"
"\n"
"Exit: 0 pass; 1 any WORSE, SLOW, MISSING or INCOMPARABLE, or no case_id in\n"
"both files (nothing compared) (0 with --report-only); 2 usage error (or --json\n"
"FILE not writable, or an input); 3 a file that cannot be read or is not what\n"
"mpbench writes (file, line, column): a header other than one schema_version's\n"
"columns, a row of another schema_version, a case_id twice, CR LF line ends, a\n"
"truncated last record, a cell a verdict reads that is malformed (nan, -1, +1,\n"
"0x1p-50, m = 0, grade Z...) or that its row contradicts (a grade its rho do\n"
"not give, errors under ref none or without a grade's bounds...).";

static void gate_help(void)
{
    puts(gate_help_text);
}

static bool parse_real(const char *opt, const char *text, double lo, const char *what, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(text, &end);
    if (!*text || *end || errno || !isfinite(x) || x < lo) {
        mpb_cli_error("gate", "%s '%s': expected %s", opt, text, what);
        return false;
    }
    *out = x;
    return true;
}

static bool unknown_argument(const char *arg)
{
    if (arg[0] == '-')
        mpb_cli_unknown_option("gate", arg, gate_help_text);
    else
        mpb_cli_error("gate", "unexpected argument '%s' (give files with --baseline and --candidate)", arg);
    return false;
}

static bool take_option(int argc, char **argv, int *i, struct gate_opts *o)
{
    const char *arg = argv[*i], *v;
    if ((v = mpb_cli_value("gate", argc, argv, i, "--baseline")))
        o->baseline = v;
    else if ((v = mpb_cli_value("gate", argc, argv, i, "--candidate")))
        o->candidate = v;
    else if ((v = mpb_cli_value("gate", argc, argv, i, "--json")))
        o->json = v;
    else if ((v = mpb_cli_value("gate", argc, argv, i, "--perf-tol")))
        return *v && parse_real("--perf-tol", v, 0, "a percentage >= 0", &o->tol.perf_pct);
    else if ((v = mpb_cli_value("gate", argc, argv, i, "--min-ms")))
        return *v && parse_real("--min-ms", v, 0, "milliseconds >= 0", &o->tol.min_ms);
    else if ((v = mpb_cli_value("gate", argc, argv, i, "--err-tol")))
        return *v && parse_real("--err-tol", v, 1, "a factor >= 1", &o->tol.err_factor);
    else if (!strcmp(arg, "--report-only"))
        o->report_only = true;
    else if (!strcmp(arg, "--pair-params"))
        o->tol.pair_params = true;
    else
        return unknown_argument(arg);
    return !v || *v;
}

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static enum mpb_parse_result gate_parse(int argc, char **argv, struct gate_opts *o)
{
    *o = (struct gate_opts){.tol = {.perf_pct = 5, .min_ms = 0.1, .err_factor = 2}};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return MPB_PARSE_HELP;
        if (!take_option(argc, argv, &i, o))
            return MPB_PARSE_ERROR;
    }
    if (!o->baseline || !o->candidate) {
        mpb_cli_error("gate", "missing %s FILE (mpbench gate --help)",
                      o->baseline ? "--candidate" : "--baseline");
        return MPB_PARSE_ERROR;
    }
    if (o->json && (same_file(o->json, o->baseline) || same_file(o->json, o->candidate))) {
        mpb_cli_error("gate", "--json '%s': that is an input file; it would be overwritten", o->json);
        return MPB_PARSE_ERROR;
    }
    return MPB_PARSE_OK;
}

/* A markdown cell: '|' escaped so the table holds, empty shown as "-". */
static void md_cell(const char *s)
{
    fputs(s && *s ? " " : " -", stdout);
    for (; s && *s; s++) {
        if (*s == '|')
            putchar('\\');
        putchar(*s);
    }
    fputs(" |", stdout);
}

static void print_versions(const struct mpb_gate_file *base, const struct mpb_gate_file *cand)
{
    printf("| | baseline | candidate |\n|---|---|---|\n| file |");
    md_cell(base->path);
    md_cell(cand->path);
    printf("\n| cases | %d | %d |\n", base->n_rows, cand->n_rows);
    for (int i = 0; i < N_VERSION_COLS; i++) {
        printf("| %s |", mpb_csv_column_names[version_cols[i]]);
        md_cell(mpb_gate_version(base, version_cols[i]));
        md_cell(mpb_gate_version(cand, version_cols[i]));
        putchar('\n');
    }
}

static void format_real(char *buf, size_t len, const char *fmt, double x)
{
    if (isnan(x))
        buf[0] = '\0';
    else
        snprintf(buf, len, fmt, x);
}

static void print_pair(const struct mpb_gate_pair *p)
{
    static const enum mpb_col named[] = {MPB_COL_case_id, MPB_COL_scheme, MPB_COL_params, MPB_COL_gen,
                                         MPB_COL_gen_params};
    const struct mpb_row *r = p->base ? p->base : p->cand;
    char text[600];
    putchar('|');
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        if ((p->paired || p->added_defaults) && named[i] == MPB_COL_params) {
            snprintf(text, sizeof text, "%s → %s", mpb_gate_cell(p->base, MPB_COL_params),
                     mpb_gate_cell(p->cand, MPB_COL_params));
            md_cell(text);
        } else {
            md_cell(mpb_gate_cell(r, named[i]));
        }
    }
    snprintf(text, sizeof text, "%s×%s×%s", mpb_gate_cell(r, MPB_COL_m), mpb_gate_cell(r, MPB_COL_n),
             mpb_gate_cell(r, MPB_COL_k));
    md_cell(text);
    md_cell(mpb_gate_acc_name(p->acc));
    md_cell(mpb_gate_perf_name(p->perf));
    format_real(text, sizeof text, "%.3f", p->time_ratio);
    md_cell(text);
    format_real(text, sizeof text, "%.3g", p->worst_err);
    md_cell(text);
    const char *bg = mpb_gate_cell(p->base, MPB_COL_grade), *cg = mpb_gate_cell(p->cand, MPB_COL_grade);
    snprintf(text, sizeof text, "%s→%s", *bg ? bg : "-", *cg ? cg : "-");
    md_cell(*bg || *cg ? text : NULL);
    md_cell(p->why);
    putchar('\n');
}

static bool is_same(const struct mpb_gate_pair *p)
{
    return p->acc == MPB_GATE_ACC_SAME && (p->perf == MPB_GATE_PERF_SAME || p->perf == MPB_GATE_PERF_NONE);
}

/* paired: --pair-params was given (no hint then) */
static void print_table(const struct mpb_gate_result *res, bool paired)
{
    int listed = 0;
    for (int i = 0; i < res->n_pairs; i++) {
        if (is_same(&res->pairs[i]))
            continue;
        if (!listed++)
            puts("| case_id | scheme | params | gen | gen_params | m×n×k | accuracy | perf | time ratio "
                 "| worst error ratio | grades | why |\n|---|---|---|---|---|---|---|---|---|---|---|---|");
        print_pair(&res->pairs[i]);
    }
    if (!listed)
        puts("Every case is SAME.");
    int added = 0;
    const struct mpb_gate_pair *first = NULL;
    for (int i = 0; i < res->n_pairs; i++)
        if (res->pairs[i].added_defaults && !added++)
            first = &res->pairs[i];
    if (added)
        printf("\nnote: %d baseline row(s) compared with candidate rows whose scheme gained parameters since, at "
               "their defaults (the first: %s %s → %s)\n", added, mpb_gate_cell(first->base, MPB_COL_scheme),
               mpb_gate_cell(first->base, MPB_COL_params), mpb_gate_cell(first->cand, MPB_COL_params));
    if (res->n_param_pairs && !paired) {
        const char *bp = mpb_gate_cell(res->param_pair_base, MPB_COL_params);
        const char *cp = mpb_gate_cell(res->param_pair_cand, MPB_COL_params);
        printf("\nhint: %d MISSING row(s) have a NEW row that is the same case but for the scheme's params "
               "(the first: %s %s → %s); --pair-params compares them\n", res->n_param_pairs,
               mpb_gate_cell(res->param_pair_base, MPB_COL_scheme), *bp ? bp : "(none)", *cp ? cp : "(none)");
    }
}

static void print_counts(const struct mpb_gate_result *res, bool report_only)
{
    printf("accuracy:");
    for (int a = 0; a < MPB_GATE_ACC_COUNT; a++)
        printf("%s %d %s", a ? "," : "", res->acc_count[a], mpb_gate_acc_name(a));
    printf("\nperformance:");
    for (int p = MPB_GATE_PERF_SAME; p < MPB_GATE_PERF_COUNT; p++)
        printf(" %d %s,", res->perf_count[p], mpb_gate_perf_name(p));
    printf(" %d without a verdict (-)\n", res->perf_count[MPB_GATE_PERF_NONE]);
    char why[256];
    if (!mpb_gate_failed(res))
        puts("gate: PASS");
    else if (res->n_compared == 0)
        printf("gate: FAIL (no case_id in both files: nothing was compared)%s\n", report_only ? ", reported only" : "");
    else {
        mpb_gate_fail_categories(res, why, sizeof why);
        printf("gate: FAIL: %s%s\n", why, report_only ? " (reported only)" : "");
    }
}

/* A JSON string, or null for an empty cell. */
static void json_str(FILE *f, const char *s)
{
    if (!s || !*s)
        fputs("null", f);
    else
        mpb_json_string(f, s);
}

/* JSON has no NaN or Inf: those are null (the why says which). */
static void json_real(FILE *f, const char *key, double x)
{
    fprintf(f, ", \"%s\": ", key);
    if (isfinite(x))
        fprintf(f, "%.17g", x);
    else
        fputs("null", f);
}

/* A dimension: an integer >= 1, as mpb_gate_load checked. */
static void json_dim(FILE *f, const char *key, const char *d)
{
    fprintf(f, ", \"%s\": %s", key, d);
}

static void json_side(FILE *f, const char *name, const struct mpb_gate_file *g)
{
    fprintf(f, "  \"%s\": {\"file\": ", name);
    json_str(f, g->path);
    fprintf(f, ", \"cases\": %d", g->n_rows);
    for (int i = 0; i < N_VERSION_COLS; i++) {
        fprintf(f, ", \"%s\": ", mpb_csv_column_names[version_cols[i]]);
        json_str(f, mpb_gate_version(g, version_cols[i]));
    }
    fputs("},\n", f);
}

static void json_pair(FILE *f, const struct mpb_gate_pair *p)
{
    static const enum mpb_col named[] = {MPB_COL_case_id, MPB_COL_scheme, MPB_COL_params, MPB_COL_gen,
                                         MPB_COL_gen_params};
    static const enum mpb_col dims[] = {MPB_COL_m, MPB_COL_n, MPB_COL_k};
    const struct mpb_row *r = p->base ? p->base : p->cand;
    fputs("    {", f);
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        fprintf(f, "%s\"%s\": ", i ? ", " : "", mpb_csv_column_names[named[i]]);
        json_str(f, mpb_gate_cell(r, named[i]));
    }
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        json_dim(f, mpb_csv_column_names[dims[i]], mpb_gate_cell(r, dims[i]));
    fputs(", \"params_candidate\": ", f); /* differs from params where a pairing joined them */
    json_str(f, mpb_gate_cell(p->cand, MPB_COL_params));
    fprintf(f, ", \"paired\": %s", p->paired ? "true" : "false");
    fprintf(f, ", \"accuracy\": \"%s\", \"perf\": \"%s\"", mpb_gate_acc_name(p->acc),
            mpb_gate_perf_name(p->perf));
    fprintf(f, ", \"added_defaults\": %s", p->added_defaults ? "true" : "false");
    json_real(f, "time_ratio", p->time_ratio);
    json_real(f, "worst_error_ratio", p->worst_err);
    fputs(", \"grade_baseline\": ", f);
    json_str(f, mpb_gate_cell(p->base, MPB_COL_grade));
    fputs(", \"grade_candidate\": ", f);
    json_str(f, mpb_gate_cell(p->cand, MPB_COL_grade));
    fputs(", \"why\": ", f);
    json_str(f, p->why);
    fputc('}', f);
}

static void write_json(FILE *f, const struct gate_opts *o, const struct mpb_gate_file *base,
                       const struct mpb_gate_file *cand, const struct mpb_gate_result *res)
{
    fputs("{\n", f);
    json_side(f, "baseline", base);
    json_side(f, "candidate", cand);
    fprintf(f, "  \"perf_tol_pct\": %.17g,\n  \"min_ms\": %.17g,\n  \"err_tol_factor\": %.17g,\n",
            o->tol.perf_pct, o->tol.min_ms,
            o->tol.err_factor);
    fputs("  \"counts\": {\"accuracy\": {", f);
    for (int a = 0; a < MPB_GATE_ACC_COUNT; a++)
        fprintf(f, "%s\"%s\": %d", a ? ", " : "", mpb_gate_acc_name(a), res->acc_count[a]);
    fputs("}, \"perf\": {", f);
    for (int p = 0; p < MPB_GATE_PERF_COUNT; p++)
        fprintf(f, "%s\"%s\": %d", p ? ", " : "", mpb_gate_perf_name(p), res->perf_count[p]);
    fprintf(f, "}},\n  \"compared\": %d,\n  \"failed\": %s,\n  \"failed_categories\": [", res->n_compared,
            mpb_gate_failed(res) ? "true" : "false");
    for (int c = 0, n = 0; c < MPB_GATE_CATEGORY_COUNT; c++)
        if (mpb_gate_category_failed(res, c))
            fprintf(f, "%s\"%s\"", n++ ? ", " : "", mpb_gate_category_name(c));
    fputs("],\n  \"rows\": [", f);
    for (int i = 0; i < res->n_pairs; i++) {
        fputs(i ? ",\n" : "\n", f);
        json_pair(f, &res->pairs[i]);
    }
    fputs("\n  ]\n}\n", f);
}

/* Print the report, write the JSON; the exit code. */
static int report(const struct gate_opts *o, const struct mpb_gate_file *base, const struct mpb_gate_file *cand,
                  const struct mpb_gate_result *res)
{
    FILE *json = NULL;
    if (o->json && !(json = fopen(o->json, "w"))) {
        mpb_cli_error("gate", "--json '%s': cannot write: %s", o->json, strerror(errno));
        return MPB_EXIT_USAGE;
    }
    printf("mpbench gate: perf-tol %g%%, min-ms %g, err-tol %g×\n\n", o->tol.perf_pct, o->tol.min_ms,
           o->tol.err_factor);
    print_versions(base, cand);
    putchar('\n');
    print_table(res, o->tol.pair_params);
    putchar('\n');
    print_counts(res, o->report_only);
    if (json) {
        write_json(json, o, base, cand, res);
        bool written = !ferror(json);
        if (fclose(json) != 0 || !written) {
            mpb_cli_error("gate", "--json '%s': cannot write: %s", o->json, strerror(errno));
            return MPB_EXIT_RUNTIME;
        }
    }
    /* 1: the gate failed, as an incorrect result fails selftest */
    return mpb_gate_failed(res) && !o->report_only ? MPB_EXIT_INCORRECT : MPB_EXIT_OK;
}

int mpb_cmd_gate(int argc, char **argv)
{
    struct gate_opts o;
    enum mpb_parse_result parsed = gate_parse(argc, argv, &o);
    if (parsed == MPB_PARSE_HELP)
        gate_help();
    if (parsed != MPB_PARSE_OK)
        return parsed == MPB_PARSE_HELP ? MPB_EXIT_OK : MPB_EXIT_USAGE;
    struct mpb_gate_file base = {0}, cand = {0};
    struct mpb_gate_result res = {0};
    char why[1024];
    int code = MPB_EXIT_RUNTIME;
    if (!mpb_gate_load(&base, o.baseline, why, sizeof why) ||
        !mpb_gate_load(&cand, o.candidate, why, sizeof why))
        mpb_cli_error("gate", "%s", why);
    else if (!mpb_gate_compare(&base, &cand, &o.tol, &res))
        mpb_cli_error("gate", "out of memory");
    else
        code = report(&o, &base, &cand, &res);
    mpb_gate_result_free(&res);
    mpb_gate_free(&base);
    mpb_gate_free(&cand);
    return code;
}
