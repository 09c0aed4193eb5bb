/* CUDA backend of the complex Ozaki scheme II (ozaki2_complex_arith.h has
 * the numerics, ozaki2.cu the real scheme whose structure it follows).
 *
 * One call, all on the stream, no allocation and no host synchronisation:
 *   split  row maxima of A / column maxima of B over both parts (NaN/Inf
 *          detected); the scaling bound over both parts (fast: integer sums
 *          of squares; accurate: one 5-bit digit sum per complex element,
 *          one INT8 GEMM, its row/column maxima); the scales; the int8
 *          residue planes of every modulus (real part, imaginary part and,
 *          for Karatsuba, their sum modulo m_t) in one pass over A and one
 *          over B;
 *   then, tile by tile of mpb_oz2c_product_cols columns of C (so that the
 *   INT32 products take 4·G·N bytes per entry of a tile, not of C):
 *   gemm   N·G INT8→INT32 GEMMs (G = 3 Karatsuba, 4 4m): one cublasGemmEx
 *          per product, modulus and GEMM tile (gemm=calls), or one
 *          strided-batched call over the N moduli per product and GEMM tile
 *          (gemm=batched);
 *   accum  one kernel: per entry and modulus the G sums combined into the
 *          residues of Re and Im (mpb_oz2c_combine), the CRT of both, the
 *          unscaling, the tile of C written once.
 * Layout ("TN", as ozaki2.cu): residue plane t·P + q of A is m rows of kp
 * int8 (k padded with zeros to a multiple of 32), of B n columns of kp;
 * product g of modulus t is INT32 plane t·G + g, m×nt column-major for a
 * tile of nt columns.
 * k above MPB_OZ2_MAX_K is split as ozaki2.cu splits it: the products of
 * chunk 0 write the N·G planes, those of every later chunk N·G more, which
 * one kernel folds into the first modulo 2·m_t (mpb_crt_fold: the bits of
 * one exact sum); accurate mode's U sums its chunks in 64 bits. */
#include "ozaki2/ozaki2_complex.h"

#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "common/crt_residues.cuh"
#include "ozaki2/ozaki2_passes.cuh"

struct oz2c_state {
    int n_moduli;
    int form;                       /* enum mpb_oz2c_form */
    int planes, products;           /* P residue planes per operand and modulus, G products per modulus */
    bool accurate, batched;
    int64_t kp, mblock, nblock;
    int64_t ptile;                  /* columns of C per product tile (mpb_oz2c_product_cols) */
    int64_t chunks, chunk_len;      /* the split of kp: chunk c at c·chunk_len (mpb_oz2_chunk_most) */
    struct mpb_oz2_crt tab;
    int8_t *ra, *rb;                /* N·P residue planes (plane 0: accurate mode's digits first) */
    int32_t *c32;                   /* N·G INT32 products of one tile, then with chunks > 1 N·G
                                       more for the later chunks' products; first accurate mode's U
                                       over all of C (with chunks > 1: its 64-bit sums, then a
                                       chunk's INT32 U) */
    unsigned long long *stats;      /* one block: the six per-row/column statistics below */
    unsigned long long *amax, *bmax; /* |max| over both parts, as abs bits */
    unsigned long long *asq, *bsq;  /* fast: integer sums of squares over both parts */
    unsigned long long *urow, *ucol; /* accurate: row/column maxima of U */
    int *mu, *nu;                   /* scales (MPB_OZ2_NONFINITE: NaN output) */
};

/* Row statistics of A (column-major, complex interleaved: threads run along
 * i): each thread folds a chunk of 64 columns into an atomic per row.
 * Integer max and sums: the result does not depend on the order. */
static const int64_t row_chunk = 64;

template <typename T>
static __global__ void oz2c_row_max(const T *a, int64_t m, int64_t k, unsigned long long *amax)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    for (int64_t l0 = (int64_t)blockIdx.y * row_chunk; l0 < k; l0 += (int64_t)gridDim.y * row_chunk) {
        unsigned long long mx = 0;
        for (int64_t l = l0; l < l0 + row_chunk && l < k; l++)
            for (int q = 0; q < 2; q++) {
                unsigned long long v = mpb_oz2_abs_bits((double)a[2 * (i + l * m) + q]);
                mx = v > mx ? v : mx;
            }
        atomicMax(&amax[i], mx);
    }
}

