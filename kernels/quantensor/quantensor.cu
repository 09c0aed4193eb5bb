/* CUDA backend of quantensor_int8 (quantensor_arith.h has the numerics).
 *
 * One call, all on the stream, no allocation and no host synchronisation:
 *   split  row maxima of A / column maxima of B as |x| bits (NaN/Inf
 *          detected), then every slice of each element in one pass over A
 *          (transposed through shared memory so that each slice is
 *          k-contiguous per row: op(A) = T, cuBLAS's fast INT8 layout) and
 *          one over B, counting the values the slices lose;
 *   gemm   one INT8→INT32 cublasGemmEx per slice pair and k chunk
 *          (mpb_gemm_int8_tn, columns blocked as every INT8 scheme), or
 *          with gemm=engine the same products in batches of up to
 *          TC_I8_MAX_GEMMS, one launch of the engine's INT8 GEMM each
 *          (kernels/tc/tc_i8.h, INT32 C: the same exact sums);
 *   accum  one kernel: per entry the int64 sums of equal weight over the
 *          planes, mpb_qt_combine, or the NaN/Inf fix-up.
 * k is padded with zeros to kp, a multiple of 32; above MPB_CRT_MAX_K it is
 * split into chunks, one INT32 plane per pair and chunk, added in int64 by
 * the accumulation (the same bits as one exact sum). gemm=engine pads k to
 * chunks × chunk length instead (mpb_qt_slice_ld): one k for every product
 * of a batch. */
#include "quantensor/quantensor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "common/cublas_util.h"
#include "tc/tc_i8.h"

struct qt_state {
    int level, s, npairs, wmax;
    struct mpb_qt_pair pairs[MPB_QT_MAX_PAIRS];
    int64_t k, kp, chunks, chunk_len; /* kp: the slices' leading dimension (mpb_qt_slice_ld) */
    int64_t ldc;                   /* rows of an INT32 plane (mpb_qt_plane_ld) */
    bool engine;                   /* gemm=engine: the products through plans */
    int nplans;                    /* engine launches per call; 0 when a dimension is 0 */
    struct tc_i8_plan **plans;     /* plan b: products b·TC_I8_MAX_GEMMS … in plane order */
    void *base;                    /* the one device allocation the buffers below are carved from */
    int8_t *da, *db;               /* slice p of A at da + p·m·kp (row i at i·kp), of B likewise */
    uint32_t *amax, *bmax;         /* |max| per row of A / column of B, as bits */
    int32_t *c32;                  /* plane (t·chunks + c)·ldc·n: pair t over chunk c */
    unsigned long long *lost;      /* [operand][MPB_QT_LOST_*] of the last call */
};

/* The pairs by value: a kernel argument, no device copy to manage. */
struct qt_pairs {
    struct mpb_qt_pair t[MPB_QT_MAX_PAIRS];
};

static const unsigned threads = 256;
static const int tile = 32, tile_rows = 8;

static unsigned blocks_for(int64_t count, int64_t per_block)
{
    int64_t b = (count + per_block - 1) / per_block;
    return (unsigned)(b < 1 ? 1 : b);
}

static unsigned grid_y(int64_t count)
{
    return (unsigned)(count < 65535 ? count : 65535);
}

/* Row maxima of column-major A: threads along i, blockIdx.y takes a slice
 * of k; an integer max, so the order does not matter. */
static __global__ void qt_row_max(const float *a, int64_t m, int64_t k, int64_t k_slice,
                                  uint32_t *amax)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    uint32_t mx = 0;
    for (int64_t l = (int64_t)blockIdx.y * k_slice; l < k && l < ((int64_t)blockIdx.y + 1) * k_slice; l++) {
        uint32_t v = mpb_qt_abs_bits(a[i + l * m]);
        mx = v > mx ? v : mx;
    }
    atomicMax(&amax[i], mx);
}

/* Column maxima of B (k-contiguous): one warp per column. */
static __global__ void qt_col_max(const float *b, int64_t k, int64_t n, uint32_t *bmax)
{
    int64_t j = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (j >= n)
        return;
    uint32_t mx = 0;
    for (int64_t l = threadIdx.x % 32; l < k; l += 32) {
        uint32_t v = mpb_qt_abs_bits(b[l + j * k]);
        mx = v > mx ? v : mx;
    }
    mx = __reduce_max_sync(0xFFFFFFFFu, mx);
    if (threadIdx.x % 32 == 0)
        bmax[j] = mx;
}

