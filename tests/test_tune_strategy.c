/* mpbench tune's strategies on constructed chains whose optimum is known:
 * a linear chain of ops whose errors add up along it (op i's output error =
 * the sum of its own and every upstream op's error at their levels), with
 * costs and errors chosen so that the optimum, and what each strategy does,
 * can be worked out by hand. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pcg32.h"
#include "tune/strategy.h"

struct additive {
    double err[MPB_TUNE_MAX_OPS][MPB_TUNE_MAX_LEVELS];
    int n_ops;
};

static bool additive_eval(void *ctx, const int *levels, int last, double *op_err, double *out_err, int *gemms,
                          char *why, size_t why_len)
{
    (void)why;
    (void)why_len;
    const struct additive *a = ctx;
    double sum = 0;
    for (int i = 0; i <= last; i++) {
        sum += a->err[i][levels[i]];
        op_err[i] = sum;
    }
    if (out_err)
        *out_err = sum;
    *gemms = last + 1;
    return true;
}

static bool additive_alone(void *ctx, int op, int level, double *err, char *why, size_t why_len)
{
    (void)why;
    (void)why_len;
    *err = ((const struct additive *)ctx)->err[op][level];
    return true;
}

/* A linear chain: op i reads op i-1's output. */
static struct mpb_tune_problem linear(struct additive *a, int n_ops, int n_levels, double threshold)
{
    struct mpb_tune_problem p = {.n_ops = n_ops, .n_levels = n_levels, .threshold = threshold,
                                 .evaluate = additive_eval, .standalone = additive_alone, .ctx = a};
    a->n_ops = n_ops;
    for (int i = 0; i < n_ops; i++) {
        p.pred[i] = i - 1;
        p.related[i] = (2u << i) - 1;
    }
    return p;
}

static void set_costs(struct mpb_tune_problem *p, const double (*cost)[3])
{
    for (int i = 0; i < p->n_ops; i++)
        for (int k = 0; k < p->n_levels; k++)
            p->cost[i][k] = cost[i][k];
}

static const struct mpb_tune_options opts = {.exhaustive_limit = 100000, .seed = 1};

static void expect_levels(const char *what, const struct mpb_tune_choice *c, const int *want, int n)
{
    char got[64] = "", exp[64] = "";
    for (int i = 0; i < n; i++) {
        snprintf(got + strlen(got), sizeof got - strlen(got), "%d", c->levels[i]);
        snprintf(exp + strlen(exp), sizeof exp - strlen(exp), "%d", want[i]);
    }
    CHECK(!strcmp(got, exp), "%s: levels %s, expected %s", what, got, exp);
}

static struct mpb_tune_choice run(enum mpb_tune_strategy s, const struct mpb_tune_problem *p)
{
    struct mpb_tune_choice c;
    char why[256] = "";
    CHECK(mpb_tune_run(s, p, &opts, &c, why, sizeof why), "%s failed: %s", mpb_tune_strategy_words[s], why);
    return c;
}

/* Three ops, levels with errors 0.4, 0.1, 0.01 each, threshold 0.45: one op
 * may sit at level 0 if the other two are at level 2; the middle op is the
 * expensive one, so the optimum is 2,0,2 (cost 18; all at level 1 costs 24). */
static void known_optimum(void)
{
    struct additive a;
    for (int i = 0; i < 3; i++) {
        a.err[i][0] = 0.4;
        a.err[i][1] = 0.1;
        a.err[i][2] = 0.01;
    }
    struct mpb_tune_problem p = linear(&a, 3, 3, 0.45);
    set_costs(&p, (const double[][3]){{1, 2, 4}, {10, 20, 40}, {1, 2, 4}});

    struct mpb_tune_choice ex = run(MPB_TUNE_EXHAUSTIVE, &p);
    expect_levels("exhaustive", &ex, (const int[]){2, 0, 2}, 3);
    CHECK(ex.met && ex.predicted == 18 && fabs(ex.out_err - 0.42) < 1e-12, "exhaustive: met %d cost %g err %g",
          ex.met, ex.predicted, ex.out_err);
    CHECK(ex.chain_runs == 27 && ex.gemm_runs == 81, "exhaustive ran %ld chains, %ld GEMMs (27, 81)", ex.chain_runs,
          ex.gemm_runs);

    /* moTuner is myopic (lines 5-9 take op 0's cheapest level, 0.4): op 1 and
     * op 2 then need level 2. Its contract: every op's propagated error and
     * the output meet the threshold, in N*L + 1 runs without repairs. */
    struct mpb_tune_choice mo = run(MPB_TUNE_MOTUNER, &p);
    expect_levels("motuner", &mo, (const int[]){0, 2, 2}, 3);
    CHECK(mo.met && mo.predicted == 45 && mo.out_err <= 0.45, "motuner: met %d cost %g err %g", mo.met,
          mo.predicted, mo.out_err);
    CHECK(mo.chain_runs == 3 * 3 + 1, "motuner ran %ld chains (10)", mo.chain_runs);

    /* PriorK: each level alone meets 0.45, so the fastest 1% of the 27
     * combinations is all-0, whose propagated error (1.2) misses. */
    struct mpb_tune_choice pk = run(MPB_TUNE_PRIORK, &p);
    expect_levels("priork", &pk, (const int[]){0, 0, 0}, 3);
    CHECK(!pk.met && fabs(pk.out_err - 1.2) < 1e-12, "priork: met %d err %g (expected a miss at 1.2)", pk.met,
          pk.out_err);
}

