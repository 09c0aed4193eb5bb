/* The engine's plain INT8 GEMM (tc_i8.h) on Hopper: a batch of products in
 * one persistent, warp-specialised wgmma kernel.
 *
 * Tile: 128 x 256 outputs, k in blocks of 128 bytes. Per 128-byte k-block a
 * consumer warpgroup issues four m64n256k32 wgmma (64 rows each), which
 * read 2 KB of A and 8 KB of B from shared memory per 512K MACs: 80 bytes
 * per cycle at the tensor cores' 4096 INT8 MACs per cycle and multiprocessor
 * (1979 TOP/s at 1.83 GHz), of shared memory's 128. The tile reads
 * (128 + 256) bytes from L2 per 2·128·256 operations (170 per byte): 9 TB/s
 * at 1500 TOP/s, which the H200 delivers at 76% of L2's peak (its profile:
 * results/h200/int8-engine). A 2-CTA cluster (`cluster=2`) computes two row
 * tiles that share a column tile: each CTA loads half of B's tile and
 * multicasts it to both, 256 operations per L2 byte, at the price of the
 * two CTAs' pipelines waiting on each other. The accumulator (128 INT32 per
 * consumer thread) rules out a wider tile; 128 x 128 would read 1.5x the
 * bytes per operation. A stage is 48 KB: four stages (32 wgmma of 128
 * tensor-core cycles, several TMA latencies) and the epilogue's 32 KB fill
 * the 227 KB a CTA may have.
 *
 * Warpgroup 0 is the producer (one thread issues the TMA loads of A's and
 * B's tiles into a ring of stages, each with a "full" barrier counting
 * bytes and an "empty" barrier counting consumer releases; with a cluster,
 * a stage is refilled only when the consumers of both CTAs released it, for
 * the peer's multicast writes into it too). Warpgroups 1 and 2 are the
 * consumers, 64 rows of the tile each, registers moved to them with
 * setmaxnreg.
 *
 * Persistent grid: CTAs (clusters) take units of work in turn, a unit being
 * one (product, tile) (or a pair of row tiles with a cluster), products
 * one after another and tiles of a product in groups of row tiles per column
 * tile (tc_sched.cuh), so that a product's last wave runs beside the next
 * product's first: one tail per launch, not per product.
 *
 * Epilogue: each consumer warpgroup writes its 64 x 256 accumulators into a
 * 16 KB shared buffer in the swizzled layout the TMA store reads (no bank
 * conflicts) and one thread stores it with the bulk tensor copy, which
 * clips columns past n and rows past the last whole 16 bytes of a column
 * (tma_rows; the rest of the rows go out as plain stores); the warpgroup
 * then goes on to its next tile's MMAs while the store drains. INT32 C goes
 * out in 32-column chunks through two 8 KB halves of the buffer; residues
 * (tc_i8_mod) in one 64-row x 256-column box. Rows past m and values past k
 * are zeros in shared memory (TMA fills them). */
#include "tc/tc_i8.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <new>
#include <stdio.h>
#include <string.h>

#include "tc/tc_launch.h"
#include "tc/tc_ptx.cuh"
#include "tc/tc_sched.cuh"
#include "tc/tc_wgmma.cuh"