template <typename T>
static __global__ void oz2c_row_sumsq(const T *a, int64_t m, int64_t k, const unsigned long long *amax,
                                      unsigned long long *asq)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m || !mpb_oz2_abs_bits_finite(amax[i]))
        return;
    int e = mpb_oz2_exponent(amax[i]);
    for (int64_t l0 = (int64_t)blockIdx.y * row_chunk; l0 < k; l0 += (int64_t)gridDim.y * row_chunk) {
        unsigned long long s = 0;
        for (int64_t l = l0; l < l0 + row_chunk && l < k; l++)
            for (int q = 0; q < 2; q++) {
                long long d = mpb_oz2_digit_up((double)a[2 * (i + l * m) + q], e, MPB_OZ2_NORM_DIGIT_BITS);
                s += (unsigned long long)(d * d);
            }
        atomicAdd(&asq[i], s);
    }
}

/* Column statistics of B: one warp per column, whose two parts are 2k
 * contiguous values; the sum of squares (fast mode) once the maximum is
 * known. A warp shares j and mx, so its returns are uniform. */
template <typename T>
static __global__ void oz2c_col_stats(const T *b, int64_t k, int64_t n, bool sumsq, unsigned long long *bmax,
                                      unsigned long long *bsq)
{
    int lane = threadIdx.x & 31;
    int64_t j = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (j >= n)
        return;
    const T *col = b + 2 * j * k;
    unsigned long long mx = 0;
    for (int64_t l = lane; l < 2 * k; l += 32) {
        unsigned long long v = mpb_oz2_abs_bits((double)col[l]);
        mx = v > mx ? v : mx;
    }
    mx = warp_max(mx);
    if (lane == 0)
        bmax[j] = mx;
    if (!sumsq || !mpb_oz2_abs_bits_finite(mx))
        return;
    int e = mpb_oz2_exponent(mx);
    unsigned long long s = 0;
    for (int64_t l = lane; l < 2 * k; l += 32) {
        long long d = mpb_oz2_digit_up((double)col[l], e, MPB_OZ2_NORM_DIGIT_BITS);
        s += (unsigned long long)(d * d);
    }
    s = warp_sum(s);
    if (lane == 0)
        bsq[j] = s;
}

/* What the split writes for one part of one element: the scaled, truncated
 * integer whose residues are taken; 0 for padding and non-finite vectors. */
static __device__ double split_value(double x, unsigned long long max_bits, int mu)
{
    return mpb_oz2_abs_bits_finite(max_bits) ? mpb_oz2_scaled_int(x, mu) : 0;
}

/* Accurate mode's digit of one complex element (0 for padding and
 * non-finite vectors). */
static __device__ double digit_value(double xr, double xi, unsigned long long max_bits)
{
    return mpb_oz2_abs_bits_finite(max_bits) ? (double)mpb_oz2c_digit(xr, xi, mpb_oz2_exponent(max_bits)) : 0;
}

static const int split_vec = MPB_CRT_SPLIT_VEC;

static __device__ void store8(int8_t *out, const int8_t *r)
{
    *(uint2 *)out = make_uint2(mpb_crt_pack4(r[0], r[1], r[2], r[3]), mpb_crt_pack4(r[4], r[5], r[6], r[7]));
}

/* The 8 digits d[0..7] (small integers held as doubles) at out. */
static __device__ void write_digits8(const double *d, int8_t *out)
{
    int8_t r[split_vec];
    for (int v = 0; v < split_vec; v++)
        r[v] = (int8_t)(int)d[v];
    store8(out, r);
}

/* Step 2 for 8 consecutive elements (xr, xi: their scaled integer parts):
 * for each modulus t, plane t·P at out (real), t·P + 1 (imaginary) and,
 * with `sum` (Karatsuba, P = 3), t·P + 2 (their sum modulo m_t), planes
 * `plane` bytes apart; unrolled so that each modulus is a constant. */
