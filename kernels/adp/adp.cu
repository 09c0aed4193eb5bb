/* CUDA backend of `adp` (adp.h). One call, all on the GPU, no host
 * synchronisation between the guardrails and the dispatch (paper §5.4):
 *
 *   split   memsets; scan of A and of B (special values, max |x| per row /
 *           column, packed exponent summaries per block along k); the ESC
 *           max-plus kernel over the summaries, O(mnk/block), reduced to one
 *           device integer; the decision kernel (adp_decide, one thread);
 *           slicing of A and B (these kernels read the decision and return
 *           at once when it says native)
 *   gemm    IF node {cublasDgemm} taken when native; IF node {diagonal 0}
 *           taken when emulating, whose body ends with IF {diagonal 1}, and
 *           so on: diagonal d runs when d < s. A diagonal is one INT8 GEMM
 *           (or a few, when (d+1)·k exceeds ADP_MAX_TERMS) over the slices
 *           concatenated along k; above ADP_MAX_TERMS one GEMM per pair and
 *           chunk of k (adp_diagonal_gemm)
 *   (CRT engine instead, engine=crt where its moduli suffice: the residue
 *           kernels write N int8 planes of each input; N IF nodes chained
 *           like the diagonals, one INT8 GEMM each (above ADP_MAX_TERMS one
 *           per chunk of k, each later chunk's plane folded into the
 *           modulus's, mpb_crt_fold); one reconstruction kernel writes C.
 *           gemm=engine: one IF node per count N a decision may pick,
 *           taken when it picks N, whose body is one launch of the
 *           engine's INT8 GEMM (kernels/tc/tc_i8.h) with all N products
 *           (two above TC_I8_MAX_GEMMS), INT32 C into the same planes;
 *           k ≤ ADP_MAX_TERMS, so no fold.
 *           The kernels of the engine not chosen return at once, as those
 *           of emulation do when the decision is native.)
 *   accum   after every ADP_ACC_GROUP INT8 GEMMs (and after the last), one
 *           pass adding their INT32 results, in GEMM order, into the
 *           double-word accumulator (C holds hi, `lo` the low parts); the
 *           last pass writes C. Each GEMM writes its own INT32 plane, so a
 *           pass reads and writes the accumulator once for up to
 *           ADP_ACC_GROUP GEMMs: the same additions in the same order as
 *           one pass per GEMM (bitwise the host model), a third of the
 *           accumulator traffic
 *
 * Design: cuBLAS calls take their sizes from the host, so the only way to
 * let a device-side slice count choose how many GEMMs run is a CUDA graph
 * with conditional nodes (CUDA 12.3+: cudaGraphConditionalHandleCreate, IF
 * nodes added during stream capture with cudaGraphAddNode, bodies filled by
 * cudaStreamBeginCaptureToGraph; the decision kernel sets every handle with
 * cudaGraphSetConditional). Untaken IF nodes cost a device-side branch, and
 * chaining the diagonals (each body holds the next IF) stops the walk at
 * d = s. The graph is built and instantiated in setup; run() launches it.
 *
 * The instrumented call (a phase clock given) runs the same kernels from
 * separate graphs so that events can sit between the phases: split, then
 * the native IF, then per diagonal its INT8 GEMMs (gemm) and its last
 * accumulation pass (accum; a no-op unless it completes a group or ends
 * the call); when a diagonal needs several INT32 GEMMs the passes between
 * them count in gemm; then per modulus its IF (gemm) and the reconstruction
 * (accum); gemm=engine: per count its IF (gemm). Events around the guardrails (scan,
 * ESC, decision) inside split give their own time, which report() appends
 * to the note.
 *
 * decision=auto with a shape where the guardrails and even the fewest bits
 * lose to DGEMM, or whose working set is too large (mpb_adp_shape_decision;
 * on an H200 every square shape up to 4096 and from 20480) skips all of
 * this: run() is one cublasDgemm. */
#include "adp/adp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "common/crt_residues.cuh"
#include "common/cublas_util.h"
#include "tc/tc_i8.h"

/* Device-side state of one call. */
struct adp_dev {
    unsigned long long special; /* NaN, Inf and subnormal entries of A and B */
    int esc;
    struct adp_decision decision;
};

/* Conditional handles one decision kernel sets: which[t] < 0 → taken when
 * native, which[t] = d in [0, ADP_WHICH_MODULUS) → taken when emulating
 * with d < s slices, which[t] = ADP_WHICH_MODULUS + u → taken when
 * emulating with u < N moduli, which[t] = ADP_WHICH_COUNT + u → taken when
 * emulating with exactly u moduli (gemm=engine). */
#define ADP_WHICH_MODULUS 64
#define ADP_WHICH_COUNT 128
#define ADP_MAX_HANDLES (1 + ADP_MAX_SLICES + ADP_CRT_MAX_MODULI)
struct adp_handles {
    cudaGraphConditionalHandle h[ADP_MAX_HANDLES];
    int which[ADP_MAX_HANDLES];
    int count;
};

struct adp_state {
    struct adp_config cfg;
    bool by_shape;            /* native decided on the host: plain DGEMM */
    cublasHandle_t handle;
    void *workspace;
    cudaStream_t body_stream; /* captures conditional bodies */
    int smax;                 /* slices allocated: adp_slices_for_bits(max bits); 0 when the
                                 slice engine cannot run (cfg.slices_unfit) */
    int nmax;                 /* CRT moduli allocated: the most any decision picks (0: slices only) */
    int64_t kp;               /* k padded to 16: slice stride along k */
    int64_t ldc;              /* INT32 output leading dimension (m padded to 16) */
    int64_t blocks;           /* ESC blocks along k */
    struct adp_gemm_plan plan; /* the INT8 GEMMs of a diagonal (of a modulus: its chunks of k) */
    int8_t *as, *bs;          /* slices: row i of A at as[i·smax·kp], digit p at +p·kp;
                                 column j of B at bs[j·smax·kp], digit q at +(smax−1−q)·kp.
                                 CRT residues of modulus t instead: row i of A at
                                 as[(t·m + i)·kp], column j of B at bs[(t·n + j)·kp]. One
                                 buffer for both: a state's inputs and knobs, hence its
                                 engine, do not change between calls */
    int32_t *cint;            /* INT8 GEMM results, m×n (ldc) each: slices, ADP_ACC_GROUP
                                 planes, GEMM number g (in call order) writes plane
                                 g % ADP_ACC_GROUP; CRT, modulus t writes plane t, and
                                 with k split its later chunks plane nmax */
    struct adp_crt *crt;      /* CRT constants for n moduli at crt[n], n ≤ nmax */
    double *lo;               /* accumulator low parts, m×n */
    unsigned long long *amax, *bmax; /* bits of max |x| per row of A / column of B */
    uint32_t *sx, *sy;        /* packed block summaries, [β·m + i], [β·n + j] */
    struct adp_dev *dev;
    struct adp_decision host_decision; /* by_shape */
    const struct mpb_gemm *g;
    cudaGraph_t graphs[ADP_MAX_SLICES + ADP_CRT_MAX_MODULI + 4];
    cudaGraphExec_t full, guard, slicing, native;
    cudaEvent_t guard_events[2]; /* around the guardrails in the instrumented call */
    bool guard_measured;
    cudaGraphExec_t diag[ADP_MAX_SLICES];
    cudaGraphExec_t modulus[ADP_CRT_MAX_MODULI];
    cudaGraphExec_t count[ADP_CRT_MAX_MODULI + 1]; /* gemm=engine: IF N = u at [u] */
    /* gemm=engine: N moduli's products in launches [N][0] (and [N][1] past
     * TC_I8_MAX_GEMMS); NULL when a dimension is 0 */
    struct tc_i8_plan *plans[ADP_CRT_MAX_MODULI + 1][2];
    int n_graphs;
};

static const double one = 1.0, zero = 0.0;

/* ---- kernels ------------------------------------------------------------ */

/* Grid size of the kernels that walk their work in a loop (slicing,
 * accumulation, reconstruction): about 16 blocks of 256 threads per SM of
 * the H200 (132 SMs). */
#define ADP_GRID_CAP (132 * 16)

/* Max-plus operands in 16-bit halves: X = (Max_x, Min_x), Y = (Min_y,
 * Max_y), so X + Y = (Max_x + Min_y, Min_x + Max_y), the two candidates of
 * adp_block_estimate, and one __viaddmax_s16x2 (Hopper DPX) folds both into
 * a running max. The sums stay in [−32768, 2048]: no wrap. */
__device__ static uint32_t pack16(int hi, int lo)
{
    return ((uint32_t)(uint16_t)(int16_t)hi << 16) | (uint32_t)(uint16_t)(int16_t)lo;
}

#define ADP_PACK_NONE 0xC000C000u /* (ADP_EXP_NONE, ADP_EXP_NONE) */
#define ADP_PACK_FLOOR 0x80008000u /* (−32768, −32768): below any sum */