namespace {

constexpr int BM = 128, BN = 256, BK = 128; /* BK in bytes = int8 values */
constexpr int THREADS = 384;                /* producer + 2 consumer warpgroups */
constexpr int MAX_STAGES = 4;
constexpr int GROUP_M = 16;                 /* row tiles per group of the tile order */
constexpr int A_BYTES = BM * BK, B_BYTES = BN * BK, STAGE_BYTES = A_BYTES + B_BYTES;
constexpr int EPI_BYTES = 16384;            /* per consumer warpgroup */
constexpr int I32_CHUNK = 32;               /* INT32 C: columns per TMA store chunk */
constexpr int I32_BOX_ROWS = 32;            /* 128 bytes: the 128-byte swizzle's row */

struct i8_params {
    CUtensorMap a[TC_I8_MAX_GEMMS], b[TC_I8_MAX_GEMMS], c[TC_I8_MAX_GEMMS];
    void *c_ptr[TC_I8_MAX_GEMMS];           /* C again, for the rows the TMA store leaves (tma_rows) */
    struct tc_i8_modp modp[TC_I8_MAX_GEMMS]; /* p = 0: INT32 C */
    long long ldc;
    int n_gemms, m, n, k_blocks, stages, tiles_m, tiles_n;
};

/* Rows of C that the TMA store writes: m down to whole 16-byte units. The
 * H200 stores the last partial unit of a column whole (seen: rows m..
 * 16-byte boundary overwritten with the zero rows' results), so C's map
 * ends there and the rows after it go out as plain stores (store_edge). */
__host__ __device__ int tma_rows(int m, int elem_bytes)
{
    return m & ~(16 / elem_bytes - 1);
}

/* Units of work: tiles, or with a cluster pairs of row tiles (rank r of the
 * cluster takes row tile 2·u + r, one past the last when tiles_m is odd). */
template <bool MC> __device__ int units_m(const i8_params &p)
{
    return MC ? (p.tiles_m + 1) / 2 : p.tiles_m;
}

template <bool MC> __device__ int unit_count(const i8_params &p)
{
    return p.n_gemms * units_m<MC>(p) * p.tiles_n;
}

template <bool MC> __device__ int first_unit(void)
{
    return MC ? blockIdx.x / 2 : blockIdx.x;
}

template <bool MC> __device__ int unit_step(void)
{
    return MC ? gridDim.x / 2 : gridDim.x;
}

/* Product g and tile (tm, tn) of unit u for cluster rank `rank`. */
template <bool MC> __device__ void unit_of(const i8_params &p, int u, uint32_t rank, int *g, int *tm, int *tn)
{
    const int um = units_m<MC>(p), per_gemm = um * p.tiles_n;
    *g = u / per_gemm;
    int t;
    tc_tile_of(u % per_gemm, um, p.tiles_n, MC ? GROUP_M / 2 : GROUP_M, &t, tn);
    *tm = MC ? 2 * t + (int)rank : t;
}

/* The producer thread: every k-block of every unit of this CTA through the
 * ring of stages, which cycles on across units. With a cluster, a box that
 * would lie wholly outside the operand (A's row tile past the last, B's
 * second half past n) is loaded from inside it instead: the rows it gives
 * are never stored. */
template <bool MC>
__device__ void produce(const i8_params &p, unsigned char *smem, uint64_t *full, uint64_t *empty, uint32_t rank)
{
    int s = 0;
    uint32_t phase = 0;
    bool first_round = true;
    for (int u = first_unit<MC>(); u < unit_count<MC>(p); u += unit_step<MC>()) {
        int g, tm, tn;
        unit_of<MC>(p, u, rank, &g, &tm, &tn);
        const int a_row = (tm < p.tiles_m ? tm : p.tiles_m - 1) * BM;
        const int b_half = tn * BN + (int)rank * (BN / 2), b_row = b_half < p.n ? b_half : tn * BN;
        for (int kb = 0; kb < p.k_blocks; kb++) {
            if (!first_round)
                tc_bar_wait(&empty[s], phase ^ 1);
            tc_bar_arrive_expect_tx(&full[s], STAGE_BYTES);
            unsigned char *st = smem + s * STAGE_BYTES;
            tc_tma_load_2d(st, &p.a[g], &full[s], kb * BK, a_row);
            if (MC)
                tc_tma_load_2d_multicast(st + A_BYTES + rank * (B_BYTES / 2), &p.b[g], &full[s], kb * BK, b_row, 0x3);
            else
                tc_tma_load_2d(st + A_BYTES, &p.b[g], &full[s], kb * BK, tn * BN);
            if (++s == p.stages) {
                s = 0;
                phase ^= 1;
                first_round = false;
            }
        }
    }
}

/* Tells the producer(s) that stage s is free: this CTA's, and with a
 * cluster the peer's, whose multicast also writes into it. */
template <bool MC> __device__ void release(uint64_t *empty, int s, uint32_t rank)
{
    if (threadIdx.x % 128 == 0) {
        tc_bar_arrive(&empty[s]);
        if (MC)
            tc_bar_arrive_cluster(&empty[s], rank ^ 1);
    }
}

/* INT32 C: 32-column chunks through the two 8 KB halves of `buf`, two
 * boxes of 32 rows each. Element (r, c) of a box sits at line c, 16-byte
 * chunk (r/4) ^ (c%8) (the 128-byte swizzle): a warp's store of one
 * accumulator register (8 rows, 4 columns) hits 32 distinct banks. Before a
 * half is rewritten, the store that read it two chunks ago must be done
 * reading (all stores, at a tile's first chunk, which may follow a tile of
 * residues). */
__device__ void store_i32(const CUtensorMap *map, const int32_t (&acc)[BN / 2], unsigned char *buf, int row0,
                          int col0, int m16, int n, int half)
{
    const int w = (threadIdx.x % 128) / 32, l = threadIdx.x % 32;
    const bool leader = threadIdx.x % 128 == 0;
#pragma unroll
    for (int c = 0; c < BN / I32_CHUNK; c++) {
        const uint32_t b = tc_smem_addr(buf) + (c & 1) * (EPI_BYTES / 2);
        if (leader) {
            if (c == 0)
                tc_bulk_wait_read<0>();
            else
                tc_bulk_wait_read<1>();
        }
        tc_named_sync(1 + half, 128);
#pragma unroll
        for (int jj = 0; jj < I32_CHUNK / 8; jj++)
#pragma unroll
            for (int h = 0; h < 2; h++)
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    const int r = 16 * w + l / 4 + 8 * h, rr = r % I32_BOX_ROWS;
                    const int cc = 8 * jj + 2 * (l % 4) + e;
                    const int off = (r / I32_BOX_ROWS) * (I32_BOX_ROWS * I32_CHUNK * 4) + cc * 128 +
                                    (((rr / 4) ^ cc) % 8) * 16 + (rr % 4) * 4;
                    tc_st_shared_u32(b + off, (uint32_t)acc[4 * (c * (I32_CHUNK / 8) + jj) + 2 * h + e]);
                }
        tc_fence_proxy_async();
        tc_named_sync(1 + half, 128);
        if (leader && col0 + c * I32_CHUNK < n && row0 < m16) { /* boxes wholly outside the map are not issued */
            tc_tma_store_2d(map, b, row0, col0 + c * I32_CHUNK);
            if (row0 + I32_BOX_ROWS < m16)
                tc_tma_store_2d(map, b + I32_BOX_ROWS * I32_CHUNK * 4, row0 + I32_BOX_ROWS, col0 + c * I32_CHUNK);
        }
        if (leader)
            tc_bulk_commit();
    }
}

