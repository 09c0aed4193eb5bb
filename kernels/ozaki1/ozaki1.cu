/* CUDA backend of Ozaki scheme I (ozaki1_fp16 and ozaki1_int8).
 *
 * setup: slice counts (fp16 dp/cr read A and B once, like the paper's
 *        SplitA; decided here so that run() never waits on the host), the
 *        plan of GEMM calls, every buffer.
 * run:   split   scale exponents per row of A / column of B, then all digits
 *                of each element in one pass (A transposed through shared
 *                memory so that every digit slice is k-contiguous per row:
 *                op(A) = T, the fast INT8 layout);
 *        gemm    one cublasGemmEx per call of the plan (FP16→FP32 or
 *                INT8→INT32, both exact, ozaki1_arith.h); int8 gemm=engine:
 *                the plan's calls (pairs concatenated along k as for
 *                cuBLAS) in batches of consecutive calls of one k,
 *                TC_I8_MAX_GEMMS at most, one
 *                launch of the engine's INT8 GEMM each (kernels/tc/tc_i8.h,
 *                INT32 C);
 *        accum   one pass over all call outputs per chunk of calls (one chunk
 *                when they fit in memory), FP64 or exact, the same MPB_HD
 *                steps in the same order as the host model. */
#include "ozaki1/ozaki1.h"

#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "common/cublas_util.h"
#include "common/lowp_arith.h"
#include "tc/tc_i8.h"

/* Calls whose outputs are accumulated by one pass; each ends a weight group. */
struct chunk {
    int c0, c1;
};

struct ozaki1_state {
    int format;
    struct mpb_ozaki1_plan plan;
    void *da, *db;                  /* digit slices: int8 or fp16 bits */
    int *ea, *eb;                   /* scale exponents */
    void *bufs;                     /* call outputs, ldc·n int32 or float each */
    int64_t ldc;                    /* rows of a call output: m, or m up to a multiple of 4
                                       with the engine (its rule for INT32 C) */
    double *acc;                    /* running FP64 sums between chunks */
    struct mpb_ozaki1_call *calls;  /* device copy of plan.calls */
    struct chunk *chunks;
    int nchunks;
    struct tc_i8_plan **plans;      /* gemm=engine: chunk c's launches are plans
                                       plan0[c] .. plan0[c + 1] − 1 */
    int *plan0, nplans;
};

#define THREADS 256

static unsigned grid_for(int64_t n)
{
    int64_t b = (n + THREADS - 1) / THREADS;
    return (unsigned)(b < 65535 * 16 ? (b > 0 ? b : 1) : 65535 * 16);
}

/* ---- scale exponents (setup's statistics and run's split) ---- */

static __global__ void fill_int(int *x, int64_t n, int v)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        x[i] = v;
}

#define EXP_L_CHUNK 64

/* A's rows (i contiguous): each thread a row i and EXP_L_CHUNK values of l,
 * reads coalesced across the warp; max is order-independent. */
static __global__ void exp_rows(const void *a, int64_t m, int64_t k, int f32, int format, int *e)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    int64_t l0 = (int64_t)blockIdx.y * EXP_L_CHUNK, l1 = l0 + EXP_L_CHUNK < k ? l0 + EXP_L_CHUNK : k;
    int best = MPB_OZAKI1_ZERO_EXP;
    for (int64_t l = l0; l < l1; l++) {
        int el = mpb_ozaki1_need_exp(mpb_ozaki1_load(a, i + l * m, f32), format);
        best = el > best ? el : best;
    }
    atomicMax(&e[i], best);
}