/* A is column-major: thread (i, β) walks its block, neighbours in i read
 * neighbouring addresses. */
__global__ static void adp_scan_a(const double *a, int64_t m, int64_t k, int block, int64_t blocks,
                                  uint32_t *sx, unsigned long long *amax, struct adp_dev *dev)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= m * blocks)
        return;
    int64_t i = t % m, beta = t / m, l0 = beta * block;
    int64_t l1 = l0 + block < k ? l0 + block : k;
    int hi = ADP_EXP_NONE, lo = ADP_EXP_TOP, special = 0;
    unsigned long long max_bits = 0;
    for (int64_t l = l0; l < l1; l++) {
        double v = a[i + l * m];
        unsigned long long u = mpb_f64_to_bits(v) & 0x7FFFFFFFFFFFFFFFull;
        special += adp_is_special(v);
        max_bits = u > max_bits ? u : max_bits;
        adp_block_add(&hi, &lo, v);
    }
    sx[beta * m + i] = pack16(hi, lo);
    if (max_bits)
        atomicMax(&amax[i], max_bits);
    if (special)
        atomicAdd(&dev->special, (unsigned long long)special);
}

/* B is column-major: a warp per (column j, block β), lanes along k. */
__global__ static void adp_scan_b(const double *b, int64_t n, int64_t k, int block, int64_t blocks,
                                  uint32_t *sy, unsigned long long *bmax, struct adp_dev *dev)
{
    int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (w >= n * blocks)
        return;
    int64_t j = w % n, beta = w / n, l0 = beta * block;
    int64_t l1 = l0 + block < k ? l0 + block : k;
    int hi = ADP_EXP_NONE, lo = ADP_EXP_TOP, special = 0;
    unsigned long long max_bits = 0;
    for (int64_t l = l0 + lane; l < l1; l += 32) {
        double v = b[l + j * k];
        unsigned long long u = mpb_f64_to_bits(v) & 0x7FFFFFFFFFFFFFFFull;
        special += adp_is_special(v);
        max_bits = u > max_bits ? u : max_bits;
        adp_block_add(&hi, &lo, v);
    }
    hi = __reduce_max_sync(0xFFFFFFFFu, hi);
    lo = __reduce_min_sync(0xFFFFFFFFu, lo);
    special = (int)__reduce_add_sync(0xFFFFFFFFu, (unsigned)special);
    /* the 64-bit maximum as two 32-bit reductions: the high words, then
     * the low words of the lanes that hold the top high word (with five
     * 64-bit shuffles the kernel took 0.29 ms at n = 8192 on the H200,
     * with these 0.26; ncu, kernels/adp/README.md "The split kernels") */
    unsigned top = __reduce_max_sync(0xFFFFFFFFu, (unsigned)(max_bits >> 32));
    unsigned low = __reduce_max_sync(0xFFFFFFFFu,
                                     (unsigned)(max_bits >> 32) == top ? (unsigned)max_bits : 0u);
    max_bits = (unsigned long long)top << 32 | low;
    if (lane)
        return;
    sy[beta * n + j] = pack16(lo, hi);
    if (max_bits)
        atomicMax(&bmax[j], max_bits);
    if (special)
        atomicAdd(&dev->special, (unsigned long long)special);
}

#define ESC_TILE 128
#define ESC_CHUNK 16

/* Thread q's e-th row (column) of an ESC tile: two runs of 4, 64 apart, so
 * that each run is one 16-byte shared load and the 16 threads of a half-warp
 * read 256 consecutive bytes (no bank conflict). */
__device__ static int esc_offset(int q, int e)
{
    return e / 4 * (ESC_TILE / 2) + q * 4 + e % 4;
}

/* The coarsened ESC (paper §4) as a max-plus "GEMM" over the summaries: a
 * 128×128 tile of (i, j) per 256 threads, 8×8 entries each (esc_offset):
 * per block of k, four 16-byte shared loads feed 64 DPX operations (16
 * 4-byte loads took 0.90 ms at n = 8192 on the H200, these 0.84; ncu); the
 * max of adp_esc_of over the tile goes to dev->esc by atomicMax. Rows from
 * `row0` (the sampled rows, then the others); a launch over the others
 * returns at once where the sampled rows' decision stands (sampled). */
__global__ static void __launch_bounds__(256)
    adp_esc(const uint32_t *sx, const uint32_t *sy, const unsigned long long *amax,
            const unsigned long long *bmax, int64_t row0, int64_t m, int64_t n, int64_t blocks,
            struct adp_dev *dev)
{
    if (dev->decision.sampled)
        return;
    __shared__ __align__(16) uint32_t xs[ESC_CHUNK][ESC_TILE], ys[ESC_CHUNK][ESC_TILE];
    int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    int64_t i0 = row0 + (int64_t)blockIdx.y * ESC_TILE, j0 = (int64_t)blockIdx.x * ESC_TILE;
    uint32_t acc[8][8];
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++)
            acc[r][c] = ADP_PACK_FLOOR;
    for (int64_t b0 = 0; b0 < blocks; b0 += ESC_CHUNK) {
        for (int t = threadIdx.x; t < ESC_CHUNK * ESC_TILE; t += blockDim.x) {
            int bb = t / ESC_TILE, c = t % ESC_TILE;
            int64_t beta = b0 + bb, i = i0 + c, j = j0 + c;
            xs[bb][c] = beta < blocks && i < m ? sx[beta * m + i] : ADP_PACK_NONE;
            ys[bb][c] = beta < blocks && j < n ? sy[beta * n + j] : ADP_PACK_NONE;
        }
        __syncthreads();
        for (int bb = 0; bb < ESC_CHUNK; bb++) {
            uint4 x0 = *(const uint4 *)&xs[bb][esc_offset(ty, 0)];
            uint4 x1 = *(const uint4 *)&xs[bb][esc_offset(ty, 4)];
            uint4 y0 = *(const uint4 *)&ys[bb][esc_offset(tx, 0)];
            uint4 y1 = *(const uint4 *)&ys[bb][esc_offset(tx, 4)];
            uint32_t x[8] = {x0.x, x0.y, x0.z, x0.w, x1.x, x1.y, x1.z, x1.w};
            uint32_t y[8] = {y0.x, y0.y, y0.z, y0.w, y1.x, y1.y, y1.z, y1.w};
            for (int r = 0; r < 8; r++)
                for (int c = 0; c < 8; c++)
                    acc[r][c] = __viaddmax_s16x2(x[r], y[c], acc[r][c]);
        }
        __syncthreads();
    }
    int worst = 0;
    for (int r = 0; r < 8; r++) {
        int64_t i = i0 + esc_offset(ty, r);
        if (i >= m)
            continue;
        int ea = adp_exponent_of_bits(amax[i]);
        for (int c = 0; c < 8; c++) {
            int64_t j = j0 + esc_offset(tx, c);
            if (j >= n)
                continue;
            int z = adp_imax((int16_t)(acc[r][c] >> 16), (int16_t)(acc[r][c] & 0xFFFFu));
            worst = adp_imax(worst, adp_esc_of(ea, adp_exponent_of_bits(bmax[j]), z));
        }
    }
    worst = __reduce_max_sync(0xFFFFFFFFu, worst);
    if (threadIdx.x % 32 == 0)
        atomicMax(&dev->esc, worst);
}

/* One thread: the decision on the sampled rows' ESC, kept (sampled) where
 * it is native already (ADP_ESC_SAMPLE_ROWS). */
__global__ static void adp_sample_decide_kernel(struct adp_config cfg, struct adp_dev *dev)
{
    struct adp_decision d = adp_decide(&cfg, (int64_t)dev->special, dev->esc);
    if (d.native) {
        d.sampled = 1;
        dev->decision = d;
    }
}

/* One thread: the decision (when `decide` and the sampled rows' did not
 * stand), then every handle of `hs`. */
__global__ static void adp_decide_kernel(struct adp_config cfg, struct adp_dev *dev,
                                         struct adp_handles hs, int decide)
{
    if (decide && !dev->decision.sampled)
        dev->decision = adp_decide(&cfg, (int64_t)dev->special, dev->esc);
    struct adp_decision d = dev->decision;
    for (int t = 0; t < hs.count; t++) {
        int w = hs.which[t];
        cudaGraphSetConditional(hs.h[t], w < 0                    ? d.native
                                         : w >= ADP_WHICH_COUNT   ? w - ADP_WHICH_COUNT == d.moduli
                                         : w >= ADP_WHICH_MODULUS ? w - ADP_WHICH_MODULUS < d.moduli
                                                                  : w < d.slices);
    }
}