/* Residues: one 64 x 256 box, column c a 64-byte line whose 16-byte chunk
 * r/16 sits at (r/16) ^ ((c/2)%4) (the 64-byte swizzle): conflict-free as
 * above. */
__device__ void store_mod(const CUtensorMap *map, const int32_t (&acc)[BN / 2], struct tc_i8_modp k,
                          unsigned char *buf, int row0, int col0, int m16, int half)
{
    const int w = (threadIdx.x % 128) / 32, l = threadIdx.x % 32;
    const bool leader = threadIdx.x % 128 == 0;
    const uint32_t b = tc_smem_addr(buf);
    if (leader)
        tc_bulk_wait_read<0>();
    tc_named_sync(1 + half, 128);
#pragma unroll
    for (int j = 0; j < BN / 8; j++)
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
            for (int e = 0; e < 2; e++) {
                const int r = 16 * w + l / 4 + 8 * h, c = 8 * j + 2 * (l % 4) + e;
                tc_st_shared_u8(b + c * 64 + (((r / 16) ^ (c / 2)) % 4) * 16 + r % 16,
                                tc_i8_mod(acc[4 * j + 2 * h + e], k));
            }
    tc_fence_proxy_async();
    tc_named_sync(1 + half, 128);
    if (leader) {
        if (row0 < m16)
            tc_tma_store_2d(map, b, row0, col0);
        tc_bulk_commit();
    }
}