/* B's columns (contiguous): one block per column, a block-wide max. */
static __global__ void exp_cols(const void *b, int64_t n, int64_t k, int f32, int format, int *e)
{
    __shared__ int red[THREADS];
    for (int64_t j = blockIdx.x; j < n; j += gridDim.x) {
        int best = MPB_OZAKI1_ZERO_EXP;
        for (int64_t l = threadIdx.x; l < k; l += blockDim.x) {
            int el = mpb_ozaki1_need_exp(mpb_ozaki1_load(b, l + j * k, f32), format);
            best = el > best ? el : best;
        }
        red[threadIdx.x] = best;
        __syncthreads();
        for (int h = THREADS / 2; h > 0; h /= 2) {
            if ((int)threadIdx.x < h && red[threadIdx.x + h] > red[threadIdx.x])
                red[threadIdx.x] = red[threadIdx.x + h];
            __syncthreads();
        }
        if (threadIdx.x == 0)
            e[j] = red[0];
        __syncthreads();
    }
}

/* ea[0..m) and eb[0..n), the scale exponents of A's rows and B's columns
 * (MPB_OZAKI1_NONFINITE_EXP where one holds NaN/±Inf). */
static enum mpb_status exponents(struct mpb_cuda_env *env, const struct mpb_gemm *g, int format,
                                 int *ea, int *eb)
{
    cudaStream_t st = mpb_stream(env);
    int64_t m = g->m, n = g->n, k = g->k;
    int f32 = g->target == MPB_TARGET_FP32;
    fill_int<<<grid_for(m), THREADS, 0, st>>>(ea, m, MPB_OZAKI1_ZERO_EXP);
    MPB_LAUNCH_CHECK(env);
    dim3 eg((unsigned)((m + THREADS - 1) / THREADS), (unsigned)((k + EXP_L_CHUNK - 1) / EXP_L_CHUNK));
    exp_rows<<<eg, THREADS, 0, st>>>(g->a, m, k, f32, format, ea);
    MPB_LAUNCH_CHECK(env);
    exp_cols<<<(unsigned)(n < 65535 ? n : 65535), THREADS, 0, st>>>(g->b, n, k, f32, format, eb);
    MPB_LAUNCH_CHECK(env);
    return MPB_STATUS_OK;
}

/* ---- setup: statistics for the slice counts ---- */

static __global__ void stats_kernel(const void *x, int64_t count, int64_t len, int64_t vstride,
                                    int64_t lstride, int f32, const double *w, const int *skip,
                                    int format, struct mpb_ozaki1_vec_stats *out)
{
    for (int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; v < count;
         v += (int64_t)gridDim.x * blockDim.x) {
        const char *base = (const char *)x + (size_t)(v * vstride) * (f32 ? 4 : 8);
        out[v] = mpb_ozaki1_stats(base, len, lstride, f32, w, skip, format);
    }
}

static __global__ void wsum_only(const struct mpb_ozaki1_vec_stats *st, int64_t n, double *out)
{
    for (int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; v < n;
         v += (int64_t)gridDim.x * blockDim.x)
        out[v] = st[v].wsum;
}

/* The scale exponents, then the same four passes as host_stats in
 * ozaki1_host.c. */
