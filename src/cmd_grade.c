/* `mpbench grade`: the Demmel battery for each scheme configuration, one
 * verdict row each (README "mpbench grade"). Options, outputs and exit
 * code here; the battery and the verdict in grade.c, grade_verdict.c. */
#include "commands.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record/case_row.h"
#include "cli/cli.h"
#include "record/csv.h"
#include "record/env.h"
#include "grade/grade.h"
#include "grade/grade_devices.h"
#include "grade/grade_table.h"
#include "record/meta.h"
#include "record/outpath.h"
#include "case/values.h"
#include "workers/worker_pool.h"

#define CMD "grade"
#define MAX_SHAPES 64
#define MAX_CONFIGS 256

static const int64_t host_sizes[] = {31, 64, 127, 128, 129};
static const struct mpb_grade_shape host_shapes[] = {{64, 64, 1024}, {100, 7, 100}};
static const int64_t cuda_sizes[] = {127, 128, 129, 1000, 1023, 1024, 1025, 4096};
static const struct mpb_grade_shape cuda_shapes[] = {{64, 64, 65536}, {1000, 7, 1000}, {7, 1000, 1000}};
static const int64_t quick_sizes[] = {32, 33};

static const char help_text[] =
"usage: mpbench grade -s SCHEME [-a KEY=VALUES]... [-s SCHEME [-a ...]]...\n"
"                     [--size VALUES] [--shapes MxNxK,...|none] [--seeds N] [--quick]\n"
"                     [--backend auto|cuda|host] [--ref-samples N]\n"
"                     [--csv FILE] [--cases-csv FILE] [--progress auto|always|never]\n"
"                     [--devices all|LIST] [--dry-run]\n"
"\n"
"Runs the Demmel battery (uniform, randn, phi 0.5/1/2/4, test1a, test1b, test2 with\n"
"a sweep of b, test2r, test3, outer, inner, evil, special; complex schemes also\n"
"smallim) at every shape and seed for each scheme configuration (the Cartesian\n"
"product of its -a values), and prints one verdict row per configuration: grade,\n"
"worst rho_A/k, rho_B/k, rho_C/k^log2(12) (complex: also each part's rho/2k) with\n"
"the case that produced each, Test 1/2/3 classes, b*, special values, the\n"
"inner-scaling check and the slope diagnostic (README \"mpbench grade\").\n"
"\n"
"  -s SCHEME[,...]      scheme(s) to grade (mpbench list schemes); repeatable\n"
"  -a KEY=VALUES        parameter of the most recent -s (each of its schemes); a\n"
"                       list grades each value\n"
"  --size VALUES        square sizes (default host: 31,64,127,128,129;\n"
"                       cuda: 127,128,129,1000,1023,1024,1025,4096)\n"
"  --shapes LIST        rectangular shapes MxNxK, comma-separated, or none (default\n"
"                       host: 64x64x1024,100x7x100; cuda: 64x64x65536,1000x7x1000,\n"
"                       7x1000x1000)\n"
"  --seeds N            seeds 1..N for every case (default 3)\n"
"  --quick              sizes 32,33, no rectangular shapes, 1 seed (a smoke test)\n"
"  --backend B          cuda (exit 77 without a GPU), host, or auto (default)\n"
"  --ref-samples N      entries checked above 2^24 exact products (default 4096)\n"
"  --csv FILE           the verdict table as CSV, put in place when grading ends (README \"mpbench grade\")\n"
"  --cases-csv FILE     every case as an mpbench run row (README \"CSV columns\")\n"
"  --progress P         one line per case on stderr, [i/N] with an ETA (N: the\n"
"                       battery's cases; Test 2's b bisection runs inside its\n"
"                       case): auto (terminal), always, never\n"
"  --devices all|LIST   spread the battery over GPUs: all of them, or ordinals such as\n"
"                       0,2 (one worker process per GPU; a unit is one configuration\n"
"                       at one shape, every seed; the largest first); the same rows,\n"
"                       verdicts and table as one process, each row naming its GPU\n"
"  --dry-run            list the battery's cases (id, case string), run nothing\n"
"\n"
"Exit: 0 ok; 1 a harness inconsistency (fixed-point yet A, Strassen-like yet A or\n"
"B); 2 usage error; 3 runtime error; 77 nothing could run.";

static void help(void)
{
    puts(help_text);
}