/* Rows lo..m-1 of the warpgroup's 64 (those past the map's tma_rows), with
 * plain stores: at most 15 rows of a column, in the tiles holding row m-1. */
template <bool MOD>
__device__ void store_edge(void *c, long long ldc, const int32_t (&acc)[BN / 2], struct tc_i8_modp k, int row0,
                           int col0, int lo, int m, int n)
{
    const int w = (threadIdx.x % 128) / 32, l = threadIdx.x % 32;
#pragma unroll
    for (int j = 0; j < BN / 8; j++)
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
            for (int e = 0; e < 2; e++) {
                const int r = row0 + 16 * w + l / 4 + 8 * h, col = col0 + 8 * j + 2 * (l % 4) + e;
                if (r >= lo && r < m && col < n) {
                    const long long at = (long long)col * ldc + r;
                    if (MOD)
                        ((uint8_t *)c)[at] = tc_i8_mod(acc[4 * j + 2 * h + e], k);
                    else
                        ((int32_t *)c)[at] = acc[4 * j + 2 * h + e];
                }
            }
}

/* A consumer warpgroup: rows 64·half .. 64·half + 63 of each of its tiles.
 * One wgmma group per stage in flight: the stage before is released once
 * the current one is issued and the previous group has retired. */
template <bool MC>
__device__ void consume(const i8_params &p, unsigned char *smem, uint64_t *full, uint64_t *empty, uint32_t rank,
                        int half)
{
    unsigned char *buf = smem + p.stages * STAGE_BYTES + half * EPI_BYTES;
    int32_t acc[BN / 2];
    int s = 0;
    uint32_t phase = 0;
    for (int u = first_unit<MC>(); u < unit_count<MC>(p); u += unit_step<MC>()) {
        int g, tm, tn;
        unit_of<MC>(p, u, rank, &g, &tm, &tn);
        int prev = -1;
        for (int kb = 0; kb < p.k_blocks; kb++) {
            tc_bar_wait(&full[s], phase);
            const unsigned char *ta = smem + s * STAGE_BYTES + half * 64 * BK, *tb = smem + s * STAGE_BYTES + A_BYTES;
            tc_wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < BK / 32; kk++) {
                const uint64_t da = tc_smem_desc(ta + kk * 32, 16, 8 * BK, tc_swizzle_mode(BK));
                const uint64_t db = tc_smem_desc(tb + kk * 32, 16, 8 * BK, tc_swizzle_mode(BK));
                tc_wgmma_m64n256k32_s8(acc, da, db, kb > 0 || kk > 0);
            }
            tc_wgmma_commit();
            tc_wgmma_wait<1>();
            if (prev >= 0)
                release<MC>(empty, prev, rank);
            prev = s;
            if (++s == p.stages) {
                s = 0;
                phase ^= 1;
            }
        }
        tc_wgmma_wait<0>();
        release<MC>(empty, prev, rank);
        const int row0 = tm * BM + half * 64;
        if (row0 >= p.m) /* the rows of a cluster's row tile past the last, or past m */
            continue;
        const bool mod = p.modp[g].p != 0;
        const int m16 = tma_rows(p.m, mod ? 1 : 4);
        if (mod)
            store_mod(&p.c[g], acc, p.modp[g], buf, row0, tn * BN, m16, half);
        else
            store_i32(&p.c[g], acc, buf, row0, tn * BN, m16, p.n, half);
        if (row0 + 64 > m16) {
            if (mod)
                store_edge<true>(p.c_ptr[g], p.ldc, acc, p.modp[g], row0, tn * BN, m16, p.m, p.n);
            else
                store_edge<false>(p.c_ptr[g], p.ldc, acc, p.modp[g], row0, tn * BN, m16, p.m, p.n);
        }
    }
    if (threadIdx.x % 128 == 0)
        tc_bulk_wait_all();
}