/* Alg. 1 line 12: op 1 misses at every level behind op 0's level 0, so its
 * related ops (0 and 1) go to level 1 together, and one run validates it. */
static void motuner_repairs(void)
{
    struct additive a = {.err = {{0.4, 0.1, 0.0}, {0.3, 0.2, 0.1}}};
    struct mpb_tune_problem p = linear(&a, 2, 3, 0.45);
    set_costs(&p, (const double[][3]){{1, 2, 3}, {1, 2, 3}});
    struct mpb_tune_choice mo = run(MPB_TUNE_MOTUNER, &p);
    expect_levels("motuner repair", &mo, (const int[]){1, 1}, 2);
    CHECK(mo.met && fabs(mo.out_err - 0.3) < 1e-12, "motuner repair: met %d err %g", mo.met, mo.out_err);
    CHECK(mo.chain_runs == 3 + 3 + 1 + 1, "motuner repair ran %ld chains (8)", mo.chain_runs);

    /* Unreachable: op 1 alone errs 0.5 or more at every level. */
    a.err[1][0] = 0.6;
    a.err[1][1] = 0.55;
    a.err[1][2] = 0.5;
    mo = run(MPB_TUNE_MOTUNER, &p);
    CHECK(!mo.met && strstr(mo.note, "GEMM 2 misses"), "unreachable: met %d note '%s'", mo.met, mo.note);
    struct mpb_tune_choice ex = run(MPB_TUNE_EXHAUSTIVE, &p);
    CHECK(!ex.met && strstr(ex.note, "no configuration"), "exhaustive unreachable: met %d note '%s'", ex.met,
          ex.note);
}

/* MixPert: op 0 is the most time-consuming (40 at the top), so it is lowered
 * first, to level 0. Lowering op 1 to level 0 then degrades the output, and
 * raising its predecessor op 0 by one level costs 2 where op 1 saves 29: both
 * move, 1,0 at cost 13, the optimum. Costlier, the raise is refused. */
static void greedy_raises_predecessor(void)
{
    struct additive a = {.err = {{0.3, 0.05, 0}, {0.3, 0.05, 0}}};
    struct mpb_tune_problem p = linear(&a, 2, 3, 0.45);
    set_costs(&p, (const double[][3]){{10, 12, 40}, {1, 30, 31}});
    struct mpb_tune_choice gr = run(MPB_TUNE_GREEDY, &p), ex = run(MPB_TUNE_EXHAUSTIVE, &p);
    expect_levels("greedy", &gr, (const int[]){1, 0}, 2);
    expect_levels("exhaustive (greedy case)", &ex, (const int[]){1, 0}, 2);
    CHECK(gr.met && gr.predicted == 13 && gr.chain_runs == 6, "greedy: met %d cost %g runs %ld (13, 6)", gr.met,
          gr.predicted, gr.chain_runs);

    p.cost[0][1] = 40; /* raising op 0 now costs 30, more than op 1's 29 */
    p.cost[0][2] = 41;
    gr = run(MPB_TUNE_GREEDY, &p);
    expect_levels("greedy, no raise", &gr, (const int[]){0, 1}, 2);

    /* Nothing meets at the top level: all-top, not met. */
    a.err[1][2] = 0.5;
    gr = run(MPB_TUNE_GREEDY, &p);
    expect_levels("greedy, unreachable", &gr, (const int[]){2, 2}, 2);
    CHECK(!gr.met && gr.chain_runs == 1, "greedy unreachable: met %d runs %ld", gr.met, gr.chain_runs);
}

