/* `mpbench tune`'s strategies on an abstract tuning problem: N dependent
 * GEMMs ("ops"), L levels ranked from the least to the most accurate, a
 * predicted cost per op and level, and a callback that runs the chain under
 * a configuration and says how far each op's output is from the FP64 chain.
 * The command backs the problem with real chains (problem.c); the CPU tests
 * back it with constructed ones whose optimum is known. */
#ifndef MPB_TUNE_STRATEGY_H
#define MPB_TUNE_STRATEGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MPB_TUNE_MAX_OPS 16
#define MPB_TUNE_MAX_LEVELS 32
/* PriorK picks among the fastest 1% of the combinations of acceptable
 * levels, or among the fastest this many where the 1% are more: it walks
 * the space in order of cost up to its pick and no further. */
#define MPB_TUNE_PRIORK_RANKS 16384

enum mpb_tune_strategy {
    MPB_TUNE_MOTUNER,    /* moTuner (Mo et al., CF 2022), Algorithm 1 */
    MPB_TUNE_GREEDY,     /* MixPert's tuner (Lin et al., LCTES 2024), §3.4 */
    MPB_TUNE_EXHAUSTIVE, /* moTuner §5 "Exhaust" */
    MPB_TUNE_PRIORK,     /* moTuner §5 "PriorK" */
    MPB_TUNE_STRATEGY_COUNT
};
/* The --strategy words in enum order, NULL-terminated. */
extern const char *const mpb_tune_strategy_words[];

struct mpb_tune_problem {
    int n_ops, n_levels;               /* level 0 least accurate, n_levels - 1 most */
    int pred[MPB_TUNE_MAX_OPS];        /* the GEMM whose output feeds op i (-1: none) */
    uint32_t related[MPB_TUNE_MAX_OPS];/* bit j: op j's error reaches op i's output (bit i set) */
    double cost[MPB_TUNE_MAX_OPS][MPB_TUNE_MAX_LEVELS]; /* predicted time of op i under level l */
    double threshold;                  /* an error meets it when err <= threshold */
    /* Run ops 0..last under levels[0..last]: the error of each op's output
     * against the FP64 chain into op_err[0..last], and with last = n_ops - 1
     * the chain output's into *out_err; *gemms: the GEMMs it executed. */
    bool (*evaluate)(void *ctx, const int *levels, int last, double *op_err, double *out_err,
                     int *gemms, char *why, size_t why_len);
    /* Op i alone under level l on exact inputs: PriorK's prior knowledge. */
    bool (*standalone)(void *ctx, int op, int level, double *err, char *why, size_t why_len);
    void *ctx;
};

struct mpb_tune_options {
    int64_t exhaustive_limit; /* most configurations exhaustive search may visit */
    uint64_t seed;            /* PriorK's random pick */
};

struct mpb_tune_choice {
    int levels[MPB_TUNE_MAX_OPS];
    bool met;            /* the strategy's last run of `levels` met the threshold */
    double predicted;    /* sum of cost over the ops */
    double out_err;      /* chain output error of `levels` */
    long chain_runs;     /* evaluate() calls: runs of the chain or of a prefix of it */
    long gemm_runs;      /* GEMMs those runs executed (unchanged upstream outputs are reused) */
    char note[256];
};

/* L^N, saturating at INT64_MAX. */
int64_t mpb_tune_space(int n_ops, int n_levels);

/* Whether `s` can run on a problem of this size: exhaustive refuses a space
 * above the limit (a sentence naming the numbers in why). */
bool mpb_tune_feasible(enum mpb_tune_strategy s, int n_ops, int n_levels,
                       const struct mpb_tune_options *o, char *why, size_t why_len);

/* Run strategy `s`; false with why when a callback failed. */
bool mpb_tune_run(enum mpb_tune_strategy s, const struct mpb_tune_problem *p,
                  const struct mpb_tune_options *o, struct mpb_tune_choice *out, char *why,
                  size_t why_len);

#endif