/* The slices of x (0 in a non-finite row/column or in the padding) into
 * out[p·plane], p < s; counts what they lose (MPB_QT_LOST_INEXACT, _ZERO). */
static __device__ void write_slices(float x, uint32_t max_bits, int s, int8_t *out, size_t plane,
                                    unsigned *count)
{
    int8_t d[MPB_QT_MAX_SLICES];
    bool fin = mpb_qt_finite_bits(max_bits);
    bool lossy = mpb_qt_slice(fin ? x : 0.0f, mpb_qt_exponent(max_bits), s, d) != 0;
    bool all_zero = true;
    for (int p = 0; p < s; p++) {
        out[(size_t)p * plane] = d[p];
        all_zero = all_zero && d[p] == 0;
    }
    count[MPB_QT_LOST_INEXACT] += lossy;
    count[MPB_QT_LOST_ZERO] += lossy && all_zero;
}

/* A block's counts into lost[0..MPB_QT_LOST_N): a warp sum, a shared sum,
 * then one global atomic per counter and block (not per warp: at level 0
 * nearly every value counts). Every thread of the block calls it. */
static __device__ void add_losses(const unsigned *count, unsigned long long *lost)
{
    __shared__ unsigned sum[MPB_QT_LOST_N];
    int id = threadIdx.y * blockDim.x + threadIdx.x;
    if (id < MPB_QT_LOST_N)
        sum[id] = 0;
    __syncthreads();
    for (int c = 0; c < MPB_QT_LOST_N; c++) {
        unsigned w = __reduce_add_sync(0xFFFFFFFFu, count[c]);
        if (id % 32 == 0 && w)
            atomicAdd(&sum[c], w);
    }
    __syncthreads();
    if (id < MPB_QT_LOST_N && sum[id])
        atomicAdd(&lost[id], (unsigned long long)sum[id]);
}

/* A (m×k, column-major) to s row-major slices (i·kp + l): a 32×32 tile
 * read along i, written along l through shared memory (row stride 33:
 * the column-wise reads hit 32 distinct banks). */
static __global__ void qt_split_a(const float *a, int64_t m, int64_t k, int64_t kp,
                                  const uint32_t *amax, int s, int8_t *out,
                                  unsigned long long *lost)
{
    __shared__ float t[tile][tile + 1];
    int64_t i0 = (int64_t)blockIdx.x * tile;
    unsigned count[MPB_QT_LOST_N] = {0, 0, 0};
    for (int64_t l0 = (int64_t)blockIdx.y * tile; l0 < kp; l0 += (int64_t)gridDim.y * tile) {
        for (int r = threadIdx.y; r < tile; r += tile_rows) {
            int64_t i = i0 + threadIdx.x, l = l0 + r;
            t[r][threadIdx.x] = i < m && l < k ? a[i + l * m] : 0.0f;
        }
        __syncthreads();
        for (int r = threadIdx.y; r < tile; r += tile_rows) {
            int64_t i = i0 + r, l = l0 + threadIdx.x;
            if (i < m && l < kp) {
                write_slices(t[threadIdx.x][r], amax[i], s, out + i * kp + l, (size_t)(m * kp), count);
                count[MPB_QT_LOST_NONFINITE] += l == 0 && !mpb_qt_finite_bits(amax[i]);
            }
        }
        __syncthreads();
    }
    add_losses(count, lost);
}

/* B (k×n, column-major) to s slices of columns of length kp: thread x
 * along l, blockIdx.y (strided) along j; no transpose. */
static __global__ void qt_split_b(const float *b, int64_t k, int64_t n, int64_t kp,
                                  const uint32_t *bmax, int s, int8_t *out,
                                  unsigned long long *lost)
{
    int64_t l = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned count[MPB_QT_LOST_N] = {0, 0, 0};
    for (int64_t j = blockIdx.y; j < n; j += gridDim.y)
        if (l < kp) {
            write_slices(l < k ? b[l + j * k] : 0.0f, bmax[j], s, out + j * kp + l,
                         (size_t)(n * kp), count);
            count[MPB_QT_LOST_NONFINITE] += l == 0 && !mpb_qt_finite_bits(bmax[j]);
        }
    add_losses(count, lost);
}

/* C from the INT32 planes (quantensor_arith.h "Accumulation"): per entry,
 * S_w = Σ over the pairs of weight w and the chunks (int64, exact), then
 * mpb_qt_combine; an entry of a row/column holding NaN/±Inf is fixed up
 * from A and B instead. Threads run along i: every plane read coalesces. */