static enum mpb_status device_stats(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                                    int format, struct mpb_ozaki1_vec_stats *sta,
                                    struct mpb_ozaki1_vec_stats *stb)
{
    int64_t m = g->m, n = g->n, k = g->k;
    int f32 = g->target == MPB_TARGET_FP32;
    cudaStream_t s = mpb_stream(env);
    struct mpb_ozaki1_vec_stats *tmp = NULL, *dsa = NULL, *dsb = NULL;
    double *col_a = NULL, *row_b = NULL;
    int *e = NULL;
    enum mpb_status st = mpb_cuda_alloc(env, (void **)&tmp, sizeof *tmp * (size_t)(2 * k));
    if (!st) st = mpb_cuda_alloc(env, (void **)&col_a, sizeof *col_a * (size_t)k);
    if (!st) st = mpb_cuda_alloc(env, (void **)&row_b, sizeof *row_b * (size_t)k);
    if (!st) st = mpb_cuda_alloc(env, (void **)&dsa, sizeof *dsa * (size_t)m);
    if (!st) st = mpb_cuda_alloc(env, (void **)&dsb, sizeof *dsb * (size_t)n);
    if (!st) st = mpb_cuda_alloc(env, (void **)&e, sizeof *e * (size_t)(m + n));
    if (!st) st = exponents(env, g, format, e, e + m);
    if (!st) {
        stats_kernel<<<grid_for(k), THREADS, 0, s>>>(g->a, k, m, m, 1, f32, NULL, e, format, tmp);
        stats_kernel<<<grid_for(k), THREADS, 0, s>>>(g->b, k, n, 1, k, f32, NULL, e + m, format,
                                                    tmp + k);
        wsum_only<<<grid_for(k), THREADS, 0, s>>>(tmp, k, col_a);
        wsum_only<<<grid_for(k), THREADS, 0, s>>>(tmp + k, k, row_b);
        stats_kernel<<<grid_for(m), THREADS, 0, s>>>(g->a, m, k, 1, m, f32, row_b, NULL, format,
                                                    dsa);
        stats_kernel<<<grid_for(n), THREADS, 0, s>>>(g->b, n, k, k, 1, f32, col_a, NULL, format,
                                                    dsb);
        cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess)
            st = mpb_cuda_fail_rt(env, err, "stats_kernel<<<>>>", __FILE__, __LINE__);
    }
    if (!st) st = mpb_cuda_download(env, sta, dsa, sizeof *sta * (size_t)m);
    if (!st) st = mpb_cuda_download(env, stb, dsb, sizeof *stb * (size_t)n);
    mpb_cuda_free(env, tmp);
    mpb_cuda_free(env, col_a);
    mpb_cuda_free(env, row_b);
    mpb_cuda_free(env, dsa);
    mpb_cuda_free(env, dsb);
    mpb_cuda_free(env, e);
    return st;
}

/* ---- run: split ---- */

template <typename D> __device__ void store_digit(D *p, int32_t d);
template <> __device__ void store_digit<int8_t>(int8_t *p, int32_t d) { *p = (int8_t)d; }
/* |d| ≤ 2^11: exact in FP16. */
template <> __device__ void store_digit<uint16_t>(uint16_t *p, int32_t d)
{
    *p = mpb_fp16_from_f32((float)d);
}

/* All digits of x into out[slot(p)·kpad] for p = 1..s; `reverse`: B's
 * slices are stored last digit first (ozaki1.h, concatenated calls). */
template <typename D>
__device__ void write_digits(double x, int e, int beta, int s, bool reverse, int64_t kpad, D *out)
{
    double r = mpb_ozaki1_scaled(x, e);
    for (int p = 1; p <= s; p++) {
        int32_t d = mpb_ozaki1_digit_step(&r, p, beta);
        store_digit(out + (int64_t)(reverse ? s - p : p - 1) * kpad, d);
    }
}

#define TILE 32

/* A (m×k, i contiguous) → row i's digit p at da[i·s·kpad + (p−1)·kpad + l]:
 * a 32×32 tile through shared memory so that reads and writes coalesce. */
template <typename D>
static __global__ void split_a(const void *a, int64_t m, int64_t k, int f32, const int *e,
                               int beta, int s, int64_t kpad, D *da)
{
    __shared__ double tile[TILE][TILE + 1];
    int64_t i0 = (int64_t)blockIdx.x * TILE, l0 = (int64_t)blockIdx.y * TILE;
    for (int r = threadIdx.y; r < TILE; r += blockDim.y) {
        int64_t i = i0 + threadIdx.x, l = l0 + r;
        tile[r][threadIdx.x] = i < m && l < k ? mpb_ozaki1_load(a, i + l * m, f32) : 0.0;
    }
    __syncthreads();
    for (int r = threadIdx.y; r < TILE; r += blockDim.y) {
        int64_t i = i0 + r, l = l0 + threadIdx.x;
        if (i < m && l < k)
            write_digits(tile[threadIdx.x][r], e[i], beta, s, false, kpad,
                         da + i * s * kpad + l);
    }
}