struct grade_args {
    struct mpb_selection *schemes; /* one per -s name, with its -a lists */
    int n_schemes;
    int last_first;                /* the first selection of the most recent -s */
    struct mpb_int_list sizes;
    struct mpb_grade_shape shapes[MAX_SHAPES];
    int n_shapes; /* -1: the backend's default */
    long seeds, ref_samples; /* seeds 0: the default (3; 1 with --quick) */
    bool quick, dry_run;
    enum mpb_backend_choice backend;
    enum mpb_progress progress;
    const char *csv_path, *cases_path;
    int devices[MPB_MAX_DEVICES]; /* --devices (worker_pool.h) */
    int n_devices;
    bool devices_all;
    int worker_device;            /* the hidden --worker ORDINAL,RUN_ID; -1 otherwise */
    const char *worker_run_id;
    int argc;    /* the command line, for the sidecars and the workers */
    char **argv;
};

/* One MxNxK of --shapes, each dimension an integer in 1..2^31 (as run's). */
static bool parse_shape(const char *text, struct mpb_grade_shape *shape)
{
    int64_t dim[3];
    for (int d = 0; d < 3; d++) {
        size_t len = strcspn(text, "x");
        if (!mpb_int_parse_n(text, len, &dim[d]) || dim[d] < 1 || dim[d] > INT64_C(1) << 31 ||
            (text[len] == 'x') != (d < 2))
            return false;
        text += len + 1;
    }
    *shape = (struct mpb_grade_shape){dim[0], dim[1], dim[2]};
    return true;
}

static bool parse_shapes(const char *text, struct grade_args *g)
{
    g->n_shapes = 0;
    if (!strcmp(text, "none"))
        return true;
    char *copy = strdup(text), *item;
    bool ok = copy != NULL;
    for (char *p = copy; ok && (item = strsep(&p, ",")) != NULL;) {
        ok = g->n_shapes < MAX_SHAPES && parse_shape(item, &g->shapes[g->n_shapes]);
        if (ok)
            g->n_shapes++;
        else
            mpb_cli_error(CMD, "--shapes '%s': expected MxNxK[,MxNxK...] (at most %d) with dimensions integers "
                          "in 1..2147483648, or none", text, MAX_SHAPES);
    }
    free(copy);
    return ok;
}

/* Parse one option at argv[*i]; false on an error (already reported). */
static bool parse_option(int argc, char **argv, int *i, struct grade_args *g)
{
    const char *val;
    long n;
    if ((val = mpb_cli_value(CMD, argc, argv, i, "-s")))
        return *val && mpb_cli_add_selections(CMD, "-s", val, true, &g->schemes, &g->n_schemes,
                                              &g->last_first);
    if ((val = mpb_cli_value(CMD, argc, argv, i, "-a"))) {
        if (!*val)
            return false;
        if (g->n_schemes == 0) {
            mpb_cli_error(CMD, "-a %s: give -s SCHEME before its -a", val);
            return false;
        }
        for (int s = g->last_first; s < g->n_schemes; s++)
            if (!mpb_cli_apply_arg(CMD, val, &g->schemes[s]))
                return false;
        return true;
    }
    const char *size_name;
    if ((val = mpb_cli_size_value(CMD, argc, argv, i, &size_name)))
        return *val && mpb_cli_int_list(CMD, size_name, val, 1, 1 << 20, &g->sizes);
    if ((val = mpb_cli_value(CMD, argc, argv, i, "--shapes")))
        return *val && parse_shapes(val, g);
    if ((val = mpb_cli_value(CMD, argc, argv, i, "--seeds"))) {
        if (!*val || !mpb_cli_int(CMD, "--seeds", val, 1, 1000, &n))
            return false;
        g->seeds = n;
        return true;
    }
    if ((val = mpb_cli_value(CMD, argc, argv, i, "--ref-samples"))) {
        if (!*val || !mpb_cli_int(CMD, "--ref-samples", val, 1, 1L << 30, &n))
            return false;
        g->ref_samples = n;
        return true;
    }
    int word;
    if ((val = mpb_cli_value(CMD, argc, argv, i, "--backend"))) {
        if (!*val || !mpb_cli_choice(CMD, "--backend", val, mpb_backend_words, &word))
            return false;
        g->backend = (enum mpb_backend_choice)word;
        return true;
    }
    if ((val = mpb_cli_value(CMD, argc, argv, i, "--progress"))) {
        if (!*val || !mpb_cli_choice(CMD, "--progress", val, mpb_progress_words, &word))
            return false;
        g->progress = (enum mpb_progress)word;
        return true;
    }
    if ((val = mpb_cli_value(CMD, argc, argv, i, "--csv"))) {
        g->csv_path = val;
        return *val != '\0';
    }
    if ((val = mpb_cli_value(CMD, argc, argv, i, "--cases-csv"))) {
        g->cases_path = val;
        return *val != '\0';
    }
    if ((val = mpb_cli_value(CMD, argc, argv, i, "--devices")))
        return *val && mpb_cli_devices(CMD, val, g->devices, &g->n_devices, &g->devices_all);
    if ((val = mpb_cli_value(CMD, argc, argv, i, "--worker")))
        return *val && mpb_cli_worker(CMD, val, &g->worker_device, &g->worker_run_id);
    if (!strcmp(argv[*i], "--quick")) {
        g->quick = true;
        return true;
    }
    if (!strcmp(argv[*i], "--dry-run")) {
        g->dry_run = true;
        return true;
    }
    mpb_cli_unknown_option(CMD, argv[*i], help_text);
    return false;
}