template <bool MC> __global__ void __launch_bounds__(THREADS, 1) tc_i8_kernel(const __grid_constant__ i8_params p)
{
    __shared__ __align__(8) uint64_t full[MAX_STAGES], empty[MAX_STAGES];
    extern __shared__ unsigned char smem_raw[];
    /* Swizzled tiles and boxes start on 1024-byte boundaries (the 128-byte pattern repeats every 8 rows). */
    unsigned char *smem = (unsigned char *)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
    const int wg = threadIdx.x / 128;
    const uint32_t rank = MC ? tc_cluster_rank() : 0;
    if (threadIdx.x == 0) {
        for (int s = 0; s < p.stages; s++) {
            tc_bar_init(&full[s], 1);
            tc_bar_init(&empty[s], MC ? 4 : 2); /* the consumer warpgroups of the CTAs writing the stage */
        }
        tc_fence_barrier_init();
    }
    /* With a cluster, the peer's barriers must be initialised before any multicast or remote arrival. */
    if (MC)
        tc_cluster_sync();
    else
        __syncthreads();
    if (wg == 0) {
        tc_regs_dealloc<40>();
        if (threadIdx.x == 0)
            produce<MC>(p, smem, full, empty, rank);
    } else {
        tc_regs_alloc<232>();
        consume<MC>(p, smem, full, empty, rank, wg - 1);
    }
    /* The peer may still arrive on this CTA's barriers. */
    if (MC)
        tc_cluster_sync();
}

int stages_for(int max_stages)
{
    int s = (TC_SMEM_LIMIT - 1024 - 2 * EPI_BYTES) / STAGE_BYTES;
    s = s > MAX_STAGES ? MAX_STAGES : s;
    return max_stages && max_stages < s ? max_stages : s;
}

} // namespace

struct tc_i8_plan {
    i8_params params;
    void (*kernel)(i8_params);
    int grid, cluster, smem_bytes;
};

extern "C" int tc_i8_supported(const struct tc_i8_args *a, char *why, size_t why_len)
{
    const int64_t lim = INT64_C(1) << 31;
    if (a->m < 1 || a->n < 1 || a->k < 1 || a->m >= lim || a->n >= lim || a->k >= lim) {
        snprintf(why, why_len, "INT8 engine: m, n, k must be in 1..2^31-1");
        return 0;
    }
    if (a->n_gemms < 1 || a->n_gemms > TC_I8_MAX_GEMMS) {
        snprintf(why, why_len, "INT8 engine: 1..%d products per launch, not %d", TC_I8_MAX_GEMMS, a->n_gemms);
        return 0;
    }
    if (a->ld < a->k || a->ld % 16 != 0) {
        snprintf(why, why_len, "INT8 engine: ld=%lld must hold k=%lld values and be a multiple of 16", (long long)a->ld,
                 (long long)a->k);
        return 0;
    }
    const int64_t units = ((a->m + BM - 1) / BM + 1) * ((a->n + BN - 1) / BN) * a->n_gemms;
    if (units >= lim) {
        snprintf(why, why_len, "INT8 engine: more than 2^31 tiles");
        return 0;
    }
    for (int g = 0; g < a->n_gemms; g++) {
        const struct tc_i8_gemm *x = &a->gemms[g];
        if (!x->a || !x->b || !x->c) {
            snprintf(why, why_len, "INT8 engine: product %d lacks a pointer", g);
            return 0;
        }
        if (x->mod != 0 && (x->mod < TC_I8_MOD_MIN || x->mod > TC_I8_MOD_MAX)) {
            snprintf(why, why_len, "INT8 engine: product %d: mod=%d, want 0 (INT32 C) or %d..%d", g, x->mod,
                     TC_I8_MOD_MIN, TC_I8_MOD_MAX);
            return 0;
        }
        const int align = x->mod ? 16 : 4; /* TMA: global strides are multiples of 16 bytes */
        if (a->ldc < a->m || a->ldc % align != 0) {
            snprintf(why, why_len, "INT8 engine: product %d: ldc=%lld must be >= m=%lld and a multiple of %d", g,
                     (long long)a->ldc, (long long)a->m, align);
            return 0;
        }
    }
    if (a->cluster < 0 || a->cluster > 2) {
        snprintf(why, why_len, "INT8 engine: cluster must be 0 (default), 1 or 2");
        return 0;
    }
    if (a->max_stages != 0 && (a->max_stages < 2 || a->max_stages > MAX_STAGES)) {
        snprintf(why, why_len, "INT8 engine: max_stages must be 0 (as many as fit) or 2..%d", MAX_STAGES);
        return 0;
    }
    return 1;
}

