/* The named chains of `mpbench tune` (chain.h). */
#include "tune/chain.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pcg32.h"

const char *const mpb_tune_chain_names[] = {"micro3", "micro6", "micro9", "mlp3", NULL};
const char *const mpb_tune_chain_help[] = {
    "X1 = X0 W1, X2 = X1 W2, X3 = X2 W3: 3 dependent n x n x n GEMMs (moTuner's Micro)",
    "the same with 6 GEMMs",
    "the same with 9 GEMMs",
    "a 3-layer MLP forward pass, batch and widths n: H1 = relu(X W1 + b1), H2 = relu(H1 W2 + b2), Y = H2 W3 + b3",
};

static int add_buffer(struct mpb_tune_chain *c, int64_t rows, int64_t cols, bool input, double scale)
{
    c->buffers[c->n_buffers] = (struct mpb_tune_buffer){rows, cols, input, scale};
    return c->n_buffers++;
}

static void add_step(struct mpb_tune_chain *c, enum mpb_tune_step_kind kind, int out, int a, int b)
{
    int op = kind == MPB_TUNE_GEMM ? c->n_ops++ : c->n_ops - 1;
    if (kind == MPB_TUNE_GEMM)
        c->gemm_step[op] = c->n_steps;
    c->steps[c->n_steps++] = (struct mpb_tune_step){kind, out, a, b, op};
}

/* Weights uniform in ±sqrt(3/k) have variance 1/k, so every GEMM keeps its
 * input's magnitude (entries O(1) along the whole chain, so that the
 * absolute thresholds E5-E8 mean the same at every size); ReLU layers get
 * twice that (He's initialisation). */
static void micro(struct mpb_tune_chain *c, int gemms)
{
    int64_t n = c->size;
    int x = add_buffer(c, n, n, true, 1.0);
    for (int i = 0; i < gemms; i++) {
        int w = add_buffer(c, n, n, true, sqrt(3.0 / (double)n));
        int y = add_buffer(c, n, n, false, 0);
        add_step(c, MPB_TUNE_GEMM, y, x, w);
        x = y;
    }
    c->output = x;
}

static void mlp(struct mpb_tune_chain *c, int layers)
{
    int64_t n = c->size;
    int x = add_buffer(c, n, n, true, 1.0);
    for (int i = 0; i < layers; i++) {
        bool last = i == layers - 1;
        int w = add_buffer(c, n, n, true, sqrt((last ? 3.0 : 6.0) / (double)n));
        int bias = add_buffer(c, 1, n, true, 0.1);
        int z = add_buffer(c, n, n, false, 0), h = add_buffer(c, n, n, false, 0);
        add_step(c, MPB_TUNE_GEMM, z, x, w);
        add_step(c, last ? MPB_TUNE_BIAS : MPB_TUNE_BIAS_RELU, h, z, bias);
        x = h;
    }
    c->output = x;
}

bool mpb_tune_chain_build(const char *name, int64_t size, struct mpb_tune_chain *c, char *why, size_t why_len)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    c->size = size;
    if (!strcmp(name, "micro3") || !strcmp(name, "micro6") || !strcmp(name, "micro9"))
        micro(c, name[5] - '0');
    else if (!strcmp(name, "mlp3"))
        mlp(c, 3);
    else {
        snprintf(why, why_len, "unknown chain '%s' (micro3, micro6, micro9, mlp3; the blocked "
                 "Cholesky/LU chains are not built yet)", name);
        return false;
    }
    return true;
}

void mpb_tune_chain_deps(const struct mpb_tune_chain *c, uint32_t *related, int *pred)
{
    /* For each buffer: the ops whose error it carries, and the op that wrote
     * it last (through its epilogue). */
    uint32_t carries[MPB_TUNE_MAX_BUFFERS] = {0};
    int writer[MPB_TUNE_MAX_BUFFERS];
    for (int b = 0; b < c->n_buffers; b++)
        writer[b] = -1;
    for (int s = 0; s < c->n_steps; s++) {
        const struct mpb_tune_step *st = &c->steps[s];
        uint32_t in = carries[st->a] | carries[st->b];
        if (st->kind == MPB_TUNE_GEMM) {
            related[st->op] = in | 1u << st->op;
            pred[st->op] = writer[st->a] >= 0 ? writer[st->a] : writer[st->b];
            in |= 1u << st->op;
        }
        carries[st->out] = in;
        writer[st->out] = st->op;
    }
}

void mpb_tune_chain_fill(const struct mpb_tune_chain *c, int buf, uint64_t seed, float *out)
{
    struct mpb_pcg32 rng = mpb_pcg32_seed(seed, 0x74756e65u + (uint64_t)buf); /* "tune" + buffer */
    const struct mpb_tune_buffer *b = &c->buffers[buf];
    int64_t count = b->rows * b->cols;
    for (int64_t i = 0; i < count; i++) {
        /* 24 random bits: a multiple of 2^-23 in [-1, 1), exact in float */
        double u = (double)(mpb_pcg32_next(&rng) >> 8) * 0x1p-23 - 1.0;
        out[i] = (float)(u * b->scale);
    }
}
