/* The dd reference on the GPU (ref_dd.h): a shared-memory tiled GEMM on the
 * fp64 CUDA cores, no tensor cores. Each entry is the sequence of
 * ref_dd_arith.h over l = 0 … k−1, the host's, so both give the same bits.
 *
 * Cost: 23 fp64 instructions per product (TwoProd 2, AccurateDWPlusDW 20,
 * |p| 1). n = 8192 is 5.5·10^11 products, 1.3·10^13 instructions; the H200
 * issues 132 SMs × 64 fp64 lanes × 1.98 GHz = 1.7·10^13 per second, so
 * about 0.8 s at peak. The kernel is built to stay near it: a 64×64 tile of
 * C per block of 256 threads, 4×4 entries per thread (16 independent dd
 * chains, enough to hide the add latency with one block per SM), A and B
 * staged through shared memory 16 values of l at a time (8 shared loads per
 * 368 fp64 instructions). */
#include "ref_dd.h"

#include <limits.h>

#include "cuda_check.h"
#include "ref_dd_arith.h"

#define DD_TILE 64                /* C tile side per block */
#define DD_BK 16                  /* values of l staged per step */
#define DD_SIDE 16                /* threads per tile side */
#define DD_PER (DD_TILE / DD_SIDE) /* entries per thread per side */
#define DD_THREADS (DD_SIDE * DD_SIDE)

/* One value of l for the thread's 4×4 entries; inlined, so acc stays in
 * registers. */
static __device__ __forceinline__ void dd_step(struct mpb_dd_acc (&acc)[DD_PER][DD_PER],
                                               const double *a_l, const double *b_l, int tx, int ty)
{
    double av[DD_PER], bv[DD_PER];
#pragma unroll
    for (int r = 0; r < DD_PER; r++)
        av[r] = a_l[tx + DD_SIDE * r];
#pragma unroll
    for (int c = 0; c < DD_PER; c++)
        bv[c] = b_l[ty + DD_SIDE * c];
#pragma unroll
    for (int r = 0; r < DD_PER; r++)
#pragma unroll
        for (int c = 0; c < DD_PER; c++)
            mpb_dd_acc_step(&acc[r][c], av[r], bv[c]);
}

/* Rows i0 + tx + 16·r and columns j0 + ty + 16·c of thread (tx, ty): a
 * warp reads 16 consecutive doubles of the A tile and broadcasts 2 of B. */
template <typename T>
static __global__ void __launch_bounds__(DD_THREADS, 1)
ref_dd_kernel(int m, int n, int k, const T *__restrict__ a, const T *__restrict__ b,
              double *hi, double *lo, double *absab)
{
    __shared__ double as[DD_BK][DD_TILE];
    __shared__ double bs[DD_BK][DD_TILE + 1]; /* +1: column-wise stores without bank conflicts */
    const int tx = threadIdx.x, ty = threadIdx.y, t = ty * DD_SIDE + tx;
    const int i0 = blockIdx.x * DD_TILE, j0 = blockIdx.y * DD_TILE;
    struct mpb_dd_acc acc[DD_PER][DD_PER];
#pragma unroll
    for (int r = 0; r < DD_PER; r++)
#pragma unroll
        for (int c = 0; c < DD_PER; c++)
            acc[r][c] = mpb_dd_acc_zero();

    for (int l0 = 0; l0 < k; l0 += DD_BK) {
        /* Coalesced loads: consecutive threads take consecutive rows of the
         * A tile (column-major A) and consecutive l of a B column. */
#pragma unroll
        for (int q = 0; q < DD_TILE * DD_BK / DD_THREADS; q++) {
            int e = t + q * DD_THREADS;
            int ar = e % DD_TILE, al = e / DD_TILE;
            int i = i0 + ar, la = l0 + al;
            as[al][ar] = i < m && la < k ? (double)a[(size_t)la * (size_t)m + (size_t)i] : 0.0;
            int bl = e % DD_BK, bc = e / DD_BK;
            int j = j0 + bc, lb = l0 + bl;
            bs[bl][bc] = j < n && lb < k ? (double)b[(size_t)j * (size_t)k + (size_t)lb] : 0.0;
        }
        __syncthreads();
        /* Only l < k is accumulated: padding would add zeros the host does
         * not add, and −0 + 0 = +0 could change a bit. */
        const int steps = k - l0 < DD_BK ? k - l0 : DD_BK;
        if (steps == DD_BK) {
#pragma unroll
            for (int l = 0; l < DD_BK; l++)
                dd_step(acc, as[l], bs[l], tx, ty);
        } else {
            for (int l = 0; l < steps; l++)
                dd_step(acc, as[l], bs[l], tx, ty);
        }
        __syncthreads();
    }

#pragma unroll
    for (int r = 0; r < DD_PER; r++)
#pragma unroll
        for (int c = 0; c < DD_PER; c++) {
            int i = i0 + tx + DD_SIDE * r, j = j0 + ty + DD_SIDE * c;
            if (i < m && j < n) {
                size_t p = (size_t)j * (size_t)m + (size_t)i;
                hi[p] = acc[r][c].s.hi;
                lo[p] = acc[r][c].s.lo;
                absab[p] = acc[r][c].abs;
            }
        }
}

enum mpb_status mpb_ref_dd_cuda(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                                const struct mpb_ref_dd_out *out)
{
    if (g->m > INT_MAX || g->n > INT_MAX || g->k > INT_MAX ||
        (g->n + DD_TILE - 1) / DD_TILE > 65535)
        return mpb_cuda_fail(env, "dd reference: m, k must be below 2^31 and n below 2^22",
                             __FILE__, __LINE__);
    if (g->m <= 0 || g->n <= 0)
        return MPB_STATUS_OK;
    dim3 block(DD_SIDE, DD_SIDE);
    dim3 grid((unsigned)((g->m + DD_TILE - 1) / DD_TILE), (unsigned)((g->n + DD_TILE - 1) / DD_TILE));
    int m = (int)g->m, n = (int)g->n, k = (int)g->k;
    if (g->target == MPB_TARGET_FP64)
        ref_dd_kernel<double><<<grid, block, 0, mpb_stream(env)>>>(
            m, n, k, (const double *)g->a, (const double *)g->b, out->hi, out->lo, out->absab);
    else
        ref_dd_kernel<float><<<grid, block, 0, mpb_stream(env)>>>(
            m, n, k, (const float *)g->a, (const float *)g->b, out->hi, out->lo, out->absab);
    MPB_LAUNCH_CHECK(env);
    return MPB_STATUS_OK;
}