static __global__ void qt_accum(const int32_t *c32, int64_t ldc, const struct qt_pairs pairs, int npairs,
                                int64_t chunks, int wmax, int64_t m, int64_t n, int64_t k,
                                const uint32_t *amax, const uint32_t *bmax, const float *a,
                                const float *b, float *c)
{
    int64_t mn = m * n, plane = ldc * n;
    for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < mn;
         x += (int64_t)gridDim.x * blockDim.x) {
        int64_t i = x % m, j = x / m;
        uint32_t am = amax[i], bm = bmax[j];
        if (!mpb_qt_finite_bits(am) || !mpb_qt_finite_bits(bm)) {
            c[x] = mpb_qt_nonfinite_entry(a + i, m, b + j * k, k);
            continue;
        }
        int64_t sw[MPB_QT_MAX_WEIGHT + 1] = {0, 0, 0, 0, 0};
        for (int t = 0; t < npairs; t++)
            for (int64_t ch = 0; ch < chunks; ch++)
                sw[pairs.t[t].p + pairs.t[t].q] += __ldcs(c32 + (t * chunks + ch) * plane + i + j * ldc);
        c[x] = mpb_qt_combine(sw, wmax,
                              mpb_qt_exponent(am) + mpb_qt_exponent(bm) - 2 * MPB_QT_BETA);
    }
}

static unsigned plane_grid(int64_t count)
{
    unsigned b = blocks_for(count, threads);
    return b > 132 * 16 ? 132 * 16 : b;
}

static enum mpb_status qt_split(struct mpb_cuda_env *env, struct qt_state *s, const struct mpb_gemm *g)
{
    cudaStream_t st = mpb_stream(env);
    int64_t m = g->m, n = g->n, k = g->k, kp = s->kp;
    const float *a = (const float *)g->a, *b = (const float *)g->b;
    const int64_t k_slice = 64;
    MPB_CUDA_TRY(env, cudaMemsetAsync(s->amax, 0, sizeof *s->amax * (size_t)m, st));
    MPB_CUDA_TRY(env, cudaMemsetAsync(s->lost, 0, 2 * MPB_QT_LOST_N * sizeof *s->lost, st));
    dim3 row_grid(blocks_for(m, threads), grid_y(blocks_for(k, k_slice)));
    qt_row_max<<<row_grid, threads, 0, st>>>(a, m, k, (k + row_grid.y - 1) / row_grid.y, s->amax);
    MPB_LAUNCH_CHECK(env);
    qt_col_max<<<blocks_for(n * 32, threads), threads, 0, st>>>(b, k, n, s->bmax);
    MPB_LAUNCH_CHECK(env);
    dim3 tile_block(tile, tile_rows), a_grid(blocks_for(m, tile), grid_y(blocks_for(kp, tile)));
    qt_split_a<<<a_grid, tile_block, 0, st>>>(a, m, k, kp, s->amax, s->s, s->da, s->lost);
    MPB_LAUNCH_CHECK(env);
    dim3 b_grid(blocks_for(kp, threads), grid_y(n));
    qt_split_b<<<b_grid, threads, 0, st>>>(b, k, n, kp, s->bmax, s->s, s->db, s->lost + MPB_QT_LOST_N);
    MPB_LAUNCH_CHECK(env);
    return MPB_STATUS_OK;
}

/* One INT8 GEMM per pair and chunk: plane (t·chunks + c) = A_p^T·B_q over
 * the chunk's terms of the padded k; with gemm=engine the plans' launches
 * (k = 0: every sum is 0). */
static enum mpb_status qt_gemms(struct mpb_cuda_env *env, const struct qt_state *s, int64_t m, int64_t n)
{
    if (s->engine && !s->nplans) {
        size_t bytes = sizeof(int32_t) * (size_t)(s->npairs * s->chunks) * (size_t)(s->ldc * n);
        MPB_CUDA_TRY(env, cudaMemsetAsync(s->c32, 0, bytes, mpb_stream(env)));
    }
    for (int b = 0; b < s->nplans; b++) {
        int err = tc_i8_plan_launch(s->plans[b], mpb_stream(env));
        if (err)
            return mpb_cuda_fail(env, cudaGetErrorString((cudaError_t)err), __FILE__, __LINE__);
    }
    for (int t = 0; t < s->npairs && !s->engine; t++)
        for (int64_t c = 0; c < s->chunks; c++) {
            int64_t l0 = c * s->chunk_len;
            int kc = (int)(s->kp - l0 < s->chunk_len ? s->kp - l0 : s->chunk_len);
            const int8_t *at = s->da + (size_t)(s->pairs[t].p * m * s->kp + l0);
            const int8_t *bt = s->db + (size_t)(s->pairs[t].q * n * s->kp + l0);
            int32_t *ct = s->c32 + (size_t)((t * s->chunks + c) * m * n);
            MPB_CUBLAS_TRY(env, mpb_gemm_int8_tn(mpb_cublas(env), (int)m, (int)n, kc, at, (int)s->kp,
                                                 bt, (int)s->kp, ct, (int)m, mpb_int8_block_cols(n)));
        }
    return MPB_STATUS_OK;
}