/* B (k×n, l contiguous) → column j's digit q at db[j·s·kpad + (s−q)·kpad + l]. */
template <typename D>
static __global__ void split_b(const void *b, int64_t n, int64_t k, int f32, const int *e,
                               int beta, int s, int64_t kpad, D *db)
{
    int64_t total = n * k;
    for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < total;
         x += (int64_t)gridDim.x * blockDim.x) {
        int64_t l = x % k, j = x / k;
        write_digits(mpb_ozaki1_load(b, x, f32), e[j], beta, s, true, kpad, db + j * s * kpad + l);
    }
}

/* ---- run: accumulate ---- */

/* Calls c0..c1 of the plan at every entry; the same steps as entry() in
 * ozaki1_host.c. `first`: start from 0, else from acc; `last`: write C. */
template <typename V, typename T>
static __global__ void accumulate(const V *bufs, int64_t ldc, const struct mpb_ozaki1_call *calls, int c0,
                                  int c1, int acc_kind, int beta, int wmax, int prec, int64_t m,
                                  int64_t n, const int *ea, const int *eb, double *acc, bool first,
                                  bool last, T *c)
{
    int64_t mn = m * n, plane = ldc * n;
    for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < mn;
         x += (int64_t)gridDim.x * blockDim.x) {
        int64_t at = x % m + x / m * ldc; /* entry x in a call output */
        int escale = mpb_ozaki1_escale(ea[x % m], eb[x / m]);
        double out;
        if (acc_kind == MPB_OZAKI1_ACC_EXACT) {
            int64_t sw[2 * MPB_OZAKI1_MAX_DIGITS + 1];
            int32_t dig[2 * MPB_OZAKI1_MAX_DIGITS + 1];
            for (int w = 0; w <= wmax; w++)
                sw[w] = 0;
            for (int ci = c0; ci < c1; ci++)
                sw[calls[ci].w] += (int64_t)bufs[(int64_t)(ci - c0) * plane + at];
            out = mpb_ozaki1_round_exact(sw, wmax, beta, escale, prec, dig);
        } else {
            double a = first ? 0.0 : acc[x];
            int64_t s = 0;
            for (int ci = c0; ci < c1; ci++) {
                int64_t v = (int64_t)bufs[(int64_t)(ci - c0) * plane + at];
                if (acc_kind == MPB_OZAKI1_ACC_PER_CALL) {
                    a = mpb_ozaki1_acc_add(a, v, calls[ci].w, beta);
                } else {
                    s += v;
                    if (calls[ci].group_end) {
                        a = mpb_ozaki1_acc_add(a, s, calls[ci].w, beta);
                        s = 0;
                    }
                }
            }
            if (!last) {
                acc[x] = a;
                continue;
            }
            out = mpb_ozaki1_unscale(a, escale);
        }
        c[x] = (T)out;
    }
}

/* ---- setup / run / report / teardown ---- */

static void ozaki1_teardown(struct mpb_cuda_env *env, void *state)
{
    struct ozaki1_state *s = (struct ozaki1_state *)state;
    if (!s)
        return;
    mpb_cuda_free(env, s->da);
    mpb_cuda_free(env, s->db);
    mpb_cuda_free(env, s->ea);
    mpb_cuda_free(env, s->bufs);
    mpb_cuda_free(env, s->acc);
    mpb_cuda_free(env, s->calls);
    mpb_ozaki1_plan_free(&s->plan);
    free(s->chunks);
    for (int b = 0; b < s->nplans; b++)
        tc_i8_plan_destroy(s->plans[b]);
    free(s->plans);
    free(s->plan0);
    free(s);
}

/* Chunks of whole weight groups holding at most `room` calls each. */
static bool make_chunks(struct ozaki1_state *s, int room)
{
    const struct mpb_ozaki1_plan *p = &s->plan;
    s->chunks = (struct chunk *)malloc(sizeof *s->chunks * (size_t)(p->ncalls + 1));
    if (!s->chunks)
        return false;
    int c0 = 0;
    while (c0 < p->ncalls) {
        int end = c0, c = c0;
        while (c < p->ncalls && c - c0 < room) {
            if (p->calls[c].group_end)
                end = c + 1;
            c++;
        }
        if (end == c0)
            return false; /* one weight group alone does not fit */
        s->chunks[s->nchunks++] = (struct chunk){c0, end};
        c0 = end;
    }
    return true;
}

