/* CUDA backend of the FP32 split family (fp32split.h): the split kernels
 * (scales, then A transposed to K-major planes and B's planes) and one
 * launch of the tensor-core engine, or for egemm engine=cublas one
 * cublasGemmEx per plane pair (EGEMM-TC's "cuBLAS-TC-Emulation", §7.1). */
#include "fp32split/fp32split.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/cublas_util.h"
#include "cuda_check.h"

namespace {

constexpr int TILE = 32; /* A's transpose tile: 32 x 32 values, 32 x 8 threads */

struct fs_state {
    struct fs_recipe r;
    int64_t ld;               /* plane row length */
    void *planes;             /* A's planes, then B's: m*ld and n*ld values each */
    void *a_planes[3], *b_planes[3];
    uint32_t *maxima;         /* m row maxima of A, then n column maxima of B (|x| bits) */
    int *exps;                /* their scale exponents, same order */
    unsigned long long *lost; /* [operand][overflow, underflow] of the last call (fs_loss) */
    struct tc_plan *plan;
};

/* Counts of lost values: a warp sums its lanes' counts and adds them with
 * one atomic. Every lane of the warp must call it. */
__device__ void add_losses(unsigned long long *lost, unsigned overflow, unsigned underflow)
{
    const unsigned full = 0xFFFFFFFFu;
    unsigned o = __reduce_add_sync(full, overflow), u = __reduce_add_sync(full, underflow);
    if (threadIdx.x % 32 == 0) {
        if (o)
            atomicAdd(&lost[0], (unsigned long long)o);
        if (u)
            atomicAdd(&lost[1], (unsigned long long)u);
    }
}

/* Largest finite |a(i, l)| per row i of column-major A, as FP32 bits (a
 * non-negative float orders like its bits); blockIdx.y takes a slice of k. */
__global__ void row_max(const float *a, int64_t m, int64_t k, int64_t k_slice, uint32_t *out)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    const int64_t l0 = (int64_t)blockIdx.y * k_slice, l1 = l0 + k_slice < k ? l0 + k_slice : k;
    uint32_t mx = 0;
    for (int64_t l = l0; l < l1; l++) {
        uint32_t v = fs_abs_bits_finite(a[l * m + i]);
        mx = v > mx ? v : mx;
    }
    atomicMax(&out[i], mx);
}

/* Largest finite |b(l, j)| per column j of column-major B: a block per column. */
__global__ void col_max(const float *b, int64_t k, int64_t n, uint32_t *out)
{
    for (int64_t j = blockIdx.x; j < n; j += gridDim.x) {
        uint32_t mx = 0;
        for (int64_t l = threadIdx.x; l < k; l += blockDim.x) {
            uint32_t v = fs_abs_bits_finite(b[j * k + l]);
            mx = v > mx ? v : mx;
        }
        for (int off = 16; off > 0; off /= 2) {
            uint32_t o = __shfl_down_sync(0xFFFFFFFFu, mx, off);
            mx = o > mx ? o : mx;
        }
        if (threadIdx.x % 32 == 0)
            atomicMax(&out[j], mx);
    }
}

__global__ void scale_exps(const uint32_t *maxima, int64_t count, int *exps)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (int64_t)gridDim.x * blockDim.x)
        exps[i] = fs_scale_exp(maxima[i]);
}

template <typename P> __device__ void store_planes(P *out, int64_t plane_stride, int64_t idx, const uint32_t *v, int n)
{
#pragma unroll
    for (int p = 0; p < 3; p++) /* constant indices keep v in registers */
        if (p < n)
            out[p * plane_stride + idx] = (P)v[p];
}

/* A (m x k, column-major) into K-major planes (row i at i*ld), through a
 * shared tile of 32 rows by 64 values of k, so that the reads (32 floats
 * along i) and the writes (a thread stores two neighbours along l, one
 * 32-bit word of FP16/BF16 bits) are both coalesced. */
