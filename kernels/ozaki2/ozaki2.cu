/* CUDA backend of Ozaki scheme II (ozaki2_arith.h has the numerics).
 *
 * One call, all on the stream, no allocation and no host synchronisation:
 *   split  row maxima of A / column maxima of B (NaN/Inf detected); the
 *          scaling bound (fast: integer sums of squares; accurate: digits of
 *          the leading bits and one INT8 GEMM, then its row/column maxima);
 *          the scales; the int8 residues of every modulus in one pass over A
 *          and one over B;
 *   gemm   N INT8→INT32 GEMMs, one cuBLAS call per modulus and output tile
 *          (gemm=calls) or one strided-batched call per tile (gemm=batched;
 *          on the H200 at 16384, 15 moduli, the whole call: 124–132 ms
 *          against 102 ms for separate calls, results/h200/fp64-emulation/ozaki2-tiles.csv),
 *          or all N in one launch of the engine's INT8 GEMM (gemm=engine,
 *          kernels/tc/tc_i8.h), whose epilogue stores modulus 256's sums as
 *          INT32 and every other modulus' sum reduced modulo it, one byte;
 *   accum  one kernel: mod reduction, CRT and unscaling, reading the N INT32
 *          outputs (or the engine's INT32 plane and N−1 byte planes) once and
 *          writing C once. A byte r ≡ c (mod m_t) gives the digit of the
 *          INT32 sum c bit for bit (mpb_crt_digit reads c mod m_t only, for
 *          odd m_t); modulus 256 needs c mod 512 (a tie), hence its INT32.
 * k above MPB_OZ2_MAX_K (an INT32 sum of more products could overflow) is
 * split into chunks of at most MPB_CRT_CHUNK_K: the N GEMMs of chunk 0 write
 * the N planes, those of every later chunk N more planes, which one kernel
 * folds into the first (mpb_crt_fold, modulo 2·m_t: the bits of one exact
 * sum). Accurate mode's bound GEMM is chunked alike, its sums added in 64
 * bits.
 * moduli=auto (ozaki2_auto.c): the split also sums each row's and column's
 * digits and, per index of k, lower-bound sums of A's columns and B's rows
 * (integers, so the atomic sums are the host model's exactly); one
 * download of the statistics and a host synchronisation, the count chosen
 * on the host by the host model's function, then the scales, residues,
 * GEMMs and accumulation of that count (buffers, CRT constants and engine
 * plans made in setup for every count).
 * Layout: cuBLAS's INT8 tensor-core GEMMs are fastest "TN": A's residues are
 * stored k-contiguous per row (op(A) = T, lda = kp), B's k-contiguous per
 * column (op(B) = N), k padded with zeros to kp, a multiple of 32. */
#include "ozaki2/ozaki2.h"

#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "common/crt_residues.cuh"
#include "ozaki2/ozaki2_passes.cuh"
#include "tc/tc_i8.h"

struct oz2_state {
    int n_moduli;                   /* moduli the buffers hold: the count, or the most for auto */
    int n_used;                     /* moduli of the last call */
    bool accurate;
    bool autom;                     /* moduli=auto */
    double tol;                     /* auto's target (the tol parameter; 0: native's) */
    bool batched;                   /* one strided-batched call per tile instead of one per modulus */
    bool engine;                    /* gemm=engine: the products through plan into e8 */
    struct tc_i8_plan *plans[MPB_OZ2_MAX_MODULI + 1]; /* [N]: N products; NULL when a dimension is 0 */
    unsigned char *e8;              /* modulus 256's INT32 plane, then N−1 byte planes, ldc rows each */
    int64_t ldc;                    /* mpb_oz2_engine_ldc(m) */
    int64_t kp, mblock, nblock;
    int64_t chunks, chunk_len;      /* the split of kp: chunk c at c·chunk_len (mpb_oz2_chunk_most) */
    struct mpb_oz2_crt tabs[MPB_OZ2_MAX_MODULI + 1]; /* [N]: N moduli's constants (each count auto may use) */
    int budget[MPB_OZ2_MAX_MODULI + 1];
    int8_t *ra, *rb;                /* residues: N·m·kp and N·n·kp (slot 0: accurate mode's digits) */
    int32_t *c32;                   /* N INT32 products, m·n each (slot 0: accurate mode's U; with
                                       chunks > 1, slots 0–1 its 64-bit sums); with chunks > 1, N
                                       more for the later chunks' products */
    unsigned long long *stats;      /* one block holding the per-row/column statistics below, then
                                       auto's, so that one download carries what auto reads */
    size_t stats_count;
    unsigned long long *amax, *bmax; /* |max| per row of A / column of B, as abs bits */
    unsigned long long *asq, *bsq;  /* fast (and auto): integer sums of squares */
    unsigned long long *urow, *ucol; /* accurate: row/column maxima of U */
    unsigned long long *al1, *bl1;  /* auto: digit sums */
    unsigned long long *isum;       /* auto: per index of k, A's sums, A's sums of squares, B's, B's */
    unsigned long long *ref;        /* auto: the largest finite, nonzero row / column maximum */
    uint64_t *host;                 /* auto: pinned copy of stats (same layout, the host's type) */
    struct mpb_oz2_auto choice;     /* auto: the last call's */
    int *mu, *nu;                   /* scales (MPB_OZ2_NONFINITE: NaN output) */
};

/* Row statistics of A (column-major, so threads run along i): each thread
 * folds a chunk of 64 columns into an atomic per row. Integer max and sum:
 * the result does not depend on the order. */
static const int64_t row_chunk = 64;

template <typename T>
static __global__ void oz2_row_max(const T *a, int64_t m, int64_t k, unsigned long long *amax)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    for (int64_t l0 = (int64_t)blockIdx.y * row_chunk; l0 < k; l0 += (int64_t)gridDim.y * row_chunk) {
        unsigned long long mx = 0;
        for (int64_t l = l0; l < l0 + row_chunk && l < k; l++) {
            unsigned long long v = mpb_oz2_abs_bits((double)a[i + l * m]);
            mx = v > mx ? v : mx;
        }
        atomicMax(&amax[i], mx);
    }
}

