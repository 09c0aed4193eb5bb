/* The named chains of `mpbench tune` (chain.h). */
#include "tune/chain.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pcg32.h"

const char *const mpb_tune_chain_names[] = {"micro3", "micro6", "micro9", "mlp3", "cholesky", NULL};
const char *const mpb_tune_chain_help[] = {
    "X1 = X0 W1, X2 = X1 W2, X3 = X2 W3: 3 dependent n x n x n GEMMs (moTuner's Micro)",
    "the same with 6 GEMMs",
    "the same with 9 GEMMs",
    "a 3-layer MLP forward pass, batch and widths n: H1 = relu(X W1 + b1), H2 = relu(H1 W2 + b2), Y = H2 W3 + b3",
    "a blocked right-looking Cholesky of an SPD n x n matrix in 4 block columns: its 3 trailing updates",
};

/* The Cholesky chain's block columns. */
#define CHOLESKY_BLOCKS 4

int mpb_tune_chain_add_buffer(struct mpb_tune_chain *c, int64_t rows, int64_t cols, bool input, double scale)
{
    c->buffers[c->n_buffers] = (struct mpb_tune_buffer){.rows = rows, .cols = cols, .input = input, .scale = scale};
    return c->n_buffers++;
}

void mpb_tune_chain_add_step(struct mpb_tune_chain *c, enum mpb_tune_step_kind kind, int out, int a, int b)
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
    int x = mpb_tune_chain_add_buffer(c, n, n, true, 1.0);
    for (int i = 0; i < gemms; i++) {
        int w = mpb_tune_chain_add_buffer(c, n, n, true, sqrt(3.0 / (double)n));
        int y = mpb_tune_chain_add_buffer(c, n, n, false, 0);
        mpb_tune_chain_add_step(c, MPB_TUNE_GEMM, y, x, w);
        x = y;
    }
    c->output = x;
}

static void mlp(struct mpb_tune_chain *c, int layers)
{
    int64_t n = c->size;
    int x = mpb_tune_chain_add_buffer(c, n, n, true, 1.0);
    for (int i = 0; i < layers; i++) {
        bool last = i == layers - 1;
        int w = mpb_tune_chain_add_buffer(c, n, n, true, sqrt((last ? 3.0 : 6.0) / (double)n));
        int bias = mpb_tune_chain_add_buffer(c, 1, n, true, 0.1);
        int z = mpb_tune_chain_add_buffer(c, n, n, false, 0), h = mpb_tune_chain_add_buffer(c, n, n, false, 0);
        mpb_tune_chain_add_step(c, MPB_TUNE_GEMM, z, x, w);
        mpb_tune_chain_add_step(c, last ? MPB_TUNE_BIAS : MPB_TUNE_BIAS_RELU, h, z, bias);
        x = h;
    }
    c->output = x;
}

/* HPL-AI's blocked right-looking Cholesky (moTuner §4.1.2's CF, MixPert's
 * HPL-AI) in block columns of nb = n / blocks: per block k, L_kk = chol(S_kk)
 * and the panel L_k = S_(k+1:, k) L_kk⁻ᵀ on the host, then the trailing
 * update S_(k+1) = S_(k+1:, k+1:) - L_k L_kᵀ, whose GEMM (n - (k+1) nb square,
 * inner size nb) is the tuned op. The output is the last block's factor,
 * which every update reaches. */
static void cholesky(struct mpb_tune_chain *c, int blocks)
{
    int64_t n = c->size, nb = n / blocks;
    struct mpb_tune_factor *f = &c->factor;
    int s = f->matrix = mpb_tune_chain_add_buffer(c, n, n, true, 1.0);
    c->buffers[s].spd = true;
    f->rhs = mpb_tune_chain_add_buffer(c, n, 1, true, 1.0);
    f->blocks = blocks;
    for (int k = 0; k < blocks; k++) {
        int64_t rest = n - (k + 1) * nb;
        f->diag[k] = mpb_tune_chain_add_buffer(c, nb, nb, false, 0);
        f->panel[k] = -1;
        mpb_tune_chain_add_step(c, MPB_TUNE_POTRF, f->diag[k], s, s);
        if (k == blocks - 1)
            break;
        int p = f->panel[k] = mpb_tune_chain_add_buffer(c, rest, nb, false, 0);
        int q = mpb_tune_chain_add_buffer(c, nb, rest, false, 0);
        int u = mpb_tune_chain_add_buffer(c, rest, rest, false, 0);
        int next = mpb_tune_chain_add_buffer(c, rest, rest, false, 0);
        mpb_tune_chain_add_step(c, MPB_TUNE_TRSM, p, s, f->diag[k]);
        mpb_tune_chain_add_step(c, MPB_TUNE_TRANSPOSE, q, p, p);
        mpb_tune_chain_add_step(c, MPB_TUNE_GEMM, u, p, q);
        mpb_tune_chain_add_step(c, MPB_TUNE_SCHUR, next, s, u);
        s = next;
    }
    c->output = f->diag[blocks - 1];
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
    else if (!strcmp(name, "cholesky") && size % CHOLESKY_BLOCKS == 0)
        cholesky(c, CHOLESKY_BLOCKS);
    else if (!strcmp(name, "cholesky")) {
        snprintf(why, why_len, "cholesky at n = %lld: n must be a multiple of its %d blocks", (long long)size,
                 CHOLESKY_BLOCKS);
        return false;
    } else {
        snprintf(why, why_len, "unknown chain '%s' (micro3, micro6, micro9, mlp3, cholesky)", name);
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
    /* SPD as HPL-AI's matrix: symmetric and diagonally dominant (|a_ij| < 1
     * off the diagonal, n added on it) */
    for (int64_t j = 0; b->spd && j < b->cols; j++) {
        for (int64_t i = j + 1; i < b->rows; i++)
            out[j + i * b->rows] = out[i + j * b->rows];
        out[j + j * b->rows] += (float)b->rows;
    }
}