/* gemm=engine: per chunk, runs of consecutive calls of one k
 * (mpb_ozaki1_call_k), TC_I8_MAX_GEMMS at most, one plan each, call c into
 * buffer c − c0. None when a dimension is 0. */
static enum mpb_status plan_engine(struct mpb_cuda_env *env, struct ozaki1_state *s, const struct mpb_gemm *g)
{
    const struct mpb_ozaki1_plan *p = &s->plan;
    s->plans = (struct tc_i8_plan **)calloc((size_t)p->ncalls + 1, sizeof *s->plans);
    s->plan0 = (int *)calloc((size_t)s->nchunks + 1, sizeof *s->plan0);
    if (!s->plans || !s->plan0)
        return mpb_cuda_fail(env, "out of host memory for the engine's plans", __FILE__, __LINE__);
    const int64_t ld = p->sa * p->kpad; /* sa = sb for INT8 */
    const size_t plane = (size_t)(s->ldc * g->n);
    for (int ci = 0; ci < s->nchunks; ci++) {
        s->plan0[ci] = s->nplans;
        for (int c = s->chunks[ci].c0; c < s->chunks[ci].c1 && g->m > 0 && g->n > 0 && p->kpad > 0;) {
            struct tc_i8_args a = {};
            a.m = g->m;
            a.n = g->n;
            a.k = mpb_ozaki1_call_k(p, &p->calls[c]);
            a.ld = ld;
            a.ldc = s->ldc;
            for (; c < s->chunks[ci].c1 && mpb_ozaki1_call_k(p, &p->calls[c]) == a.k && a.n_gemms < TC_I8_MAX_GEMMS;
                 c++) {
                const struct mpb_ozaki1_call *x = &p->calls[c];
                struct tc_i8_gemm *e = &a.gemms[a.n_gemms++];
                e->a = (const int8_t *)s->da + (size_t)((x->p_lo - 1) * p->kpad + x->l0);
                e->b = (const int8_t *)s->db + (size_t)((p->sb - x->q_hi) * p->kpad + x->l0);
                e->c = (int32_t *)s->bufs + (size_t)(c - s->chunks[ci].c0) * plane;
                e->mod = 0;
            }
            char why[256];
            if (tc_i8_plan_create(&a, &s->plans[s->nplans], why, sizeof why) != 0)
                return mpb_cuda_fail(env, why, __FILE__, __LINE__);
            s->nplans++;
        }
    }
    s->plan0[s->nchunks] = s->nplans;
    return MPB_STATUS_OK;
}