static enum mpb_parse_result parse_args(int argc, char **argv, struct grade_args *g)
{
    *g = (struct grade_args){.n_shapes = -1, .ref_samples = 4096, .worker_device = -1, .argc = argc, .argv = argv};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return MPB_PARSE_HELP;
        if (!parse_option(argc, argv, &i, g))
            return MPB_PARSE_ERROR;
    }
    if (g->seeds == 0)
        g->seeds = g->quick ? 1 : 3;
    if (g->n_schemes == 0) {
        mpb_cli_error(CMD, "no scheme: give -s SCHEME (mpbench list schemes)");
        return MPB_PARSE_ERROR;
    }
    if ((g->n_devices > 0 || g->devices_all) && g->backend == MPB_BACKEND_HOST) {
        mpb_cli_error(CMD, "--devices spreads the battery over GPUs: it does not go with --backend host");
        return MPB_PARSE_ERROR;
    }
    return MPB_PARSE_OK;
}

/* Sizes and shapes: explicit ones, else --quick's, else the backend's. */
static int build_shapes(const struct grade_args *g, bool cuda, struct mpb_grade_shape *out)
{
    const int64_t *sizes = g->sizes.v;
    int n_sizes = g->sizes.n, n = 0;
    if (!sizes) {
        sizes = g->quick ? quick_sizes : cuda ? cuda_sizes : host_sizes;
        n_sizes = g->quick ? 2 : cuda ? (int)(sizeof cuda_sizes / sizeof *cuda_sizes)
                                      : (int)(sizeof host_sizes / sizeof *host_sizes);
    }
    for (int i = 0; i < n_sizes && n < MAX_SHAPES; i++)
        out[n++] = (struct mpb_grade_shape){sizes[i], sizes[i], sizes[i]};
    const struct mpb_grade_shape *rect = g->shapes;
    int n_rect = g->n_shapes;
    if (n_rect < 0) {
        rect = cuda ? cuda_shapes : host_shapes;
        n_rect = g->quick ? 0 : cuda ? (int)(sizeof cuda_shapes / sizeof *cuda_shapes)
                                     : (int)(sizeof host_shapes / sizeof *host_shapes);
    }
    for (int i = 0; i < n_rect && n < MAX_SHAPES; i++)
        out[n++] = rect[i];
    return n;
}

/* Configurations: for each -s, the Cartesian product of its value lists;
 * -1 (said) when there are more than `max`. */
static int build_configs(const struct grade_args *g, struct mpb_grade_config *out, int max)
{
    long total = 0;
    for (int s = 0; s < g->n_schemes; s++) {
        long c = 1;
        for (int p = 0; p < g->schemes[s].scheme->n_params; p++)
            c *= g->schemes[s].n_values[p];
        total += c;
    }
    if (total > max) {
        mpb_cli_error(CMD, "the -a lists make %ld configurations; at most %d", total, max);
        return -1;
    }
    int n = 0;
    for (int s = 0; s < g->n_schemes; s++) {
        const struct mpb_selection *a = &g->schemes[s];
        int idx[MPB_MAX_PARAMS] = {0}, np = a->scheme->n_params;
        for (bool more = true; more;) {
            out[n].scheme = a->scheme;
            for (int p = 0; p < np; p++)
                out[n].params[p] = a->values[p][idx[p]];
            n++;
            more = false;
            for (int p = np - 1; p >= 0 && !more; p--) {
                if (++idx[p] < a->n_values[p])
                    more = true;
                else
                    idx[p] = 0;
            }
        }
    }
    return n;
}

/* ---- per-case output: rows and progress ---- */

struct case_sink {
    struct mpb_csv *csv;      /* --cases-csv; NULL: none */
    FILE *records;            /* a grade --devices worker: the unit's rows; NULL: none */
    const char *csv_path;
    bool io_failed;
    bool show;
    int done, total;          /* battery cases (not the b bisection's) */
    struct timespec t0;
    const char *label;        /* the configuration being graded (mpb_grade_label) */
    struct mpb_row_context ctx;
};

