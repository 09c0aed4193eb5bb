/* The tune CSV and table (output.h). */
#include "tune/output.h"

#include <math.h>
#include <string.h>

#include "record/csv.h"
#include "record/version.h"

#define TUNE_COLUMNS(X)                                                                           \
    X(tune_schema_version) X(run_id) X(chain) X(size) X(gemms) X(impl) X(levels) X(threshold)     \
    X(metric) X(threshold_value) X(strategy) X(status) X(choice) X(choice_ranks) X(met) X(err)    \
    X(predicted_ms) X(baseline_predicted_ms) X(predicted_speedup) X(measured_ms)                  \
    X(baseline_measured_ms) X(measured_speedup) X(cost_model) X(optimum_predicted_ms)             \
    X(vs_optimum) X(seed) X(valid_seed) X(valid_err) X(valid_met) X(tune_chain_runs)              \
    X(tune_gemm_runs) X(tune_s) X(note) X(gpu_name) X(mpbench_version) X(git_sha) X(ir_iterations)   \
    X(ir_backward_err) X(ir_met) X(fp64_backward_err) X(margin)

bool mpb_tune_csv_header(FILE *f)
{
#define TUNE_NAME(name) #name ","
    static const char names[] = TUNE_COLUMNS(TUNE_NAME);
#undef TUNE_NAME
    fprintf(f, "%.*s\n", (int)sizeof names - 2, names);
    return fflush(f) == 0 && !ferror(f);
}

static void text(FILE *f, const char *s)
{
    mpb_csv_write_field(f, s);
    fputc(',', f);
}

static void number(FILE *f, double x)
{
    if (!isnan(x))
        fprintf(f, "%.17g", x);
    fputc(',', f);
}

static const char *yes_no(bool b)
{
    return b ? "yes" : "no";
}

/* "name;name;..." of the chosen level per GEMM, and their ranks. */
static void choice_text(const struct mpb_tune_row *r, char *names, size_t names_len, char *ranks, size_t ranks_len)
{
    size_t un = 0, ur = 0;
    names[0] = ranks[0] = '\0';
    for (int i = 0; i < r->chain->n_ops && r->ok; i++) {
        int l = r->choice.levels[i];
        un += (size_t)snprintf(names + un, un < names_len ? names_len - un : 0, "%s%s", i ? ";" : "", r->levels[l].name);
        ur += (size_t)snprintf(ranks + ur, ur < ranks_len ? ranks_len - ur : 0, "%s%d", i ? ";" : "", l);
    }
}

bool mpb_tune_csv_row(FILE *f, const struct mpb_tune_row *r)
{
    char names[4096], ranks[256], levels[4096] = "";
    size_t used = 0;
    for (int l = 0; l < r->n_levels && used < sizeof levels; l++)
        used += (size_t)snprintf(levels + used, sizeof levels - used, "%s%s", l ? ";" : "", r->levels[l].name);
    choice_text(r, names, sizeof names, ranks, sizeof ranks);
    bool valid = r->ok && !isnan(r->valid_err);
    fprintf(f, "%d,", MPB_TUNE_CSV_SCHEMA_VERSION);
    text(f, r->run_id);
    text(f, r->chain->name);
    fprintf(f, "%lld,%d,", (long long)r->chain->size, r->chain->n_ops);
    text(f, r->impl);
    text(f, levels);
    text(f, r->threshold);
    text(f, mpb_tune_metric_names[r->metric]);
    number(f, r->threshold_value);
    text(f, mpb_tune_strategy_words[r->strategy]);
    text(f, r->ok ? "ok" : "error");
    text(f, names);
    text(f, ranks);
    text(f, r->ok ? yes_no(r->choice.met) : "");
    number(f, r->ok ? r->choice.out_err : NAN);
    number(f, r->ok ? r->choice.predicted : NAN);
    number(f, r->baseline_predicted_ms);
    number(f, r->ok ? r->baseline_predicted_ms / r->choice.predicted : NAN);
    number(f, r->measured_ms);
    number(f, r->baseline_measured_ms);
    number(f, r->baseline_measured_ms / r->measured_ms);
    text(f, r->cost_model);
    number(f, r->optimum_predicted_ms);
    number(f, r->ok ? r->optimum_predicted_ms / r->choice.predicted : NAN);
    fprintf(f, "%llu,%llu,", (unsigned long long)r->seed, (unsigned long long)r->valid_seed);
    number(f, valid ? r->valid_err : NAN);
    text(f, valid ? yes_no(r->valid_err <= r->threshold_value) : "");
    fprintf(f, "%ld,%ld,", r->choice.chain_runs, r->choice.gemm_runs);
    number(f, r->tune_s);
    text(f, r->note);
    text(f, r->gpu_name);
    text(f, MPB_VERSION);
    text(f, mpb_git_sha);
    bool ir = r->ok && r->ir.iterations >= 0;
    if (ir)
        fprintf(f, "%d,", r->ir.iterations);
    else
        fputc(',', f);
    number(f, ir ? r->ir.backward_err : NAN);
    text(f, ir ? yes_no(r->ir.backward_err <= r->ir.tolerance) : "");
    number(f, ir ? r->ir.fp64_backward_err : NAN);
    fprintf(f, "%.17g\n", r->margin);
    return fflush(f) == 0 && !ferror(f);
}