template <typename P> __device__ void store_pair(P *out, int64_t at, uint32_t v0, uint32_t v1, bool both)
{
    if (sizeof(P) == 2 && both && at % 2 == 0) {
        *(uint32_t *)(out + at) = (v0 & 0xFFFFu) | (v1 << 16);
    } else {
        out[at] = (P)v0;
        if (both)
            out[at + 1] = (P)v1;
    }
}

template <typename P>
__global__ void split_a(const float *a, int64_t m, int64_t k, const int *row_exp, enum fs_split kind, int planes,
                        P *out, int64_t ld, int64_t plane_stride, unsigned long long *lost)
{
    __shared__ float tile[2 * TILE][TILE + 1]; /* [l][i] */
    const int64_t i0 = (int64_t)blockIdx.x * TILE;
    unsigned overflow = 0, underflow = 0;
    for (int64_t l0 = (int64_t)blockIdx.y * 2 * TILE; l0 < k; l0 += (int64_t)gridDim.y * 2 * TILE) {
        __syncthreads(); /* the previous tile has been read */
        for (int r = threadIdx.y; r < 2 * TILE; r += blockDim.y) {
            int64_t i = i0 + threadIdx.x, l = l0 + r;
            tile[r][threadIdx.x] = i < m && l < k ? a[l * m + i] : 0.0f;
        }
        __syncthreads();
        for (int r = threadIdx.y; r < TILE; r += blockDim.y) {
            const int64_t i = i0 + r, l = l0 + 2 * threadIdx.x;
            if (i < m && l < k) {
                const int s = row_exp ? row_exp[i] : 0;
                const bool both = l + 1 < k;
                uint32_t v0[3], v1[3] = {0, 0, 0};
                unsigned f0 = fs_split(kind, tile[2 * threadIdx.x][r], s, v0);
                unsigned f1 = both ? fs_split(kind, tile[2 * threadIdx.x + 1][r], s, v1) : 0;
                overflow += (f0 & FS_LOST_OVERFLOW) + (f1 & FS_LOST_OVERFLOW);
                underflow += ((f0 & FS_LOST_UNDERFLOW) != 0) + ((f1 & FS_LOST_UNDERFLOW) != 0);
#pragma unroll
                for (int p = 0; p < 3; p++) /* constant indices keep v0, v1 in registers */
                    if (p < planes)
                        store_pair(out + p * plane_stride, i * ld + l, v0[p], v1[p], both);
            }
        }
    }
    add_losses(lost, overflow, underflow);
}

/* B (k x n, column-major) is K-major already: planes take column j at j*ld.
 * Columns go along blockIdx.y, values of a column along x (no division). */
template <typename P>
__global__ void split_b(const float *b, int64_t k, int64_t n, const int *col_exp, enum fs_split kind, int planes,
                        P *out, int64_t ld, int64_t plane_stride, unsigned long long *lost)
{
    unsigned overflow = 0, underflow = 0;
    for (int64_t j = blockIdx.y; j < n; j += gridDim.y) {
        const int s = col_exp ? col_exp[j] : 0;
        /* Every lane runs the same number of rounds (add_losses is warp-wide). */
        for (int64_t l = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; l < k; l += (int64_t)gridDim.x * blockDim.x) {
            uint32_t v[3];
            unsigned f = fs_split(kind, b[j * k + l], s, v);
            overflow += f & FS_LOST_OVERFLOW;
            underflow += (f & FS_LOST_UNDERFLOW) != 0;
            store_planes(out, plane_stride, j * ld + l, v, planes);
        }
    }
    add_losses(lost, overflow, underflow);
}

/* C(i, j) *= 2^-(row_exp[i] + col_exp[j]) for the cuBLAS path. */
__global__ void unscale(float *c, int64_t m, int64_t n, const int *row_exp, const int *col_exp)
{
    const int64_t total = m * n;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += (int64_t)gridDim.x * blockDim.x) {
        int64_t j = e / m, i = e - j * m;
        c[e] = ldexpf(c[e], -(row_exp[i] + col_exp[j]));
    }
}

