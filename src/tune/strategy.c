/* The four strategies of `mpbench tune` (strategy.h). */
#include "tune/strategy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcg32.h"

const char *const mpb_tune_strategy_words[] = {"motuner", "greedy", "exhaustive", "priork", NULL};

/* PriorK enumerates the combinations of acceptable levels: at most this many. */
#define PRIORK_MAX_COMBINATIONS (INT64_C(1) << 20)

int64_t mpb_tune_space(int n_ops, int n_levels)
{
    int64_t space = 1;
    for (int i = 0; i < n_ops; i++) {
        if (space > INT64_MAX / n_levels)
            return INT64_MAX;
        space *= n_levels;
    }
    return space;
}

bool mpb_tune_feasible(enum mpb_tune_strategy s, int n_ops, int n_levels,
                       const struct mpb_tune_options *o, char *why, size_t why_len)
{
    int64_t space = mpb_tune_space(n_ops, n_levels);
    if (s == MPB_TUNE_EXHAUSTIVE && space > o->exhaustive_limit) {
        snprintf(why, why_len, "exhaustive search of %d GEMMs under %d levels visits %d^%d = %lld "
                 "configurations, above --exhaustive-limit %lld (raise it, or use fewer levels)",
                 n_ops, n_levels, n_levels, n_ops, (long long)space, (long long)o->exhaustive_limit);
        return false;
    }
    return true;
}

/* One run of the chain (or of its first last + 1 ops), counted. */
static bool eval(const struct mpb_tune_problem *p, struct mpb_tune_choice *out, const int *levels,
                 int last, double *op_err, double *out_err, char *why, size_t why_len)
{
    int gemms = 0;
    if (!p->evaluate(p->ctx, levels, last, op_err, out_err, &gemms, why, why_len))
        return false;
    out->chain_runs++;
    out->gemm_runs += gemms;
    return true;
}

static double predicted(const struct mpb_tune_problem *p, const int *levels)
{
    double t = 0;
    for (int i = 0; i < p->n_ops; i++)
        t += p->cost[i][levels[i]];
    return t;
}

/* ---- moTuner, papers/003 Algorithm 1 ----------------------------------- */

/* repair_setting(R_i) (Alg. 1 lines 12 and 19-22, §3.2.2's example): in
 * round r every related op of `op` (itself included) goes to at least level
 * r, then one validation run; done when every tuned op 0..op (and with
 * `output` the chain output) meets the threshold. At most n_levels - 1
 * extra runs; false in *ok when even the top level for all of R_op misses. */
static bool repair(const struct mpb_tune_problem *p, struct mpb_tune_choice *out, int *levels, int op,
                   bool output, bool *ok, char *why, size_t why_len)
{
    double err[MPB_TUNE_MAX_OPS], out_err = 0;
    levels[op] = 0;
    for (int r = 1; r < p->n_levels; r++) {
        for (int j = 0; j <= op; j++)
            if ((p->related[op] >> j & 1) && levels[j] < r)
                levels[j] = r;
        if (!eval(p, out, levels, op, err, output ? &out_err : NULL, why, why_len))
            return false;
        *ok = !output || out_err <= p->threshold;
        for (int j = 0; j <= op; j++)
            *ok = *ok && err[j] <= p->threshold;
        if (output)
            out->out_err = out_err;
        if (*ok)
            return true;
    }
    return true;
}

static bool motuner(const struct mpb_tune_problem *p, struct mpb_tune_choice *out, char *why, size_t why_len)
{
    int top = p->n_levels - 1, *lv = out->levels;
    double err[MPB_TUNE_MAX_OPS];
    bool ok = true;
    for (int i = 0; i < p->n_ops; i++) {
        /* wrap_operator (line 17): op i under every level, upstream as tuned;
         * lines 5-9: the cheapest level whose propagated error meets it */
        int best = -1;
        for (int k = 0; k < p->n_levels; k++) {
            lv[i] = k;
            if (!eval(p, out, lv, i, err, NULL, why, why_len))
                return false;
            if (err[i] <= p->threshold && (best < 0 || p->cost[i][k] < p->cost[i][best]))
                best = k;
        }
        lv[i] = best;
        if (best >= 0)
            continue;
        if (!repair(p, out, lv, i, false, &ok, why, why_len))
            return false;
        if (!ok) {
            snprintf(out->note, sizeof out->note, "GEMM %d misses the threshold even with it and every "
                     "GEMM upstream of it at the top level", i + 1);
            for (int j = i + 1; j < p->n_ops; j++)
                lv[j] = top;
            break;
        }
    }
    /* The chain output (after a GEMM's epilogue) is checked too: repair the
     * last op's related ones if it misses. */
    if (!eval(p, out, lv, p->n_ops - 1, err, &out->out_err, why, why_len))
        return false;
    if (ok && out->out_err > p->threshold) {
        if (!repair(p, out, lv, p->n_ops - 1, true, &ok, why, why_len))
            return false;
        if (!ok)
            snprintf(out->note, sizeof out->note, "the chain output misses the threshold even at the top level");
    }
    out->met = ok && out->out_err <= p->threshold;
    return true;
}