static void progress_line(struct case_sink *k, const struct mpb_case *c, const struct mpb_result *res,
                          const struct mpb_metrics *acc, bool bisection)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double elapsed = (double)(t.tv_sec - k->t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - k->t0.tv_nsec);
    double eta = k->done ? elapsed / k->done * (k->total - k->done) : 0;
    char gp[128];
    mpb_case_gen_params(c, gp, sizeof gp);
    fprintf(stderr, "[%d/%d] %s %s%s%s %lldx%lldx%lld seed %llu%s: %s", k->done, k->total, k->label, c->gen->name,
            gp[0] ? " " : "", gp, (long long)c->m, (long long)c->n, (long long)c->k, (unsigned long long)c->seed,
            bisection ? " (b bisection)" : "", mpb_status_name(res->status));
    if (acc)
        fprintf(stderr, " grade %s rho_A/k %.3g", acc->grade[0] ? acc->grade : "-", acc->rho_a_max / (double)c->k);
    else if (res->note[0])
        fprintf(stderr, " (%s)", res->note);
    fprintf(stderr, "  ETA %dm%02ds\n", (int)(eta / 60), (int)fmod(eta, 60));
}

static void on_case(void *vctx, const struct mpb_case *c, const struct mpb_result *res,
                    const struct mpb_metrics *acc, bool bisection)
{
    struct case_sink *k = vctx;
    if ((k->csv || k->records) && !k->io_failed) {
        struct mpb_row row = {0};
        mpb_case_row(&row, &k->ctx, c, res, acc);
        if (k->records) {
            mpb_csv_format_row(k->records, &row);
        } else if (!mpb_csv_write(k->csv, &row)) {
            mpb_cli_error(CMD, "writing %s failed: %m", k->csv_path);
            k->io_failed = true;
        }
        mpb_row_clear(&row);
    }
    k->done += !bisection;
    if (k->show)
        progress_line(k, c, res, acc, bisection);
}

/* ---- the verdict table ---- */

/* A text cell quoted as csv.c quotes the results CSV (RFC 4180). */
static void csv_text(FILE *f, const char *s, bool last)
{
    mpb_csv_write_field(f, s);
    fputc(last ? '\n' : ',', f);
}

static void csv_num(FILE *f, double x)
{
    if (!isnan(x) && x >= 0)
        fprintf(f, "%.17g", x);
    fputc(',', f);
}

static void csv_int(FILE *f, int64_t x)
{
    fprintf(f, "%lld,", (long long)x);
}

static const char *const verdict_columns =
    "scheme,params,target,impl,grade,bound_grade,grade_note,cases,cases_ok,cases_graded,"
    "cases_error,cases_not_supported,rho_a_over_k,rho_a_case,rho_b_over_k,rho_b_case,"
    "rho_c_over_k_log2_12,rho_c_case,rho_a_within_k,rho_re_over_2k,rho_re_case,rho_im_over_2k,"
    "rho_im_case,test1,test1_nonzero,test1_case,test2,"
    "test2_rel_over_ku,test2_case,b_star,b_star_k,test3,test3_rel,test3_case,special,"
    "special_entries,special_native,special_spread,special_differs,special_finite_wrong,"
    "inner,inner_pairs,inner_changed,slope_a,slope_b,slope_c,warnings,inconsistency\n";

static void config_params(const struct mpb_grade_config *cfg, char *buf, size_t len)
{
    mpb_param_format_all(cfg->scheme->params, cfg->scheme->n_params, cfg->params, buf, len);
}

