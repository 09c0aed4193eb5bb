/* The chains `mpbench tune` tunes: small programs of dependent GEMMs and
 * elementwise steps over named buffers, column-major like every GEMM here.
 * A chain is data (steps and buffers), so that the runner (problem.c) runs
 * it in FP32 under levels and in FP64 as the reference alike. */
#ifndef MPB_TUNE_CHAIN_H
#define MPB_TUNE_CHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tune/strategy.h"

#define MPB_TUNE_MAX_BUFFERS 32
#define MPB_TUNE_MAX_STEPS 32

enum mpb_tune_step_kind {
    MPB_TUNE_GEMM,      /* out = a · b (the tuned op) */
    MPB_TUNE_BIAS,      /* out = a + bias, bias a row vector added to every row */
    MPB_TUNE_BIAS_RELU, /* out = max(a + bias, 0) */
    /* The blocked Cholesky's host steps, nb = out's columns: */
    MPB_TUNE_POTRF,     /* out = L with L Lᵀ = a's leading nb x nb block (NaN where not SPD) */
    MPB_TUNE_TRSM,      /* out = a's rows below nb, first nb columns, times b⁻ᵀ (b lower nb x nb) */
    MPB_TUNE_TRANSPOSE, /* out = aᵀ */
    MPB_TUNE_SCHUR,     /* out = a's trailing block (rows and columns below out's size) - b */
};

struct mpb_tune_buffer {
    int64_t rows, cols;
    bool input;   /* generated from the seed; else written by a step */
    double scale; /* an input's entries: uniform in [-scale, scale) */
    bool spd;     /* an input made symmetric with `rows` added to its diagonal */
};

#define MPB_TUNE_MAX_BLOCKS 8

/* A chain that factors its input (the Cholesky chain): where the factor's
 * blocks are, so that the solve with it can be refined (problem.h). */
struct mpb_tune_factor {
    int blocks;                          /* 0: the chain is no factorisation */
    int matrix, rhs;                     /* the input A (SPD) and b buffers */
    int diag[MPB_TUNE_MAX_BLOCKS];       /* L_kk, nb x nb */
    int panel[MPB_TUNE_MAX_BLOCKS];      /* L below L_kk, (n - (k+1) nb) x nb; -1 for the last */
};

struct mpb_tune_step {
    enum mpb_tune_step_kind kind;
    int out, a, b; /* buffer indices; BIAS*: b is the bias (1 x cols) */
    int op;        /* GEMM: its op index 0..n_ops-1; else the GEMM whose epilogue it is (-1: none,
                      a step on the inputs alone) */
};

struct mpb_tune_chain {
    char name[32];
    int64_t size;
    int n_buffers, n_steps, n_ops, output;
    struct mpb_tune_buffer buffers[MPB_TUNE_MAX_BUFFERS];
    struct mpb_tune_step steps[MPB_TUNE_MAX_STEPS];
    int gemm_step[MPB_TUNE_MAX_OPS]; /* the step of each op */
    struct mpb_tune_factor factor;
};

/* The --chain words, NULL-terminated, and one line on each for --help. */
extern const char *const mpb_tune_chain_names[];
extern const char *const mpb_tune_chain_help[];

/* The chain `name` at `size`; false with a sentence in why when there is none. */
bool mpb_tune_chain_build(const char *name, int64_t size, struct mpb_tune_chain *c, char *why, size_t why_len);

/* How a chain is built, for every builder (chain.c's, chain_file.c's), so
 * that the same list gives the same chain: a buffer (its index, in the
 * order of the calls, names its inputs' stream in mpb_tune_chain_fill), and
 * a step, a GEMM taking the next op index and any other step the op of the
 * GEMM before it. The caller keeps within the MPB_TUNE_MAX_* limits. */
int mpb_tune_chain_add_buffer(struct mpb_tune_chain *c, int64_t rows, int64_t cols, bool input, double scale);
void mpb_tune_chain_add_step(struct mpb_tune_chain *c, enum mpb_tune_step_kind kind, int out, int a, int b);

/* moTuner's related operators (§3.2.1) from the data flow: bit j of
 * related[i] when op j's output reaches op i's inputs (bit i set); pred[i]
 * the op whose output op i reads first (-1: none; MixPert's predecessor). */
void mpb_tune_chain_deps(const struct mpb_tune_chain *c, uint32_t *related, int *pred);

/* Fill input buffer `buf` (rows x cols floats) from `seed`: the same bits on
 * every machine (PCG32, one stream per buffer). */
void mpb_tune_chain_fill(const struct mpb_tune_chain *c, int buf, uint64_t seed, float *out);

#endif