template <typename T, bool L1>
static __global__ void oz2_row_sumsq(const T *a, int64_t m, int64_t k,
                                     const unsigned long long *amax, unsigned long long *asq,
                                     unsigned long long *al1)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m || !mpb_oz2_abs_bits_finite(amax[i]))
        return;
    int e = mpb_oz2_exponent(amax[i]);
    for (int64_t l0 = (int64_t)blockIdx.y * row_chunk; l0 < k; l0 += (int64_t)gridDim.y * row_chunk) {
        unsigned long long s = 0, t = 0;
        for (int64_t l = l0; l < l0 + row_chunk && l < k; l++) {
            long long d = mpb_oz2_digit_up((double)a[i + l * m], e, MPB_OZ2_NORM_DIGIT_BITS);
            s += (unsigned long long)(d * d);
            t += (unsigned long long)d;
        }
        atomicAdd(&asq[i], s);
        if (L1)
            atomicAdd(&al1[i], t);
    }
}

/* Column statistics of B (k-contiguous): one warp per column; the sum of
 * squares (fast mode, and auto) and the digit sum (auto) in a second loop
 * once the maximum is known. */
template <typename T, bool L1>
static __global__ void oz2_col_stats(const T *b, int64_t k, int64_t n, bool sumsq,
                                     unsigned long long *bmax, unsigned long long *bsq,
                                     unsigned long long *bl1)
{
    int lane = threadIdx.x & 31;
    int64_t j = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (j >= n)
        return;
    const T *col = b + j * k;
    unsigned long long mx = 0;
    for (int64_t l = lane; l < k; l += 32) {
        unsigned long long v = mpb_oz2_abs_bits((double)col[l]);
        mx = v > mx ? v : mx;
    }
    mx = warp_max(mx);
    if (lane == 0)
        bmax[j] = mx;
    if (!(sumsq || L1) || !mpb_oz2_abs_bits_finite(mx))
        return;
    int e = mpb_oz2_exponent(mx);
    unsigned long long s = 0, t = 0;
    for (int64_t l = lane; l < k; l += 32) {
        long long d = mpb_oz2_digit_up((double)col[l], e, MPB_OZ2_NORM_DIGIT_BITS);
        s += (unsigned long long)(d * d);
        t += (unsigned long long)d;
    }
    s = warp_sum(s);
    t = warp_sum(t);
    if (lane == 0) {
        bsq[j] = s;
        if (L1)
            bl1[j] = t;
    }
}

/* moduli=auto: ref[0] = the largest finite, nonzero row maximum of A,
 * ref[1] the same over B's columns (atomicMax: any order, same result). */
static __global__ void oz2_ref_max(const unsigned long long *amax, const unsigned long long *bmax, int64_t m,
                                   int64_t n, unsigned long long *ref)
{
    int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= m + n)
        return;
    unsigned long long mx = v < m ? amax[v] : bmax[v - m];
    if (mx != 0 && mpb_oz2_abs_bits_finite(mx))
        atomicMax(&ref[v < m ? 0 : 1], mx);
}

/* moduli=auto's sums per index l of k over the finite rows of A (A is
 * column-major: column l runs along i): a block of 256 threads takes
 * index_rows rows of one column, each thread index_rows/256 of them;
 * integer sums, one atomic per block and sum. */
static const int64_t index_rows = 4096;

static __device__ unsigned long long block_sum(unsigned long long v, unsigned long long *smem)
{
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0)
        smem[threadIdx.x >> 5] = v;
    __syncthreads();
    unsigned long long total = 0;
    if (threadIdx.x == 0)
        for (unsigned w = 0; w < blockDim.x >> 5; w++)
            total += smem[w];
    __syncthreads();
    return total;
}

template <typename T>
static __global__ void oz2_index_sums_a(const T *a, int64_t m, int64_t k, const unsigned long long *amax,
                                        const unsigned long long *ref, unsigned long long *sum,
                                        unsigned long long *sumsq)
{
    __shared__ unsigned long long smem[2][8];
    int e = mpb_oz2_exponent(ref[0]);
    int64_t i0 = (int64_t)blockIdx.x * index_rows;
    for (int64_t l = blockIdx.y; l < k; l += gridDim.y) {
        unsigned long long s1 = 0, s2 = 0;
        for (int64_t i = i0 + threadIdx.x; i < m && i < i0 + index_rows; i += blockDim.x) {
            if (!mpb_oz2_abs_bits_finite(amax[i]))
                continue;
            double x = (double)a[i + l * m];
            unsigned long long d = mpb_oz2_digit_down(x, e, MPB_OZ2_SQ_DIGIT_BITS);
            s1 += mpb_oz2_digit_down(x, e, MPB_OZ2_SUM_DIGIT_BITS);
            s2 += d * d;
        }
        s1 = block_sum(s1, smem[0]);
        s2 = block_sum(s2, smem[1]);
        if (threadIdx.x == 0) {
            atomicAdd(&sum[l], s1);
            atomicAdd(&sumsq[l], s2);
        }
    }
}

/* ... and over the finite columns of B (column-major: row l of B is strided
 * by k): threads along l, each over index_cols columns, one atomic per
 * thread and sum. */
static const int64_t index_cols = 64;

