/* `mpbench tune`: choose a level (a scheme configuration) per GEMM of a
 * chain with moTuner's, MixPert's, exhaustive and PriorK strategies
 * (README "mpbench tune"). Options and the loop over chains, sizes,
 * thresholds and strategies here; the chains, levels, problem, cost file,
 * strategies and output in src/tune/. */
#include "commands.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "record/csv.h"
#include "record/meta.h"
#include "schemes/registry.h"
#include "case/runner.h"
#include "tune/chain.h"
#include "tune/chain_file.h"
#include "tune/cost.h"
#include "tune/level.h"
#include "tune/output.h"
#include "tune/problem.h"
#include "tune/strategy.h"

#define CMD "tune"
#define MAX_CHAINS 8
#define MAX_THRESHOLDS 16

_Static_assert(MPB_TUNE_PRIORK_RANKS == 16384, "--help and README quote PriorK's 16384");

static const char help_text[] =
"usage: mpbench tune -c CHAIN|FILE[,...] --size VALUES\n"
"                    --levels SCHEME[,SCHEME...] [-a KEY=VALUES]... [--levels ...]...\n"
"                    --threshold T[,T...] [--strategy S[,S...]] [--cost-model measured|FILE]\n"
"                    [--margin F] [--seed N] [--backend auto|cuda|host] [--reps N] [--warmup N]\n"
"                    [--exhaustive-limit N] [--csv FILE]\n"
"\n"
"Chooses a level for each GEMM of a chain so that the chain's output stays within\n"
"a threshold of the FP64 run of the same chain (same FP32 inputs, every GEMM a\n"
"dgemm, the elementwise steps in double) at the least predicted time; reports per\n"
"strategy the choice, its predicted and measured time against the all-sgemm chain,\n"
"its error, the tuning cost, and the choice validated on the inputs of seed + 1.\n"
"\n"
"  -c CHAIN|FILE[,...]  micro3, micro6, micro9: 3, 6, 9 dependent n x n x n GEMMs\n"
"                        (X_i = X_(i-1) W_i, moTuner's Micro); mlp3: a 3-layer MLP\n"
"                        forward pass (GEMM + bias + ReLU), batch and widths n;\n"
"                        cholesky: a blocked right-looking Cholesky of an SPD\n"
"                        n x n matrix (n a multiple of 4) in 4 block columns, its\n"
"                        3 trailing updates the GEMMs (HPL-AI), the solve with its\n"
"                        factor refined in FP64 and reported; FILE (a word with\n"
"                        a '/' or ending in .chain): a chain of your own, its\n"
"                        buffers and steps in a text file (README \"mpbench tune\")\n"
"  --size VALUES         n (VALUES as in run)\n"
"  --levels SCHEME[,...] FP32 schemes (mpbench list schemes); -a KEY=VALUES after it\n"
"                        sets a parameter of those schemes, a list makes one level\n"
"                        per value (--levels refine_fp16 -a tau=000,110); repeatable.\n"
"                        Levels are ranked by GEMM 1's error alone, least accurate\n"
"                        first: moTuner's repair and MixPert's steps move along it\n"
"  --threshold T[,...]   E1..E8 (moTuner's Table 3: E1-E4 fro_rel 5e-2, 5e-3, 5e-4,\n"
"                        5e-5; E5-E8 abs 100, 10, 1, 0.1) or VALUE:fro_rel or\n"
"                        VALUE:abs; fro_rel = ||X - X64||_F / ||X64||_F,\n"
"                        abs = max |X - X64|\n"
"  --strategy S[,...]    motuner (moTuner, Mo et al., CF 2022, Alg. 1), greedy\n"
"                        (MixPert's tuner, Lin et al., LCTES 2024, §3.4),\n"
"                        exhaustive (every configuration: refused above\n"
"                        --exhaustive-limit), priork (moTuner's PriorK: a random\n"
"                        pick of the fastest 1% of the combinations of per-GEMM\n"
"                        acceptable levels, at most of the fastest 16384)\n"
"                        (default motuner,greedy,priork)\n"
"  --cost-model M        what a GEMM under a level costs, which the strategies\n"
"                        minimise: measured (default): timed on this backend (on\n"
"                        host these are the host models' times, which say nothing\n"
"                        about GPU speed); FILE: time_ms_median of an mpbench run\n"
"                        CSV (say a GPU sweep) with the level's scheme and params\n"
"                        and the GEMM's m, n, k, every level and sgemm needed,\n"
"                        once (the file is refused with FILE:LINE otherwise)\n"
"  --margin F            tune to F x the threshold, 0 < F <= 1 (default 1): headroom\n"
"                        for other inputs; validation still checks the threshold\n"
"  --seed N              the inputs' seed (default 1); N + 1 validates\n"
"  --backend B           cuda, host, or auto (default)\n"
"  --reps N, --warmup N  timed and untimed calls per GEMM on the GPU (default 10, 3)\n"
"  --exhaustive-limit N  most configurations exhaustive visits (default 20000)\n"
"  --csv FILE            one row per chain, size, threshold and strategy, and\n"
"                        FILE.meta.json (README \"mpbench tune\"); locked as run\n"
"                        locks its CSV\n"
"\n"
"The measured time of a chain is the sum of its GEMMs' times (elementwise steps\n"
"untimed). LU chains and FP64 levels are not built yet.\n"
"A failure (a GEMM that cannot run, a cost missing from FILE) is a row with\n"
"status error and its note, and the run goes on; a sticky CUDA error ends it.\n"
"Before anything is allocated, each chain at each size is checked against the\n"
"memory available (host, and GPU); one too large is refused with the figure.\n"
"Exit: 0 ok; 2 usage error; 3 a row with status error, or an I/O or sticky\n"
"CUDA error; 77 no GPU with --backend cuda, or a chain too large for this\n"
"machine's memory.";