void mpb_tune_print_levels(const struct mpb_tune_chain *c, const struct mpb_tune_level *levels, int n_levels,
                           const double *op0_err, const double (*cost)[MPB_TUNE_MAX_LEVELS],
                           double baseline_ms, const char *cost_model)
{
    printf("\n%s at n = %lld: %d GEMMs; levels from the least accurate (rank 0), by GEMM 1's fro_rel error alone; "
           "cost of GEMM 1 (%s):\n", c->name, (long long)c->size, c->n_ops, cost_model);
    for (int l = 0; l < n_levels; l++)
        printf("  %2d  %-40s  err %-10.3g  %.4g ms\n", l, levels[l].name, op0_err[l], cost[0][l]);
    printf("  all-sgemm chain: %.4g ms predicted\n", baseline_ms);
    printf("  %-10s %-10s %-3s %-10s %-9s %-9s %-6s %-5s %-9s %s\n", "threshold", "strategy", "met", "err",
           "pred x", "meas x", "valid", "runs", "tune s", "choice (rank per GEMM)");
}

void mpb_tune_print_failed(const struct mpb_tune_chain *c)
{
    printf("\n%s at n = %lld: %d GEMMs; not tuned:\n", c->name, (long long)c->size, c->n_ops);
}

void mpb_tune_print_row(const struct mpb_tune_row *r)
{
    char names[4096], ranks[256];
    choice_text(r, names, sizeof names, ranks, sizeof ranks);
    if (!r->ok) {
        printf("  %-10s %-10s error: %s\n", r->threshold, mpb_tune_strategy_words[r->strategy], r->note);
        return;
    }
    printf("  %-10s %-10s %-3s %-10.3g %-9.3g %-9.3g %-6s %-5ld %-9.3g %s%s%s\n", r->threshold,
           mpb_tune_strategy_words[r->strategy], yes_no(r->choice.met), r->choice.out_err,
           r->baseline_predicted_ms / r->choice.predicted, r->baseline_measured_ms / r->measured_ms,
           isnan(r->valid_err) ? "-" : yes_no(r->valid_err <= r->threshold_value), r->choice.chain_runs, r->tune_s,
           ranks, r->note[0] ? "  note: " : "", r->note);
    if (r->ir.iterations >= 0)
        printf("  %-21s refined solve: backward error %.3g after %d steps (%s %.3g); FP64 factor %.3g\n", "",
               r->ir.backward_err, r->ir.iterations, r->ir.backward_err <= r->ir.tolerance ? "meets" : "misses",
               r->ir.tolerance, r->ir.fp64_backward_err);
}