/* On random additive chains: whatever motuner and greedy pick meets the
 * threshold and costs no less than exhaustive's optimum, which costs no more
 * than the all-top chain; moTuner stays within N*L + (L-1)*(N+1) + 1 runs. */
static void random_chains(void)
{
    struct mpb_pcg32 rng = mpb_pcg32_seed(18, 3);
    for (int t = 0; t < 300; t++) {
        int n = 2 + (int)(mpb_pcg32_next(&rng) % 3), l = 2 + (int)(mpb_pcg32_next(&rng) % 3);
        struct additive a;
        struct mpb_tune_problem p = linear(&a, n, l, 1.0);
        for (int i = 0; i < n; i++)
            for (int k = 0; k < l; k++) {
                /* levels more accurate and costlier upwards; the top meets */
                a.err[i][k] = k == l - 1 ? 0.1 / n : (double)(mpb_pcg32_next(&rng) % 1000) / 1000.0 / (k + 1);
                p.cost[i][k] = (k + 1) * (1 + mpb_pcg32_next(&rng) % 10);
            }
        struct mpb_tune_choice ex = run(MPB_TUNE_EXHAUSTIVE, &p);
        double top = 0;
        for (int i = 0; i < n; i++)
            top += p.cost[i][l - 1];
        CHECK(ex.met && ex.predicted <= top, "case %d: exhaustive met %d cost %g top %g", t, ex.met, ex.predicted,
              top);
        for (int s = MPB_TUNE_MOTUNER; s <= MPB_TUNE_GREEDY; s++) {
            struct mpb_tune_choice c = run((enum mpb_tune_strategy)s, &p);
            CHECK(c.met && c.out_err <= 1.0 && c.predicted >= ex.predicted, "case %d %s: met %d err %g cost %g < %g",
                  t, mpb_tune_strategy_words[s], c.met, c.out_err, c.predicted, ex.predicted);
            if (s == MPB_TUNE_MOTUNER)
                CHECK(c.chain_runs <= n * l + (l - 1) * (n + 1) + 1, "case %d motuner: %ld runs", t, c.chain_runs);
        }
    }
}

/* The draw PriorK makes from `seed`: its pick's rank in [0, pool). */
static int64_t priork_draw(uint64_t seed, int64_t pool)
{
    struct mpb_pcg32 rng = mpb_pcg32_seed(seed, 0x7072696f726bULL);
    return mpb_pcg32_next(&rng) % (uint32_t)pool;
}

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* On random small problems with tied costs and unacceptable levels, the
 * pick costs what the combination of its rank costs in the sorted list of
 * every combination of acceptable levels (worked out here by brute force),
 * and uses acceptable levels only. */
static void priork_matches_sorting(void)
{
    struct mpb_pcg32 rng = mpb_pcg32_seed(18, 4);
    for (int t = 0; t < 200; t++) {
        int n = 1 + (int)(mpb_pcg32_next(&rng) % 5), l = 1 + (int)(mpb_pcg32_next(&rng) % 4);
        struct additive a;
        struct mpb_tune_problem p = linear(&a, n, l, 0.5);
        bool ok[MPB_TUNE_MAX_OPS][MPB_TUNE_MAX_LEVELS];
        int n_ok[MPB_TUNE_MAX_OPS];
        for (int i = 0; i < n; i++) {
            n_ok[i] = 0;
            for (int k = 0; k < l; k++) {
                a.err[i][k] = mpb_pcg32_next(&rng) % 3 ? 0.1 : 0.9;
                p.cost[i][k] = 1 + mpb_pcg32_next(&rng) % 4; /* ties */
                ok[i][k] = a.err[i][k] <= p.threshold;
                n_ok[i] += ok[i][k];
            }
            if (!n_ok[i]) /* none acceptable: the top level */
                ok[i][l - 1] = true, n_ok[i] = 1;
        }
        double costs[1024];
        int count = 0, idx[MPB_TUNE_MAX_OPS] = {0};
        for (bool more = true; more;) {
            bool all_ok = true;
            for (int i = 0; i < n; i++)
                all_ok = all_ok && ok[i][idx[i]];
            if (all_ok) {
                double c = 0;
                for (int i = 0; i < n; i++)
                    c += p.cost[i][idx[i]];
                costs[count++] = c;
            }
            more = false;
            for (int i = n - 1; i >= 0 && !more; i--)
                more = ++idx[i] < l || (idx[i] = 0);
        }
        qsort(costs, (size_t)count, sizeof *costs, by_value);
        struct mpb_tune_options o = {.seed = 100 + (uint64_t)t};
        struct mpb_tune_choice c;
        char why[256] = "";
        CHECK(mpb_tune_run(MPB_TUNE_PRIORK, &p, &o, &c, why, sizeof why), "case %d: priork failed: %s", t, why);
        int64_t r = priork_draw(o.seed, (count + 99) / 100);
        CHECK(c.predicted == costs[r], "case %d: pick of rank %lld costs %g, the sorted list says %g", t,
              (long long)r, c.predicted, costs[r]);
        for (int i = 0; i < n; i++)
            CHECK(ok[i][c.levels[i]], "case %d: op %d at level %d, not acceptable", t, i, c.levels[i]);
        CHECK(c.chain_runs == 1 && c.gemm_runs == n * l + n, "case %d: %ld chain runs, %ld GEMMs", t, c.chain_runs,
              c.gemm_runs);
    }
}