static void help(void)
{
    puts(help_text);
}

struct threshold {
    char text[48];
    enum mpb_tune_metric metric;
    double value;
};

struct tune_args {
    char *chains[MAX_CHAINS];
    int n_chains;
    struct mpb_int_list sizes;
    struct mpb_selection *levels;
    int n_level_sel, last_first;
    struct threshold th[MAX_THRESHOLDS];
    int n_th;
    int strategies[MPB_TUNE_STRATEGY_COUNT], n_strategies;
    const char *cost_path; /* NULL: measured */
    long seed, reps, warmup;
    double margin; /* the strategies tune to margin x the threshold */
    struct mpb_tune_options opt;
    enum mpb_backend_choice backend;
    const char *csv_path;
    char *chain_text; /* -c's copy, which chains[] point into */
    const char *chain_text_given; /* -c as typed */
    struct mpb_tune_chain_file files[MAX_CHAINS]; /* chains[c]'s description where it is a FILE */
    int argc;
    char **argv;
};

/* moTuner's error categories (Mo et al., CF 2022, Table 3). */
static const struct threshold categories[] = {
    {"E1", MPB_TUNE_FRO_REL, 5e-2}, {"E2", MPB_TUNE_FRO_REL, 5e-3}, {"E3", MPB_TUNE_FRO_REL, 5e-4},
    {"E4", MPB_TUNE_FRO_REL, 5e-5}, {"E5", MPB_TUNE_ABS, 100},      {"E6", MPB_TUNE_ABS, 10},
    {"E7", MPB_TUNE_ABS, 1},        {"E8", MPB_TUNE_ABS, 0.1},
};

static bool parse_thresholds(const char *text, struct tune_args *t)
{
    char *copy = strdup(text);
    bool ok = copy != NULL;
    for (char *p = copy, *item; ok && (item = strsep(&p, ",")) != NULL;) {
        struct threshold th = {0};
        const char *colon = strchr(item, ':');
        char *end;
        bool known = false;
        for (size_t c = 0; c < sizeof categories / sizeof *categories && !known; c++)
            if (!strcmp(item, categories[c].text))
                th = categories[c], known = true;
        if (!known && colon) {
            th.value = strtod(item, &end);
            int metric = -1;
            for (int m = 0; mpb_tune_metric_names[m]; m++)
                if (!strcmp(colon + 1, mpb_tune_metric_names[m]))
                    metric = m;
            known = end == colon && end != item && th.value > 0 && isfinite(th.value) && metric >= 0;
            th.metric = (enum mpb_tune_metric)metric;
            snprintf(th.text, sizeof th.text, "%s", item);
        }
        if (!known || t->n_th == MAX_THRESHOLDS) {
            mpb_cli_error(CMD, "--threshold '%s': expected E1..E8 or VALUE:fro_rel or VALUE:abs with a positive "
                          "VALUE (at most %d thresholds)", item, MAX_THRESHOLDS);
            ok = false;
        } else {
            t->th[t->n_th++] = th;
        }
    }
    free(copy);
    return ok;
}