int grid_1d(int64_t work, int threads)
{
    int64_t b = (work + threads - 1) / threads;
    return (int)(b < 1 ? 1 : b > 132 * 16 ? 132 * 16 : b);
}

template <typename P>
enum mpb_status split_all(struct mpb_cuda_env *env, const struct fs_state *s, const struct mpb_gemm *g)
{
    cudaStream_t st = mpb_stream(env);
    const float *a = (const float *)g->a, *b = (const float *)g->b;
    const int64_t m = g->m, n = g->n, k = g->k;
    MPB_CUDA_TRY(env, cudaMemsetAsync(s->lost, 0, 4 * sizeof *s->lost, st));
    const int *row_exp = NULL, *col_exp = NULL;
    if (s->r.scale) {
        MPB_CUDA_TRY(env, cudaMemsetAsync(s->maxima, 0, sizeof *s->maxima * (size_t)(m + n), st));
        const int64_t slice = 256;
        dim3 grid((unsigned)((m + 127) / 128), (unsigned)((k + slice - 1) / slice < 65535 ? (k + slice - 1) / slice : 65535));
        row_max<<<grid, 128, 0, st>>>(a, m, k, (k + grid.y - 1) / grid.y, s->maxima);
        MPB_LAUNCH_CHECK(env);
        col_max<<<(unsigned)(n < 132 * 16 ? n : 132 * 16), 256, 0, st>>>(b, k, n, s->maxima + m);
        MPB_LAUNCH_CHECK(env);
        scale_exps<<<grid_1d(m + n, 256), 256, 0, st>>>(s->maxima, m + n, s->exps);
        MPB_LAUNCH_CHECK(env);
        row_exp = s->exps;
        col_exp = s->exps + m;
    }
    const int64_t ty = (k + 2 * TILE - 1) / (2 * TILE);
    dim3 tgrid((unsigned)((m + TILE - 1) / TILE), (unsigned)(ty < 65535 ? ty : 65535));
    /* Only the planes the pairs use are written (refine_fp16 tau=000: hi only). */
    split_a<P><<<tgrid, dim3(TILE, 8), 0, st>>>(a, m, k, row_exp, s->r.split, s->r.a_planes, (P *)s->a_planes[0],
                                                 s->ld, m * s->ld, s->lost);
    MPB_LAUNCH_CHECK(env);
    const int64_t bx = (k + 255) / 256;
    dim3 bgrid((unsigned)(bx < 8 ? bx : 8), (unsigned)(n < 65535 ? n : 65535));
    split_b<P><<<bgrid, 256, 0, st>>>(b, k, n, col_exp, s->r.split, s->r.b_planes, (P *)s->b_planes[0], s->ld,
                                      n * s->ld, s->lost + 2);
    MPB_LAUNCH_CHECK(env);
    return MPB_STATUS_OK;
}

/* The products as the paper's baseline computes them: one cublasGemmEx per
 * pair over all of k, each added to C (beta = 1 after the first). */
enum mpb_status gemm_cublas(struct mpb_cuda_env *env, const struct fs_state *s, const struct mpb_gemm *g)
{
    const float one = 1.0f, zero = 0.0f;
    cublasHandle_t h = mpb_cublas(env);
    for (int q = 0; q < s->r.n_pairs; q++)
        MPB_CUBLAS_TRY(env, cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)g->m, (int)g->n, (int)g->k, &one,
                                         s->a_planes[s->r.pairs[q].a], CUDA_R_16F, (int)s->ld,
                                         s->b_planes[s->r.pairs[q].b], CUDA_R_16F, (int)s->ld, q ? &one : &zero,
                                         g->c, CUDA_R_32F, (int)g->m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    if (s->r.scale) {
        unscale<<<grid_1d(g->m * g->n, 256), 256, 0, mpb_stream(env)>>>((float *)g->c, g->m, g->n, s->exps,
                                                                       s->exps + g->m);
        MPB_LAUNCH_CHECK(env);
    }
    return MPB_STATUS_OK;
}