template <typename T>
static __global__ void oz2_index_sums_b(const T *b, int64_t k, int64_t n, const unsigned long long *bmax,
                                        const unsigned long long *ref, unsigned long long *sum,
                                        unsigned long long *sumsq)
{
    int64_t l = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (l >= k)
        return;
    int e = mpb_oz2_exponent(ref[1]);
    for (int64_t j0 = (int64_t)blockIdx.y * index_cols; j0 < n; j0 += (int64_t)gridDim.y * index_cols) {
        unsigned long long s1 = 0, s2 = 0;
        for (int64_t j = j0; j < j0 + index_cols && j < n; j++) {
            if (!mpb_oz2_abs_bits_finite(bmax[j]))
                continue;
            double x = (double)b[l + j * k];
            unsigned long long d = mpb_oz2_digit_down(x, e, MPB_OZ2_SQ_DIGIT_BITS);
            s1 += mpb_oz2_digit_down(x, e, MPB_OZ2_SUM_DIGIT_BITS);
            s2 += d * d;
        }
        atomicAdd(&sum[l], s1);
        atomicAdd(&sumsq[l], s2);
    }
}

/* What the split kernels write for one element: a leading-bits digit
 * (accurate mode's bound GEMM) or the scaled, truncated integer whose
 * residues are taken. 0 for padding and for non-finite rows/columns. */
template <bool DIGITS>
static __device__ double split_value(double x, unsigned long long max_bits, int mu)
{
    if (!mpb_oz2_abs_bits_finite(max_bits))
        return 0;
    if (DIGITS)
        return (double)mpb_oz2_digit_up(x, mpb_oz2_exponent(max_bits), MPB_OZ2_BOUND_DIGIT_BITS);
    return mpb_oz2_scaled_int(x, mu);
}

/* Each split thread turns 8 consecutive k-elements of one row of A / column
 * of B into 8 int8 values per modulus, packed into one 8-byte store
 * (common/crt_residues.cuh). */
static const int split_vec = MPB_CRT_SPLIT_VEC;

/* The 8 digits of accurate mode's bound (x[v] already split_value). */
static __device__ void write_digits8(const double *x, int8_t *out)
{
    int8_t d[split_vec];
    for (int v = 0; v < split_vec; v++)
        d[v] = (int8_t)mpb_crt_low_word(x[v] + MPB_CRT_MAGIC);
    *(uint2 *)out = make_uint2(mpb_crt_pack4(d[0], d[1], d[2], d[3]),
                               mpb_crt_pack4(d[4], d[5], d[6], d[7]));
}

/* Writes the 8 values x[0..7] (already split_value) at out: the digits
 * (DIGITS), or the residues of every modulus, plane t at out + t·stride;
 * unrolled so that each modulus is a compile-time constant. */
template <bool DIGITS>
static __device__ void write_split8(const double *x, int n_moduli, int8_t *out, size_t stride)
{
    if (DIGITS)
        write_digits8(x, out);
    else
        mpb_crt_write_residues8<MPB_OZ2_MAX_MODULI>(x, n_moduli, out, stride);
}

/* The split kernels run at 3 blocks of 256 per SM (≤ 85 registers, no
 * spill): 6.9 ms for the split phase at 16384 instead of 7.2 at 2. */
/* A (m×k, column-major) to row-major int8 (i·kp + l): a tile of 32 rows ×
 * 64 k-elements goes through shared memory, read from A along i (one warp:
 * 32 consecutive rows) and written as 8 threads × 8 bytes per row. Row
 * stride 65 doubles: the column-wise writes into the tile hit 32 distinct
 * banks. */
static const int a_tile_rows = 32, a_tile_cols = 64, a_block_y = 8;

template <typename T, bool DIGITS>
static __global__ void __launch_bounds__(256, 3) oz2_split_a(const T *a, int64_t m, int64_t k, int64_t kp,
                                   const unsigned long long *amax, const int *mu, int n_moduli,
                                   int8_t *out)
{
    __shared__ double tile[a_tile_rows][a_tile_cols + 1];
    int64_t i0 = (int64_t)blockIdx.x * a_tile_rows;
    int id = threadIdx.y * blockDim.x + threadIdx.x;
    int row = id / (a_tile_cols / split_vec), col = id % (a_tile_cols / split_vec) * split_vec;
    int64_t i = i0 + threadIdx.x;
    unsigned long long imax = i < m ? amax[i] : 0;
    int imu = i < m && !DIGITS ? mu[i] : 0;
    for (int64_t l0 = (int64_t)blockIdx.y * a_tile_cols; l0 < kp;
         l0 += (int64_t)gridDim.y * a_tile_cols) {
        /* loads first, all issued before the first is used */
        T x[a_tile_cols / a_block_y];
#pragma unroll
        for (int u = 0; u < a_tile_cols / a_block_y; u++) {
            int64_t l = l0 + threadIdx.y + u * a_block_y;
            x[u] = i < m && l < k ? a[i + l * m] : (T)0;
        }
#pragma unroll
        for (int u = 0; u < a_tile_cols / a_block_y; u++)
            tile[threadIdx.x][threadIdx.y + u * a_block_y] =
                split_value<DIGITS>((double)x[u], imax, imu);
        __syncthreads();
        if (i0 + row < m && l0 + col < kp)
            write_split8<DIGITS>(&tile[row][col], n_moduli, out + (size_t)((i0 + row) * kp + l0 + col),
                                 (size_t)(m * kp));
        __syncthreads();
    }
}

/* B (k×n, column-major) to int8 columns of length kp: same layout, no
 * transpose; a thread takes 8 consecutive elements of a column. */
template <typename T, bool DIGITS>
static __global__ void __launch_bounds__(256, 3) oz2_split_b(const T *b, int64_t k, int64_t n, int64_t kp,
                                   const unsigned long long *bmax, const int *nu, int n_moduli,
                                   int8_t *out)
{
    int64_t l = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * split_vec;
    if (l >= kp)
        return;
    for (int64_t j = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; j < n;
         j += (int64_t)gridDim.y * blockDim.y) {
        unsigned long long jmax = bmax[j];
        int jnu = DIGITS ? 0 : nu[j];
        T raw[split_vec];
        for (int v = 0; v < split_vec; v++)
            raw[v] = l + v < k ? b[l + v + j * k] : (T)0;
        double x[split_vec];
        for (int v = 0; v < split_vec; v++)
            x[v] = split_value<DIGITS>((double)raw[v], jmax, jnu);
        write_split8<DIGITS>(x, n_moduli, out + (size_t)(j * kp + l), (size_t)(n * kp));
    }
}