static void verdict_csv_row(FILE *f, const struct mpb_grade_config *cfg, const char *impl,
                            const struct mpb_verdict *v)
{
    char params[256], g[2] = {v->grade, 0}, bg[2] = {v->bound_grade, 0}, bstar[16] = "";
    config_params(cfg, params, sizeof params);
    if (v->b_star != MPB_BSTAR_UNKNOWN)
        snprintf(bstar, sizeof bstar, v->b_star == MPB_BSTAR_NONE ? "none" : "%d", v->b_star);
    csv_text(f, cfg->scheme->name, false);
    csv_text(f, params, false);
    csv_text(f, mpb_target_name(cfg->scheme->target), false);
    csv_text(f, impl, false);
    csv_text(f, g, false);
    csv_text(f, bg, false);
    csv_text(f, v->grade_note, false);
    csv_int(f, v->cases);
    csv_int(f, v->cases_ok);
    csv_int(f, v->cases_graded);
    csv_int(f, v->cases_error);
    csv_int(f, v->cases_not_supported);
    csv_num(f, v->rho_a.value);
    csv_text(f, v->rho_a.where, false);
    csv_num(f, v->rho_b.value);
    csv_text(f, v->rho_b.where, false);
    csv_num(f, v->rho_c.value);
    csv_text(f, v->rho_c.where, false);
    csv_text(f, v->rho_a.value < 0 ? "" : v->rho_a.value <= 1 ? "yes" : "no", false);
    csv_num(f, v->rho_re.value);
    csv_text(f, v->rho_re.where, false);
    csv_num(f, v->rho_im.value);
    csv_text(f, v->rho_im.where, false);
    csv_text(f, mpb_test1_class_name(v->test1_class), false);
    csv_int(f, v->test1_nonzero);
    csv_text(f, v->test1.value > 0 ? v->test1.where : "", false);
    csv_text(f, mpb_test2_class_name(v->test2_class), false);
    csv_num(f, v->test2.value);
    csv_text(f, v->test2.where, false);
    csv_text(f, bstar, false);
    if (v->b_star != MPB_BSTAR_UNKNOWN)
        csv_int(f, v->b_star_k);
    else
        fputc(',', f);
    csv_text(f, mpb_test3_class_name(v->test3_class), false);
    csv_num(f, v->test3.value);
    csv_text(f, v->test3.where, false);
    csv_text(f, mpb_special_class_name(v->special_class), false);
    csv_int(f, v->special_entries);
    csv_int(f, v->special_native);
    csv_int(f, v->special_spread);
    csv_int(f, v->special_differs);
    csv_int(f, v->special_finite_wrong);
    csv_text(f, mpb_inner_class_name(v->inner_class), false);
    csv_int(f, v->inner_pairs);
    csv_int(f, v->inner_changed);
    for (int r = 0; r < 3; r++)
        if (isnan(v->slope[r]))
            fputc(',', f);
        else
            fprintf(f, "%.4g,", v->slope[r]);
    csv_text(f, v->warnings, false);
    csv_text(f, v->inconsistency, true);
}

/* ---- the command ---- */

/* The <csv>.meta.json sidecars of the verdict and cases CSVs, as mpbench run
 * writes them (argv, host, GPU and clocks, versions): a committed verdict
 * says where and how it was measured. */
static bool write_sidecars(const struct grade_args *g, const struct mpb_run_meta *m)
{
    const char *paths[] = {g->csv_path, g->cases_path};
    for (int i = 0; i < 2; i++) {
        if (!paths[i])
            continue;
        char meta_path[4096];
        snprintf(meta_path, sizeof meta_path, "%s.meta.json", paths[i]);
        if (!mpb_meta_write(meta_path, "", m)) {
            mpb_cli_error(CMD, "cannot write %s: %m", meta_path);
            return false;
        }
    }
    return true;
}

static struct mpb_runner grade_runner(struct mpb_cuda_env *env, bool cuda)
{
    return (struct mpb_runner){.impl = cuda ? MPB_IMPL_CUDA : MPB_IMPL_HOST, .env = env,
                               .warmup = cuda ? 1 : 0, .reps = 1, .keep_data = true};
}

/* Where each configuration's verdict goes once it is settled. */
struct verdict_out {
    const struct mpb_grade_config *cfgs;
    const struct mpb_verdict *verdicts;
    const char *impl;
    FILE *vf;             /* --csv; NULL: none */
    const char *csv_path;
    bool failed;          /* writing vf failed */
};

/* Configuration i is settled: what stderr says of it, its verdict CSV row;
 * false when the row could not be written. */
static bool verdict_done(void *ctx, int i)
{
    struct verdict_out *o = ctx;
    const struct mpb_verdict *v = &o->verdicts[i];
    char label[256];
    mpb_grade_label(&o->cfgs[i], label, sizeof label);
    if (v->cases_ok == 0)
        mpb_cli_error(CMD, "no case of %s ran (%lld error, %lld not_supported); the first: %s", label,
                      (long long)v->cases_error, (long long)v->cases_not_supported, v->first_failure);
    if (v->inconsistency[0])
        fprintf(stderr, "mpbench grade: HARNESS INCONSISTENCY [grade-inconsistent] %s: %s. The "
                "grader or the reference is wrong; report it with the cases CSV\n", label, v->inconsistency);
    if (!o->vf || o->failed)
        return !o->failed;
    verdict_csv_row(o->vf, &o->cfgs[i], o->impl, v);
    if (fflush(o->vf) != 0) {
        mpb_cli_error(CMD, "--csv %s: write failed: %m", o->csv_path);
        o->failed = true;
    }
    return !o->failed;
}

/* Every configuration in this process, one after the other; how many were
 * graded (all but after a failure to write), -1 when one could not run. */