/* Slices of `count` vectors of length k (element l of vector i at
 * x[i·ld_i + l·ld_l]); a warp per vector and 32 consecutive l, tiles of 8
 * vectors walked by a grid of at most ADP_GRID_CAP blocks; digit p of
 * vector i at out[i·smax·kp + first + p·step]. The grid is bounded because
 * the kernel also runs when the decision picks the CRT engine or native
 * DGEMM, and returns at once: one block per tile made that no-op cost
 * 0.16 ms per operand at n = 8192 on the H200 (262144 blocks, ncu). */
__global__ static void adp_slice_kernel(const double *x, int64_t ld_i, int64_t ld_l, int64_t count,
                                        int64_t k, const unsigned long long *xmax, int8_t *out,
                                        int smax, int64_t kp, int64_t first, int64_t step,
                                        const struct adp_dev *dev)
{
    struct adp_decision d = dev->decision;
    if (d.native || !d.slices)
        return;
    int64_t segs = (k + 31) / 32, tiles = (count + 7) / 8 * segs;
    for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        int64_t i = tile / segs * 8 + threadIdx.x / 32;
        int64_t l = tile % segs * 32 + threadIdx.x % 32;
        if (i < count && l < k)
            adp_slice(x[i * ld_i + l * ld_l], adp_scale_exponent(xmax[i]), d.slices,
                      out + i * smax * kp + first + l, step);
    }
}

/* The accumulation pass after GEMM number `gemm` (call order), a chunk of
 * diagonal d: the diagonals of the GEMMs of its group so far, oldest
 * first. */
struct adp_acc_pass {
    int gemm;
    int d;
    int last_chunk;                /* the diagonal's last GEMM (with d = s − 1: write C) */
    int diag[ADP_ACC_GROUP];       /* diagonal of GEMM gemm − gemm % G + q, q ≤ gemm % G */
};

/* Runs when the group is full or when this GEMM is the call's last (d =
 * s − 1, last chunk); otherwise the planes wait for the group's next GEMMs. */
__global__ static void adp_accum(const int32_t *cint, int64_t ldc, double *c, double *lo,
                                 const unsigned long long *amax, const unsigned long long *bmax,
                                 int64_t m, int64_t n, struct adp_acc_pass pass,
                                 const struct adp_dev *dev)
{
    struct adp_decision dec = dev->decision;
    if (dec.native || pass.d >= dec.slices)
        return;
    bool final = pass.last_chunk && pass.d == dec.slices - 1;
    int planes = pass.gemm % ADP_ACC_GROUP + 1;
    if (planes < ADP_ACC_GROUP && !final)
        return;
    bool first = pass.gemm < ADP_ACC_GROUP;
    int64_t plane = ldc * n;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < m * n; t += stride) {
        int64_t i = t % m, j = t / m;
        int32_t sums[ADP_ACC_GROUP];
#pragma unroll
        for (int q = 0; q < ADP_ACC_GROUP; q++)
            if (q < planes)
                sums[q] = __ldcs(cint + q * plane + i + j * ldc);
        double hi = first ? 0.0 : c[t], l = first ? 0.0 : lo[t];
#pragma unroll
        for (int q = 0; q < ADP_ACC_GROUP; q++)
            if (q < planes)
                adp_acc_add(&hi, &l, adp_diagonal_term(sums[q], pass.diag[q]));
        if (final) {
            c[t] = adp_acc_final(hi, l, adp_scale_exponent(amax[i]), adp_scale_exponent(bmax[j]));
        } else {
            c[t] = hi;
            lo[t] = l;
        }
    }
}

/* ---- the CRT engine (adp_crt_arith.h) ---------------------------------- */

/* Each thread turns 8 consecutive k-elements of a row (column) into 8 int8
 * residues per modulus, one 8-byte store per modulus (common/crt_residues.cuh). */
#define ADP_CRT_VEC MPB_CRT_SPLIT_VEC

/* A (m×k, column-major) into rows of kp residues: a tile of 32 rows × 64
 * k-elements passes through shared memory, read along i (a warp reads 32
 * consecutive rows), written 8 elements per thread along k. Row stride 65:
 * the column-wise stores into the tile hit distinct banks. Zeros for
 * k ≤ l < kp: the GEMMs run over kp. */
#define ADP_TILE_ROWS 32
#define ADP_TILE_COLS 64

/* At most 80 registers (no spill) for 3 blocks per SM: with 95 and 2 it
 * took 0.74 ms at n = 8192 on the H200, with 80 and 3 0.68 (ncu). */

__global__ static void __launch_bounds__(256, 3)
    adp_residues_a(const double *a, int64_t m, int64_t k, int64_t kp,
                   const unsigned long long *amax, int8_t *out, const struct adp_dev *dev)
{
    struct adp_decision d = dev->decision;
    if (d.native || !d.moduli)
        return;
    __shared__ double tile[ADP_TILE_ROWS][ADP_TILE_COLS + 1];
    int64_t i0 = (int64_t)blockIdx.x * ADP_TILE_ROWS;
    int64_t i = i0 + threadIdx.x % ADP_TILE_ROWS;
    int col = threadIdx.x / ADP_TILE_ROWS; /* 0..7 */
    int E = i < m ? adp_scale_exponent(amax[i]) : ADP_EXP_NONE;
    int row = threadIdx.x / (ADP_TILE_COLS / ADP_CRT_VEC);
    int c0 = threadIdx.x % (ADP_TILE_COLS / ADP_CRT_VEC) * ADP_CRT_VEC;
    /* one tile per block up to 65535 tiles along k (gridDim.y's limit), more
     * above (k beyond 4 194 240) */
    for (int64_t l0 = (int64_t)blockIdx.y * ADP_TILE_COLS; l0 < kp;
         l0 += (int64_t)gridDim.y * ADP_TILE_COLS) {
        for (int u = 0; u < ADP_TILE_COLS / 8; u++) {
            int64_t l = l0 + col + 8 * u;
            double x = i < m && l < k ? a[i + l * m] : 0.0;
            tile[threadIdx.x % ADP_TILE_ROWS][col + 8 * u] = adp_crt_value(x, E, d.bits);
        }
        __syncthreads();
        if (i0 + row < m && l0 + c0 < kp)
            mpb_crt_write_residues8<ADP_CRT_MAX_MODULI>(&tile[row][c0], d.moduli,
                                                        out + (i0 + row) * kp + l0 + c0,
                                                        (size_t)(m * kp));
        __syncthreads();
    }
}

/* B (k×n, column-major): columns stay columns; 8 consecutive elements of a
 * column per thread. */
__global__ static void adp_residues_b(const double *b, int64_t k, int64_t n, int64_t kp,
                                      const unsigned long long *bmax, int8_t *out,
                                      const struct adp_dev *dev)
{
    struct adp_decision d = dev->decision;
    if (d.native || !d.moduli)
        return;
    int64_t segs = kp / ADP_CRT_VEC;
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= segs * n)
        return;
    int64_t j = t / segs, l = t % segs * ADP_CRT_VEC;
    int E = adp_scale_exponent(bmax[j]);
    double values[ADP_CRT_VEC];
    for (int v = 0; v < ADP_CRT_VEC; v++)
        values[v] = adp_crt_value(l + v < k ? b[l + v + j * k] : 0.0, E, d.bits);
    mpb_crt_write_residues8<ADP_CRT_MAX_MODULI>(values, d.moduli, out + j * kp + l,
                                                (size_t)(n * kp));
}

/* C from the N INT32 planes: the constants for N go to shared memory once
 * per block; a thread takes V consecutive entries of a column (V = 2 when
 * m is even: 8-byte loads from each plane), loads all N residues of them
 * before the first is used, and writes C once. On the H200, φ = 0.5,
 * 19 moduli, accum_ms at n = 8192 / 16384: loads inside adp_crt_entry's
 * loop 15 ms at 8192 (serialised behind the arithmetic); loads first, V = 1
 * 2.9 / 11.4; V = 1 at 3 blocks per SM 2.7 / 10.2; V = 2 at 2 blocks per SM
 * (116 registers; at 3 it spills) 2.1 / 7.9, the same output bits
 * (kernels/adp/README.md "The CRT reconstruction"). */