static enum mpb_status quantensor_run(struct mpb_cuda_env *env, void *state, const struct mpb_gemm *g,
                                      struct mpb_phase_clock *clock)
{
    struct qt_state *s = (struct qt_state *)state;
    if (g->m == 0 || g->n == 0)
        return MPB_STATUS_OK;
    enum mpb_status st = qt_split(env, s, g);
    if (st != MPB_STATUS_OK)
        return st;
    mpb_phase_mark(clock, MPB_PHASE_SPLIT);
    if ((st = qt_gemms(env, s, g->m, g->n)) != MPB_STATUS_OK)
        return st;
    mpb_phase_mark(clock, MPB_PHASE_GEMM);
    struct qt_pairs pairs;
    for (int t = 0; t < MPB_QT_MAX_PAIRS; t++)
        pairs.t[t] = s->pairs[t];
    qt_accum<<<plane_grid(g->m * g->n), threads, 0, mpb_stream(env)>>>(
        s->c32, s->ldc, pairs, s->npairs, s->chunks, s->wmax, g->m, g->n, g->k, s->amax, s->bmax,
        (const float *)g->a, (const float *)g->b, (float *)g->c);
    MPB_LAUNCH_CHECK(env);
    mpb_phase_mark(clock, MPB_PHASE_ACCUM);
    return MPB_STATUS_OK;
}

static void quantensor_teardown(struct mpb_cuda_env *env, void *state)
{
    struct qt_state *s = (struct qt_state *)state;
    if (!s)
        return;
    for (int b = 0; b < s->nplans; b++)
        tc_i8_plan_destroy(s->plans[b]);
    free(s->plans);
    mpb_cuda_free(env, s->base);
    free(s);
}

static size_t aligned(size_t bytes)
{
    return (bytes + 255) / 256 * 256;
}

/* Every buffer run() needs, carved out of one device allocation
 * (mpb_qt_workspace counts the same); then the shared handle's settings,
 * stated again for every case (the handle keeps them across cases): the INT8
 * GEMMs take host alpha and beta. */
static enum mpb_status prepare(struct mpb_cuda_env *env, struct qt_state *s, const struct mpb_gemm *g)
{
    size_t m = (size_t)g->m, n = (size_t)g->n, kp = (size_t)s->kp, ns = (size_t)s->s;
    size_t planes = (size_t)s->npairs * (size_t)s->chunks;
    const size_t part[] = {ns * m * kp, ns * n * kp, planes * (size_t)s->ldc * n * sizeof(int32_t),
                           m * sizeof(uint32_t), n * sizeof(uint32_t),
                           2 * MPB_QT_LOST_N * sizeof(unsigned long long)};
    size_t total = 0;
    for (size_t i = 0; i < sizeof part / sizeof part[0]; i++)
        total += aligned(part[i]);
    enum mpb_status st = mpb_cuda_alloc(env, &s->base, total);
    if (st != MPB_STATUS_OK)
        return st;
    char *p = (char *)s->base;
    s->da = (int8_t *)p, p += aligned(part[0]);
    s->db = (int8_t *)p, p += aligned(part[1]);
    s->c32 = (int32_t *)p, p += aligned(part[2]);
    s->amax = (uint32_t *)p, p += aligned(part[3]);
    s->bmax = (uint32_t *)p, p += aligned(part[4]);
    s->lost = (unsigned long long *)p;
    MPB_CUBLAS_TRY(env, cublasSetPointerMode(mpb_cublas(env), CUBLAS_POINTER_MODE_HOST));
    MPB_CUBLAS_TRY(env, cublasSetMathMode(mpb_cublas(env), CUBLAS_DEFAULT_MATH));
    return MPB_STATUS_OK;
}

/* gemm=engine: product u = t·chunks + c (pair t over chunk c, each
 * chunk_len long: kp is a whole number of chunks) into plane u, in
 * batches of TC_I8_MAX_GEMMS, one plan each. None when a dimension is 0. */