static __device__ void write_residues8(const double *xr, const double *xi, int n_moduli, bool sum, int8_t *out,
                                       size_t plane)
{
    struct mpb_crt_parts pr[split_vec], pi[split_vec];
    for (int v = 0; v < split_vec; v++) {
        pr[v] = mpb_crt_split_parts(xr[v]);
        pi[v] = mpb_crt_split_parts(xi[v]);
    }
    const size_t step = (size_t)(sum ? 3 : 2) * plane;
#pragma unroll
    for (int t = 0; t < MPB_OZ2_MAX_MODULI; t++) {
        if (t >= n_moduli)
            break;
        int8_t r[split_vec], s[split_vec], w[split_vec];
        for (int v = 0; v < split_vec; v++) {
            r[v] = mpb_crt_residue(&pr[v], t);
            s[v] = mpb_crt_residue(&pi[v], t);
            w[v] = mpb_oz2c_sum_residue(r[v], s[v], t);
        }
        int8_t *o = out + (size_t)t * step;
        store8(o, r);
        store8(o + plane, s);
        if (sum)
            store8(o + 2 * plane, w);
    }
}

/* A (m×k complex, column-major) to row-major int8 planes (i·kp + l): a
 * tile of 32 rows × 64 k-elements per part goes through shared memory,
 * read from A along i and written as 8 threads × 8 bytes per row (as
 * ozaki2.cu's oz2_split_a; row stride 65 doubles: distinct banks). DIGITS:
 * accurate mode's digits into plane 0. */
static const int a_tile_rows = 32, a_tile_cols = 64, a_block_y = 8;

template <typename T, bool DIGITS>
static __global__ void __launch_bounds__(256) oz2c_split_a(const T *a, int64_t m, int64_t k, int64_t kp,
                                                          const unsigned long long *amax, const int *mu,
                                                          int n_moduli, bool sum, int8_t *out)
{
    __shared__ double tile[2][a_tile_rows][a_tile_cols + 1];
    int64_t i0 = (int64_t)blockIdx.x * a_tile_rows;
    int id = threadIdx.y * blockDim.x + threadIdx.x;
    int row = id / (a_tile_cols / split_vec), col = id % (a_tile_cols / split_vec) * split_vec;
    int64_t i = i0 + threadIdx.x;
    unsigned long long imax = i < m ? amax[i] : 0;
    int imu = i < m && !DIGITS ? mu[i] : 0;
    for (int64_t l0 = (int64_t)blockIdx.y * a_tile_cols; l0 < kp; l0 += (int64_t)gridDim.y * a_tile_cols) {
#pragma unroll
        for (int u = 0; u < a_tile_cols / a_block_y; u++) {
            int64_t l = l0 + threadIdx.y + u * a_block_y;
            T xr = 0, xi = 0;
            if (i < m && l < k) {
                xr = a[2 * (i + l * m)];
                xi = a[2 * (i + l * m) + 1];
            }
            int c = threadIdx.y + u * a_block_y;
            if (DIGITS) {
                tile[0][threadIdx.x][c] = digit_value((double)xr, (double)xi, imax);
            } else {
                tile[0][threadIdx.x][c] = split_value((double)xr, imax, imu);
                tile[1][threadIdx.x][c] = split_value((double)xi, imax, imu);
            }
        }
        __syncthreads();
        if (i0 + row < m && l0 + col < kp) {
            int8_t *o = out + (size_t)((i0 + row) * kp + l0 + col);
            if (DIGITS)
                write_digits8(&tile[0][row][col], o);
            else
                write_residues8(&tile[0][row][col], &tile[1][row][col], n_moduli, sum, o, (size_t)(m * kp));
        }
        __syncthreads();
    }
}

/* B (k×n complex, column-major) to int8 columns of length kp: a thread
 * takes 8 consecutive elements (16 consecutive values) of a column. */
template <typename T, bool DIGITS>
static __global__ void __launch_bounds__(256) oz2c_split_b(const T *b, int64_t k, int64_t n, int64_t kp,
                                                          const unsigned long long *bmax, const int *nu,
                                                          int n_moduli, bool sum, int8_t *out)
{
    int64_t l = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * split_vec;
    if (l >= kp)
        return;
    for (int64_t j = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; j < n; j += (int64_t)gridDim.y * blockDim.y) {
        unsigned long long jmax = bmax[j];
        int jnu = DIGITS ? 0 : nu[j];
        double xr[split_vec], xi[split_vec];
        for (int v = 0; v < split_vec; v++) {
            T r = 0, s = 0;
            if (l + v < k) {
                r = b[2 * (l + v + j * k)];
                s = b[2 * (l + v + j * k) + 1];
            }
            if (DIGITS) {
                xr[v] = digit_value((double)r, (double)s, jmax);
            } else {
                xr[v] = split_value((double)r, jmax, jnu);
                xi[v] = split_value((double)s, jmax, jnu);
            }
        }
        int8_t *o = out + (size_t)(j * kp + l);
        if (DIGITS)
            write_digits8(xr, o);
        else
            write_residues8(xr, xi, n_moduli, sum, o, (size_t)(n * kp));
    }
}