static bool parse_strategies(const char *text, struct tune_args *t)
{
    char *copy = strdup(text);
    bool ok = copy != NULL;
    t->n_strategies = 0;
    for (char *p = copy, *item; ok && (item = strsep(&p, ",")) != NULL;) {
        int s;
        ok = mpb_cli_choice(CMD, "--strategy", item, mpb_tune_strategy_words, &s);
        for (int i = 0; ok && i < t->n_strategies; i++)
            if (t->strategies[i] == s) {
                mpb_cli_error(CMD, "--strategy '%s': %s is given twice", text, item);
                ok = false;
            }
        if (ok)
            t->strategies[t->n_strategies++] = s;
    }
    free(copy);
    return ok;
}

static bool parse_chains(const char *text, struct tune_args *t)
{
    t->chain_text = strdup(text);
    t->n_chains = 0;
    bool ok = t->chain_text != NULL;
    for (char *p = t->chain_text, *item; ok && (item = strsep(&p, ",")) != NULL;) {
        char why[1024];
        int c;
        if (t->n_chains == MAX_CHAINS) {
            mpb_cli_error(CMD, "-c '%s': more than %d chains", text, MAX_CHAINS);
            ok = false;
        } else if (!mpb_tune_chain_file_word(item)) {
            ok = mpb_cli_choice(CMD, "-c", item, mpb_tune_chain_names, &c);
        } else if (!mpb_tune_chain_file_load(item, &t->files[t->n_chains], why, sizeof why)) {
            mpb_cli_error(CMD, "-c %s", why); /* why names the file */
            ok = false;
        }
        if (ok)
            t->chains[t->n_chains++] = item;
    }
    return ok;
}

static bool parse_option(int argc, char **argv, int *i, struct tune_args *t)
{
    const char *val;
    long n;
    int word;
    if ((val = mpb_cli_value(CMD, argc, argv, i, "-c"))) {
        if (t->chain_text_given) { /* the long options' repeats are refused in main.c */
            mpb_cli_error(CMD, "-c is given twice ('%s', then '%s'): give it once (several chains go in one comma "
                          "list); a second one would replace the first", t->chain_text_given, val);
            return false;
        }
        t->chain_text_given = val;
        return *val && parse_chains(val, t);
    }
    if ((val = mpb_cli_value(CMD, argc, argv, i, "--levels")))
        return *val && mpb_cli_add_selections(CMD, "--levels", val, true, &t->levels, &t->n_level_sel, &t->last_first);
    if ((val = mpb_cli_value(CMD, argc, argv, i, "-a"))) {
        if (!*val)
            return false;
        if (t->n_level_sel == 0) {
            mpb_cli_error(CMD, "-a %s: give --levels SCHEME before its -a", val);
            return false;
        }
        for (int s = t->last_first; s < t->n_level_sel; s++)
            if (!mpb_cli_apply_arg(CMD, val, &t->levels[s]))
                return false;
        return true;
    }
    const char *size_name;
    if ((val = mpb_cli_size_value(CMD, argc, argv, i, &size_name)))
        return *val && mpb_cli_int_list(CMD, size_name, val, 1, 1 << 16, &t->sizes);
    if ((val = mpb_cli_value(CMD, argc, argv, i, "--threshold")))
        return *val && parse_thresholds(val, t);
    if ((val = mpb_cli_value(CMD, argc, argv, i, "--strategy")))
        return *val && parse_strategies(val, t);
    if ((val = mpb_cli_value(CMD, argc, argv, i, "--cost-model"))) {
        t->cost_path = strcmp(val, "measured") ? val : NULL;
        return *val != '\0';
    }
    if ((val = mpb_cli_value(CMD, argc, argv, i, "--margin"))) {
        char *end;
        t->margin = strtod(val, &end);
        if (!*val || *end || !(t->margin > 0 && t->margin <= 1)) {
            mpb_cli_error(CMD, "--margin '%s': expected a number F with 0 < F <= 1 (the strategies tune to F x "
                          "the threshold)", val);
            return false;
        }
        return true;
    }
    if ((val = mpb_cli_value(CMD, argc, argv, i, "--seed"))) {
        if (!*val || !mpb_cli_int(CMD, "--seed", val, 0, (1L << 53) - 1, &n))
            return false;
        t->seed = n;
        return true;
    }
    if ((val = mpb_cli_value(CMD, argc, argv, i, "--reps")))
        return *val && mpb_cli_int(CMD, "--reps", val, 1, 100000, &t->reps);
    if ((val = mpb_cli_value(CMD, argc, argv, i, "--warmup")))
        return *val && mpb_cli_int(CMD, "--warmup", val, 0, 100000, &t->warmup);
    if ((val = mpb_cli_value(CMD, argc, argv, i, "--exhaustive-limit"))) {
        if (!*val || !mpb_cli_int(CMD, "--exhaustive-limit", val, 1, 100000000, &n))
            return false;
        t->opt.exhaustive_limit = n;
        return true;
    }
    if ((val = mpb_cli_value(CMD, argc, argv, i, "--backend"))) {
        if (!*val || !mpb_cli_choice(CMD, "--backend", val, mpb_backend_words, &word))
            return false;
        t->backend = (enum mpb_backend_choice)word;
        return true;
    }
    if ((val = mpb_cli_value(CMD, argc, argv, i, "--csv"))) {
        t->csv_path = val;
        return *val != '\0';
    }
    mpb_cli_unknown_option(CMD, argv[*i], help_text);
    return false;
}