static enum mpb_status plan_engine(struct mpb_cuda_env *env, struct qt_state *s, const struct mpb_gemm *g)
{
    int64_t total = s->npairs * s->chunks;
    if (g->m == 0 || g->n == 0 || s->kp == 0)
        return MPB_STATUS_OK;
    int64_t count = (total + TC_I8_MAX_GEMMS - 1) / TC_I8_MAX_GEMMS;
    s->plans = (struct tc_i8_plan **)calloc((size_t)count, sizeof *s->plans);
    if (!s->plans)
        return mpb_cuda_fail(env, "out of host memory for the engine's plans", __FILE__, __LINE__);
    const size_t plane = (size_t)(s->ldc * g->n);
    for (int64_t u0 = 0; u0 < total; u0 += TC_I8_MAX_GEMMS) {
        struct tc_i8_args a = {};
        a.m = g->m;
        a.n = g->n;
        a.k = s->chunk_len;
        a.ld = s->kp;
        a.ldc = s->ldc;
        a.n_gemms = (int)(total - u0 < TC_I8_MAX_GEMMS ? total - u0 : TC_I8_MAX_GEMMS);
        for (int x = 0; x < a.n_gemms; x++) {
            int64_t u = u0 + x, t = u / s->chunks, l0 = u % s->chunks * s->chunk_len;
            a.gemms[x].a = s->da + (size_t)(s->pairs[t].p * g->m * s->kp + l0);
            a.gemms[x].b = s->db + (size_t)(s->pairs[t].q * g->n * s->kp + l0);
            a.gemms[x].c = s->c32 + (size_t)u * plane;
            a.gemms[x].mod = 0;
        }
        char why[256];
        if (tc_i8_plan_create(&a, &s->plans[s->nplans], why, sizeof why) != 0)
            return mpb_cuda_fail(env, why, __FILE__, __LINE__);
        s->nplans++;
    }
    return MPB_STATUS_OK;
}

static enum mpb_status quantensor_setup(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                                        const double *params, void **state)
{
    *state = NULL;
    char why[256];
    if (!mpb_qt_check(params, g, mpb_cuda_device(env), why, sizeof why))
        return mpb_cuda_fail(env, why, __FILE__, __LINE__);
    struct qt_state *s = (struct qt_state *)calloc(1, sizeof *s);
    if (!s)
        return mpb_cuda_fail(env, "out of host memory for the scheme state", __FILE__, __LINE__);
    s->level = (int)params[MPB_QT_LEVELS];
    s->s = mpb_qt_slices(s->level);
    s->npairs = mpb_qt_pairs(s->level, s->pairs);
    s->wmax = mpb_qt_max_weight(s->level);
    s->k = g->k;
    s->engine = mpb_qt_gemm_engine_used(params, g, mpb_cuda_device(env));
    s->kp = mpb_qt_slice_ld(s->engine, g->k);
    s->ldc = mpb_qt_plane_ld(s->engine, g->m);
    mpb_qt_chunking(g->k, &s->chunks, &s->chunk_len);
    enum mpb_status st = prepare(env, s, g);
    if (st == MPB_STATUS_OK && s->engine)
        st = plan_engine(env, s, g);
    if (st != MPB_STATUS_OK) {
        quantensor_teardown(env, s);
        return st;
    }
    *state = s;
    return MPB_STATUS_OK;
}

static enum mpb_status quantensor_report(struct mpb_cuda_env *env, void *state,
                                         struct mpb_scheme_info *info)
{
    const struct qt_state *s = (const struct qt_state *)state;
    unsigned long long dev_lost[2 * MPB_QT_LOST_N];
    enum mpb_status st = mpb_cuda_download(env, dev_lost, s->lost, sizeof dev_lost);
    if (st != MPB_STATUS_OK)
        return st;
    uint64_t lost[2][MPB_QT_LOST_N];
    for (int c = 0; c < 2 * MPB_QT_LOST_N; c++)
        lost[c / MPB_QT_LOST_N][c % MPB_QT_LOST_N] = dev_lost[c];
    mpb_qt_report(s->level, s->k, lost, info);
    size_t used = strlen(info->settings);
    if (s->engine && used < sizeof info->settings)
        snprintf(info->settings + used, sizeof info->settings - used, " gemm=engine launches=%d", s->nplans);
    else if (used < sizeof info->settings)
        snprintf(info->settings + used, sizeof info->settings - used, " gemm=calls");
    return MPB_STATUS_OK;
}

extern "C" const struct mpb_scheme_cuda mpb_quantensor_cuda = {quantensor_setup, quantensor_run,
                                                               quantensor_report, quantensor_teardown};