/* k split: the N planes of a later chunk folded into the N planes of the
 * sums so far, modulo 2·m_t (mpb_crt_fold); unrolled so that each modulus
 * is a constant. */
static __global__ void oz2_fold(int32_t *acc, const int32_t *x, int64_t plane, int n_moduli)
{
    for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < plane;
         p += (int64_t)gridDim.x * blockDim.x) {
#pragma unroll
        for (int t = 0; t < MPB_OZ2_MAX_MODULI; t++) {
            if (t >= n_moduli)
                break;
            acc[t * plane + p] = mpb_crt_fold(acc[t * plane + p], __ldcs(x + t * plane + p), t);
        }
    }
}

/* mu for the m rows of A, then nu for the n columns of B. */
static __global__ void oz2_scales(int64_t m, int64_t n, bool accurate, int budget,
                                  const unsigned long long *amax, const unsigned long long *bmax,
                                  const unsigned long long *asq, const unsigned long long *bsq,
                                  const unsigned long long *urow, const unsigned long long *ucol,
                                  int *mu, int *nu)
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
        s = accurate ? mpb_oz2_scale_accurate(e, row ? urow[w] : ucol[w], budget)
                     : mpb_oz2_scale_fast(e, row ? asq[w] : bsq[w], budget);
    }
    (row ? mu : nu)[w] = s;
}

/* V consecutive INT32 outputs of one plane; V = 2 needs p even. Read
 * once: streaming loads, so they do not evict what the stores need. */
template <int V>
static __device__ void load_ints(const int32_t *p, int32_t *c)
{
    if (V == 2) {
        int2 x = __ldcs((const int2 *)p);
        c[0] = x.x, c[1] = x.y;
    } else {
        for (int v = 0; v < V; v++)
            c[v] = __ldcs(p + v);
    }
}

/* C from the N INT32 products in one pass: a thread takes V consecutive
 * entries of a column (V = 2 when m is even: 8-byte loads from each of the N
 * planes), all N digits of an entry summed in registers. Measured on the
 * H200 at 16384, 15 moduli (accum phase): V = 1 at 4 blocks/SM 8.2 ms, V = 2
 * at 2 blocks/SM 6.6, V = 2 at 3 blocks/SM 5.9 (80 registers, no spill);
 * loading inside the digit loop instead of first: 10.1. */
template <typename T, int V>
static __global__ void __launch_bounds__(256, 3) oz2_accum(const int32_t *c32, int64_t m, int64_t n,
                                 const struct mpb_oz2_crt tab, const int *mu, const int *nu, T *c)
{
    int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * V;
    if (i >= m)
        return;
    int imu[V];
    for (int v = 0; v < V; v++)
        imu[v] = mu[i + v];
    for (int64_t j = blockIdx.y; j < n; j += gridDim.y) {
        size_t p = (size_t)(i + j * m);
        /* All loads first: issued back to back, one memory latency per entry
         * instead of N. */
        int32_t cv[MPB_OZ2_MAX_MODULI][V];
#pragma unroll
        for (int t = 0; t < MPB_OZ2_MAX_MODULI; t++)
            if (t < tab.n)
                load_ints<V>(c32 + (size_t)t * (size_t)(m * n) + p, cv[t]);
        struct mpb_oz2_crt_sum sum[V];
        for (int v = 0; v < V; v++)
            sum[v].hi = sum[v].lo = 0;
#pragma unroll
        for (int t = 0; t < MPB_OZ2_MAX_MODULI; t++) {
            if (t >= tab.n)
                break;
            for (int v = 0; v < V; v++)
                mpb_oz2_crt_add(&sum[v], cv[t][v], t, &tab);
        }
        int jnu = nu[j];
        for (int v = 0; v < V; v++)
            c[p + v] = (T)(imu[v] == MPB_OZ2_NONFINITE || jnu == MPB_OZ2_NONFINITE
                               ? NAN
                               : mpb_oz2_crt_finish(&sum[v], &tab, imu[v] + jnu));
    }
}

/* gemm=engine: C from modulus 256's INT32 plane and the N−1 byte planes
 * (ldc rows each; ldc a multiple of 16, so rows past m up to ldc exist and
 * are read, not used): a thread takes 4 consecutive rows, one 16-byte load
 * from the first plane and 4 bytes from each other; the digits are added
 * in oz2_accum's order. */
template <typename T>
static __global__ void __launch_bounds__(256, 3) oz2_accum_engine(const unsigned char *e8, int64_t m, int64_t n,
                                                                  int64_t ldc, const struct mpb_oz2_crt tab,
                                                                  const int *mu, const int *nu, T *c)
{
    int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (i >= m)
        return;
    int imu[4];
    for (int v = 0; v < 4; v++)
        imu[v] = i + v < m ? mu[i + v] : 0;
    const size_t plane = (size_t)(ldc * n);
    const unsigned char *res = e8 + 4 * plane;
    for (int64_t j = blockIdx.y; j < n; j += gridDim.y) {
        size_t p = (size_t)(i + j * ldc);
        int4 c0 = __ldcs((const int4 *)(e8 + 4 * p));
        unsigned int r[MPB_OZ2_MAX_MODULI];
#pragma unroll
        for (int t = 1; t < MPB_OZ2_MAX_MODULI; t++)
            if (t < tab.n)
                r[t] = __ldcs((const unsigned int *)(res + (size_t)(t - 1) * plane + p));
        struct mpb_oz2_crt_sum sum[4];
        const int32_t first[4] = {c0.x, c0.y, c0.z, c0.w};
        for (int v = 0; v < 4; v++) {
            sum[v].hi = sum[v].lo = 0;
            mpb_oz2_crt_add(&sum[v], first[v], 0, &tab);
        }
#pragma unroll
        for (int t = 1; t < MPB_OZ2_MAX_MODULI; t++) {
            if (t >= tab.n)
                break;
            for (int v = 0; v < 4; v++)
                mpb_oz2_crt_add(&sum[v], (int32_t)((r[t] >> (8 * v)) & 0xFFu), t, &tab);
        }
        int jnu = nu[j];
        for (int v = 0; v < 4 && i + v < m; v++)
            c[i + v + j * m] = (T)(imu[v] == MPB_OZ2_NONFINITE || jnu == MPB_OZ2_NONFINITE
                                       ? NAN
                                       : mpb_oz2_crt_finish(&sum[v], &tab, imu[v] + jnu));
    }
}