template <int V>
__global__ static void __launch_bounds__(256, 2)
    adp_crt_reconstruct(const int32_t *cint, int64_t ldc, double *c, const unsigned long long *amax,
                        const unsigned long long *bmax, int64_t m, int64_t n,
                        const struct adp_crt *tabs, const struct adp_dev *dev)
{
    struct adp_decision d = dev->decision;
    if (d.native || !d.moduli)
        return;
    __shared__ struct adp_crt tab;
    const uint32_t *src = (const uint32_t *)(tabs + d.moduli);
    for (int w = threadIdx.x; w < (int)(sizeof tab / 4); w += blockDim.x)
        ((uint32_t *)&tab)[w] = src[w];
    __syncthreads();
    int64_t plane = ldc * n, i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * V;
    if (i >= m)
        return;
    int ea[V];
    for (int v = 0; v < V; v++)
        ea[v] = adp_scale_exponent(amax[i + v]);
    for (int64_t j = blockIdx.y; j < n; j += gridDim.y) {
        int32_t residues[ADP_CRT_MAX_MODULI][V];
#pragma unroll
        for (int t = 0; t < ADP_CRT_MAX_MODULI; t++) {
            const int32_t *p = cint + t * plane + i + j * ldc;
            if (t < d.moduli && V == 2) {
                int2 pair = __ldcs((const int2 *)p);
                residues[t][0] = pair.x;
                residues[t][V - 1] = pair.y;
            } else if (t < d.moduli) {
                residues[t][0] = __ldcs(p);
            }
        }
        /* adp_crt_entry's steps, the V entries side by side */
        struct adp_crt_sum sum[V];
        for (int v = 0; v < V; v++)
            sum[v] = (struct adp_crt_sum){0.0, 0.0, 0.0};
#pragma unroll
        for (int t = 0; t < ADP_CRT_MAX_MODULI; t++) {
            if (t >= d.moduli)
                break;
            for (int v = 0; v < V; v++)
                adp_crt_add(&sum[v], residues[t][v], t, &tab);
        }
        int eb = adp_scale_exponent(bmax[j]);
        for (int v = 0; v < V; v++)
            c[i + v + j * m] = ea[v] == ADP_EXP_NONE || eb == ADP_EXP_NONE
                                   ? 0.0
                                   : adp_crt_finish(&sum[v], &tab, ea[v] + eb - 2 * d.bits);
    }
}

/* ---- enqueueing (plain or under capture) ------------------------------- */

static unsigned grid_for(int64_t threads, int per_block)
{
    int64_t b = (threads + per_block - 1) / per_block;
    return (unsigned)(b < 1 ? 1 : b);
}

static enum mpb_status enqueue_scan_esc(struct mpb_cuda_env *env, struct adp_state *s,
                                        cudaStream_t st, const struct adp_handles *hs)
{
    const struct mpb_gemm *g = s->g;
    MPB_CUDA_TRY(env, cudaMemsetAsync(s->dev, 0, sizeof *s->dev, st));
    MPB_CUDA_TRY(env, cudaMemsetAsync(s->amax, 0, sizeof *s->amax * (size_t)g->m, st));
    MPB_CUDA_TRY(env, cudaMemsetAsync(s->bmax, 0, sizeof *s->bmax * (size_t)g->n, st));
    adp_scan_a<<<grid_for(g->m * s->blocks, 256), 256, 0, st>>>(
        (const double *)g->a, g->m, g->k, s->cfg.block, s->blocks, s->sx, s->amax, s->dev);
    MPB_LAUNCH_CHECK(env);
    adp_scan_b<<<grid_for(g->n * s->blocks * 32, 256), 256, 0, st>>>(
        (const double *)g->b, g->n, g->k, s->cfg.block, s->blocks, s->sy, s->bmax, s->dev);
    MPB_LAUNCH_CHECK(env);
    /* the sampled rows (one tile row), their decision, then the other rows */
    const int64_t sample = g->m < ADP_ESC_SAMPLE_ROWS ? g->m : ADP_ESC_SAMPLE_ROWS;
    const unsigned col_tiles = (unsigned)((g->n + ESC_TILE - 1) / ESC_TILE);
    adp_esc<<<dim3(col_tiles, (unsigned)((sample + ESC_TILE - 1) / ESC_TILE)), 256, 0, st>>>(
        s->sx, s->sy, s->amax, s->bmax, 0, sample, g->n, s->blocks, s->dev);
    MPB_LAUNCH_CHECK(env);
    if (sample < g->m) {
        adp_sample_decide_kernel<<<1, 1, 0, st>>>(s->cfg, s->dev);
        MPB_LAUNCH_CHECK(env);
        adp_esc<<<dim3(col_tiles, (unsigned)((g->m - sample + ESC_TILE - 1) / ESC_TILE)), 256, 0, st>>>(
            s->sx, s->sy, s->amax, s->bmax, sample, g->m, g->n, s->blocks, s->dev);
        MPB_LAUNCH_CHECK(env);
    }
    adp_decide_kernel<<<1, 1, 0, st>>>(s->cfg, s->dev, *hs, 1);
    MPB_LAUNCH_CHECK(env);
    return MPB_STATUS_OK;
}

/* `blocks`, at most ADP_GRID_CAP (at least 1). */
static unsigned capped_grid(int64_t blocks)
{
    return (unsigned)(blocks < 1 ? 1 : blocks < ADP_GRID_CAP ? blocks : ADP_GRID_CAP);
}

static enum mpb_status enqueue_slicing(struct mpb_cuda_env *env, struct adp_state *s,
                                       cudaStream_t st)
{
    const struct mpb_gemm *g = s->g;
    int64_t segs = (g->k + 31) / 32;
    adp_slice_kernel<<<capped_grid((g->m + 7) / 8 * segs), 256, 0, st>>>(
        (const double *)g->a, 1, g->m, g->m, g->k, s->amax, s->as, s->smax, s->kp, 0, s->kp,
        s->dev);
    MPB_LAUNCH_CHECK(env);
    adp_slice_kernel<<<capped_grid((g->n + 7) / 8 * segs), 256, 0, st>>>(
        (const double *)g->b, g->k, 1, g->n, g->k, s->bmax, s->bs, s->smax, s->kp,
        (int64_t)(s->smax - 1) * s->kp, -s->kp, s->dev);
    MPB_LAUNCH_CHECK(env);
    if (!s->nmax)
        return MPB_STATUS_OK;
    int64_t k_tiles = s->kp / ADP_TILE_COLS + (s->kp % ADP_TILE_COLS != 0);
    dim3 tiles((unsigned)((g->m + ADP_TILE_ROWS - 1) / ADP_TILE_ROWS),
               (unsigned)(k_tiles < 65535 ? k_tiles : 65535));
    adp_residues_a<<<tiles, 256, 0, st>>>((const double *)g->a, g->m, g->k, s->kp, s->amax, s->as,
                                          s->dev);
    MPB_LAUNCH_CHECK(env);
    adp_residues_b<<<grid_for(s->kp / ADP_CRT_VEC * g->n, 256), 256, 0, st>>>(
        (const double *)g->b, g->k, g->n, s->kp, s->bmax, s->bs, s->dev);
    MPB_LAUNCH_CHECK(env);
    return MPB_STATUS_OK;
}

/* k split: plane `x` (a later chunk's INT32 products of modulus t) folded
 * into plane `acc` (the chunks so far), modulo 2·m_t (mpb_crt_fold). */
__global__ static void adp_crt_fold(int32_t *acc, const int32_t *x, int64_t count, int t)
{
    for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < count;
         p += (int64_t)gridDim.x * blockDim.x)
        acc[p] = mpb_crt_fold(acc[p], __ldcs(x + p), t);
}

/* Modulus t's INT8 GEMM over the residue planes (TN, kp: the padding holds
 * zeros), into INT32 plane t; with k split, one GEMM per chunk, chunk 0
 * into plane t and each later one into plane nmax, folded into plane t.
 * Enqueued on the body stream (a conditional body) or the main stream. */
static enum mpb_status enqueue_modulus_gemm(struct mpb_cuda_env *env, struct adp_state *s, int t)
{
    const struct mpb_gemm *g = s->g;
    int64_t plane = s->ldc * g->n;
    for (int64_t c = 0; c < s->plan.chunks; c++) {
        int64_t l0 = c * s->plan.len;
        int kc = (int)(s->kp - l0 < s->plan.len ? s->kp - l0 : s->plan.len);
        int32_t *out = s->cint + (c == 0 ? t : s->nmax) * plane;
        MPB_CUBLAS_TRY(env, mpb_gemm_int8_tn(s->handle, (int)g->m, (int)g->n, kc,
                                             s->as + t * g->m * s->kp + l0, (int)s->kp,
                                             s->bs + t * g->n * s->kp + l0, (int)s->kp, out,
                                             (int)s->ldc, mpb_int8_block_cols(g->n)));
        if (c == 0)
            continue;
        cudaStream_t st;
        MPB_CUBLAS_TRY(env, cublasGetStream(s->handle, &st));
        adp_crt_fold<<<capped_grid(grid_for(plane, 256)), 256, 0, st>>>(s->cint + t * plane, out,
                                                                          plane, t);
        MPB_LAUNCH_CHECK(env);
    }
    return MPB_STATUS_OK;
}

/* k = 0 with gemm=engine, which takes no empty k: every product is 0. */
__global__ static void adp_zero(int32_t *x, int64_t count)
{
    for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < count;
         p += (int64_t)gridDim.x * blockDim.x)
        x[p] = 0;
}

/* gemm=engine: the products of N moduli into planes 0 … N−1, on the body
 * stream (a conditional body). */