static enum mpb_status prepare(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                               const double *params, struct ozaki1_state *s)
{
    char why[200];
    bool int8 = s->format == MPB_OZAKI1_INT8;
    if (!(int8 ? mpb_ozaki1_int8_check : mpb_ozaki1_fp16_check)(params, g, mpb_cuda_device(env), why, sizeof why))
        return mpb_cuda_fail(env, why, __FILE__, __LINE__);
    bool engine = int8 && mpb_ozaki1_int8_engine_used(params, g, mpb_cuda_device(env));
    s->ldc = engine ? (g->m + 3) / 4 * 4 : g->m;
    MPB_CUBLAS_TRY(env, cublasSetPointerMode(mpb_cublas(env), CUBLAS_POINTER_MODE_HOST));
    MPB_CUBLAS_TRY(env, cublasSetMathMode(mpb_cublas(env), CUBLAS_DEFAULT_MATH));
    int64_t m = g->m, n = g->n;
    struct mpb_ozaki1_vec_stats *sta = NULL, *stb = NULL;
    enum mpb_status st = MPB_STATUS_OK;
    if (mpb_ozaki1_needs_stats(s->format, params)) {
        sta = (struct mpb_ozaki1_vec_stats *)malloc(sizeof *sta * (size_t)m + 1);
        stb = (struct mpb_ozaki1_vec_stats *)malloc(sizeof *stb * (size_t)n + 1);
        st = sta && stb ? device_stats(env, g, s->format, sta, stb)
                        : mpb_cuda_fail(env, "out of host memory for row statistics", __FILE__, __LINE__);
    }
    bool planned = st == MPB_STATUS_OK &&
                   mpb_ozaki1_plan_make(&s->plan, s->format, g->target, params, m, n, g->k, sta, stb);
    free(sta);
    free(stb);
    if (st != MPB_STATUS_OK)
        return st;
    if (!planned)
        return mpb_cuda_fail(env, s->plan.note, __FILE__, __LINE__);
    const struct mpb_ozaki1_plan *p = &s->plan;
    size_t dsize = s->format == MPB_OZAKI1_INT8 ? 1 : 2;
    size_t bytes_a = dsize * (size_t)(m * p->sa * p->kpad), bytes_b = dsize * (size_t)(n * p->sb * p->kpad);
    if ((st = mpb_cuda_alloc(env, &s->da, bytes_a)) || (st = mpb_cuda_alloc(env, &s->db, bytes_b)) ||
        (st = mpb_cuda_memset(env, s->da, 0, bytes_a)) || (st = mpb_cuda_memset(env, s->db, 0, bytes_b)) ||
        (st = mpb_cuda_alloc(env, (void **)&s->ea, sizeof(int) * (size_t)(m + n))) ||
        (st = mpb_cuda_alloc(env, (void **)&s->calls, sizeof *s->calls * (size_t)p->ncalls)) ||
        (st = mpb_cuda_upload(env, s->calls, p->calls, sizeof *s->calls * (size_t)p->ncalls)))
        return st;
    s->eb = s->ea + m;
    /* Call outputs: all of them if they fit in 80% of free memory. */
    size_t free_b = 0, total_b = 0;
    MPB_CUDA_TRY(env, cudaMemGetInfo(&free_b, &total_b));
    size_t buf = 4 * (size_t)(s->ldc * n), accb = 8 * (size_t)(m * n);
    int64_t room = buf ? (int64_t)((free_b * 0.8) / buf) : p->ncalls;
    if (room < p->ncalls)
        room = buf ? (int64_t)((free_b * 0.8 - accb) / buf) : 0;
    if (room < 1 || (p->acc == MPB_OZAKI1_ACC_EXACT && room < p->ncalls) ||
        !make_chunks(s, (int)(room < p->ncalls ? room : p->ncalls))) {
        snprintf(why, sizeof why, "%d GEMM outputs of %zu MB: too little device memory%s",
                 p->ncalls, buf >> 20, p->acc == MPB_OZAKI1_ACC_EXACT ? " (cr keeps all)" : "");
        return mpb_cuda_fail(env, why, __FILE__, __LINE__);
    }
    int nbufs = s->chunks[0].c1 - s->chunks[0].c0;
    for (int c = 1; c < s->nchunks; c++)
        nbufs = s->chunks[c].c1 - s->chunks[c].c0 > nbufs ? s->chunks[c].c1 - s->chunks[c].c0 : nbufs;
    if ((st = mpb_cuda_alloc(env, &s->bufs, buf * (size_t)nbufs)))
        return st;
    if (s->nchunks > 1 && (st = mpb_cuda_alloc(env, (void **)&s->acc, accb)))
        return st;
    if (engine && (st = plan_engine(env, s, g)))
        return st;
    return mpb_cuda_sync(env);
}

static enum mpb_status ozaki1_setup(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                                    const double *params, int format, void **state)
{
    *state = NULL;
    struct ozaki1_state *s = (struct ozaki1_state *)calloc(1, sizeof *s);
    if (!s)
        return mpb_cuda_fail(env, "out of host memory for the scheme state", __FILE__, __LINE__);
    s->format = format;
    enum mpb_status st = prepare(env, g, params, s);
    if (st != MPB_STATUS_OK) {
        ozaki1_teardown(env, s);
        return st;
    }
    *state = s;
    return MPB_STATUS_OK;
}