static int grade_here(const struct grade_args *g, const struct mpb_grade_options *opt, struct case_sink *sink,
                      struct verdict_out *out, int n_cfgs, struct mpb_verdict *verdicts)
{
    char why[512];
    int i;
    for (i = 0; i < n_cfgs && !sink->io_failed && !out->failed; i++) {
        char label[256];
        mpb_grade_label(&out->cfgs[i], label, sizeof label);
        sink->label = label;
        fprintf(stderr, "mpbench grade: %s (%d of %d): %d shapes x %ld seeds on %s\n", label, i + 1, n_cfgs,
                opt->n_shapes, g->seeds, out->impl);
        if (!mpb_grade_run(&out->cfgs[i], opt, &verdicts[i], why, sizeof why)) {
            mpb_cli_error(CMD, "%s", why);
            return -1;
        }
        verdict_done(out, i);
    }
    return i;
}

static bool show_progress(const struct grade_args *g)
{
    return g->progress == MPB_PROGRESS_ALWAYS || (g->progress == MPB_PROGRESS_AUTO && isatty(STDERR_FILENO));
}

static void list_case(void *ctx, const struct mpb_case *c)
{
    (*(int *)ctx)++;
    printf("%s  %s\n", c->id, c->text);
}

/* --dry-run: the battery's cases, as run --dry-run lists a sweep's. */
static int dry_run(const struct grade_args *g, bool cuda, const struct mpb_grade_config *cfgs, int n_cfgs)
{
    struct mpb_grade_shape shapes[MAX_SHAPES];
    int n_shapes = build_shapes(g, cuda, shapes), n = 0, swept = 0;
    struct mpb_runner runner = grade_runner(NULL, cuda);
    struct mpb_grade_options opt = {.shapes = shapes, .n_shapes = n_shapes, .seeds = (int)g->seeds,
                                    .ref_samples = g->ref_samples, .runner = &runner};
    char why[512];
    for (int i = 0; i < n_cfgs; i++)
        if (!mpb_grade_list(&cfgs[i], &opt, list_case, &n, why, sizeof why)) {
            mpb_cli_error(CMD, "%s", why);
            return MPB_EXIT_USAGE;
        }
    for (int s = 0; s < n_shapes; s++)
        swept += shapes[s].m == shapes[s].k && shapes[s].n == shapes[s].k;
    printf("%d cases; Test 2's b bisection adds a few more on each of the %d square shapes (seed 1) of each of "
           "the %d configurations, as the results decide\n", n, swept, n_cfgs);
    return MPB_EXIT_OK;
}