static enum mpb_status enqueue_count_engine(struct mpb_cuda_env *env, struct adp_state *s, int count)
{
    const struct mpb_gemm *g = s->g;
    if (!s->plans[count][0] && g->m > 0 && g->n > 0) {
        int64_t planes = count * s->ldc * g->n;
        adp_zero<<<capped_grid(grid_for(planes, 256)), 256, 0, s->body_stream>>>(s->cint, planes);
        MPB_LAUNCH_CHECK(env);
    }
    for (int b = 0; b < 2 && s->plans[count][b]; b++) {
        int err = tc_i8_plan_launch(s->plans[count][b], s->body_stream);
        if (err)
            return mpb_cuda_fail(env, cudaGetErrorString((cudaError_t)err), __FILE__, __LINE__);
    }
    return MPB_STATUS_OK;
}

static enum mpb_status enqueue_reconstruct(struct mpb_cuda_env *env, struct adp_state *s,
                                           cudaStream_t st)
{
    const struct mpb_gemm *g = s->g;
    /* threads along i (V entries each), blocks along j: ADP_GRID_CAP blocks
     * in all, each over every gridDim.y-th column */
    bool pairs = g->m % 2 == 0; /* ldc is a multiple of 16: 8-byte aligned pairs */
    unsigned rows = grid_for(pairs ? g->m / 2 : g->m, 256);
    int64_t cols = ADP_GRID_CAP / rows;
    cols = cols < 1 ? 1 : cols > g->n ? g->n : cols;
    dim3 blocks(rows, (unsigned)cols);
    if (pairs)
        adp_crt_reconstruct<2><<<blocks, 256, 0, st>>>(s->cint, s->ldc, (double *)g->c, s->amax,
                                                       s->bmax, g->m, g->n, s->crt, s->dev);
    else
        adp_crt_reconstruct<1><<<blocks, 256, 0, st>>>(s->cint, s->ldc, (double *)g->c, s->amax,
                                                       s->bmax, g->m, g->n, s->crt, s->dev);
    MPB_LAUNCH_CHECK(env);
    return MPB_STATUS_OK;
}

static enum mpb_status enqueue_native(struct mpb_cuda_env *env, struct adp_state *s)
{
    const struct mpb_gemm *g = s->g;
    int m = (int)g->m, n = (int)g->n, k = (int)g->k;
    MPB_CUBLAS_TRY(env, cublasDgemm(s->handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one,
                                    (const double *)g->a, m, (const double *)g->b, k, &zero,
                                    (double *)g->c, m));
    return MPB_STATUS_OK;
}

/* The pass after GEMM number gi of diagonal d (adp_diagonal_gemm): walks the
 * GEMMs in call order (diagonal by diagonal), each recorded in the slot of
 * its plane, up to this one. */
static struct adp_acc_pass acc_pass(const struct adp_state *s, int d, int gi)
{
    struct adp_acc_pass pass = {};
    pass.gemm = -1;
    for (int e = 0; e <= d; e++)
        for (int q = 0; q < adp_diagonal_gemms(&s->plan, e) && (e < d || q <= gi); q++)
            pass.diag[++pass.gemm % ADP_ACC_GROUP] = e;
    pass.d = d;
    pass.last_chunk = gi + 1 == adp_diagonal_gemms(&s->plan, d);
    return pass;
}

static enum mpb_status enqueue_accum(struct mpb_cuda_env *env, struct adp_state *s,
                                     cudaStream_t st, const struct adp_acc_pass *pass)
{
    const struct mpb_gemm *g = s->g;
    unsigned blocks = capped_grid(grid_for(g->m * g->n, 256));
    adp_accum<<<blocks, 256, 0, st>>>(s->cint, s->ldc, (double *)g->c, s->lo, s->amax, s->bmax,
                                      g->m, g->n, *pass, s->dev);
    MPB_LAUNCH_CHECK(env);
    return MPB_STATUS_OK;
}

/* GEMM number gi of diagonal d (adp_diagonal_gemm): pairs p0 … p1. A's
 * digits p and B's digits d − p lie next to each other along k (B's stored in
 * reverse), so one GEMM with k' = (p1 − p0 + 1)·kp sums them; above
 * ADP_MAX_TERMS, p0 = p1 over one chunk of k (op(A) = T: the layout
 * cuBLAS's INT8 kernels run fastest; in column blocks above n = 4096,
 * mpb_int8_block_cols), into the INT32 plane of `pass`'s GEMM. */
static enum mpb_status enqueue_gemm(struct mpb_cuda_env *env, struct adp_state *s, int d, int gi,
                                    const struct adp_acc_pass *pass)
{
    const struct mpb_gemm *g = s->g;
    int p0, p1;
    int64_t chunk;
    adp_diagonal_gemm(&s->plan, d, gi, &p0, &p1, &chunk);
    int64_t ld = s->smax * s->kp, l0 = chunk * s->plan.len;
    int kk = (int)(s->plan.pairs ? (p1 - p0 + 1) * s->kp
                                 : (s->kp - l0 < s->plan.len ? s->kp - l0 : s->plan.len));
    const int8_t *a = s->as + p0 * s->kp + l0;
    const int8_t *b = s->bs + (s->smax - 1 - d + p0) * s->kp + l0;
    int32_t *c = s->cint + pass->gemm % ADP_ACC_GROUP * s->ldc * g->n;
    MPB_CUBLAS_TRY(env, mpb_gemm_int8_tn(s->handle, (int)g->m, (int)g->n, kk, a, (int)ld, b,
                                         (int)ld, c, (int)s->ldc,
                                         mpb_int8_block_cols(g->n)));
    return MPB_STATUS_OK;
}

/* Diagonal d: every GEMM with its accumulation pass; `last_accum` = false
 * leaves the diagonal's last pass to the caller (instrumented call). */
static enum mpb_status enqueue_diagonal(struct mpb_cuda_env *env, struct adp_state *s,
                                        cudaStream_t st, int d, bool last_accum)
{
    for (int gi = 0; gi < adp_diagonal_gemms(&s->plan, d); gi++) {
        struct adp_acc_pass pass = acc_pass(s, d, gi);
        enum mpb_status r = enqueue_gemm(env, s, d, gi, &pass);
        if (r == MPB_STATUS_OK && (!pass.last_chunk || last_accum))
            r = enqueue_accum(env, s, st, &pass);
        if (r != MPB_STATUS_OK)
            return r;
    }
    return MPB_STATUS_OK;
}

/* ---- graphs ------------------------------------------------------------ */

/* Points cuBLAS at `st` with our workspace. cublasSetStream resets the
 * workspace to cuBLAS's default pool (cuBLAS docs, cublasSetStream), from
 * which a captured cublasGemmEx allocates: a graph memory-allocation node,
 * which conditional bodies do not allow (cudaConditionalNodeParams), and
 * instantiation fails with "invalid argument" (result_out 3, node type 10,
 * seen on the H200). So the workspace is set again after every switch. */
static enum mpb_status use_stream(struct mpb_cuda_env *env, struct adp_state *s, cudaStream_t st)
{
    MPB_CUBLAS_TRY(env, cublasSetStream(s->handle, st));
    MPB_CUBLAS_TRY(env, cublasSetWorkspace(s->handle, s->workspace, ADP_WORKSPACE_BYTES));
    return MPB_STATUS_OK;
}

/* Adds an IF node on `handle` after the current capture frontier of `st`
 * and returns its body graph; the frontier moves to the node. */
static enum mpb_status add_if(struct mpb_cuda_env *env, cudaStream_t st,
                              cudaGraphConditionalHandle handle, cudaGraph_t *body)
{
    cudaStreamCaptureStatus status;
    cudaGraph_t graph;
    const cudaGraphNode_t *deps;
    size_t n_deps;
    MPB_CUDA_TRY(env, cudaStreamGetCaptureInfo(st, &status, NULL, &graph, &deps, NULL, &n_deps));
    cudaGraphNodeParams p = {};
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = handle;
    p.conditional.type = cudaGraphCondTypeIf;
    p.conditional.size = 1;
    cudaGraphNode_t node;
    MPB_CUDA_TRY(env, cudaGraphAddNode(&node, graph, deps, NULL, n_deps, &p));
    *body = p.conditional.phGraph_out[0];
    MPB_CUDA_TRY(env, cudaStreamUpdateCaptureDependencies(st, &node, NULL, 1,
                                                          cudaStreamSetCaptureDependencies));
    return MPB_STATUS_OK;
}

static enum mpb_status new_handle(struct mpb_cuda_env *env, cudaStream_t st,
                                  struct adp_handles *hs, int which)
{
    cudaStreamCaptureStatus status;
    cudaGraph_t graph;
    MPB_CUDA_TRY(env, cudaStreamGetCaptureInfo(st, &status, NULL, &graph, NULL, NULL, NULL));
    MPB_CUDA_TRY(env, cudaGraphConditionalHandleCreate(&hs->h[hs->count], graph, 0,
                                                       cudaGraphCondAssignDefault));
    hs->which[hs->count++] = which;
    return MPB_STATUS_OK;
}