namespace {

bool encode_gemm(i8_params *p, int g, const struct tc_i8_args *a, int cluster, char *why, size_t why_len)
{
    const struct tc_i8_gemm *x = &a->gemms[g];
    char what[48];
    snprintf(what, sizeof what, "A of product %d", g);
    if (!tc_encode_map(&p->a[g], CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, x->a, a->k, a->m, a->ld, BK, BM,
                       CU_TENSOR_MAP_SWIZZLE_128B, what, why, why_len))
        return false;
    snprintf(what, sizeof what, "B of product %d", g);
    if (!tc_encode_map(&p->b[g], CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, x->b, a->k, a->n, a->ld, BK, BN / cluster,
                       CU_TENSOR_MAP_SWIZZLE_128B, what, why, why_len))
        return false;
    snprintf(what, sizeof what, "C of product %d", g);
    p->c_ptr[g] = x->c;
    const int m16 = tma_rows((int)a->m, x->mod ? 1 : 4);
    if (!m16) /* every row goes out through store_edge */
        return true;
    if (x->mod)
        return tc_encode_map(&p->c[g], CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, x->c, m16, a->n, a->ldc, 64, BN,
                             CU_TENSOR_MAP_SWIZZLE_64B, what, why, why_len);
    return tc_encode_map(&p->c[g], CU_TENSOR_MAP_DATA_TYPE_INT32, 4, x->c, m16, a->n, a->ldc, I32_BOX_ROWS,
                         I32_CHUNK, CU_TENSOR_MAP_SWIZZLE_128B, what, why, why_len);
}

/* The persistent grid: one CTA per multiprocessor, or as many clusters as
 * can run at once; never more than there are units of work. */
int size_grid(struct tc_i8_plan *plan, int64_t units, char *why, size_t why_len)
{
    cudaError_t err = cudaFuncSetAttribute((const void *)plan->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           plan->smem_bytes);
    if (err != cudaSuccess) {
        snprintf(why, why_len, "cudaFuncSetAttribute(INT8 engine, %d bytes of shared memory): %s", plan->smem_bytes,
                 cudaGetErrorString(err));
        return (int)err;
    }
    const int sms = tc_sm_count(why, why_len);
    if (!sms)
        return (int)cudaErrorInvalidDevice;
    int slots = sms;
    if (plan->cluster > 1) {
        cudaLaunchConfig_t cfg = {};
        cudaLaunchAttribute attr;
        attr.id = cudaLaunchAttributeClusterDimension;
        attr.val.clusterDim.x = (unsigned)plan->cluster;
        attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
        cfg.gridDim = dim3((unsigned)(sms / plan->cluster * plan->cluster));
        cfg.blockDim = dim3(THREADS);
        cfg.dynamicSmemBytes = (size_t)plan->smem_bytes;
        cfg.attrs = &attr;
        cfg.numAttrs = 1;
        err = cudaOccupancyMaxActiveClusters(&slots, (const void *)plan->kernel, &cfg);
        if (err != cudaSuccess || slots < 1) {
            snprintf(why, why_len, "cudaOccupancyMaxActiveClusters(INT8 engine, cluster=%d): %s", plan->cluster,
                     err != cudaSuccess ? cudaGetErrorString(err) : "no cluster fits");
            return err != cudaSuccess ? (int)err : (int)cudaErrorInvalidConfiguration;
        }
    }
    plan->grid = (int)(units < slots ? units : slots) * plan->cluster;
    return 0;
}

} // namespace