/* N INT8 GEMMs C_t = A_t^T·B_t (A_t kp×m, B_t kp×n, C_t m×n) over chunk c
 * of k (terms c·chunk_len … to the chunk's end) in tiles of mblock × nblock
 * outputs: one strided-batched call per tile (batched), or one
 * cublasGemmEx per modulus and tile. */
static enum mpb_status gemm_int8(struct mpb_cuda_env *env, const struct oz2_state *s, int64_t m,
                                 int64_t n, const int8_t *a, const int8_t *b, int32_t *c, int batch,
                                 int64_t chunk)
{
    const int32_t one = 1, zero = 0;
    long long sa = (long long)(m * s->kp), sb = (long long)(n * s->kp), sc = (long long)(m * n);
    int64_t l0 = chunk * s->chunk_len;
    int kc = (int)(s->kp - l0 < s->chunk_len ? s->kp - l0 : s->chunk_len);
    for (int64_t j0 = 0; j0 < n; j0 += s->nblock) {
        int nb = (int)(n - j0 < s->nblock ? n - j0 : s->nblock);
        for (int64_t i0 = 0; i0 < m; i0 += s->mblock) {
            int mb = (int)(m - i0 < s->mblock ? m - i0 : s->mblock);
            const int8_t *at = a + i0 * s->kp + l0, *bt = b + j0 * s->kp + l0;
            int32_t *ct = c + i0 + j0 * m;
            if (s->batched) {
                MPB_CUBLAS_TRY(env, cublasGemmStridedBatchedEx(
                                        mpb_cublas(env), CUBLAS_OP_T, CUBLAS_OP_N, mb, nb,
                                        kc, &one, at, CUDA_R_8I, (int)s->kp, sa, bt,
                                        CUDA_R_8I, (int)s->kp, sb, &zero, ct, CUDA_R_32I, (int)m,
                                        sc, batch, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
                continue;
            }
            for (int t = 0; t < batch; t++)
                MPB_CUBLAS_TRY(env, cublasGemmEx(mpb_cublas(env), CUBLAS_OP_T, CUBLAS_OP_N, mb, nb,
                                                 kc, &one, at + t * sa, CUDA_R_8I,
                                                 (int)s->kp, bt + t * sb, CUDA_R_8I, (int)s->kp,
                                                 &zero, ct + t * sc, CUDA_R_32I, (int)m,
                                                 CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
        }
    }
    return MPB_STATUS_OK;
}

/* moduli=auto, once the row/column statistics are on the device: the
 * reference maxima, the per-index sums, one download, and the choice on
 * the host (mpb_oz2_auto_choose, the host model's function on the same
 * integers). Sets n_used. */
template <typename T>
static enum mpb_status oz2_auto(struct mpb_cuda_env *env, struct oz2_state *s, const struct mpb_gemm *g)
{
    cudaStream_t st = mpb_stream(env);
    int64_t m = g->m, n = g->n, k = g->k;
    oz2_ref_max<<<blocks_for(m + n, threads), threads, 0, st>>>(s->amax, s->bmax, m, n, s->ref);
    MPB_LAUNCH_CHECK(env);
    if (k > 0) {
        dim3 a_grid(blocks_for(m, (unsigned)index_rows), grid_y(k));
        oz2_index_sums_a<T><<<a_grid, threads, 0, st>>>((const T *)g->a, m, k, s->amax, s->ref, s->isum,
                                                        s->isum + k);
        MPB_LAUNCH_CHECK(env);
        dim3 b_grid(blocks_for(k, threads), grid_y(blocks_for(n, (unsigned)index_cols)));
        oz2_index_sums_b<T><<<b_grid, threads, 0, st>>>((const T *)g->b, k, n, s->bmax, s->ref,
                                                        s->isum + 2 * k, s->isum + 3 * k);
        MPB_LAUNCH_CHECK(env);
    }
    MPB_CUDA_TRY(env, cudaMemcpyAsync(s->host, s->stats, sizeof *s->stats * s->stats_count,
                                      cudaMemcpyDeviceToHost, st));
    enum mpb_status sync = mpb_cuda_sync(env);
    if (sync != MPB_STATUS_OK)
        return sync;
    /* the same offsets in the host copy */
    const uint64_t *h = s->host;
    const uint64_t *amax = h + (s->amax - s->stats), *bmax = h + (s->bmax - s->stats);
    const uint64_t *astat = h + ((s->accurate ? s->urow : s->asq) - s->stats);
    const uint64_t *bstat = h + ((s->accurate ? s->ucol : s->bsq) - s->stats);
    const uint64_t *isum = h + (s->isum - s->stats);
    struct mpb_oz2_side sa = {m, amax, astat, h + (s->al1 - s->stats), isum, isum + k, mpb_oz2_e_ref(amax, m)};
    struct mpb_oz2_side sb = {n, bmax, bstat, h + (s->bl1 - s->stats), isum + 2 * k, isum + 3 * k,
                              mpb_oz2_e_ref(bmax, n)};
    if (!mpb_oz2_auto_choose(&sa, &sb, k, s->accurate, g->target, s->tol, s->budget, &s->choice))
        return mpb_cuda_fail(env, "out of host memory for moduli=auto's choice", __FILE__, __LINE__);
    s->n_used = s->choice.moduli;
    return MPB_STATUS_OK;
}

template <typename T>
static enum mpb_status oz2_split(struct mpb_cuda_env *env, struct oz2_state *s,
                                 const struct mpb_gemm *g)
{
    cudaStream_t st = mpb_stream(env);
    int64_t m = g->m, n = g->n, k = g->k, kp = s->kp;
    const T *a = (const T *)g->a, *b = (const T *)g->b;
    dim3 row_grid(blocks_for(m, threads), grid_y(blocks_for(k, (unsigned)row_chunk)));
    dim3 tile_block(32, a_block_y), a_grid(blocks_for(m, a_tile_rows), grid_y(blocks_for(kp, a_tile_cols)));
    dim3 b_grid(blocks_for(kp / split_vec, 32), grid_y(blocks_for(n, 8)));
    /* auto downloads the whole block: every word written (sums start at 0) */
    if (s->autom)
        MPB_CUDA_TRY(env, cudaMemsetAsync(s->stats, 0, sizeof *s->stats * s->stats_count, st));
    MPB_CUDA_TRY(env, cudaMemsetAsync(s->amax, 0, sizeof *s->amax * (size_t)m, st));
    oz2_row_max<T><<<row_grid, threads, 0, st>>>(a, m, k, s->amax);
    MPB_LAUNCH_CHECK(env);
    if (s->autom)
        oz2_col_stats<T, true><<<blocks_for(n * 32, threads), threads, 0, st>>>(b, k, n, !s->accurate, s->bmax,
                                                                               s->bsq, s->bl1);
    else
        oz2_col_stats<T, false><<<blocks_for(n * 32, threads), threads, 0, st>>>(b, k, n, !s->accurate, s->bmax,
                                                                                s->bsq, NULL);
    MPB_LAUNCH_CHECK(env);
    if (s->accurate) {
        oz2_split_a<T, true><<<a_grid, tile_block, 0, st>>>(a, m, k, kp, s->amax, s->mu, 1, s->ra);
        MPB_LAUNCH_CHECK(env);
        oz2_split_b<T, true><<<b_grid, tile_block, 0, st>>>(b, k, n, kp, s->bmax, s->nu, 1, s->rb);
        MPB_LAUNCH_CHECK(env);
        enum mpb_status gs = MPB_STATUS_OK;
        int32_t *later = s->c32 + (size_t)s->n_moduli * (size_t)(m * n);
        unsigned long long *u64 = (unsigned long long *)s->c32;
        for (int64_t c = 0; c < s->chunks && gs == MPB_STATUS_OK; c++) {
            gs = gemm_int8(env, s, m, n, s->ra, s->rb, s->chunks > 1 ? later : s->c32, 1, c);
            if (gs == MPB_STATUS_OK && s->chunks > 1) {
                oz2_u_add<<<plane_grid(m * n), threads, 0, st>>>(u64, later, m * n, c == 0);
                MPB_LAUNCH_CHECK(env);
            }
        }
        if (gs != MPB_STATUS_OK)
            return gs;
        MPB_CUDA_TRY(env, cudaMemsetAsync(s->urow, 0, sizeof *s->urow * (size_t)m, st));
        MPB_CUDA_TRY(env, cudaMemsetAsync(s->ucol, 0, sizeof *s->ucol * (size_t)n, st));
        dim3 u_grid(blocks_for(m, threads), grid_y(blocks_for(n, 32)));
        if (s->chunks > 1)
            oz2_u_max<unsigned long long><<<u_grid, threads, 0, st>>>(u64, m, n, s->urow, s->ucol);
        else
            oz2_u_max<int32_t><<<u_grid, threads, 0, st>>>(s->c32, m, n, s->urow, s->ucol);
        MPB_LAUNCH_CHECK(env);
    }
    if (!s->accurate || s->autom) {
        MPB_CUDA_TRY(env, cudaMemsetAsync(s->asq, 0, sizeof *s->asq * (size_t)m, st));
        if (s->autom) {
            oz2_row_sumsq<T, true><<<row_grid, threads, 0, st>>>(a, m, k, s->amax, s->asq, s->al1);
        } else {
            oz2_row_sumsq<T, false><<<row_grid, threads, 0, st>>>(a, m, k, s->amax, s->asq, NULL);
        }
        MPB_LAUNCH_CHECK(env);
    }
    if (s->autom) {
        enum mpb_status as = oz2_auto<T>(env, s, g);
        if (as != MPB_STATUS_OK)
            return as;
    }
    oz2_scales<<<blocks_for(m + n, threads), threads, 0, st>>>(
        m, n, s->accurate, s->tabs[s->n_used].budget, s->amax, s->bmax, s->asq, s->bsq, s->urow, s->ucol,
        s->mu, s->nu);
    MPB_LAUNCH_CHECK(env);
    oz2_split_a<T, false><<<a_grid, tile_block, 0, st>>>(a, m, k, kp, s->amax, s->mu, s->n_used,
                                                         s->ra);
    MPB_LAUNCH_CHECK(env);
    oz2_split_b<T, false><<<b_grid, tile_block, 0, st>>>(b, k, n, kp, s->bmax, s->nu, s->n_used,
                                                         s->rb);
    MPB_LAUNCH_CHECK(env);
    return MPB_STATUS_OK;
}

template <typename T>
static enum mpb_status oz2_accumulate(struct mpb_cuda_env *env, const struct oz2_state *s,
                                      const struct mpb_gemm *g)
{
    if (s->engine) {
        dim3 grid(blocks_for((g->m + 3) / 4, threads), grid_y(g->n));
        oz2_accum_engine<T><<<grid, threads, 0, mpb_stream(env)>>>(s->e8, g->m, g->n, s->ldc, s->tabs[s->n_used],
                                                                   s->mu, s->nu,
                                                                   (T *)g->c);
    } else if (g->m % 2 == 0) {
        dim3 grid(blocks_for(g->m / 2, threads), grid_y(g->n));
        oz2_accum<T, 2><<<grid, threads, 0, mpb_stream(env)>>>(s->c32, g->m, g->n, s->tabs[s->n_used], s->mu,
                                                               s->nu, (T *)g->c);
    } else {
        dim3 grid(blocks_for(g->m, threads), grid_y(g->n));
        oz2_accum<T, 1><<<grid, threads, 0, mpb_stream(env)>>>(s->c32, g->m, g->n, s->tabs[s->n_used], s->mu,
                                                               s->nu, (T *)g->c);
    }
    MPB_LAUNCH_CHECK(env);
    return MPB_STATUS_OK;
}

static enum mpb_status ozaki2_run(struct mpb_cuda_env *env, void *state, const struct mpb_gemm *g,
                                  struct mpb_phase_clock *clock)
{
    struct oz2_state *s = (struct oz2_state *)state;
    bool f64 = g->target == MPB_TARGET_FP64;
    if (g->m == 0 || g->n == 0)
        return MPB_STATUS_OK;
    enum mpb_status st = f64 ? oz2_split<double>(env, s, g) : oz2_split<float>(env, s, g);
    if (st != MPB_STATUS_OK)
        return st;
    mpb_phase_mark(clock, MPB_PHASE_SPLIT);
    int64_t plane = g->m * g->n;
    int32_t *later = s->c32 + (size_t)s->n_moduli * (size_t)plane;
    if (s->engine) {
        if (s->plans[s->n_used]) {
            int err = tc_i8_plan_launch(s->plans[s->n_used], mpb_stream(env));
            if (err)
                return mpb_cuda_fail(env, cudaGetErrorString((cudaError_t)err), __FILE__, __LINE__);
        } else { /* k = 0: every sum is 0 */
            MPB_CUDA_TRY(env, cudaMemsetAsync(s->e8, 0, (size_t)(s->ldc * g->n) * (size_t)(s->n_used + 3),
                                              mpb_stream(env)));
        }
    }
    for (int64_t c = 0; c < s->chunks && !s->engine; c++) {
        st = gemm_int8(env, s, g->m, g->n, s->ra, s->rb, c == 0 ? s->c32 : later, s->n_used, c);
        if (st != MPB_STATUS_OK)
            return st;
        if (c > 0) {
            oz2_fold<<<plane_grid(plane), threads, 0, mpb_stream(env)>>>(s->c32, later, plane,
                                                                        s->n_used);
            MPB_LAUNCH_CHECK(env);
        }
    }
    mpb_phase_mark(clock, MPB_PHASE_GEMM);
    st = f64 ? oz2_accumulate<double>(env, s, g) : oz2_accumulate<float>(env, s, g);
    mpb_phase_mark(clock, MPB_PHASE_ACCUM);
    return st;
}

static void ozaki2_teardown(struct mpb_cuda_env *env, void *state)
{
    struct oz2_state *s = (struct oz2_state *)state;
    if (!s)
        return;
    for (int nm = 0; nm <= MPB_OZ2_MAX_MODULI; nm++)
        tc_i8_plan_destroy(s->plans[nm]);
    void *bufs[] = {s->ra, s->rb, s->c32, s->e8, s->stats, s->mu, s->nu};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        mpb_cuda_free(env, bufs[i]);
    if (s->host)
        MPB_CUDA_NOTE(env, cudaFreeHost(s->host));
    free(s);
}

static enum mpb_status alloc_all(struct mpb_cuda_env *env, struct oz2_state *s,
                                 const struct mpb_gemm *g)
{
    size_t m = (size_t)g->m, n = (size_t)g->n, kp = (size_t)s->kp, nm = (size_t)s->n_moduli;
    /* mpb_ozaki2_workspace counts the same; gemm=engine: INT32 only for
     * accurate mode's bound product */
    size_t planes = s->engine ? (s->accurate ? 1 : 0) : s->chunks > 1 ? 2 * nm : nm;
    size_t e8 = s->engine ? (nm + 3) * (size_t)s->ldc * n : 0;
    struct {
        void **p;
        size_t bytes;
    } want[] = {
        {(void **)&s->ra, nm * m * kp}, {(void **)&s->rb, nm * n * kp},
        {(void **)&s->c32, planes * m * n * sizeof(int32_t)}, {(void **)&s->e8, e8},
        {(void **)&s->stats, s->stats_count * sizeof *s->stats},
        {(void **)&s->mu, m * sizeof *s->mu}, {(void **)&s->nu, n * sizeof *s->nu},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        if (!want[i].bytes && want[i].p == (void **)&s->e8)
            continue;
        enum mpb_status st = mpb_cuda_alloc(env, want[i].p, want[i].bytes + 16);
        if (st != MPB_STATUS_OK)
            return st;
    }
    if (s->autom)
        MPB_CUDA_TRY(env, cudaMallocHost((void **)&s->host, s->stats_count * sizeof *s->stats));
    return MPB_STATUS_OK;
}

/* The statistics block: per row/column the maxima, sums of squares and U's
 * maxima, then with auto the digit sums, the per-index sums and the two
 * reference maxima. */
static void lay_out_stats(struct oz2_state *s, int64_t m, int64_t n, int64_t k)
{
    s->stats_count = (size_t)(3 * (m + n)) + (s->autom ? (size_t)(m + n + 4 * k + 2) : 0);
}

static void point_stats(struct oz2_state *s, int64_t m, int64_t n, int64_t k)
{
    s->amax = s->stats;
    s->bmax = s->amax + m;
    s->asq = s->bmax + n;
    s->bsq = s->asq + m;
    s->urow = s->bsq + n;
    s->ucol = s->urow + m;
    if (!s->autom)
        return;
    s->al1 = s->ucol + n;
    s->bl1 = s->al1 + m;
    s->isum = s->bl1 + n;
    s->ref = s->isum + 4 * k;
}

/* gemm=engine: modulus t's product from its residue planes (K-major, kp
 * values a row, zeros past k) into plane t of e8: INT32 for modulus 256,
 * the sum modulo m_t as one byte for the others. */
static enum mpb_status plan_engine(struct mpb_cuda_env *env, struct oz2_state *s, const struct mpb_gemm *g,
                                   int n_moduli)
{
    struct tc_i8_args a = {};
    a.m = g->m;
    a.n = g->n;
    a.k = s->kp;
    a.ld = s->kp;
    a.ldc = s->ldc;
    a.n_gemms = n_moduli;
    const size_t plane = (size_t)(s->ldc * g->n);
    for (int t = 0; t < n_moduli; t++) {
        a.gemms[t].a = s->ra + (size_t)t * (size_t)(g->m * s->kp);
        a.gemms[t].b = s->rb + (size_t)t * (size_t)(g->n * s->kp);
        a.gemms[t].c = t == 0 ? (void *)s->e8 : (void *)(s->e8 + 4 * plane + (size_t)(t - 1) * plane);
        a.gemms[t].mod = t == 0 ? 0 : mpb_crt_modulus(t);
    }
    char why[256];
    if (tc_i8_plan_create(&a, &s->plans[n_moduli], why, sizeof why) != 0)
        return mpb_cuda_fail(env, why, __FILE__, __LINE__);
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

static enum mpb_status ozaki2_setup(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                                    const double *params, void **state)
{
    *state = NULL;
    char why[256];
    if (!mpb_oz2_check(params, g, mpb_cuda_device(env), why, sizeof why))
        return mpb_cuda_fail(env, why, __FILE__, __LINE__);
    struct oz2_state *s = (struct oz2_state *)calloc(1, sizeof *s);
    if (!s)
        return mpb_cuda_fail(env, "out of host memory for the scheme state", __FILE__, __LINE__);
    s->autom = mpb_oz2_is_auto(params);
    s->tol = params[MPB_OZ2_TOL];
    s->n_moduli = mpb_oz2_moduli_most(params);
    s->n_used = s->n_moduli;
    s->accurate = params[MPB_OZ2_MODE] == MPB_OZ2_ACCURATE;
    s->kp = mpb_oz2_padded_k(g->k);
    int64_t most = mpb_oz2_chunk_most(g->k);
    s->chunks = mpb_crt_chunks(s->kp, most);
    s->chunk_len = mpb_crt_chunk_len(s->kp, most, 32);
    enum mpb_oz2_gemm used = mpb_oz2_gemm_used(params, g, mpb_cuda_device(env));
    s->batched = used == MPB_OZ2_GEMM_BATCHED;
    s->engine = used == MPB_OZ2_GEMM_ENGINE;
    s->ldc = mpb_oz2_engine_ldc(g->m);
    s->mblock = mpb_oz2_block_rows(params, g->m);
    s->nblock = mpb_oz2_block_cols(params, g->n);
    if (s->mblock < 1)
        s->mblock = 1;
    if (s->nblock < 1)
        s->nblock = 1;
    enum mpb_status st = MPB_STATUS_OK;
    /* the counts a call may use: the one, or every one for auto */
    int lo = s->autom ? MPB_OZ2_MIN_MODULI : s->n_moduli;
    for (int nm = lo; nm <= s->n_moduli && st == MPB_STATUS_OK; nm++) {
        if (!mpb_oz2_crt_init(nm, &s->tabs[nm]))
            st = mpb_cuda_fail(env, "moduli out of range", __FILE__, __LINE__);
        s->budget[nm] = s->tabs[nm].budget;
    }
    lay_out_stats(s, g->m, g->n, g->k);
    if (st == MPB_STATUS_OK)
        st = alloc_all(env, s, g);
    if (st == MPB_STATUS_OK)
        point_stats(s, g->m, g->n, g->k);
    if (s->autom && (g->m == 0 || g->n == 0)) { /* no call runs: the choice for no entries */
        struct mpb_oz2_side none = {};
        (void)mpb_oz2_auto_choose(&none, &none, g->k, s->accurate, g->target, s->tol, s->budget, &s->choice);
        s->n_used = s->choice.moduli;
    }
    for (int nm = lo; nm <= s->n_moduli && st == MPB_STATUS_OK && s->engine && g->m > 0 && g->n > 0 && g->k > 0;
         nm++)
        st = plan_engine(env, s, g, nm);
    if (st == MPB_STATUS_OK)
        st = set_handle(env);
    if (st != MPB_STATUS_OK) {
        ozaki2_teardown(env, s);
        return st;
    }
    *state = s;
    return MPB_STATUS_OK;
}

static enum mpb_status ozaki2_report(struct mpb_cuda_env *env, void *state,
                                     struct mpb_scheme_info *info)
{
    const struct oz2_state *s = (const struct oz2_state *)state;
    (void)env;
    info->slices = s->n_used;
    info->fallback = 0;
    int used = snprintf(info->settings, sizeof info->settings,
                        "moduli=%d mode=%s budget_bits=%d gemm=%s mblock=%lld nblock=%lld",
                        s->n_used, s->accurate ? "accurate" : "fast", s->tabs[s->n_used].budget,
                        s->engine ? "engine" : s->batched ? "batched" : "calls", (long long)s->mblock,
                        (long long)s->nblock);
    if (s->chunks > 1 && used > 0 && (size_t)used < sizeof info->settings)
        snprintf(info->settings + used, sizeof info->settings - (size_t)used,
                 " kchunks=%lld kchunk=%lld", (long long)s->chunks, (long long)s->chunk_len);
    if (s->autom)
        mpb_oz2_auto_note(&s->choice, info->note, sizeof info->note);
    return MPB_STATUS_OK;
}

extern "C" const struct mpb_scheme_cuda mpb_ozaki2_cuda = {ozaki2_setup, ozaki2_run, ozaki2_report,
                                                           ozaki2_teardown};