/* Fills `body` with cuBLAS work, captured on the body stream. */
static enum mpb_status capture_native_body(struct mpb_cuda_env *env, struct adp_state *s,
                                           cudaGraph_t body)
{
    enum mpb_status r = use_stream(env, s, s->body_stream);
    if (r != MPB_STATUS_OK)
        return r;
    MPB_CUDA_TRY(env, cudaStreamBeginCaptureToGraph(s->body_stream, body, NULL, NULL, 0,
                                                    cudaStreamCaptureModeThreadLocal));
    r = enqueue_native(env, s);
    MPB_CUDA_TRY(env, cudaStreamEndCapture(s->body_stream, &body));
    return r;
}

/* What a chained body holds: diagonal or modulus number `i`. */
typedef enum mpb_status (*adp_body_fn)(struct mpb_cuda_env *env, struct adp_state *s, int i);

static enum mpb_status diagonal_body(struct mpb_cuda_env *env, struct adp_state *s, int d)
{
    return enqueue_diagonal(env, s, s->body_stream, d, true);
}

/* A chain of `count` conditional bodies: body i holds item i, then the IF
 * on handle first + i + 1 whose body is item i + 1; `body` is item 0's
 * (the IF on handle first). Walking stops at the first untaken IF. */
static enum mpb_status capture_chain(struct mpb_cuda_env *env, struct adp_state *s,
                                     const struct adp_handles *hs, int first, int count,
                                     adp_body_fn item, cudaGraph_t body)
{
    enum mpb_status r = use_stream(env, s, s->body_stream);
    if (r != MPB_STATUS_OK)
        return r;
    for (int i = 0; i < count; i++) {
        cudaGraph_t next = NULL;
        MPB_CUDA_TRY(env, cudaStreamBeginCaptureToGraph(s->body_stream, body, NULL, NULL, 0,
                                                        cudaStreamCaptureModeThreadLocal));
        r = item(env, s, i);
        if (r == MPB_STATUS_OK && i + 1 < count)
            r = add_if(env, s->body_stream, hs->h[first + i + 1], &next);
        MPB_CUDA_TRY(env, cudaStreamEndCapture(s->body_stream, &body));
        if (r != MPB_STATUS_OK)
            return r;
        body = next;
    }
    return MPB_STATUS_OK;
}

static enum mpb_status instantiate(struct mpb_cuda_env *env, struct adp_state *s, cudaGraph_t graph,
                                   cudaGraphExec_t *exec)
{
    s->graphs[s->n_graphs++] = graph;
    cudaGraphInstantiateParams p = {};
    cudaError_t err = cudaGraphInstantiateWithParams(exec, graph, &p);
    if (err == cudaSuccess)
        return MPB_STATUS_OK;
    /* The plain error says only "invalid argument": name the reason and the
     * node the runtime rejected. */
    (void)cudaGetLastError(); /* the failure is reported here, not at the next launch */
    char what[160];
    cudaGraphNodeType type = (cudaGraphNodeType)-1;
    if (p.errNode_out && cudaGraphNodeGetType(p.errNode_out, &type) != cudaSuccess)
        type = (cudaGraphNodeType)-1;
    snprintf(what, sizeof what, "cudaGraphInstantiateWithParams: %s (result_out %d, failing node type %d)",
             cudaGetErrorString(err), (int)p.result_out, (int)type);
    return mpb_cuda_fail(env, what, __FILE__, __LINE__);
}

/* Fills the body of gemm=engine's IF on N = count. */
static enum mpb_status capture_count_body(struct mpb_cuda_env *env, struct adp_state *s, int count,
                                          cudaGraph_t body)
{
    MPB_CUDA_TRY(env, cudaStreamBeginCaptureToGraph(s->body_stream, body, NULL, NULL, 0,
                                                    cudaStreamCaptureModeThreadLocal));
    enum mpb_status r = enqueue_count_engine(env, s, count);
    MPB_CUDA_TRY(env, cudaStreamEndCapture(s->body_stream, &body));
    return r;
}

/* The timed call's graph: split, IF native, IF diagonal 0 → 1 → …, IF
 * modulus 0 → 1 → … (gemm=engine: IF N = 2, IF N = 3, …), reconstruction.
 * Handles: native, the smax diagonals, the nmax moduli (the counts 2 …
 * nmax). */