template <typename D>
static enum mpb_status split(struct mpb_cuda_env *env, struct ozaki1_state *s,
                             const struct mpb_gemm *g)
{
    const struct mpb_ozaki1_plan *p = &s->plan;
    cudaStream_t st = mpb_stream(env);
    int64_t m = g->m, n = g->n, k = g->k;
    int f32 = g->target == MPB_TARGET_FP32;
    enum mpb_status status = exponents(env, g, s->format, s->ea, s->eb);
    if (status != MPB_STATUS_OK)
        return status;
    dim3 tg((unsigned)((m + TILE - 1) / TILE), (unsigned)((k + TILE - 1) / TILE)), tb(TILE, 8);
    split_a<D><<<tg, tb, 0, st>>>(g->a, m, k, f32, s->ea, p->beta, p->sa, p->kpad, (D *)s->da);
    MPB_LAUNCH_CHECK(env);
    split_b<D><<<grid_for(n * k), THREADS, 0, st>>>(g->b, n, k, f32, s->eb, p->beta, p->sb, p->kpad,
                                                   (D *)s->db);
    MPB_LAUNCH_CHECK(env);
    return MPB_STATUS_OK;
}

/* One GEMM of the plan into `out` (ozaki1.h: pairs concatenated along k). */
static enum mpb_status gemm_call(struct mpb_cuda_env *env, struct ozaki1_state *s,
                                 const struct mpb_gemm *g, const struct mpb_ozaki1_call *c, void *out)
{
    const struct mpb_ozaki1_plan *p = &s->plan;
    bool int8 = s->format == MPB_OZAKI1_INT8;
    size_t dsize = int8 ? 1 : 2;
    int64_t kk = mpb_ozaki1_call_k(p, c);
    const char *a = (const char *)s->da + dsize * (size_t)((c->p_lo - 1) * p->kpad + c->l0);
    const char *b = (const char *)s->db + dsize * (size_t)((p->sb - c->q_hi) * p->kpad + c->l0);
    int m = (int)g->m, n = (int)g->n, lda = (int)(p->sa * p->kpad), ldb = (int)(p->sb * p->kpad);
    static const float fone = 1.0f, fzero = 0.0f;
    if (int8)
        MPB_CUBLAS_TRY(env, mpb_gemm_int8_tn(mpb_cublas(env), m, n, (int)kk, (const int8_t *)a, lda,
                                             (const int8_t *)b, ldb, (int32_t *)out, m,
                                             mpb_int8_block_cols(n)));
    else
        MPB_CUBLAS_TRY(env, cublasGemmEx(mpb_cublas(env), CUBLAS_OP_T, CUBLAS_OP_N, m, n, (int)kk,
                                         &fone, a, CUDA_R_16F, lda, b, CUDA_R_16F, ldb, &fzero, out,
                                         CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    return MPB_STATUS_OK;
}

/* gemm=engine: chunk ci's launches; none (k = 0, or no entries): its sums are 0. */
static enum mpb_status engine_chunk(struct mpb_cuda_env *env, const struct ozaki1_state *s, int ci, size_t buf)
{
    size_t bytes = buf * (size_t)(s->chunks[ci].c1 - s->chunks[ci].c0);
    if (s->plan0[ci] == s->plan0[ci + 1] && bytes)
        MPB_CUDA_TRY(env, cudaMemsetAsync(s->bufs, 0, bytes, mpb_stream(env)));
    for (int b = s->plan0[ci]; b < s->plan0[ci + 1]; b++) {
        int err = tc_i8_plan_launch(s->plans[b], mpb_stream(env));
        if (err)
            return mpb_cuda_fail(env, cudaGetErrorString((cudaError_t)err), __FILE__, __LINE__);
    }
    return MPB_STATUS_OK;
}

template <typename V, typename T>
static void launch_accumulate(struct mpb_cuda_env *env, struct ozaki1_state *s,
                              const struct mpb_gemm *g, const struct chunk *ch, bool first, bool last)
{
    const struct mpb_ozaki1_plan *p = &s->plan;
    accumulate<V, T><<<grid_for(g->m * g->n), THREADS, 0, mpb_stream(env)>>>(
        (const V *)s->bufs, s->ldc, s->calls, ch->c0, ch->c1, p->acc, p->beta, p->wmax, p->prec, g->m,
        g->n, s->ea, s->eb, s->acc, first, last, (T *)g->c);
}

static enum mpb_status ozaki1_run(struct mpb_cuda_env *env, void *state, const struct mpb_gemm *g,
                                  struct mpb_phase_clock *clock)
{
    struct ozaki1_state *s = (struct ozaki1_state *)state;
    bool int8 = s->format == MPB_OZAKI1_INT8, f32 = g->target == MPB_TARGET_FP32;
    enum mpb_status st = int8 ? split<int8_t>(env, s, g) : split<uint16_t>(env, s, g);
    if (st != MPB_STATUS_OK)
        return st;
    mpb_phase_mark(clock, MPB_PHASE_SPLIT);
    size_t buf = 4 * (size_t)(s->ldc * g->n);
    for (int ci = 0; ci < s->nchunks; ci++) {
        const struct chunk *ch = &s->chunks[ci];
        if (s->plans && (st = engine_chunk(env, s, ci, buf)))
            return st;
        for (int c = ch->c0; c < ch->c1 && !s->plans; c++)
            if ((st = gemm_call(env, s, g, &s->plan.calls[c], (char *)s->bufs + buf * (size_t)(c - ch->c0))))
                return st;
        mpb_phase_mark(clock, MPB_PHASE_GEMM);
        bool first = ci == 0, last = ci == s->nchunks - 1;
        if (int8 && f32)
            launch_accumulate<int32_t, float>(env, s, g, ch, first, last);
        else if (int8)
            launch_accumulate<int32_t, double>(env, s, g, ch, first, last);
        else if (f32)
            launch_accumulate<float, float>(env, s, g, ch, first, last);
        else
            launch_accumulate<float, double>(env, s, g, ch, first, last);
        MPB_LAUNCH_CHECK(env);
        mpb_phase_mark(clock, MPB_PHASE_ACCUM);
    }
    return MPB_STATUS_OK;
}

static enum mpb_status ozaki1_report(struct mpb_cuda_env *env, void *state,
                                     struct mpb_scheme_info *info)
{
    (void)env;
    const struct ozaki1_state *s = (const struct ozaki1_state *)state;
    const struct mpb_ozaki1_plan *p = &s->plan;
    char plan[200];
    mpb_ozaki1_plan_describe(p, plan, sizeof plan);
    int used = snprintf(info->settings, sizeof info->settings, "%s chunks=%d", plan, s->nchunks);
    if (s->plans && used > 0 && (size_t)used < sizeof info->settings)
        snprintf(info->settings + used, sizeof info->settings - (size_t)used, " gemm=engine launches=%d",
                 s->nplans);
    else if (s->format == MPB_OZAKI1_INT8 && used > 0 && (size_t)used < sizeof info->settings)
        snprintf(info->settings + used, sizeof info->settings - (size_t)used, " gemm=calls");
    info->slices = p->sa > p->sb ? p->sa : p->sb;
    info->fallback = 0;
    snprintf(info->note, sizeof info->note, "%s", p->note);
    mpb_cublas_env_note(info->note, sizeof info->note);
    return MPB_STATUS_OK;
}

static enum mpb_status fp16_setup(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                                  const double *params, void **state)
{
    return ozaki1_setup(env, g, params, MPB_OZAKI1_FP16, state);
}

static enum mpb_status int8_setup(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                                  const double *params, void **state)
{
    return ozaki1_setup(env, g, params, MPB_OZAKI1_INT8, state);
}

extern "C" const struct mpb_scheme_cuda mpb_ozaki1_fp16_cuda = {fp16_setup, ozaki1_run,
                                                                ozaki1_report, ozaki1_teardown};
extern "C" const struct mpb_scheme_cuda mpb_ozaki1_int8_cuda = {int8_setup, ozaki1_run,
                                                                ozaki1_report, ozaki1_teardown};