/* ---- MixPert's greedy tuner, papers/000 §3.4 ----------------------------- */

static bool greedy(const struct mpb_tune_problem *p, struct mpb_tune_choice *out, char *why, size_t why_len)
{
    int top = p->n_levels - 1, *lv = out->levels, trial[MPB_TUNE_MAX_OPS], order[MPB_TUNE_MAX_OPS];
    double err[MPB_TUNE_MAX_OPS], out_err;
    for (int i = 0; i < p->n_ops; i++)
        lv[i] = top;
    if (!eval(p, out, lv, p->n_ops - 1, err, &out->out_err, why, why_len))
        return false;
    if (out->out_err > p->threshold) {
        snprintf(out->note, sizeof out->note, "the chain misses the threshold with every GEMM at the top level");
        return true;
    }
    /* The most time-consuming op first (its cost at the top level). */
    for (int i = 0; i < p->n_ops; i++) {
        int j = i;
        for (; j > 0 && p->cost[order[j - 1]][top] < p->cost[i][top]; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    for (int o = 0; o < p->n_ops; o++) {
        int op = order[o];
        for (;;) {
            /* One step down: the next less accurate level that is cheaper. */
            int cur = lv[op], down = -1;
            for (int l = cur - 1; l >= 0 && down < 0; l--)
                if (p->cost[op][l] < p->cost[op][cur])
                    down = l;
            if (down < 0)
                break;
            memcpy(trial, lv, sizeof trial);
            trial[op] = down;
            if (!eval(p, out, trial, p->n_ops - 1, err, &out_err, why, why_len))
                return false;
            /* The output degrades: raise the immediate predecessor one level
             * when that costs less than lowering this op saves. */
            int pr = p->pred[op];
            if (out_err > p->threshold && pr >= 0 && lv[pr] < top &&
                p->cost[pr][lv[pr] + 1] - p->cost[pr][lv[pr]] < p->cost[op][cur] - p->cost[op][down]) {
                trial[pr] = lv[pr] + 1;
                if (!eval(p, out, trial, p->n_ops - 1, err, &out_err, why, why_len))
                    return false;
            }
            if (out_err > p->threshold)
                break;
            memcpy(lv, trial, sizeof trial);
            out->out_err = out_err;
        }
    }
    out->met = true;
    return true;
}

/* ---- Exhaust, papers/003 §5 ---------------------------------------------- */

static bool exhaustive(const struct mpb_tune_problem *p, struct mpb_tune_choice *out, char *why, size_t why_len)
{
    int idx[MPB_TUNE_MAX_OPS] = {0};
    double err[MPB_TUNE_MAX_OPS], out_err, best = INFINITY;
    for (bool more = true; more;) {
        if (!eval(p, out, idx, p->n_ops - 1, err, &out_err, why, why_len))
            return false;
        double t = predicted(p, idx);
        if (out_err <= p->threshold && (t < best || (t == best && out_err < out->out_err))) {
            best = t;
            out->out_err = out_err;
            memcpy(out->levels, idx, sizeof idx);
            out->met = true;
        }
        /* The last op varies fastest: consecutive runs share the longest prefix. */
        more = false;
        for (int i = p->n_ops - 1; i >= 0 && !more; i--) {
            if (++idx[i] < p->n_levels)
                more = true;
            else
                idx[i] = 0;
        }
    }
    if (!out->met) {
        for (int i = 0; i < p->n_ops; i++)
            out->levels[i] = p->n_levels - 1;
        if (!eval(p, out, out->levels, p->n_ops - 1, err, &out->out_err, why, why_len))
            return false;
        snprintf(out->note, sizeof out->note, "no configuration meets the threshold");
    }
    return true;
}

/* ---- PriorK, papers/003 §5 ----------------------------------------------- */

struct combination {
    double cost;
    int64_t index;
};

static int by_cost(const void *x, const void *y)
{
    const struct combination *a = x, *b = y;
    return a->cost < b->cost ? -1 : a->cost > b->cost ? 1 : (a->index > b->index) - (a->index < b->index);
}

/* Each op's acceptable levels from its error alone (prior knowledge of every
 * op under every setting); of the combinations of those, a random one of the
 * fastest 1% (the paper's Micro setting). The propagated error is not
 * consulted: the one run of the pick says whether it meets. */
static bool priork(const struct mpb_tune_problem *p, const struct mpb_tune_options *o,
                   struct mpb_tune_choice *out, char *why, size_t why_len)
{
    int acc[MPB_TUNE_MAX_OPS][MPB_TUNE_MAX_LEVELS], n_acc[MPB_TUNE_MAX_OPS];
    int64_t count = 1;
    for (int i = 0; i < p->n_ops; i++) {
        n_acc[i] = 0;
        for (int l = 0; l < p->n_levels; l++) {
            double e;
            if (!p->standalone(p->ctx, i, l, &e, why, why_len))
                return false;
            out->gemm_runs++;
            if (e <= p->threshold)
                acc[i][n_acc[i]++] = l;
        }
        if (n_acc[i] == 0) /* none acceptable: the op keeps the top level */
            acc[i][n_acc[i]++] = p->n_levels - 1;
        count *= n_acc[i];
        if (count > PRIORK_MAX_COMBINATIONS) {
            snprintf(why, why_len, "priork: more than %lld combinations of acceptable levels to rank",
                     (long long)PRIORK_MAX_COMBINATIONS);
            return false;
        }
    }
    struct combination *all = malloc(sizeof *all * (size_t)count);
    if (!all) {
        snprintf(why, why_len, "priork: out of memory for %lld combinations", (long long)count);
        return false;
    }
    int lv[MPB_TUNE_MAX_OPS];
    for (int64_t c = 0; c < count; c++) {
        int64_t rest = c;
        for (int i = p->n_ops - 1; i >= 0; i--) {
            lv[i] = acc[i][rest % n_acc[i]];
            rest /= n_acc[i];
        }
        all[c] = (struct combination){predicted(p, lv), c};
    }
    qsort(all, (size_t)count, sizeof *all, by_cost);
    int64_t fastest = (count + 99) / 100;
    struct mpb_pcg32 rng = mpb_pcg32_seed(o->seed, 0x7072696f726bULL); /* stream "priork" */
    int64_t rest = all[mpb_pcg32_next(&rng) % (uint32_t)fastest].index;
    free(all);
    for (int i = p->n_ops - 1; i >= 0; i--) {
        out->levels[i] = acc[i][rest % n_acc[i]];
        rest /= n_acc[i];
    }
    double err[MPB_TUNE_MAX_OPS];
    if (!eval(p, out, out->levels, p->n_ops - 1, err, &out->out_err, why, why_len))
        return false;
    out->met = out->out_err <= p->threshold;
    snprintf(out->note, sizeof out->note, "picked at random among the fastest %lld of %lld combinations",
             (long long)fastest, (long long)count);
    return true;
}

bool mpb_tune_run(enum mpb_tune_strategy s, const struct mpb_tune_problem *p,
                  const struct mpb_tune_options *o, struct mpb_tune_choice *out, char *why,
                  size_t why_len)
{
    memset(out, 0, sizeof *out);
    out->out_err = INFINITY;
    if (p->n_ops < 1 || p->n_ops > MPB_TUNE_MAX_OPS || p->n_levels < 1 || p->n_levels > MPB_TUNE_MAX_LEVELS) {
        snprintf(why, why_len, "a problem of %d GEMMs and %d levels (1..%d and 1..%d)", p->n_ops, p->n_levels,
                 MPB_TUNE_MAX_OPS, MPB_TUNE_MAX_LEVELS);
        return false;
    }
    if (!mpb_tune_feasible(s, p->n_ops, p->n_levels, o, why, why_len))
        return false;
    bool done = s == MPB_TUNE_MOTUNER      ? motuner(p, out, why, why_len)
              : s == MPB_TUNE_GREEDY       ? greedy(p, out, why, why_len)
              : s == MPB_TUNE_EXHAUSTIVE   ? exhaustive(p, out, why, why_len)
                                           : priork(p, o, out, why, why_len);
    out->predicted = done ? predicted(p, out->levels) : NAN;
    return done;
}