extern "C" int tc_i8_plan_create(const struct tc_i8_args *a, struct tc_i8_plan **out, char *why, size_t why_len)
{
    *out = nullptr;
    if (!tc_i8_supported(a, why, why_len))
        return (int)cudaErrorInvalidValue;
    struct tc_i8_plan *plan = new (std::nothrow) tc_i8_plan();
    if (!plan) {
        snprintf(why, why_len, "INT8 engine: out of host memory");
        return (int)cudaErrorMemoryAllocation;
    }
    i8_params *p = &plan->params;
    p->n_gemms = a->n_gemms;
    p->ldc = a->ldc;
    p->m = (int)a->m;
    p->n = (int)a->n;
    p->k_blocks = (int)((a->k + BK - 1) / BK);
    p->tiles_m = (int)((a->m + BM - 1) / BM);
    p->tiles_n = (int)((a->n + BN - 1) / BN);
    p->stages = stages_for(a->max_stages);
    /* The 2-CTA cluster by default wherever there are two row tiles to
     * pair: on an H200 it ran single products as fast as one CTA per tile
     * at 4096 and 4-5% faster from 8192 up, and batches of 15 residue
     * products 7% faster at 8192, 23% at 16384 and 43% at 32768 (sustained;
     * results/h200/int8-engine): half of B's loads, less L2 traffic and
     * power under the cap. One row tile leaves the peer nothing to do. */
    plan->cluster = a->cluster ? a->cluster : p->tiles_m >= 2 ? 2 : 1;
    plan->kernel = plan->cluster > 1 ? tc_i8_kernel<true> : tc_i8_kernel<false>;
    plan->smem_bytes = p->stages * STAGE_BYTES + 2 * EPI_BYTES + 1024;
    for (int g = 0; g < a->n_gemms; g++) {
        p->modp[g] = a->gemms[g].mod ? tc_i8_modp_of(a->gemms[g].mod) : tc_i8_modp{};
        if (!encode_gemm(p, g, a, plan->cluster, why, why_len)) {
            delete plan;
            return (int)cudaErrorInvalidValue;
        }
    }
    const int64_t units_m = plan->cluster > 1 ? (p->tiles_m + 1) / 2 : p->tiles_m;
    int err = size_grid(plan, units_m * p->tiles_n * p->n_gemms, why, why_len);
    if (err) {
        delete plan;
        return err;
    }
    *out = plan;
    return 0;
}

extern "C" int tc_i8_plan_launch(const struct tc_i8_plan *plan, void *stream)
{
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = (unsigned)plan->cluster;
    attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
    cfg.gridDim = dim3((unsigned)plan->grid);
    cfg.blockDim = dim3(THREADS);
    cfg.dynamicSmemBytes = (size_t)plan->smem_bytes;
    cfg.stream = (cudaStream_t)stream;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    return (int)cudaLaunchKernelEx(&cfg, plan->kernel, plan->params);
}

extern "C" void tc_i8_plan_destroy(struct tc_i8_plan *plan)
{
    delete plan;
}

extern "C" void tc_i8_plan_describe(const struct tc_i8_plan *plan, char *buf, size_t len)
{
    snprintf(buf, len, "tile=%dx%dx%d stages=%d cluster=%d gemms=%d grid=%d", BM, BN, BK, plan->params.stages,
             plan->cluster, plan->params.n_gemms, plan->grid);
}