/* k split: the `planes` product planes of a later chunk folded into those
 * of the sums so far, modulo 2·m_t of their modulus t = plane / G. */
static __global__ void oz2c_fold(int32_t *acc, const int32_t *x, int64_t mn, int planes, int products)
{
    int64_t count = mn * planes;
    for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < count;
         p += (int64_t)gridDim.x * blockDim.x)
        acc[p] = mpb_crt_fold(acc[p], __ldcs(x + p), (int)(p / mn) / products);
}

/* Step 1: mu for the m rows of A, then nu for the n columns of B. */
static __global__ void oz2c_scales(int64_t m, int64_t n, bool accurate, int budget, const unsigned long long *amax,
                                   const unsigned long long *bmax, const unsigned long long *asq,
                                   const unsigned long long *bsq, const unsigned long long *urow,
                                   const unsigned long long *ucol, int *mu, int *nu)
{
    int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= m + n)
        return;
    bool row = v < m;
    int64_t w = row ? v : v - m;
    unsigned long long mx = row ? amax[w] : bmax[w];
    int s = MPB_OZ2_NONFINITE;
    if (mpb_oz2_abs_bits_finite(mx)) {
        int e = mpb_oz2_exponent(mx);
        s = accurate ? mpb_oz2c_scale_accurate(e, row ? urow[w] : ucol[w], budget)
                     : mpb_oz2_scale_fast(e, row ? asq[w] : bsq[w], budget);
    }
    (row ? mu : nu)[w] = s;
}

/* Step 3's combination and step 4: C from the N·G INT32 products in one
 * pass, a thread per entry of a column; the digits of both parts added in
 * modulus order, as the host model's mpb_oz2c_entry. All N·G loads of an
 * entry are issued first (one memory latency per entry instead of N·G, as
 * ozaki2.cu's oz2_accum; at 8192 the pass took 15.6 ms with a load before
 * each modulus' CRT step); streaming loads: read once. G (3 Karatsuba, 4
 * 4m) is a template argument so the loads unroll. */
template <typename T, int G>
static __global__ void __launch_bounds__(256) oz2c_accum(const int32_t *c32, int64_t m, int64_t n,
                                                        const struct mpb_oz2_crt tab, int form, const int *mu,
                                                        const int *nu, T *c)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    const size_t mn = (size_t)(m * n);
    int imu = mu[i];
    for (int64_t j = blockIdx.y; j < n; j += gridDim.y) {
        size_t p = (size_t)(i + j * m);
        int32_t cv[MPB_OZ2_MAX_MODULI][G];
#pragma unroll
        for (int t = 0; t < MPB_OZ2_MAX_MODULI; t++)
            if (t < tab.n)
#pragma unroll
                for (int g = 0; g < G; g++)
                    cv[t][g] = __ldcs(c32 + (size_t)(t * G + g) * mn + p);
        struct mpb_oz2_crt_sum sr = {0, 0}, si = {0, 0};
#pragma unroll
        for (int t = 0; t < MPB_OZ2_MAX_MODULI; t++) {
            if (t >= tab.n)
                break;
            int32_t re, im;
            mpb_oz2c_combine(form, t, cv[t][0], cv[t][1], cv[t][2], G == 4 ? cv[t][G - 1] : 0, &re, &im);
            mpb_oz2_crt_add(&sr, re, t, &tab);
            mpb_oz2_crt_add(&si, im, t, &tab);
        }
        int jnu = nu[j];
        bool nan = imu == MPB_OZ2_NONFINITE || jnu == MPB_OZ2_NONFINITE;
        c[2 * p] = (T)(nan ? NAN : mpb_oz2_crt_finish(&sr, &tab, imu + jnu));
        c[2 * p + 1] = (T)(nan ? NAN : mpb_oz2_crt_finish(&si, &tab, imu + jnu));
    }
}