enum mpb_status fs_run(struct mpb_cuda_env *env, void *state, const struct mpb_gemm *g,
                       struct mpb_phase_clock *clock)
{
    const struct fs_state *s = (const struct fs_state *)state;
    enum mpb_status st = tc_plane_elem_bytes(s->r.fmt) == 2 ? split_all<uint16_t>(env, s, g)
                                                             : split_all<uint32_t>(env, s, g);
    if (st != MPB_STATUS_OK)
        return st;
    mpb_phase_mark(clock, MPB_PHASE_SPLIT);
    if (s->r.cublas) {
        st = gemm_cublas(env, s, g);
    } else {
        cudaError_t err = (cudaError_t)tc_plan_launch(s->plan, mpb_stream(env));
        if (err != cudaSuccess)
            return mpb_cuda_fail_rt(env, err, "tc_plan_launch", __FILE__, __LINE__);
    }
    mpb_phase_mark(clock, MPB_PHASE_GEMM);
    return st;
}

void fs_teardown(struct mpb_cuda_env *env, void *state)
{
    struct fs_state *s = (struct fs_state *)state;
    if (!s)
        return;
    tc_plan_destroy(s->plan);
    mpb_cuda_free(env, s->planes);
    mpb_cuda_free(env, s->maxima);
    mpb_cuda_free(env, s->exps);
    mpb_cuda_free(env, s->lost);
    free(s);
}

enum mpb_status fs_setup(enum fs_scheme scheme, struct mpb_cuda_env *env, const struct mpb_gemm *g,
                         const double *params, void **state)
{
    *state = NULL;
    struct fs_state *s = (struct fs_state *)calloc(1, sizeof *s);
    if (!s)
        return mpb_cuda_fail(env, "out of host memory for the scheme state", __FILE__, __LINE__);
    fs_recipe_of(scheme, params, &s->r);
    s->ld = fs_plane_ld(&s->r, g->k);
    const size_t eb = (size_t)tc_plane_elem_bytes(s->r.fmt);
    const size_t a_bytes = (size_t)g->m * (size_t)s->ld * eb, b_bytes = (size_t)g->n * (size_t)s->ld * eb;
    const int planes = fs_planes(s->r.split);
    enum mpb_status st = mpb_cuda_alloc(env, &s->planes, planes * (a_bytes + b_bytes));
    if (st == MPB_STATUS_OK)
        st = mpb_cuda_alloc(env, (void **)&s->maxima, sizeof *s->maxima * (size_t)(g->m + g->n));
    if (st == MPB_STATUS_OK)
        st = mpb_cuda_alloc(env, (void **)&s->exps, sizeof *s->exps * (size_t)(g->m + g->n));
    if (st == MPB_STATUS_OK)
        st = mpb_cuda_alloc(env, (void **)&s->lost, 4 * sizeof *s->lost);
    if (st != MPB_STATUS_OK) {
        fs_teardown(env, s);
        return st;
    }
    for (int p = 0; p < planes; p++) {
        s->a_planes[p] = (char *)s->planes + p * a_bytes;
        s->b_planes[p] = (char *)s->planes + planes * a_bytes + p * b_bytes;
    }
    if (s->r.cublas) {
        char why[128];
        if (!mpb_cublas_int_dims(g, "cublasGemmEx", why, sizeof why)) {
            fs_teardown(env, s);
            return mpb_cuda_fail(env, why, __FILE__, __LINE__);
        }
        /* Every case states the shared handle's settings again: it keeps them across cases. */
        cublasStatus_t cs = cublasSetPointerMode(mpb_cublas(env), CUBLAS_POINTER_MODE_HOST);
        if (cs == CUBLAS_STATUS_SUCCESS)
            cs = cublasSetMathMode(mpb_cublas(env), CUBLAS_DEFAULT_MATH);
        if (cs != CUBLAS_STATUS_SUCCESS) {
            fs_teardown(env, s);
            return mpb_cuda_fail_blas(env, cs, "cublasSetPointerMode/cublasSetMathMode", __FILE__, __LINE__);
        }
    } else {
        struct tc_gemm_args args = {};
        args.fmt = s->r.fmt;
        args.m = g->m;
        args.n = g->n;
        args.k = g->k;
        args.n_a_planes = s->r.a_planes;
        args.n_b_planes = s->r.b_planes;
        for (int p = 0; p < planes; p++) {
            args.a_planes[p] = s->a_planes[p];
            args.b_planes[p] = s->b_planes[p];
        }
        args.ld = s->ld;
        args.n_pairs = s->r.n_pairs;
        for (int q = 0; q < s->r.n_pairs; q++)
            args.pairs[q] = s->r.pairs[q];
        args.accum = s->r.accum;
        args.flush_k = s->r.flush_k;
        args.row_exp = s->r.scale ? s->exps : NULL;
        args.col_exp = s->r.scale ? s->exps + g->m : NULL;
        args.c = (float *)g->c;
        args.ldc = g->m;
        char why[256];
        cudaError_t err = (cudaError_t)tc_plan_create(&args, &s->plan, why, sizeof why);
        if (err != cudaSuccess) {
            fs_teardown(env, s);
            return mpb_cuda_fail(env, why, __FILE__, __LINE__);
        }
    }
    *state = s;
    return MPB_STATUS_OK;
}