/* A space of 4^16 = 2^32 combinations, every level acceptable, op i's level
 * l costing l * 4^i: the combination of rank r is r's base-4 digits. The
 * fastest 1% are more than PriorK ranks, so it picks among the first
 * MPB_TUNE_PRIORK_RANKS and says so. 32^16 saturates and still runs. */
static void priork_large_space(void)
{
    struct additive a = {0};
    struct mpb_tune_problem p = linear(&a, 16, 4, 0.5);
    for (int i = 0; i < 16; i++)
        for (int k = 0; k < 4; k++)
            p.cost[i][k] = k * ldexp(1, 2 * i);
    struct mpb_tune_options o = {.seed = 7};
    struct mpb_tune_choice c;
    char why[256] = "";
    CHECK(mpb_tune_run(MPB_TUNE_PRIORK, &p, &o, &c, why, sizeof why), "2^32: priork failed: %s", why);
    int64_t r = priork_draw(o.seed, MPB_TUNE_PRIORK_RANKS);
    int want[16];
    for (int i = 0; i < 16; i++)
        want[i] = (int)(r >> (2 * i) & 3);
    expect_levels("priork 2^32", &c, want, 16);
    CHECK(c.predicted == (double)r && c.met, "2^32: cost %g, expected %lld", c.predicted, (long long)r);
    CHECK(strstr(c.note, "fastest 16384 of 4294967296 combinations (not their fastest 1%"), "2^32: note '%s'",
          c.note);

    /* Level k costs 32 - k: 16 + d is the cost of C(d + 15, 15) combinations
     * (d spread over 16 ops; d < 32), so the pick of rank r costs 16 + d for
     * the least d with C(d + 16, 16) combinations costing 16 + d or less > r. */
    struct mpb_tune_problem big = linear(&a, 16, 32, 0.5);
    for (int i = 0; i < 16; i++)
        for (int k = 0; k < 32; k++)
            big.cost[i][k] = 32 - k;
    CHECK(mpb_tune_run(MPB_TUNE_PRIORK, &big, &o, &c, why, sizeof why), "32^16: priork failed: %s", why);
    r = priork_draw(o.seed, MPB_TUNE_PRIORK_RANKS);
    int d = 0;
    for (double upto = 1; upto <= (double)r; upto = upto * (d + 16) / d)
        d++;
    CHECK(c.predicted == 16 + d, "32^16: pick of rank %lld costs %g, expected %d", (long long)r, c.predicted, 16 + d);
    CHECK(strstr(c.note, "of more than 9223372036854775807 combinations"), "32^16: note '%s'", c.note);
}

static void refusals(void)
{
    char why[256] = "";
    struct mpb_tune_options small = {.exhaustive_limit = 1000};
    CHECK(!mpb_tune_feasible(MPB_TUNE_EXHAUSTIVE, 9, 5, &small, why, sizeof why) && strstr(why, "1953125") &&
              strstr(why, "--exhaustive-limit 1000"), "refusal: '%s'", why);
    CHECK(mpb_tune_feasible(MPB_TUNE_MOTUNER, 9, 5, &small, why, sizeof why), "motuner refused a 9x5 space");
    CHECK(mpb_tune_space(16, 32) == INT64_MAX, "32^16 saturates");
}

int main(void)
{
    known_optimum();
    motuner_repairs();
    greedy_raises_predecessor();
    random_chains();
    priork_matches_sorting();
    priork_large_space();
    refusals();
    return check_report("test_tune_strategy");
}
