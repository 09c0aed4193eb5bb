/* The passes and launch helpers that the real (ozaki2.cu) and the complex
 * (ozaki2_complex.cu) Ozaki-II paths share: grid sizes, warp reductions,
 * and accurate mode's maxima of U and its k-chunk sums. Included by those
 * two .cu files only (everything is static to each). */
#ifndef MPB_OZAKI2_PASSES_CUH
#define MPB_OZAKI2_PASSES_CUH

#include <stdint.h>

static const unsigned threads = 256;
static const unsigned max_grid_y = 65535;

static unsigned blocks_for(int64_t count, unsigned per_block)
{
    return (unsigned)((count + per_block - 1) / per_block);
}

static unsigned grid_y(int64_t count)
{
    return (unsigned)(count < 1 ? 1 : count < max_grid_y ? count : max_grid_y);
}

static __device__ unsigned long long warp_max(unsigned long long v)
{
    for (int off = 16; off; off >>= 1) {
        unsigned long long o = __shfl_xor_sync(0xFFFFFFFFu, v, off);
        v = o > v ? o : v;
    }
    return v;
}

static __device__ unsigned long long warp_sum(unsigned long long v)
{
    for (int off = 16; off; off >>= 1)
        v += __shfl_xor_sync(0xFFFFFFFFu, v, off);
    return v;
}

/* Row and column maxima of U = Ā·B̄ (accurate mode; U ≥ 0, INT32 from one
 * GEMM or 64-bit chunk sums): threads along i, each over 32 columns;
 * columns reduced per warp. */
template <typename U>
static __global__ void oz2_u_max(const U *u, int64_t m, int64_t n, unsigned long long *urow,
                                 unsigned long long *ucol)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int64_t j0 = (int64_t)blockIdx.y * 32; j0 < n; j0 += (int64_t)gridDim.y * 32) {
        unsigned long long rmax = 0;
        for (int64_t j = j0; j < j0 + 32 && j < n; j++) {
            unsigned long long v = i < m ? (unsigned long long)u[i + j * m] : 0ull;
            rmax = v > rmax ? v : rmax;
            unsigned long long c = warp_max(v);
            if ((threadIdx.x & 31) == 0 && c)
                atomicMax(&ucol[j], c);
        }
        if (i < m && rmax)
            atomicMax(&urow[i], rmax);
    }
}

/* Grid of the element-wise passes over m·n entries (grid-stride). */
static unsigned plane_grid(int64_t count)
{
    unsigned b = blocks_for(count, threads);
    return b < 1 ? 1 : b > 132 * 16 ? 132 * 16 : b;
}

/* Accurate mode, k split: u += the chunk's INT32 U (first: u = it). */
static __global__ void oz2_u_add(unsigned long long *u, const int32_t *chunk, int64_t count, bool first)
{
    for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < count;
         p += (int64_t)gridDim.x * blockDim.x)
        u[p] = (first ? 0ull : u[p]) + (unsigned long long)(uint32_t)chunk[p];
}

#endif