static int grade_all(const struct grade_args *g, struct mpb_cuda_env *env, const struct mpb_grade_config *cfgs,
                     int n_cfgs, struct mpb_verdict *verdicts)
{
    bool devices = g->n_devices > 0 || g->devices_all;
    bool cuda = env != NULL || (devices && !mpb_pool_standin());
    struct mpb_grade_shape shapes[MAX_SHAPES];
    int n_shapes = build_shapes(g, cuda, shapes);
    struct mpb_runner runner = grade_runner(env, cuda);
    char run_id[48], why[512];
    mpb_make_run_id(run_id, sizeof run_id);
    int battery = 0;
    for (int i = 0; i < n_cfgs; i++)
        battery += mpb_grade_battery_cases(cfgs[i].scheme->field);
    struct case_sink sink = {.csv_path = g->cases_path, .show = show_progress(g),
                             .total = battery * n_shapes * (int)g->seeds,
                             .ctx = {.run_id = run_id, .dev = env ? mpb_cuda_device(env) : NULL,
                                     .warmup = runner.warmup, .reps = runner.reps, .ref = "mpfr"}};
    struct verdict_out out = {.cfgs = cfgs, .verdicts = verdicts, .impl = mpb_impl_name(runner.impl),
                              .csv_path = g->csv_path};
    static struct mpb_device_info gpus[MPB_MAX_DEVICES];
    int exit_code = MPB_EXIT_OK, n_done = n_cfgs;
    bool io_failed;
    if (g->cases_path && !(sink.csv = mpb_csv_open(g->cases_path, false, why, sizeof why))) {
        mpb_cli_error(CMD, "--cases-csv %s: %s", g->cases_path, why);
        return MPB_EXIT_USAGE;
    }
    /* The verdicts go to a temporary file renamed over --csv once grading has
     * finished: a grade that fails or is killed leaves the earlier file whole. */
    char tmp_path[4096] = "";
    bool finished = false;
    if (g->csv_path) {
        if (!mpb_outpath_check(g->csv_path, why, sizeof why)) {
            mpb_cli_error(CMD, "--csv %s", why);
            exit_code = MPB_EXIT_USAGE;
            goto done;
        }
        if (snprintf(tmp_path, sizeof tmp_path, "%s.tmp%ld", g->csv_path, (long)getpid()) >= (int)sizeof tmp_path ||
            !(out.vf = fopen(tmp_path, "w"))) {
            mpb_cli_error(CMD, "--csv %s: cannot open %s for writing: %m", g->csv_path, tmp_path);
            tmp_path[0] = '\0';
            exit_code = MPB_EXIT_USAGE;
            goto done;
        }
    }
    if (out.vf && (fputs(verdict_columns, out.vf) < 0 || fflush(out.vf) != 0)) {
        mpb_cli_error(CMD, "--csv %s: write failed: %m", g->csv_path);
        exit_code = MPB_EXIT_RUNTIME;
        goto done;
    }
    struct mpb_plan meta_plan = {.ref = MPB_REF_MPFR, .ref_samples = g->ref_samples, .shard_count = 1};
    struct mpb_run_meta meta = {.run_id = run_id, .argc = g->argc, .argv = g->argv, .plan = &meta_plan,
                                .impl = runner.impl, .warmup = runner.warmup, .reps = runner.reps,
                                .dev = sink.ctx.dev};
    mpb_utc_now(meta.started_utc, sizeof meta.started_utc);
    if (!write_sidecars(g, &meta)) {
        exit_code = MPB_EXIT_RUNTIME;
        goto done;
    }
    if (g->csv_path || g->cases_path)
        mpb_env_header(stdout, meta.dev);
    if (devices) {
        struct mpb_grade_devices d = {.cfgs = cfgs, .n_cfgs = n_cfgs, .shapes = shapes, .n_shapes = n_shapes,
                                      .seeds = (int)g->seeds, .argc = g->argc, .argv = g->argv, .run_id = run_id,
                                      .devices = g->devices, .n_devices = g->n_devices,
                                      .devices_all = g->devices_all, .cases_csv = sink.csv,
                                      .cases_path = g->cases_path, .show_progress = sink.show,
                                      .verdicts = verdicts, .on_config = verdict_done, .ctx = &out, .gpus = gpus};
        if ((exit_code = mpb_grade_devices_run(&d)) != MPB_EXIT_OK)
            goto done;
        io_failed = d.io_failed;
        meta.dev = d.n_gpus ? &gpus[0] : NULL;
        meta.devices = gpus;
        meta.n_devices = d.n_gpus;
    } else {
        struct mpb_grade_options opt = {.shapes = shapes, .n_shapes = n_shapes, .seeds = (int)g->seeds,
                                        .ref_samples = g->ref_samples, .runner = &runner, .on_case = on_case,
                                        .ctx = &sink};
        clock_gettime(CLOCK_MONOTONIC, &sink.t0);
        if ((n_done = grade_here(g, &opt, &sink, &out, n_cfgs, verdicts)) < 0) {
            exit_code = MPB_EXIT_RUNTIME;
            goto done;
        }
        io_failed = sink.io_failed || out.failed;
    }
    mpb_grade_print_table(stdout, cfgs, verdicts, n_done);
    for (int i = 0; i < n_done; i++)
        meta.cases_run += (int)verdicts[i].cases;
    meta.cases_total = meta.cases_this_shard = meta.cases_run;
    mpb_utc_now(meta.finished_utc, sizeof meta.finished_utc);
    if (!write_sidecars(g, &meta)) {
        exit_code = MPB_EXIT_RUNTIME;
        goto done;
    }
    exit_code = io_failed ? MPB_EXIT_RUNTIME : mpb_grade_exit_code(verdicts, n_done);
    finished = !io_failed;
done:
    if (out.vf && fclose(out.vf) != 0) {
        mpb_cli_error(CMD, "--csv %s: write failed: %m", tmp_path);
        finished = false;
        if (exit_code == MPB_EXIT_OK)
            exit_code = MPB_EXIT_RUNTIME;
    }
    if (tmp_path[0] && finished && rename(tmp_path, g->csv_path) != 0) {
        mpb_cli_error(CMD, "--csv %s: cannot rename %s over it: %m", g->csv_path, tmp_path);
        finished = false;
        if (exit_code == MPB_EXIT_OK)
            exit_code = MPB_EXIT_RUNTIME;
    }
    if (tmp_path[0] && !finished)
        unlink(tmp_path);
    if (sink.csv && !mpb_csv_close(sink.csv) && exit_code == MPB_EXIT_OK)
        exit_code = MPB_EXIT_RUNTIME;
    return exit_code;
}