enum mpb_status fs_report(struct mpb_cuda_env *env, void *state, struct mpb_scheme_info *info)
{
    const struct fs_state *s = (const struct fs_state *)state;
    unsigned long long lost[4];
    enum mpb_status st = mpb_cuda_download(env, lost, s->lost, sizeof lost);
    if (st != MPB_STATUS_OK)
        return st;
    const int64_t counts[2][2] = {{(int64_t)lost[0], (int64_t)lost[1]}, {(int64_t)lost[2], (int64_t)lost[3]}};
    info->slices = s->r.n_pairs;
    info->fallback = 0;
    char recipe[160], engine[96] = "";
    fs_recipe_describe(&s->r, recipe, sizeof recipe);
    if (s->plan)
        tc_plan_describe(s->plan, engine, sizeof engine);
    snprintf(info->settings, sizeof info->settings, "%s %s", recipe, engine);
    fs_loss_note(counts, s->r.fmt, info->note, sizeof info->note);
    return MPB_STATUS_OK;
}

template <enum fs_scheme S>
enum mpb_status setup_of(struct mpb_cuda_env *env, const struct mpb_gemm *g, const double *params, void **state)
{
    return fs_setup(S, env, g, params, state);
}

} // namespace

extern "C" const struct mpb_scheme_cuda mpb_egemm_cuda = {setup_of<FS_EGEMM>, fs_run, fs_report, fs_teardown};
extern "C" const struct mpb_scheme_cuda mpb_markidis_cuda = {setup_of<FS_MARKIDIS>, fs_run, fs_report, fs_teardown};
extern "C" const struct mpb_scheme_cuda mpb_refine_fp16_cuda = {setup_of<FS_REFINE>, fs_run, fs_report,
                                                                 fs_teardown};
extern "C" const struct mpb_scheme_cuda mpb_tf32x3_cuda = {setup_of<FS_TF32X3>, fs_run, fs_report, fs_teardown};
extern "C" const struct mpb_scheme_cuda mpb_ape_bf16x3_cuda = {setup_of<FS_APE>, fs_run, fs_report, fs_teardown};