/* `batch` INT8 GEMMs C_b = A_b^T·B_b (A_b kp×m at a + b·sa, B_b kp×n at
 * b + b·sb, C_b m×n at c + b·sc) over chunk `chunk` of k (terms
 * chunk·chunk_len … to the chunk's end) in tiles of mblock × nblock
 * outputs: one strided-batched call per tile (batched), or one
 * cublasGemmEx per product and tile. kp > 0. */
static enum mpb_status gemm_int8(struct mpb_cuda_env *env, const struct oz2c_state *s, int64_t m, int64_t n,
                                 const int8_t *a, const int8_t *b, int32_t *c, long long sa, long long sb,
                                 long long sc, int batch, int64_t chunk)
{
    const int32_t one = 1, zero = 0;
    int kp = (int)s->kp;
    int64_t l0 = chunk * s->chunk_len;
    int kc = (int)(s->kp - l0 < s->chunk_len ? s->kp - l0 : s->chunk_len);
    for (int64_t j0 = 0; j0 < n; j0 += s->nblock) {
        int nb = (int)(n - j0 < s->nblock ? n - j0 : s->nblock);
        for (int64_t i0 = 0; i0 < m; i0 += s->mblock) {
            int mb = (int)(m - i0 < s->mblock ? m - i0 : s->mblock);
            const int8_t *at = a + i0 * s->kp + l0, *bt = b + j0 * s->kp + l0;
            int32_t *ct = c + i0 + j0 * m;
            if (s->batched) {
                MPB_CUBLAS_TRY(env, cublasGemmStridedBatchedEx(mpb_cublas(env), CUBLAS_OP_T, CUBLAS_OP_N, mb, nb, kc,
                                                               &one, at, CUDA_R_8I, kp, sa, bt, CUDA_R_8I, kp, sb,
                                                               &zero, ct, CUDA_R_32I, (int)m, sc, batch,
                                                               CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
                continue;
            }
            for (int t = 0; t < batch; t++)
                MPB_CUBLAS_TRY(env, cublasGemmEx(mpb_cublas(env), CUBLAS_OP_T, CUBLAS_OP_N, mb, nb, kc, &one,
                                                 at + t * sa, CUDA_R_8I, kp, bt + t * sb, CUDA_R_8I, kp, &zero,
                                                 ct + t * sc, CUDA_R_32I, (int)m, CUBLAS_COMPUTE_32I,
                                                 CUBLAS_GEMM_DEFAULT));
        }
    }
    return MPB_STATUS_OK;
}

template <typename T>
static enum mpb_status oz2c_split(struct mpb_cuda_env *env, struct oz2c_state *s, const struct mpb_gemm *g)
{
    cudaStream_t st = mpb_stream(env);
    int64_t m = g->m, n = g->n, k = g->k, kp = s->kp;
    const T *a = (const T *)g->a, *b = (const T *)g->b;
    dim3 row_grid(blocks_for(m, threads), grid_y(blocks_for(k, (unsigned)row_chunk)));
    dim3 tile_block(32, a_block_y), a_grid(blocks_for(m, a_tile_rows), grid_y(blocks_for(kp, a_tile_cols)));
    dim3 b_grid(blocks_for(kp / split_vec, 32), grid_y(blocks_for(n, 8)));
    MPB_CUDA_TRY(env, cudaMemsetAsync(s->stats, 0, sizeof *s->stats * (size_t)(6 * (m + n)), st));
    oz2c_row_max<T><<<row_grid, threads, 0, st>>>(a, m, k, s->amax);
    MPB_LAUNCH_CHECK(env);
    oz2c_col_stats<T><<<blocks_for(n * 32, threads), threads, 0, st>>>(b, k, n, !s->accurate, s->bmax, s->bsq);
    MPB_LAUNCH_CHECK(env);
    if (s->accurate) {
        if (kp > 0) {
            oz2c_split_a<T, true><<<a_grid, tile_block, 0, st>>>(a, m, k, kp, s->amax, s->mu, 1, false, s->ra);
            MPB_LAUNCH_CHECK(env);
            oz2c_split_b<T, true><<<b_grid, tile_block, 0, st>>>(b, k, n, kp, s->bmax, s->nu, 1, false, s->rb);
            MPB_LAUNCH_CHECK(env);
            int32_t *later = s->c32 + 2 * (size_t)(m * n); /* after U's 64-bit sums */
            unsigned long long *u64 = (unsigned long long *)s->c32;
            for (int64_t c = 0; c < s->chunks; c++) {
                enum mpb_status gs = gemm_int8(env, s, m, n, s->ra, s->rb, s->chunks > 1 ? later : s->c32,
                                               (long long)(m * kp), (long long)(n * kp), (long long)(m * n), 1, c);
                if (gs != MPB_STATUS_OK)
                    return gs;
                if (s->chunks > 1) {
                    oz2_u_add<<<plane_grid(m * n), threads, 0, st>>>(u64, later, m * n, c == 0);
                    MPB_LAUNCH_CHECK(env);
                }
            }
            dim3 u_grid(blocks_for(m, threads), grid_y(blocks_for(n, 32)));
            if (s->chunks > 1)
                oz2_u_max<unsigned long long><<<u_grid, threads, 0, st>>>(u64, m, n, s->urow, s->ucol);
            else
                oz2_u_max<int32_t><<<u_grid, threads, 0, st>>>(s->c32, m, n, s->urow, s->ucol);
            MPB_LAUNCH_CHECK(env);
        }
    } else {
        oz2c_row_sumsq<T><<<row_grid, threads, 0, st>>>(a, m, k, s->amax, s->asq);
        MPB_LAUNCH_CHECK(env);
    }
    oz2c_scales<<<blocks_for(m + n, threads), threads, 0, st>>>(m, n, s->accurate, s->tab.budget, s->amax, s->bmax,
                                                               s->asq, s->bsq, s->urow, s->ucol, s->mu, s->nu);
    MPB_LAUNCH_CHECK(env);
    if (kp == 0)
        return MPB_STATUS_OK;
    bool sum = s->form == MPB_OZ2C_KARATSUBA;
    oz2c_split_a<T, false><<<a_grid, tile_block, 0, st>>>(a, m, k, kp, s->amax, s->mu, s->n_moduli, sum, s->ra);
    MPB_LAUNCH_CHECK(env);
    oz2c_split_b<T, false><<<b_grid, tile_block, 0, st>>>(b, k, n, kp, s->bmax, s->nu, s->n_moduli, sum, s->rb);
    MPB_LAUNCH_CHECK(env);
    return MPB_STATUS_OK;
}

/* Step 3 for columns j0 … j0+nt−1 of C: product g of every modulus, one
 * batch over the N moduli (plane strides P·m·kp, P·n·kp, G·m·nt), per
 * chunk of k, later chunks folded into the first; k = 0: every sum is 0. */
static enum mpb_status oz2c_products(struct mpb_cuda_env *env, const struct oz2c_state *s, int64_t m, int64_t n,
                                     int64_t j0, int64_t nt)
{
    size_t mn = (size_t)(m * nt);
    if (s->kp == 0) {
        MPB_CUDA_TRY(env, cudaMemsetAsync(s->c32, 0, sizeof *s->c32 * mn * (size_t)(s->n_moduli * s->products),
                                          mpb_stream(env)));
        return MPB_STATUS_OK;
    }
    long long pa = (long long)(m * s->kp), pb = (long long)(n * s->kp);
    int planes = s->n_moduli * s->products;
    int32_t *later = s->c32 + (size_t)planes * mn;
    const int8_t *rb = s->rb + j0 * s->kp;
    for (int64_t c = 0; c < s->chunks; c++) {
        int32_t *out = c == 0 ? s->c32 : later;
        for (int g = 0; g < s->products; g++) {
            enum mpb_status st = gemm_int8(env, s, m, nt, s->ra + mpb_oz2c_plane_a(s->form, g) * pa,
                                           rb + mpb_oz2c_plane_b(s->form, g) * pb, out + (size_t)g * mn,
                                           s->planes * pa, s->planes * pb, (long long)(s->products * mn),
                                           s->n_moduli, c);
            if (st != MPB_STATUS_OK)
                return st;
        }
        if (c > 0) {
            oz2c_fold<<<plane_grid((int64_t)mn * planes), threads, 0, mpb_stream(env)>>>(s->c32, later, (int64_t)mn,
                                                                                       planes, s->products);
            MPB_LAUNCH_CHECK(env);
        }
    }
    return MPB_STATUS_OK;
}

/* Step 4 for columns j0 … j0+nt−1 of C from the tile's products. */
template <typename T>
static enum mpb_status oz2c_accumulate(struct mpb_cuda_env *env, const struct oz2c_state *s, const struct mpb_gemm *g,
                                       int64_t j0, int64_t nt)
{
    dim3 grid(blocks_for(g->m, threads), grid_y(nt));
    if (s->products == 3)
        oz2c_accum<T, 3><<<grid, threads, 0, mpb_stream(env)>>>(s->c32, g->m, nt, s->tab, s->form, s->mu, s->nu + j0,
                                                                (T *)g->c + 2 * j0 * g->m);
    else
        oz2c_accum<T, 4><<<grid, threads, 0, mpb_stream(env)>>>(s->c32, g->m, nt, s->tab, s->form, s->mu, s->nu + j0,
                                                                (T *)g->c + 2 * j0 * g->m);
    MPB_LAUNCH_CHECK(env);
    return MPB_STATUS_OK;
}

static enum mpb_status oz2c_run(struct mpb_cuda_env *env, void *state, const struct mpb_gemm *g,
                                struct mpb_phase_clock *clock)
{
    struct oz2c_state *s = (struct oz2c_state *)state;
    bool f64 = g->target == MPB_TARGET_FP64;
    if (g->m == 0 || g->n == 0)
        return MPB_STATUS_OK;
    enum mpb_status st = f64 ? oz2c_split<double>(env, s, g) : oz2c_split<float>(env, s, g);
    if (st != MPB_STATUS_OK)
        return st;
    mpb_phase_mark(clock, MPB_PHASE_SPLIT);
    for (int64_t j0 = 0; j0 < g->n && st == MPB_STATUS_OK; j0 += s->ptile) {
        int64_t nt = g->n - j0 < s->ptile ? g->n - j0 : s->ptile;
        st = oz2c_products(env, s, g->m, g->n, j0, nt);
        if (st != MPB_STATUS_OK)
            return st;
        mpb_phase_mark(clock, MPB_PHASE_GEMM);
        st = f64 ? oz2c_accumulate<double>(env, s, g, j0, nt) : oz2c_accumulate<float>(env, s, g, j0, nt);
        mpb_phase_mark(clock, MPB_PHASE_ACCUM);
    }
    return st;
}

static void oz2c_teardown(struct mpb_cuda_env *env, void *state)
{
    struct oz2c_state *s = (struct oz2c_state *)state;
    if (!s)
        return;
    void *bufs[] = {s->ra, s->rb, s->c32, s->stats, s->mu, s->nu};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        mpb_cuda_free(env, bufs[i]);
    free(s);
}

/* mpb_ozaki2_complex_workspace counts the same. */
static enum mpb_status alloc_all(struct mpb_cuda_env *env, struct oz2c_state *s, const struct mpb_gemm *g)
{
    size_t m = (size_t)g->m, n = (size_t)g->n, kp = (size_t)s->kp;
    size_t planes = (size_t)(s->n_moduli * s->planes), products = (size_t)(s->n_moduli * s->products);
    if (s->chunks > 1)
        products *= 2;
    size_t c32 = products * m * (size_t)s->ptile, u = (s->chunks > 1 ? 3 : 1) * m * n;
    struct {
        void **p;
        size_t bytes;
    } want[] = {
        {(void **)&s->ra, planes * m * kp},
        {(void **)&s->rb, planes * n * kp},
        {(void **)&s->c32, (c32 > u ? c32 : u) * sizeof(int32_t)},
        {(void **)&s->stats, 6 * (m + n) * sizeof *s->stats},
        {(void **)&s->mu, m * sizeof *s->mu},
        {(void **)&s->nu, n * sizeof *s->nu},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        enum mpb_status st = mpb_cuda_alloc(env, want[i].p, want[i].bytes + 16);
        if (st != MPB_STATUS_OK)
            return st;
    }
    s->amax = s->stats;
    s->bmax = s->amax + m;
    s->asq = s->bmax + n;
    s->bsq = s->asq + m;
    s->urow = s->bsq + n;
    s->ucol = s->urow + m;
    return MPB_STATUS_OK;
}

/* Every case states the shared handle's settings again (the handle keeps
 * them across cases); alpha and beta are host int32 values. */
static enum mpb_status set_handle(struct mpb_cuda_env *env)
{
    MPB_CUBLAS_TRY(env, cublasSetPointerMode(mpb_cublas(env), CUBLAS_POINTER_MODE_HOST));
    MPB_CUBLAS_TRY(env, cublasSetMathMode(mpb_cublas(env), CUBLAS_DEFAULT_MATH));
    return MPB_STATUS_OK;
}

static enum mpb_status oz2c_setup(struct mpb_cuda_env *env, const struct mpb_gemm *g, const double *params,
                                  void **state)
{
    *state = NULL;
    char why[256];
    if (!mpb_oz2c_check(params, g, mpb_cuda_device(env), why, sizeof why))
        return mpb_cuda_fail(env, why, __FILE__, __LINE__);
    struct oz2c_state *s = (struct oz2c_state *)calloc(1, sizeof *s);
    if (!s)
        return mpb_cuda_fail(env, "out of host memory for the scheme state", __FILE__, __LINE__);
    s->n_moduli = (int)params[MPB_OZ2_MODULI];
    s->form = (int)params[MPB_OZ2C_FORM];
    s->planes = mpb_oz2c_planes(s->form);
    s->products = mpb_oz2c_products(s->form);
    s->accurate = params[MPB_OZ2_MODE] == MPB_OZ2_ACCURATE;
    s->batched = params[MPB_OZ2_GEMM] == MPB_OZ2_GEMM_BATCHED;
    s->kp = mpb_oz2_padded_k(g->k);
    int64_t most = mpb_oz2_chunk_most(g->k);
    s->chunks = mpb_crt_chunks(s->kp, most);
    s->chunk_len = mpb_crt_chunk_len(s->kp, most, 32);
    s->mblock = mpb_oz2_block_rows(params, g->m);
    s->nblock = mpb_oz2_block_cols(params, g->n);
    s->ptile = mpb_oz2c_product_cols(params, g->n);
    if (s->mblock < 1)
        s->mblock = 1;
    if (s->nblock < 1)
        s->nblock = 1;
    enum mpb_status st = MPB_STATUS_OK;
    if (!mpb_oz2_crt_init(s->n_moduli, &s->tab))
        st = mpb_cuda_fail(env, "moduli out of range", __FILE__, __LINE__);
    if (st == MPB_STATUS_OK)
        st = alloc_all(env, s, g);
    if (st == MPB_STATUS_OK)
        st = set_handle(env);
    if (st != MPB_STATUS_OK) {
        oz2c_teardown(env, s);
        return st;
    }
    *state = s;
    return MPB_STATUS_OK;
}

static enum mpb_status oz2c_report(struct mpb_cuda_env *env, void *state, struct mpb_scheme_info *info)
{
    const struct oz2c_state *s = (const struct oz2c_state *)state;
    (void)env;
    info->slices = s->n_moduli;
    info->fallback = 0;
    int used = snprintf(info->settings, sizeof info->settings,
                        "moduli=%d mode=%s form=%s budget_bits=%d int8_gemms=%d gemm=%s mblock=%lld nblock=%lld "
                        "product_cols=%lld",
                        s->n_moduli, s->accurate ? "accurate" : "fast",
                        s->form == MPB_OZ2C_KARATSUBA ? "karatsuba" : "conventional", s->tab.budget,
                        s->n_moduli * s->products + (s->accurate ? 1 : 0), s->batched ? "batched" : "calls",
                        (long long)s->mblock, (long long)s->nblock, (long long)s->ptile);
    if (s->chunks > 1 && used > 0 && (size_t)used < sizeof info->settings)
        snprintf(info->settings + used, sizeof info->settings - (size_t)used, " kchunks=%lld kchunk=%lld",
                 (long long)s->chunks, (long long)s->chunk_len);
    return MPB_STATUS_OK;
}

extern "C" const struct mpb_scheme_cuda mpb_ozaki2_complex_cuda = {oz2c_setup, oz2c_run, oz2c_report,
                                                                   oz2c_teardown};