/* A grade --devices worker (grade_devices.h): the units the parent names on
 * stdin, each answered with its partial verdict and rows, until stdin ends
 * or the GPU fails for good. */
static int grade_worker(const struct grade_args *g, const struct mpb_grade_config *cfgs, int n_cfgs)
{
    struct mpb_cuda_env *env;
    struct mpb_device_info standin;
    if (!mpb_pool_worker_open(CMD, g->worker_device, &env, &standin))
        return MPB_EXIT_NOTHING_RAN;
    struct mpb_grade_shape shapes[MAX_SHAPES];
    int n_shapes = build_shapes(g, env != NULL, shapes), handed = 0, unit = MPB_POOL_END;
    struct mpb_runner runner = grade_runner(env, env != NULL);
    runner.node_shared = true; /* the node's other GPUs are the other workers' */
    struct case_sink sink = {.ctx = {.run_id = g->worker_run_id, .dev = env ? mpb_cuda_device(env) : &standin,
                                     .warmup = runner.warmup, .reps = runner.reps, .ref = "mpfr"}};
    struct mpb_grade_options opt = {.n_shapes = 1, .seeds = (int)g->seeds, .ref_samples = g->ref_samples,
                                    .runner = &runner, .on_case = on_case, .ctx = &sink};
    static struct mpb_verdict v;
    bool failed = !mpb_pool_send_device(stdout, sink.ctx.dev);
    while (!failed && (unit = mpb_pool_next_unit(CMD, n_cfgs * n_shapes, g->worker_device, &handed)) >= 0) {
        char *records = NULL, why[512];
        size_t records_len = 0;
        if (!(sink.records = open_memstream(&records, &records_len))) {
            mpb_cli_error(CMD, "--worker: open_memstream: %m");
            failed = true;
            break;
        }
        opt.shapes = &shapes[unit % n_shapes];
        if (!mpb_grade_run(&cfgs[unit / n_shapes], &opt, &v, why, sizeof why))
            mpb_grade_unit_lost(&v, &cfgs[unit / n_shapes], opt.shapes, opt.seeds, why);
        bool sticky = env && mpb_cuda_is_sticky(env);
        failed = fclose(sink.records) != 0 ||
                 !mpb_grade_send_unit(stdout, unit, sticky, &v, records, records_len) || sticky;
        free(records);
    }
    if (env)
        mpb_cuda_close(env);
    return failed || unit == MPB_POOL_BAD ? MPB_EXIT_RUNTIME : MPB_EXIT_OK;
}

static void free_args(struct grade_args *g)
{
    for (int s = 0; s < g->n_schemes; s++)
        for (int p = 0; p < MPB_MAX_PARAMS; p++)
            free(g->schemes[s].values[p]);
    free(g->schemes);
    free(g->sizes.v);
}

int mpb_cmd_grade(int argc, char **argv)
{
    struct grade_args g;
    enum mpb_parse_result parsed = parse_args(argc, argv, &g);
    int exit_code = MPB_EXIT_OK;
    if (parsed == MPB_PARSE_HELP) {
        help();
    } else if (parsed == MPB_PARSE_ERROR) {
        exit_code = MPB_EXIT_USAGE;
    } else {
        static struct mpb_grade_config cfgs[MAX_CONFIGS];
        static struct mpb_verdict verdicts[MAX_CONFIGS];
        int n_cfgs = build_configs(&g, cfgs, MAX_CONFIGS);
        struct mpb_cuda_env *env = NULL;
        /* a dry run with the backend named needs no device, as run's */
        bool named_dry_run = g.dry_run && g.backend != MPB_BACKEND_AUTO;
        bool devices = g.n_devices > 0 || g.devices_all;
        if (n_cfgs < 0)
            exit_code = MPB_EXIT_USAGE;
        else if (named_dry_run || (g.dry_run && devices))
            exit_code = dry_run(&g, g.backend == MPB_BACKEND_CUDA || (devices && !mpb_pool_standin()), cfgs, n_cfgs);
        else if (g.worker_device >= 0)
            exit_code = grade_worker(&g, cfgs, n_cfgs);
        else if (g.n_devices > 0 || g.devices_all) /* the workers open the GPUs */
            exit_code = grade_all(&g, NULL, cfgs, n_cfgs, verdicts);
        else if (mpb_cli_open_backend(CMD, g.backend, "grading", &env, &exit_code))
            exit_code = g.dry_run ? dry_run(&g, env != NULL, cfgs, n_cfgs) : grade_all(&g, env, cfgs, n_cfgs, verdicts);
        if (env)
            mpb_cuda_close(env);
    }
    free_args(&g);
    return exit_code;
}