static enum mpb_status build_full(struct mpb_cuda_env *env, struct adp_state *s)
{
    cudaStream_t st = mpb_stream(env);
    struct adp_handles hs = {};
    cudaGraph_t graph = NULL, native_body = NULL, diag_body = NULL, modulus_body = NULL;
    cudaGraph_t count_body[ADP_CRT_MAX_MODULI + 1] = {};
    int first_modulus = 1 + s->smax;
    bool engine = s->cfg.gemm_engine;
    MPB_CUDA_TRY(env, cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
    enum mpb_status r = new_handle(env, st, &hs, -1);
    for (int d = 0; r == MPB_STATUS_OK && d < s->smax; d++)
        r = new_handle(env, st, &hs, d);
    for (int t = 0; r == MPB_STATUS_OK && t < s->nmax && !engine; t++)
        r = new_handle(env, st, &hs, ADP_WHICH_MODULUS + t);
    for (int u = 2; r == MPB_STATUS_OK && u <= s->nmax && engine; u++)
        r = new_handle(env, st, &hs, ADP_WHICH_COUNT + u);
    if (r == MPB_STATUS_OK)
        r = enqueue_scan_esc(env, s, st, &hs);
    if (r == MPB_STATUS_OK)
        r = enqueue_slicing(env, s, st);
    if (r == MPB_STATUS_OK)
        r = add_if(env, st, hs.h[0], &native_body);
    if (r == MPB_STATUS_OK && s->smax)
        r = add_if(env, st, hs.h[1], &diag_body);
    if (r == MPB_STATUS_OK && s->nmax && !engine)
        r = add_if(env, st, hs.h[first_modulus], &modulus_body);
    for (int u = 2; r == MPB_STATUS_OK && u <= s->nmax && engine; u++)
        r = add_if(env, st, hs.h[first_modulus + u - 2], &count_body[u]);
    if (r == MPB_STATUS_OK && s->nmax)
        r = enqueue_reconstruct(env, s, st);
    MPB_CUDA_TRY(env, cudaStreamEndCapture(st, &graph));
    if (r == MPB_STATUS_OK)
        r = capture_native_body(env, s, native_body);
    if (r == MPB_STATUS_OK && s->smax)
        r = capture_chain(env, s, &hs, 1, s->smax, diagonal_body, diag_body);
    if (r == MPB_STATUS_OK && s->nmax && !engine)
        r = capture_chain(env, s, &hs, first_modulus, s->nmax, enqueue_modulus_gemm,
                          modulus_body);
    for (int u = 2; r == MPB_STATUS_OK && u <= s->nmax && engine; u++)
        r = capture_count_body(env, s, u, count_body[u]);
    enum mpb_status back = use_stream(env, s, st);
    r = r == MPB_STATUS_OK ? back : r;
    if (r != MPB_STATUS_OK) {
        MPB_CUDA_NOTE(env, cudaGraphDestroy(graph));
        return r;
    }
    return instantiate(env, s, graph, &s->full);
}

/* Instrumented call: the guardrails (scan, ESC, decision; no handles) and
 * the slicing as two graphs, and one graph per IF. */
static enum mpb_status build_split(struct mpb_cuda_env *env, struct adp_state *s, bool guard,
                                   cudaGraphExec_t *exec)
{
    cudaStream_t st = mpb_stream(env);
    struct adp_handles none = {};
    cudaGraph_t graph = NULL;
    MPB_CUDA_TRY(env, cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
    enum mpb_status r = guard ? enqueue_scan_esc(env, s, st, &none) : enqueue_slicing(env, s, st);
    MPB_CUDA_TRY(env, cudaStreamEndCapture(st, &graph));
    if (r != MPB_STATUS_OK) {
        MPB_CUDA_NOTE(env, cudaGraphDestroy(graph));
        return r;
    }
    return instantiate(env, s, graph, exec);
}

/* which < 0: IF native {DGEMM}; which ≥ ADP_WHICH_COUNT: IF N = u {the
 * engine's launch of N products}; which ≥ ADP_WHICH_MODULUS: IF t < N
 * {modulus t's GEMM}; else IF d < s {diagonal d's GEMMs and all but its
 * last accumulation pass}. */
static enum mpb_status build_single_if(struct mpb_cuda_env *env, struct adp_state *s, int which,
                                       cudaGraphExec_t *exec)
{
    cudaStream_t st = mpb_stream(env);
    struct adp_handles hs = {};
    cudaGraph_t graph = NULL, body;
    MPB_CUDA_TRY(env, cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
    enum mpb_status r = new_handle(env, st, &hs, which);
    if (r == MPB_STATUS_OK) {
        adp_decide_kernel<<<1, 1, 0, st>>>(s->cfg, s->dev, hs, 0);
        r = cudaGetLastError() == cudaSuccess ? MPB_STATUS_OK
                                               : mpb_cuda_fail(env, "adp_decide_kernel launch",
                                                               __FILE__, __LINE__);
    }
    if (r == MPB_STATUS_OK)
        r = add_if(env, st, hs.h[0], &body);
    MPB_CUDA_TRY(env, cudaStreamEndCapture(st, &graph));
    if (r == MPB_STATUS_OK && which < 0) {
        r = capture_native_body(env, s, body);
    } else if (r == MPB_STATUS_OK && which >= ADP_WHICH_COUNT) {
        r = capture_count_body(env, s, which - ADP_WHICH_COUNT, body);
    } else if (r == MPB_STATUS_OK) {
        r = use_stream(env, s, s->body_stream);
        cudaError_t e = r == MPB_STATUS_OK
                            ? cudaStreamBeginCaptureToGraph(s->body_stream, body, NULL, NULL, 0,
                                                            cudaStreamCaptureModeThreadLocal)
                            : cudaSuccess;
        if (e != cudaSuccess)
            r = mpb_cuda_fail_rt(env, e, "cudaStreamBeginCaptureToGraph", __FILE__, __LINE__);
        else if (r == MPB_STATUS_OK) {
            r = which >= ADP_WHICH_MODULUS
                    ? enqueue_modulus_gemm(env, s, which - ADP_WHICH_MODULUS)
                    : enqueue_diagonal(env, s, s->body_stream, which, false);
            MPB_CUDA_TRY(env, cudaStreamEndCapture(s->body_stream, &body));
        }
    }
    enum mpb_status back = use_stream(env, s, st);
    r = r == MPB_STATUS_OK ? back : r;
    if (r != MPB_STATUS_OK) {
        MPB_CUDA_NOTE(env, cudaGraphDestroy(graph));
        return r;
    }
    return instantiate(env, s, graph, exec);
}

/* ---- setup / run / report / teardown ------------------------------------ */

static void adp_teardown(struct mpb_cuda_env *env, void *state)
{
    struct adp_state *s = (struct adp_state *)state;
    if (!s)
        return;
    cudaGraphExec_t execs[ADP_MAX_SLICES + ADP_CRT_MAX_MODULI + 4] = {s->full, s->guard,
                                                                      s->slicing, s->native};
    for (int d = 0; d < ADP_MAX_SLICES; d++)
        execs[4 + d] = s->diag[d];
    for (int t = 0; t < ADP_CRT_MAX_MODULI; t++)
        execs[4 + ADP_MAX_SLICES + t] = s->modulus[t];
    for (int i = 0; i < ADP_MAX_SLICES + ADP_CRT_MAX_MODULI + 4; i++)
        if (execs[i])
            MPB_CUDA_NOTE(env, cudaGraphExecDestroy(execs[i]));
    for (int u = 0; u <= ADP_CRT_MAX_MODULI; u++) {
        if (s->count[u])
            MPB_CUDA_NOTE(env, cudaGraphExecDestroy(s->count[u]));
        tc_i8_plan_destroy(s->plans[u][0]);
        tc_i8_plan_destroy(s->plans[u][1]);
    }
    for (int e = 0; e < 2; e++)
        if (s->guard_events[e])
            MPB_CUDA_NOTE(env, cudaEventDestroy(s->guard_events[e]));
    for (int i = 0; i < s->n_graphs; i++)
        MPB_CUDA_NOTE(env, cudaGraphDestroy(s->graphs[i]));
    if (s->handle)
        MPB_CUBLAS_NOTE(env, cublasDestroy(s->handle));
    if (s->body_stream)
        MPB_CUDA_NOTE(env, cudaStreamDestroy(s->body_stream));
    void *bufs[] = {s->workspace, s->as, s->bs, s->cint, s->lo, s->amax, s->bmax, s->sx, s->sy, s->dev,
                    s->crt};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        mpb_cuda_free(env, bufs[i]);
    free(s);
}

/* cuBLAS may not allocate while captured: a workspace of its own. */
static enum mpb_status handle_create(struct mpb_cuda_env *env, struct adp_state *s)
{
    MPB_CUBLAS_TRY(env, cublasCreate(&s->handle));
    MPB_CUBLAS_TRY(env, cublasSetPointerMode(s->handle, CUBLAS_POINTER_MODE_HOST));
    MPB_CUBLAS_TRY(env, cublasSetMathMode(s->handle, CUBLAS_DEFAULT_MATH));
    enum mpb_status r = mpb_cuda_alloc(env, &s->workspace, ADP_WORKSPACE_BYTES);
    if (r != MPB_STATUS_OK)
        return r;
    return use_stream(env, s, mpb_stream(env));
}

/* The CRT constants for every count a decision may pick, at crt[n]. */
static enum mpb_status crt_tables_upload(struct mpb_cuda_env *env, struct adp_state *s)
{
    struct adp_crt tabs[ADP_CRT_MAX_MODULI + 1] = {};
    int budget;
    for (int n = 2; n <= s->nmax; n++)
        if (!mpb_adp_crt_init(n, &tabs[n], &budget) || budget != adp_crt_budget(n))
            return mpb_cuda_fail(env, "adp: CRT constants disagree with adp_crt_budget", __FILE__,
                                 __LINE__);
    enum mpb_status r = mpb_cuda_alloc(env, (void **)&s->crt, sizeof tabs);
    return r == MPB_STATUS_OK ? mpb_cuda_upload(env, s->crt, tabs, sizeof tabs) : r;
}

static enum mpb_status buffers_alloc(struct mpb_cuda_env *env, struct adp_state *s)
{
    const struct mpb_gemm *g = s->g;
    int planes = adp_imax(s->smax, s->nmax); /* int8 planes of each input */
    size_t slices_a = (size_t)(g->m * planes * s->kp), slices_b = (size_t)(g->n * planes * s->kp);
    size_t entries = (size_t)(g->m * g->n);
    /* mpb_adp_workspace counts the same */
    int later_chunk = s->nmax && s->plan.chunks > 1; /* plane nmax: a later chunk's products */
    size_t products = (size_t)adp_imax(ADP_ACC_GROUP, s->nmax + later_chunk) * (size_t)(s->ldc * g->n);
    enum mpb_status r = MPB_STATUS_OK;
    if (r == MPB_STATUS_OK) r = mpb_cuda_alloc(env, (void **)&s->as, slices_a);
    if (r == MPB_STATUS_OK) r = mpb_cuda_alloc(env, (void **)&s->bs, slices_b);
    if (r == MPB_STATUS_OK) r = mpb_cuda_alloc(env, (void **)&s->cint, sizeof(int32_t) * products);
    if (r == MPB_STATUS_OK) r = mpb_cuda_alloc(env, (void **)&s->lo, sizeof(double) * entries);
    if (r == MPB_STATUS_OK) r = mpb_cuda_alloc(env, (void **)&s->amax, sizeof *s->amax * (size_t)g->m);
    if (r == MPB_STATUS_OK) r = mpb_cuda_alloc(env, (void **)&s->bmax, sizeof *s->bmax * (size_t)g->n);
    if (r == MPB_STATUS_OK) r = mpb_cuda_alloc(env, (void **)&s->sx, sizeof *s->sx * (size_t)(g->m * s->blocks));
    if (r == MPB_STATUS_OK) r = mpb_cuda_alloc(env, (void **)&s->sy, sizeof *s->sy * (size_t)(g->n * s->blocks));
    if (r == MPB_STATUS_OK) r = mpb_cuda_alloc(env, (void **)&s->dev, sizeof *s->dev);
    /* The padding between slices along k must read as zero digits. */
    if (r == MPB_STATUS_OK) r = mpb_cuda_memset(env, s->as, 0, slices_a);
    if (r == MPB_STATUS_OK) r = mpb_cuda_memset(env, s->bs, 0, slices_b);
    if (r == MPB_STATUS_OK) r = mpb_cuda_memset(env, s->dev, 0, sizeof *s->dev);
    if (r == MPB_STATUS_OK && s->nmax) r = crt_tables_upload(env, s);
    return r;
}

/* gemm=engine: modulus t's product from its residue planes (K-major, kp
 * values a row, zeros past k) into INT32 plane t, for t < count, in
 * launches of TC_I8_MAX_GEMMS at most. None when a dimension is 0. */
static enum mpb_status plan_count(struct mpb_cuda_env *env, struct adp_state *s, int count)
{
    const struct mpb_gemm *g = s->g;
    if (g->m == 0 || g->n == 0 || s->kp == 0)
        return MPB_STATUS_OK;
    for (int b = 0; b * TC_I8_MAX_GEMMS < count; b++) {
        struct tc_i8_args a = {};
        a.m = g->m;
        a.n = g->n;
        a.k = s->kp;
        a.ld = s->kp;
        a.ldc = s->ldc;
        a.n_gemms = adp_imin(count - b * TC_I8_MAX_GEMMS, TC_I8_MAX_GEMMS);
        for (int x = 0; x < a.n_gemms; x++) {
            int64_t t = b * TC_I8_MAX_GEMMS + x;
            a.gemms[x].a = s->as + t * g->m * s->kp;
            a.gemms[x].b = s->bs + t * g->n * s->kp;
            a.gemms[x].c = s->cint + t * s->ldc * g->n;
            a.gemms[x].mod = 0;
        }
        char why[256];
        if (tc_i8_plan_create(&a, &s->plans[count][b], why, sizeof why) != 0)
            return mpb_cuda_fail(env, why, __FILE__, __LINE__);
    }
    return MPB_STATUS_OK;
}

static enum mpb_status build_all(struct mpb_cuda_env *env, struct adp_state *s)
{
    MPB_CUDA_TRY(env, cudaStreamCreateWithFlags(&s->body_stream, cudaStreamNonBlocking));
    s->smax = !s->cfg.slices_unfit ? adp_slices_for_bits(s->cfg.fixed_bits > s->cfg.max_bits
                                                         ? s->cfg.fixed_bits
                                                         : s->cfg.max_bits)
                               : 0;
    s->nmax = mpb_adp_moduli_max(&s->cfg);
    s->kp = adp_padded_k(s->g->k);
    s->ldc = (s->g->m + 15) / 16 * 16;
    s->blocks = (s->g->k + s->cfg.block - 1) / s->cfg.block;
    s->plan = adp_gemm_plan_for(s->g->k, ADP_MAX_TERMS);
    enum mpb_status r = buffers_alloc(env, s);
    for (int u = 2; r == MPB_STATUS_OK && u <= s->nmax && s->cfg.gemm_engine; u++)
        r = plan_count(env, s, u);
    if (r == MPB_STATUS_OK)
        r = build_full(env, s);
    if (r == MPB_STATUS_OK)
        r = build_split(env, s, true, &s->guard);
    if (r == MPB_STATUS_OK)
        r = build_split(env, s, false, &s->slicing);
    for (int e = 0; r == MPB_STATUS_OK && e < 2; e++) {
        cudaError_t err = cudaEventCreate(&s->guard_events[e]);
        if (err != cudaSuccess)
            r = mpb_cuda_fail_rt(env, err, "cudaEventCreate(&s->guard_events[e])", __FILE__,
                                 __LINE__);
    }
    if (r == MPB_STATUS_OK)
        r = build_single_if(env, s, -1, &s->native);
    for (int d = 0; r == MPB_STATUS_OK && d < s->smax; d++)
        r = build_single_if(env, s, d, &s->diag[d]);
    for (int t = 0; r == MPB_STATUS_OK && t < s->nmax && !s->cfg.gemm_engine; t++)
        r = build_single_if(env, s, ADP_WHICH_MODULUS + t, &s->modulus[t]);
    for (int u = 2; r == MPB_STATUS_OK && u <= s->nmax && s->cfg.gemm_engine; u++)
        r = build_single_if(env, s, ADP_WHICH_COUNT + u, &s->count[u]);
    return r;
}

static enum mpb_status adp_setup(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                                 const double *params, void **state)
{
    char why[256];
    *state = NULL;
    if (!mpb_adp_check(params, g, mpb_cuda_device(env), why, sizeof why))
        return mpb_cuda_fail(env, why, __FILE__, __LINE__);
    struct adp_state *s = (struct adp_state *)calloc(1, sizeof *s);
    if (!s)
        return mpb_cuda_fail(env, "out of host memory for the scheme state", __FILE__, __LINE__);
    s->g = g;
    s->cfg = mpb_adp_config(params, g);
    s->cfg.gemm_engine = mpb_adp_gemm_engine_used(params, g, mpb_cuda_device(env));
    const int shape_reason = mpb_adp_shape_decision(params, g);
    s->by_shape = shape_reason != ADP_EMULATED;
    s->host_decision = (struct adp_decision){0, 0, 0, 0, 1, shape_reason, 0, 0};
    enum mpb_status r = handle_create(env, s);
    if (r == MPB_STATUS_OK && !s->by_shape)
        r = build_all(env, s);
    if (r == MPB_STATUS_OK)
        r = mpb_cuda_sync(env);
    if (r != MPB_STATUS_OK) {
        adp_teardown(env, s);
        return r;
    }
    *state = s;
    return MPB_STATUS_OK;
}

static enum mpb_status run_instrumented(struct mpb_cuda_env *env, struct adp_state *s,
                                        struct mpb_phase_clock *clock)
{
    cudaStream_t st = mpb_stream(env);
    MPB_CUDA_TRY(env, cudaEventRecord(s->guard_events[0], st));
    MPB_CUDA_TRY(env, cudaGraphLaunch(s->guard, st));
    MPB_CUDA_TRY(env, cudaEventRecord(s->guard_events[1], st));
    MPB_CUDA_TRY(env, cudaGraphLaunch(s->slicing, st));
    mpb_phase_mark(clock, MPB_PHASE_SPLIT);
    s->guard_measured = true;
    MPB_CUDA_TRY(env, cudaGraphLaunch(s->native, st));
    mpb_phase_mark(clock, MPB_PHASE_GEMM);
    for (int d = 0; d < s->smax; d++) {
        MPB_CUDA_TRY(env, cudaGraphLaunch(s->diag[d], st));
        mpb_phase_mark(clock, MPB_PHASE_GEMM);
        struct adp_acc_pass pass = acc_pass(s, d, adp_diagonal_gemms(&s->plan, d) - 1);
        enum mpb_status r = enqueue_accum(env, s, st, &pass);
        if (r != MPB_STATUS_OK)
            return r;
        mpb_phase_mark(clock, MPB_PHASE_ACCUM);
    }
    for (int t = 0; t < s->nmax && !s->cfg.gemm_engine; t++) {
        MPB_CUDA_TRY(env, cudaGraphLaunch(s->modulus[t], st));
        mpb_phase_mark(clock, MPB_PHASE_GEMM);
    }
    for (int u = 2; u <= s->nmax && s->cfg.gemm_engine; u++) {
        MPB_CUDA_TRY(env, cudaGraphLaunch(s->count[u], st));
        mpb_phase_mark(clock, MPB_PHASE_GEMM);
    }
    if (s->nmax) {
        enum mpb_status r = enqueue_reconstruct(env, s, st);
        if (r != MPB_STATUS_OK)
            return r;
        mpb_phase_mark(clock, MPB_PHASE_ACCUM);
    }
    return MPB_STATUS_OK;
}

static enum mpb_status adp_run(struct mpb_cuda_env *env, void *state, const struct mpb_gemm *g,
                               struct mpb_phase_clock *clock)
{
    struct adp_state *s = (struct adp_state *)state;
    (void)g; /* the graphs hold setup's pointers; the runner passes the same g */
    if (s->by_shape) {
        enum mpb_status r = enqueue_native(env, s);
        mpb_phase_mark(clock, MPB_PHASE_GEMM);
        return r;
    }
    if (clock)
        return run_instrumented(env, s, clock);
    MPB_CUDA_TRY(env, cudaGraphLaunch(s->full, mpb_stream(env)));
    return MPB_STATUS_OK;
}

static enum mpb_status adp_report(struct mpb_cuda_env *env, void *state,
                                  struct mpb_scheme_info *info)
{
    struct adp_state *s = (struct adp_state *)state;
    struct adp_dev dev;
    dev.decision = s->host_decision;
    if (!s->by_shape) {
        enum mpb_status r = mpb_cuda_download(env, &dev, s->dev, sizeof dev);
        if (r != MPB_STATUS_OK)
            return r;
    }
    mpb_adp_describe(&s->cfg, &dev.decision, info);
    if (s->guard_measured) {
        float ms;
        MPB_CUDA_TRY(env, cudaEventElapsedTime(&ms, s->guard_events[0], s->guard_events[1]));
        size_t used = strlen(info->note);
        snprintf(info->note + used, sizeof info->note - used,
                 "; scan+ESC+decision %.4g ms of split_ms (instrumented call)", ms);
    }
    mpb_cublas_env_note(info->note, sizeof info->note);
    return MPB_STATUS_OK;
}

extern "C" const struct mpb_scheme_cuda mpb_adp_cuda = {adp_setup, adp_run, adp_report,
                                                        adp_teardown};