/* Chain c of -c at n = size: its file's description or a chain.c name. */
static bool build_chain(const struct tune_args *t, int c, int64_t size, struct mpb_tune_chain *chain, char *why,
                        size_t why_len)
{
    return mpb_tune_chain_file_word(t->chains[c]) ? mpb_tune_chain_file_build(&t->files[c], size, chain, why, why_len)
                                                 : mpb_tune_chain_build(t->chains[c], size, chain, why, why_len);
}

/* What is missing or cannot run, said before anything runs. */
static bool check_args(struct tune_args *t, struct mpb_tune_level *levels, int *n_levels)
{
    const char *missing = !t->n_chains ? "-c CHAIN" : !t->sizes.n ? "--size VALUES"
                        : !t->n_level_sel ? "--levels SCHEME" : !t->n_th ? "--threshold T" : NULL;
    if (missing) {
        mpb_cli_error(CMD, "no %s given (mpbench tune --help)", missing);
        return false;
    }
    char why[512];
    *n_levels = mpb_tune_levels_expand(t->levels, t->n_level_sel, levels, MPB_TUNE_MAX_LEVELS, why, sizeof why);
    if (*n_levels < 0) {
        mpb_cli_error(CMD, "%s", why);
        return false;
    }
    for (int c = 0; c < t->n_chains; c++) {
        struct mpb_tune_chain chain;
        for (int z = 0; z < t->sizes.n; z++)
            if (!build_chain(t, c, t->sizes.v[z], &chain, why, sizeof why)) {
                mpb_cli_error(CMD, "-c %s --size %lld: %s", t->chains[c], (long long)t->sizes.v[z], why);
                return false;
            }
        for (int s = 0; s < t->n_strategies; s++)
            if (!mpb_tune_feasible((enum mpb_tune_strategy)t->strategies[s], chain.n_ops, *n_levels, &t->opt, why,
                                   sizeof why)) {
                mpb_cli_error(CMD, "--strategy exhaustive on %s: %s", chain.name, why);
                return false;
            }
    }
    return true;
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- one chain at one size ---------------------------------------------- */

struct session {
    const struct tune_args *args;
    struct mpb_tune_exec exec;
    const char *impl, *gpu_name, *cost_model;
    struct mpb_tune_costs costs; /* --cost-model FILE */
    struct mpb_tune_level sgemm;
    FILE *csv;
    char run_id[48];
    struct mpb_run_meta *meta; /* rows per status, and whether a sticky error ended the run */
};

/* Levels ranked from the least accurate: by GEMM 1's fro_rel error alone,
 * larger first; equal errors keep the command-line order. */
static bool rank_levels(struct mpb_tune_chain_run *r, const struct mpb_tune_level *given, int n,
                        struct mpb_tune_level *ranked, double *err, char *why, size_t why_len)
{
    double e[MPB_TUNE_MAX_LEVELS];
    r->levels = given;
    r->metric = MPB_TUNE_FRO_REL;
    for (int l = 0; l < n; l++)
        if (!mpb_tune_chain_run_standalone(r, 0, l, &e[l], why, why_len))
            return false;
    int order[MPB_TUNE_MAX_LEVELS];
    for (int l = 0; l < n; l++) {
        int j = l;
        for (; j > 0 && e[order[j - 1]] < e[l]; j--)
            order[j] = order[j - 1];
        order[j] = l;
    }
    for (int l = 0; l < n; l++) {
        ranked[l] = given[order[l]];
        err[l] = e[order[l]];
    }
    r->levels = ranked;
    return true;
}

/* The predicted time of op i under level l; ops of one shape share one
 * measurement. */
static bool op_cost(struct session *s, struct mpb_tune_chain_run *r, const struct mpb_tune_level *level, int op,
                    double *ms, char *why, size_t why_len)
{
    const struct mpb_tune_chain *c = r->chain;
    const struct mpb_tune_step *st = &c->steps[c->gemm_step[op]];
    int64_t m = c->buffers[st->out].rows, n = c->buffers[st->out].cols, k = c->buffers[st->a].cols;
    if (s->args->cost_path)
        return mpb_tune_costs_find(&s->costs, level, m, n, k, ms, why, why_len);
    return mpb_tune_chain_run_profile(r, level, op, ms, why, why_len);
}

static bool fill_costs(struct session *s, struct mpb_tune_chain_run *r, struct mpb_tune_problem *p,
                       const struct mpb_tune_level *ranked, int n_levels, double *baseline, char *why, size_t why_len)
{
    const struct mpb_tune_chain *c = r->chain;
    /* The baseline's GEMMs cost what the table says sgemm costs when sgemm is
     * a level: one profile per level and shape, so that a choice of all
     * sgemm predicts exactly the baseline's time. */
    int sgemm_level = -1;
    for (int l = 0; l < n_levels; l++)
        if (strcmp(ranked[l].name, s->sgemm.name) == 0)
            sgemm_level = l;
    double sg[MPB_TUNE_MAX_OPS];
    *baseline = 0;
    for (int i = 0; i < c->n_ops; i++) {
        int same = -1; /* an earlier op of the same shape */
        const struct mpb_tune_step *st = &c->steps[c->gemm_step[i]];
        for (int j = 0; j < i && same < 0; j++) {
            const struct mpb_tune_step *sj = &c->steps[c->gemm_step[j]];
            if (c->buffers[sj->out].rows == c->buffers[st->out].rows &&
                c->buffers[sj->out].cols == c->buffers[st->out].cols && c->buffers[sj->a].cols == c->buffers[st->a].cols)
                same = j;
        }
        for (int l = 0; l < n_levels; l++)
            if (same >= 0)
                p->cost[i][l] = p->cost[same][l];
            else if (!op_cost(s, r, &ranked[l], i, &p->cost[i][l], why, why_len))
                return false;
        if (sgemm_level >= 0)
            sg[i] = p->cost[i][sgemm_level];
        else if (same >= 0)
            sg[i] = sg[same];
        else if (!op_cost(s, r, &s->sgemm, i, &sg[i], why, why_len))
            return false;
        *baseline += sg[i];
    }
    return true;
}

/* The row, the table line and, for a failure, a line on stderr (stdout may
 * be a pipe that nobody reads); false when the CSV cannot be written. */
static bool write_row(struct session *s, struct mpb_tune_row *row)
{
    mpb_tune_print_row(row);
    s->meta->status_counts[row->ok ? MPB_STATUS_OK : MPB_STATUS_ERROR]++;
    if (!row->ok)
        mpb_cli_error(CMD, "error: %s at n = %lld, %s, %s: %s", row->chain->name, (long long)row->chain->size,
                      row->threshold, mpb_tune_strategy_words[row->strategy], row->note);
    if (s->csv && !mpb_tune_csv_row(s->csv, row)) {
        mpb_cli_error(CMD, "--csv %s: write failed: %m", s->args->csv_path);
        return false;
    }
    return true;
}

/* A row before its strategy ran: what the chain and threshold say. */
static struct mpb_tune_row row_start(const struct session *s, const struct mpb_tune_chain *c,
                                     const struct mpb_tune_level *levels, int n_levels, int h, int k)
{
    const struct tune_args *t = s->args;
    return (struct mpb_tune_row){.run_id = s->run_id, .impl = s->impl, .gpu_name = s->gpu_name,
                                 .cost_model = s->cost_model, .chain = c, .levels = levels, .n_levels = n_levels,
                                 .threshold = t->th[h].text, .metric = t->th[h].metric,
                                 .threshold_value = t->th[h].value, .margin = t->margin,
                                 .strategy = (enum mpb_tune_strategy)t->strategies[k],
                                 .baseline_predicted_ms = NAN, .baseline_measured_ms = NAN, .measured_ms = NAN,
                                 .optimum_predicted_ms = NAN, .seed = (uint64_t)t->seed,
                                 .valid_seed = (uint64_t)t->seed + 1, .valid_err = NAN, .tune_s = NAN,
                                 .ir = {.iterations = -1}};
}

/* A chain that failed before any strategy ran (its reference, a level's
 * profile, a cost missing from the file): an error row for each threshold
 * and strategy, so that the CSV says what did not run. */
static bool failed_chain(struct session *s, const struct mpb_tune_chain *c, const struct mpb_tune_level *given,
                         int n_levels, const char *why)
{
    const struct tune_args *t = s->args;
    bool written = true;
    mpb_tune_print_failed(c);
    for (int h = 0; h < t->n_th; h++)
        for (int k = 0; k < t->n_strategies; k++) {
            struct mpb_tune_row row = row_start(s, c, given, n_levels, h, k);
            snprintf(row.note, sizeof row.note, "%s", why);
            written = write_row(s, &row) && written;
        }
    return written;
}

/* Whether the run can go on: a sticky CUDA error has left the context unusable. */
static bool usable(const struct session *s)
{
    if (s->exec.env && mpb_cuda_is_sticky(s->exec.env)) {
        s->meta->interrupted = true;
        return false;
    }
    return true;
}

/* Every threshold and strategy on one chain; a failure is a row and the
 * run goes on. false when it cannot: the CSV cannot be written, or a sticky
 * CUDA error. */
static bool tune_chain(struct session *s, const struct mpb_tune_chain *c, const struct mpb_tune_level *given,
                       int n_levels)
{
    const struct tune_args *t = s->args;
    struct mpb_tune_chain_run run, valid;
    struct mpb_tune_level ranked[MPB_TUNE_MAX_LEVELS];
    struct mpb_tune_problem p = {.n_ops = c->n_ops, .n_levels = n_levels, .evaluate = mpb_tune_chain_run_evaluate,
                                 .standalone = mpb_tune_chain_run_standalone, .ctx = &run};
    double op0_err[MPB_TUNE_MAX_LEVELS], baseline_pred, baseline_meas, baseline_err;
    char why[sizeof ((struct mpb_tune_row *)0)->note] = "";
    const struct mpb_tune_level *per_op[MPB_TUNE_MAX_OPS];
    memset(&valid, 0, sizeof valid);
    bool ok = mpb_tune_chain_run_open(&run, c, given, &s->exec, MPB_TUNE_FRO_REL, (uint64_t)t->seed, why, sizeof why) &&
              mpb_tune_chain_run_open(&valid, c, ranked, &s->exec, MPB_TUNE_FRO_REL, (uint64_t)t->seed + 1, why,
                                      sizeof why) &&
              rank_levels(&run, given, n_levels, ranked, op0_err, why, sizeof why) &&
              fill_costs(s, &run, &p, ranked, n_levels, &baseline_pred, why, sizeof why);
    for (int i = 0; i < c->n_ops; i++)
        per_op[i] = &s->sgemm;
    ok = ok && mpb_tune_chain_run_time(&run, per_op, &baseline_meas, &baseline_err, why, sizeof why);
    if (!ok) {
        mpb_tune_states_release(&s->exec);
        mpb_tune_chain_run_close(&run);
        mpb_tune_chain_run_close(&valid);
        return failed_chain(s, c, given, n_levels, why) && usable(s);
    }
    mpb_tune_chain_deps(c, p.related, p.pred);
    mpb_tune_print_levels(c, ranked, n_levels, op0_err, (const double(*)[MPB_TUNE_MAX_LEVELS])p.cost, baseline_pred,
                          s->cost_model);
    bool go_on = true;
    for (int h = 0; go_on && h < t->n_th; h++) {
        struct mpb_tune_row rows[MPB_TUNE_STRATEGY_COUNT];
        double optimum = NAN;
        run.metric = valid.metric = t->th[h].metric;
        p.threshold = t->th[h].value * t->margin;
        int ran = 0;
        for (int k = 0; k < t->n_strategies && go_on; k++, ran++) {
            struct mpb_tune_row *row = &rows[k];
            *row = row_start(s, c, ranked, n_levels, h, k);
            row->baseline_predicted_ms = baseline_pred;
            row->baseline_measured_ms = baseline_meas;
            /* Every strategy starts from nothing computed: its runs count all it needs. */
            memset(run.cached, 0, sizeof run.cached);
            double t0 = seconds_now(), err, vals[MPB_TUNE_MAX_OPS];
            int gemms;
            row->ok = mpb_tune_run(row->strategy, &p, &t->opt, &row->choice, row->note, sizeof row->note);
            row->tune_s = seconds_now() - t0;
            if (row->ok) {
                memcpy(row->note, row->choice.note, sizeof row->choice.note);
                for (int i = 0; i < c->n_ops; i++)
                    per_op[i] = &ranked[row->choice.levels[i]];
                row->ok = mpb_tune_chain_run_time(&run, per_op, &row->measured_ms, &err, why, sizeof why) &&
                          (!c->factor.blocks || mpb_tune_chain_run_refine(&run, &row->ir, why, sizeof why)) &&
                          mpb_tune_chain_run_evaluate(&valid, row->choice.levels, c->n_ops - 1, vals, &row->valid_err,
                                                      &gemms, why, sizeof why);
                if (!row->ok)
                    snprintf(row->note, sizeof row->note, "%s", why);
            }
            if (row->ok && row->strategy == MPB_TUNE_EXHAUSTIVE && row->choice.met)
                optimum = row->choice.predicted;
            go_on = row->ok || usable(s);
        }
        for (int k = 0; k < ran; k++) {
            rows[k].optimum_predicted_ms = optimum;
            if (!write_row(s, &rows[k]))
                go_on = false;
        }
    }
    mpb_tune_states_release(&s->exec); /* before the buffers the kept states bind go */
    mpb_tune_chain_run_close(&run);
    mpb_tune_chain_run_close(&valid);
    return go_on;
}

/* ---- the command -------------------------------------------------------- */

/* Every chain at every size fits the host's and the GPU's memory as it is
 * now, checked before the first allocation (as run checks each case); false
 * after a message with the figures. */
static bool memory_fits(const struct tune_args *t, struct mpb_cuda_env *env, const struct mpb_tune_level *levels,
                        int n_levels)
{
    size_t avail_host = mpb_host_memory_available(), avail_dev = SIZE_MAX, total_dev;
    if (env && mpb_cuda_mem_info(env, &avail_dev, &total_dev) != MPB_STATUS_OK)
        avail_dev = SIZE_MAX; /* cannot tell: cudaMalloc decides */
    for (int c = 0; c < t->n_chains; c++)
        for (int z = 0; z < t->sizes.n; z++) {
            struct mpb_tune_chain chain;
            char why[512], need[64], have[64];
            size_t host, dev;
            build_chain(t, c, t->sizes.v[z], &chain, why, sizeof why); /* check_args built it */
            mpb_tune_chain_memory(&chain, levels, n_levels, env != NULL, &host, &dev);
            bool on_host = host > avail_host;
            if (!on_host && dev <= avail_dev)
                continue;
            mpb_format_bytes(need, sizeof need, on_host ? host : dev, true);
            mpb_format_bytes(have, sizeof have, on_host ? avail_host : avail_dev, true);
            mpb_cli_error(CMD, "-c %s --size %lld: too large for this machine: tuning it needs %s of %s memory (two "
                          "runs of the chain in FP32 and FP64, each GEMM's operands alone, the largest workspace), "
                          "%s %s; nothing ran", t->chains[c], (long long)t->sizes.v[z], need,
                          on_host ? "host" : "device", have, on_host ? "available (MemAvailable)" : "free (cudaMemGetInfo)");
            return false;
        }
    return true;
}

static int tune_all(struct tune_args *t, struct mpb_cuda_env *env, const struct mpb_tune_level *levels, int n_levels)
{
    struct session s = {.args = t,
                        .exec = {.env = env, .warmup = (int)t->warmup, .reps = (int)t->reps,
                                 .states = env ? mpb_tune_states_new() : NULL},
                        .impl = env ? "cuda" : "host", .gpu_name = env ? mpb_cuda_device(env)->name : "",
                        .cost_model = t->cost_path ? t->cost_path : "measured"};
    char why[768];
    mpb_tune_level_default(mpb_scheme_find("sgemm"), &s.sgemm);
    mpb_make_run_id(s.run_id, sizeof s.run_id);
    if (t->cost_path && !mpb_tune_costs_load(t->cost_path, &s.costs, why, sizeof why)) {
        mpb_cli_error(CMD, "%s", why);
        mpb_tune_states_free(&s.exec);
        return MPB_EXIT_USAGE;
    }
    if (!memory_fits(t, env, levels, n_levels)) {
        mpb_tune_costs_free(&s.costs);
        mpb_tune_states_free(&s.exec);
        return MPB_EXIT_NOTHING_RAN;
    }
    if (!t->cost_path && !env)
        fprintf(stderr, "mpbench tune: note [cost-host]: the measured cost model on the host backend times the host "
                        "models, which says nothing about GPU speed (--cost-model FILE takes a GPU sweep's times)\n");
    struct mpb_plan meta_plan = {.shard_count = 1, .ref = MPB_REF_NONE};
    struct mpb_run_meta meta = {.run_id = s.run_id, .argc = t->argc, .argv = t->argv, .plan = &meta_plan,
                                .impl = env ? MPB_IMPL_CUDA : MPB_IMPL_HOST, .warmup = s.exec.warmup,
                                .reps = s.exec.reps, .dev = env ? mpb_cuda_device(env) : NULL};
    char meta_path[4096];
    int exit_code = MPB_EXIT_OK, lock_fd = -1;
    mpb_utc_now(meta.started_utc, sizeof meta.started_utc);
    if (t->csv_path) {
        /* locked as run locks its CSV (csv.h), before it is truncated */
        snprintf(meta_path, sizeof meta_path, "%s.meta.json", t->csv_path);
        bool ok = mpb_meta_check(meta_path, why, sizeof why) &&
                  (lock_fd = mpb_csv_lock(t->csv_path, why, sizeof why)) >= 0;
        if (ok && !((s.csv = fopen(t->csv_path, "w")) && mpb_tune_csv_header(s.csv))) {
            snprintf(why, sizeof why, "cannot write %s: %s", t->csv_path, strerror(errno));
            ok = false;
        }
        if (!ok) {
            mpb_cli_error(CMD, "--csv %s: %s", t->csv_path, why);
            if (s.csv)
                fclose(s.csv);
            if (lock_fd >= 0)
                close(lock_fd);
            mpb_tune_costs_free(&s.costs);
            mpb_tune_states_free(&s.exec);
            return MPB_EXIT_USAGE;
        }
    }
    s.meta = &meta;
    bool go_on = true;
    for (int c = 0; c < t->n_chains && go_on; c++)
        for (int z = 0; z < t->sizes.n && go_on; z++) {
            struct mpb_tune_chain chain;
            build_chain(t, c, t->sizes.v[z], &chain, why, sizeof why); /* check_args built it */
            go_on = tune_chain(&s, &chain, levels, n_levels);
            meta.cases_run++;
        }
    if (!go_on || meta.status_counts[MPB_STATUS_ERROR])
        exit_code = MPB_EXIT_RUNTIME;
    meta.cases_total = meta.cases_this_shard = t->n_chains * t->sizes.n;
    mpb_utc_now(meta.finished_utc, sizeof meta.finished_utc);
    if (s.csv && (fclose(s.csv) != 0 || !mpb_meta_write(meta_path, "", &meta))) {
        mpb_cli_error(CMD, "--csv %s: write failed: %m", t->csv_path);
        exit_code = MPB_EXIT_RUNTIME;
    }
    if (lock_fd >= 0)
        close(lock_fd); /* releases the lock */
    mpb_tune_costs_free(&s.costs);
    mpb_tune_states_free(&s.exec);
    return exit_code;
}

static void free_args(struct tune_args *t)
{
    for (int s = 0; s < t->n_level_sel; s++)
        for (int p = 0; p < MPB_MAX_PARAMS; p++)
            free(t->levels[s].values[p]);
    free(t->levels);
    free(t->sizes.v);
    free(t->chain_text);
}

int mpb_cmd_tune(int argc, char **argv)
{
    struct tune_args t = {.seed = 1, .reps = 10, .warmup = 3, .margin = 1, .opt = {.exhaustive_limit = 20000},
                          .n_strategies = 3, .strategies = {MPB_TUNE_MOTUNER, MPB_TUNE_GREEDY, MPB_TUNE_PRIORK},
                          .argc = argc, .argv = argv};
    static struct mpb_tune_level levels[MPB_TUNE_MAX_LEVELS];
    int n_levels = 0, exit_code = MPB_EXIT_USAGE;
    bool parsed = true, asked_help = false;
    for (int i = 1; i < argc && parsed && !asked_help; i++) {
        asked_help = !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help");
        parsed = asked_help || parse_option(argc, argv, &i, &t);
    }
    if (asked_help) {
        help();
        exit_code = MPB_EXIT_OK;
    } else if (parsed && check_args(&t, levels, &n_levels)) {
        struct mpb_cuda_env *env = NULL;
        t.opt.seed = (uint64_t)t.seed;
        if (mpb_cli_open_backend(CMD, t.backend, "tuning on", &env, &exit_code))
            exit_code = tune_all(&t, env, levels, n_levels);
        if (env)
            mpb_cuda_close(env);
    }
    free_args(&t);
    return exit_code;
}
