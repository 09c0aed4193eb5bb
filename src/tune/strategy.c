/* The four strategies of `mpbench tune` (strategy.h). */
#include "tune/strategy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcg32.h"

const char *const mpb_tune_strategy_words[] = {"motuner", "greedy", "exhaustive", "priork", NULL};

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

/* ---- moTuner (Mo et al., CF 2022), Algorithm 1 ------------------------- */

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

/* ---- MixPert's greedy tuner (Lin et al., LCTES 2024), §3.4 -------------- */

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

/* ---- Exhaust, moTuner §5 ------------------------------------------------- */

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

/* ---- PriorK, moTuner §5 -------------------------------------------------- */

/* A combination of acceptable levels: rank[i] indexes op i's acceptable
 * levels sorted by (cost, level); cost is predicted() of it. */
struct combination {
    double cost;
    uint8_t rank[MPB_TUNE_MAX_OPS];
};

/* PriorK's order: cost, then the ranks lexicographically (op 0 first). */
static bool before(const struct combination *a, const struct combination *b, int n_ops)
{
    return a->cost < b->cost || (a->cost == b->cost && memcmp(a->rank, b->rank, (size_t)n_ops) < 0);
}

static void heap_push(struct combination *h, int64_t *n, const struct combination *c, int n_ops)
{
    int64_t i = (*n)++;
    for (; i > 0 && before(c, &h[(i - 1) / 2], n_ops); i = (i - 1) / 2)
        h[i] = h[(i - 1) / 2];
    h[i] = *c;
}

static struct combination heap_pop(struct combination *h, int64_t *n, int n_ops)
{
    struct combination top = h[0], last = h[--*n];
    int64_t i = 0;
    for (int64_t c; (c = 2 * i + 1) < *n; i = c) {
        if (c + 1 < *n && before(&h[c + 1], &h[c], n_ops))
            c++;
        if (!before(&h[c], &last, n_ops))
            break;
        h[i] = h[c];
    }
    h[i] = last;
    return top;
}

/* The combination of rank `r` (from 0) in PriorK's order, without
 * enumerating the space: best-first over the tree in which a combination's
 * parent is itself with its last nonzero rank lowered by one. A child costs
 * no less than its parent (ranks are sorted by cost, and a rounded sum does
 * not fall when a term grows) and comes after it lexicographically, so the
 * pops come in PriorK's order; each pop pushes at most n_ops children. */
static bool priork_nth(const struct mpb_tune_problem *p, int acc[][MPB_TUNE_MAX_LEVELS], const int *n_acc,
                       int64_t r, int *levels, char *why, size_t why_len)
{
    int n = p->n_ops;
    int64_t size = 0, cap = 1 + (r + 1) * n;
    struct combination *heap = malloc(sizeof *heap * (size_t)cap), c = {0};
    if (!heap) {
        snprintf(why, why_len, "priork: out of memory for %lld combinations", (long long)cap);
        return false;
    }
    for (int i = 0; i < n; i++)
        levels[i] = acc[i][0];
    c.cost = predicted(p, levels);
    heap_push(heap, &size, &c, n);
    for (int64_t k = 0; k <= r; k++) {
        c = heap_pop(heap, &size, n);
        int from = n - 1;
        while (from > 0 && c.rank[from] == 0)
            from--;
        for (int j = from; j < n && k < r; j++) {
            if (c.rank[j] + 1 >= n_acc[j])
                continue;
            struct combination child = c;
            child.rank[j]++;
            for (int i = 0; i < n; i++)
                levels[i] = acc[i][child.rank[i]];
            child.cost = predicted(p, levels);
            heap_push(heap, &size, &child, n);
        }
    }
    for (int i = 0; i < n; i++)
        levels[i] = acc[i][c.rank[i]];
    free(heap);
    return true;
}

/* Each op's acceptable levels from its error alone (prior knowledge of every
 * op under every setting); of the combinations of those, a random one of the
 * fastest 1% (the paper's Micro setting), or of the fastest
 * MPB_TUNE_PRIORK_RANKS where the 1% are more. The propagated error is not
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
            if (e <= p->threshold) {
                /* insert by (cost, level) */
                int j = n_acc[i]++;
                for (; j > 0 && p->cost[i][acc[i][j - 1]] > p->cost[i][l]; j--)
                    acc[i][j] = acc[i][j - 1];
                acc[i][j] = l;
            }
        }
        if (n_acc[i] == 0) /* none acceptable: the op keeps the top level */
            acc[i][n_acc[i]++] = p->n_levels - 1;
        count = count > INT64_MAX / n_acc[i] ? INT64_MAX : count * n_acc[i];
    }
    int64_t fastest = count / 100 + (count % 100 != 0);
    int64_t pool = fastest < MPB_TUNE_PRIORK_RANKS ? fastest : MPB_TUNE_PRIORK_RANKS;
    struct mpb_pcg32 rng = mpb_pcg32_seed(o->seed, 0x7072696f726bULL); /* stream "priork" */
    if (!priork_nth(p, acc, n_acc, mpb_pcg32_next(&rng) % (uint32_t)pool, out->levels, why, why_len))
        return false;
    double err[MPB_TUNE_MAX_OPS];
    if (!eval(p, out, out->levels, p->n_ops - 1, err, &out->out_err, why, why_len))
        return false;
    out->met = out->out_err <= p->threshold;
    const char *of = count == INT64_MAX ? "more than " : "";
    if (pool == fastest)
        snprintf(out->note, sizeof out->note, "picked at random among the fastest %lld of %s%lld combinations",
                 (long long)pool, of, (long long)count);
    else
        snprintf(out->note, sizeof out->note, "picked at random among the fastest %lld of %s%lld combinations "
                 "(not their fastest 1%%: priork ranks at most %d)", (long long)pool, of, (long long)count,
                 MPB_TUNE_PRIORK_RANKS);
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
