/* The tensor-core GEMM engine (tc_engine.h) on Hopper: a warp-specialised
 * wgmma kernel.
 *
 * A CTA computes a 128 x BN tile of C. Warpgroup 0 is the producer: one
 * thread streams the k-blocks of every A and B plane through `stages`
 * shared-memory buffers with the bulk tensor copy engine (TMA), each buffer
 * guarded by a "full" barrier (bytes arrived) and an "empty" barrier (both
 * consumers are done with it). Warpgroups 1 and 2 are consumers, 64 rows of
 * the tile each: per k-step of the instruction (16 FP16/BF16 values, 8 TF32)
 * they issue one wgmma m64nBN per plane pair, in the caller's order, into a
 * register accumulator (accum=tc), which accum=rn flushes every flush_k into
 * a second FP32 accumulator with round-to-nearest adds. Tiles are K-major
 * with the 128-byte (or 64-byte) swizzle that both TMA and wgmma read.
 * Shapes: TMA fills rows past m or n and values past k with zeros (exact
 * zero products), and the epilogue stores only entries inside C.
 * The grid is persistent (one CTA per multiprocessor, tiles taken in turn),
 * so that a tile's epilogue overlaps the next tile's loads. Tiles are visited
 * in groups of TC_GROUP_M row tiles per column tile so that CTAs running at
 * the same time share B's tile and a group's A rows stay in L2. */
#include "tc/tc_engine.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tc/tc_launch.h"
#include "tc/tc_ptx.cuh"
#include "tc/tc_sched.cuh"
#include "tc/tc_wgmma.cuh"

namespace {

constexpr int TC_BM = 128;      /* two consumer warpgroups of 64 rows */
constexpr int TC_THREADS = 384; /* producer + 2 consumers */
constexpr int TC_MAX_STAGES = 8;
constexpr int TC_GROUP_M = 16;

struct kernel_params {
    CUtensorMap a[TC_MAX_PLANES], b[TC_MAX_PLANES];
    CUtensorMap a_scale, b_scale; /* block-scaled INT8 only */
    int n_a, n_b, n_pairs;
    signed char pa[TC_MAX_S8_PAIRS], pb[TC_MAX_S8_PAIRS];
    float level_weight[TC_MAX_LEVELS];
    int m, n, k_blocks, stages, flush_blocks;
    int scale_groups; /* INT8: scale groups per stage (0: no scale tiles) */
    int tiles_m, tiles_n;
    const int *row_exp, *col_exp;
    float *c;
    long long ldc;
};

/* Input formats: element size, k per instruction, and the wgmma of width N. */
struct op_f16 {
    static constexpr int elem_bytes = 2, k_inst = 16;
    template <int N> __device__ static void mma(float (&d)[N / 2], uint64_t da, uint64_t db, int scale_d)
    {
        if constexpr (N == 256)
            tc_wgmma_m64n256k16_f16(d, da, db, scale_d);
        else
            tc_wgmma_m64n128k16_f16(d, da, db, scale_d);
    }
};
struct op_bf16 {
    static constexpr int elem_bytes = 2, k_inst = 16;
    template <int N> __device__ static void mma(float (&d)[N / 2], uint64_t da, uint64_t db, int scale_d)
    {
        if constexpr (N == 256)
            tc_wgmma_m64n256k16_bf16(d, da, db, scale_d);
        else
            tc_wgmma_m64n128k16_bf16(d, da, db, scale_d);
    }
};
struct op_tf32 {
    static constexpr int elem_bytes = 4, k_inst = 8;
    template <int N> __device__ static void mma(float (&d)[N / 2], uint64_t da, uint64_t db, int scale_d)
    {
        if constexpr (N == 256)
            tc_wgmma_m64n256k8_tf32(d, da, db, scale_d);
        else
            tc_wgmma_m64n128k8_tf32(d, da, db, scale_d);
    }
};

/* The producer thread: streams the k-blocks of every A and B plane (and of
 * the INT8 path's scale tiles) of this CTA's tiles through the stage
 * buffers. `it` counts k-blocks over all of the CTA's tiles: the buffers
 * cycle on without a break between tiles. */
template <int BN>
__device__ void produce(const kernel_params &p, unsigned char *smem, uint64_t *full, uint64_t *empty, int a_bytes,
                        int b_bytes, int stage_bytes, int bk)
{
    for (int i = 0; i < p.n_a; i++)
        tc_prefetch_tensor_map(&p.a[i]);
    for (int i = 0; i < p.n_b; i++)
        tc_prefetch_tensor_map(&p.b[i]);
    const int planes_bytes = p.n_a * a_bytes + p.n_b * b_bytes;
    const int tiles = p.tiles_m * p.tiles_n;
    int it = 0;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        int tm, tn;
        tc_tile_of(tile, p.tiles_m, p.tiles_n, TC_GROUP_M, &tm, &tn);
        for (int kb = 0; kb < p.k_blocks; kb++, it++) {
            const int s = it % p.stages, round = it / p.stages;
            if (round > 0)
                tc_bar_wait(&empty[s], (round - 1) & 1);
            tc_bar_arrive_expect_tx(&full[s], stage_bytes);
            unsigned char *st = smem + s * stage_bytes;
            for (int i = 0; i < p.n_a; i++)
                tc_tma_load_2d(st + i * a_bytes, &p.a[i], &full[s], kb * bk, tm * TC_BM);
            for (int i = 0; i < p.n_b; i++)
                tc_tma_load_2d(st + p.n_a * a_bytes + i * b_bytes, &p.b[i], &full[s], kb * bk, tn * BN);
            if (p.scale_groups) {
                tc_tma_load_2d(st + planes_bytes, &p.a_scale, &full[s], tm * TC_BM, kb * p.scale_groups);
                tc_tma_load_2d(st + planes_bytes + p.scale_groups * TC_BM * 4, &p.b_scale, &full[s], tn * BN,
                               kb * p.scale_groups);
            }
        }
    }
}

/* Stores a consumer warpgroup's accumulators, 64 rows (`half` of the tile)
 * by BN, scaled by 2^-(row_exp + col_exp) when given. Layout of wgmma
 * m64nN (PTX "Matrix fragments for wgmma"): register 4j + 2h + e holds row
 * 16w + l/4 + 8h, column 8j + 2(l%4) + e. The stores drain while the next
 * tile's k-blocks, already loaded by the producer, go through the tensor
 * cores. */
template <int BN> __device__ void store_tile(const kernel_params &p, const float (&acc)[BN / 2], int tm, int tn, int half)
{
    const int w = (threadIdx.x % 128) / 32, l = threadIdx.x % 32;
    const int m0 = tm * TC_BM, n0 = tn * BN;
#pragma unroll
    for (int j = 0; j < BN / 8; j++) {
#pragma unroll
        for (int h = 0; h < 2; h++) {
#pragma unroll
            for (int e = 0; e < 2; e++) {
                const int row = m0 + half * 64 + 16 * w + l / 4 + 8 * h;
                const int col = n0 + 8 * j + 2 * (l % 4) + e;
                if (row < p.m && col < p.n) {
                    float v = acc[4 * j + 2 * h + e];
                    if (p.row_exp)
                        v = ldexpf(v, -(p.row_exp[row] + p.col_exp[col]));
                    p.c[(long long)col * p.ldc + row] = v;
                }
            }
        }
    }
}

template <typename Op, int BN, int BK_BYTES, bool RN, int NP>
__global__ void __launch_bounds__(TC_THREADS, 1) tc_gemm_kernel(const __grid_constant__ kernel_params p)
{
    constexpr int BK = BK_BYTES / Op::elem_bytes;
    constexpr int ACC = BN / 2;
    __shared__ __align__(8) uint64_t full[TC_MAX_STAGES], empty[TC_MAX_STAGES];
    extern __shared__ unsigned char smem_raw[];
    /* Swizzled tiles start on 1024-byte boundaries (the 128-byte pattern repeats every 8 rows). */
    unsigned char *smem = (unsigned char *)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
    const int a_bytes = TC_BM * BK_BYTES, b_bytes = BN * BK_BYTES;
    const int stage_bytes = p.n_a * a_bytes + p.n_b * b_bytes;
    const int wg = threadIdx.x / 128;

    if (threadIdx.x == 0) {
        for (int s = 0; s < p.stages; s++) {
            tc_bar_init(&full[s], 1);
            tc_bar_init(&empty[s], 2);
        }
        tc_fence_barrier_init();
    }
    __syncthreads();

    const int tiles = p.tiles_m * p.tiles_n;
    if (wg == 0) {
        tc_regs_dealloc<40>();
        if (threadIdx.x == 0)
            produce<BN>(p, smem, full, empty, a_bytes, b_bytes, stage_bytes, BK);
        return;
    }

    tc_regs_alloc<232>();
    const int half = wg - 1; /* which 64 rows of the tile */
    constexpr uint32_t swz = tc_swizzle_mode(BK_BYTES);
    float acc[ACC], sum[RN ? ACC : 1];
#pragma unroll
    for (int i = 0; i < ACC; i++)
        acc[i] = 0.0f;
    int it = 0;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        int tm, tn;
        tc_tile_of(tile, p.tiles_m, p.tiles_n, TC_GROUP_M, &tm, &tn);
#pragma unroll
        for (int i = 0; i < (RN ? ACC : 1); i++)
            sum[i] = 0.0f;
        int fresh = 1;    /* next MMA starts a new accumulator (scale-d = 0) */
        int pending = -1; /* stage whose MMAs were committed but not yet waited for */
        for (int kb = 0; kb < p.k_blocks; kb++, it++) {
            const int s = it % p.stages;
            tc_bar_wait(&full[s], (it / p.stages) & 1);
            const unsigned char *st = smem + s * stage_bytes;
            tc_wgmma_fence();
            /* Straight-line MMAs (NP is a compile-time count): a branch between
             * two wgmma would make the compiler fence them apart. */
#pragma unroll
            for (int kk = 0; kk < BK / Op::k_inst; kk++) {
#pragma unroll
                for (int q = 0; q < NP; q++) {
                    const unsigned char *ta = st + p.pa[q] * a_bytes + half * 64 * BK_BYTES;
                    const unsigned char *tb = st + p.n_a * a_bytes + p.pb[q] * b_bytes;
                    const int off = kk * Op::k_inst * Op::elem_bytes;
                    uint64_t da = tc_smem_desc(ta + off, 16, 8 * BK_BYTES, swz);
                    uint64_t db = tc_smem_desc(tb + off, 16, 8 * BK_BYTES, swz);
                    Op::template mma<BN>(acc, da, db, !fresh);
                    fresh = 0;
                }
            }
            tc_wgmma_commit();
            const bool flush = RN && ((kb + 1) % p.flush_blocks == 0 || kb + 1 == p.k_blocks);
            if (flush) {
                tc_wgmma_wait<0>();
                if (threadIdx.x % 128 == 0) {
                    if (pending >= 0)
                        tc_bar_arrive(&empty[pending]);
                    tc_bar_arrive(&empty[s]);
                }
                pending = -1;
#pragma unroll
                for (int i = 0; i < (RN ? ACC : 1); i++)
                    sum[i] = __fadd_rn(sum[i], acc[i]);
                fresh = 1;
            } else {
                tc_wgmma_wait<1>();
                if (pending >= 0 && threadIdx.x % 128 == 0)
                    tc_bar_arrive(&empty[pending]);
                pending = s;
            }
        }
        tc_wgmma_wait<0>();
        if (pending >= 0 && threadIdx.x % 128 == 0)
            tc_bar_arrive(&empty[pending]);

        if constexpr (RN)
            store_tile<BN>(p, sum, tm, tn, half);
        else
            store_tile<BN>(p, acc, tm, tn, half);
    }
}

/* ---- Block-scaled INT8 levels (tc_s8_args) ---- */

constexpr int TC_S8_BN = 128; /* two INT32 buffers and the FP32 sum: 192 registers */

__host__ __device__ constexpr int bit_count(unsigned x)
{
    return x ? (int)(x & 1u) + bit_count(x >> 1) : 0;
}

/* First pair of level L when bit q of `starts` marks the pair that opens a level. */
__host__ __device__ constexpr int level_first(unsigned starts, int np, int L)
{
    int seen = -1;
    for (int q = 0; q < np; q++)
        if ((starts >> q) & 1u)
            if (++seen == L)
                return q;
    return np;
}

/* Pair q of a kernel's compile-time pair list: A's plane in bits 4q..4q+1,
 * B's in bits 4q+2..4q+3 (pair_code). */
__host__ __device__ constexpr int pair_a(unsigned pairs, int q)
{
    return (int)(pairs >> (4 * q)) & 3;
}
__host__ __device__ constexpr int pair_b(unsigned pairs, int q)
{
    return (int)(pairs >> (4 * q + 2)) & 3;
}

/* The list "00 01 10 11" (A's plane, B's plane of each pair) as a code. */
constexpr unsigned pair_code(const char *s, int q = 0)
{
    return *s ? (unsigned)((s[0] - '0') | (s[1] - '0') << 2) << (4 * q) | (s[2] ? pair_code(s + 3, q + 1) : 0u) : 0u;
}

/* A planes: one past the largest A plane a pair reads. */
__host__ __device__ constexpr int planes_a(unsigned pairs, int np)
{
    int planes = 0;
    for (int q = 0; q < np; q++)
        planes = pair_a(pairs, q) + 1 > planes ? pair_a(pairs, q) + 1 : planes;
    return planes;
}

/* The MMAs of level L for scale group g of the stage at `st`: its pairs
 * over the group's k-steps into d, which the first MMA restarts. The
 * planes are compile-time (PAIRS), so every descriptor is the stage's base
 * descriptor plus a constant: nothing to keep in registers across the
 * stage (with the pairs read from the parameters, ptxas held addresses and
 * spilled around the conversions). */
template <int BK, int NP, unsigned STARTS, int KG, unsigned PAIRS, int L>
__device__ __forceinline__ void issue_level(int32_t (&d)[TC_S8_BN / 2], uint64_t da0, uint64_t db0, int g)
{
    constexpr int first = level_first(STARTS, NP, L), end = level_first(STARTS, NP, L + 1);
    constexpr int a_bytes = TC_BM * BK, b_bytes = TC_S8_BN * BK;
#pragma unroll
    for (int kk = 0; kk < KG / 32; kk++) {
#pragma unroll
        for (int q = first; q < end; q++) {
            /* A descriptor's low 14 bits are the address / 16 (tc_smem_desc). */
            const int off = g * KG + kk * 32;
            const uint64_t da = da0 + (uint64_t)((pair_a(PAIRS, q) * a_bytes + off) >> 4);
            const uint64_t db = db0 + (uint64_t)((pair_b(PAIRS, q) * b_bytes + off) >> 4);
            tc_wgmma_m64n128k32_s8(d, da, db, kk > 0 || q > first);
        }
    }
}

/* add_level's entries; ALL_FAST: both of the thread's rows take the fast
 * conversion, so no entry tests its row. */
template <bool ALL_FAST>
__device__ __forceinline__ void add_entries(float (&acc)[TC_S8_BN / 2], const int32_t (&v)[TC_S8_BN / 2],
                                            const float *sb, const float (&ra)[2], const int (&magic)[2],
                                            const bool (&fast)[2], int l)
{
#pragma unroll
    for (int j = 0; j < TC_S8_BN / 8; j++) {
        const float2 sbv = *(const float2 *)(sb + 8 * j + 2 * (l % 4));
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
            for (int e = 0; e < 2; e++) {
                const int r = 4 * j + 2 * h + e;
                const float sbe = e ? sbv.y : sbv.x;
                if (ALL_FAST || fast[h]) /* bits(m) + v are the float m + v * ra */
                    acc[r] = __fmaf_rn(__fsub_rn(__int_as_float(v[r] + magic[h]), __int_as_float(magic[h])), sbe,
                                       acc[r]);
                else /* (float)v by the same trick with m = 1.5 * 2^23 */
                    acc[r] = __fmaf_rn(__fsub_rn(__int_as_float(v[r] + 0x4B400000), 12582912.0f),
                                       __fmul_rn(ra[h], sbe), acc[r]);
            }
    }
}

/* Adds one level of one scale group to the FP32 sum as tc_s8_scale_is_fast
 * (tc_mma_model.h) says. For a row whose ra = sa(row) * weight passes, the
 * bits of the float m = 1.5 * 2^23 * ra plus v are the float m + v * ra
 * (|v| <= 2^22 keeps it in m's binade, where a unit of the last bit is ra),
 * so one integer add and one exact subtraction give v * ra and one FMA adds
 * it: three operations per entry. A thread whose two rows both pass (all of
 * them, but for extreme scales) takes that loop alone. sa and sb are the
 * group's scale tiles. */
__device__ __forceinline__ void add_level(float (&acc)[TC_S8_BN / 2], const int32_t (&v)[TC_S8_BN / 2],
                                          const float *sa, const float *sb, float weight, int half)
{
    const int w = (threadIdx.x % 128) / 32, l = threadIdx.x % 32;
    const int r0 = half * 64 + 16 * w + l / 4;
    float ra[2];
    int magic[2];
    bool fast[2];
#pragma unroll
    for (int h = 0; h < 2; h++) {
        ra[h] = __fmul_rn(sa[r0 + 8 * h], weight);
        fast[h] = tc_s8_scale_is_fast(ra[h]);
        magic[h] = __float_as_int(ra[h]) + (23 << 23) + 0x400000;
    }
    if (fast[0] && fast[1])
        add_entries<true>(acc, v, sb, ra, magic, fast, l);
    else
        add_entries<false>(acc, v, sb, ra, magic, fast, l);
}

/* The items of one stage (scale group I / NL, level I % NL) in two INT32
 * buffers: item I's MMAs run while item I-1 is added to the sum. The last
 * item is added after its MMAs, so that no wgmma is in flight across the
 * stage loop: ptxas serialises every wgmma (C7514) when it cannot prove that
 * other instructions read only retired accumulators. */
template <int BK, int NP, unsigned STARTS, int KG, unsigned PAIRS, int I>
__device__ __forceinline__ void stage_items(const kernel_params &p, uint64_t da0, uint64_t db0, const float *sa,
                                            const float *sb, float (&acc)[TC_S8_BN / 2], int32_t (&v0)[TC_S8_BN / 2],
                                            int32_t (&v1)[TC_S8_BN / 2], int half)
{
    constexpr int GPS = BK / KG, NL = bit_count(STARTS), ITEMS = GPS * NL;
    if constexpr (I < ITEMS) {
        constexpr int g = I / NL, L = I % NL;
        int32_t(&d)[TC_S8_BN / 2] = (I & 1) ? v1 : v0;
        int32_t(&prev)[TC_S8_BN / 2] = (I & 1) ? v0 : v1;
        tc_wgmma_fence();
        issue_level<BK, NP, STARTS, KG, PAIRS, L>(d, da0, db0, g);
        tc_wgmma_commit();
        if constexpr (I > 0) {
            constexpr int pg = (I - 1) / NL, pl = (I - 1) % NL;
            tc_wgmma_wait<1>();
            add_level(acc, prev, sa + pg * TC_BM, sb + pg * TC_S8_BN, p.level_weight[pl], half);
        }
        if constexpr (I + 1 == ITEMS) {
            tc_wgmma_wait<0>();
            add_level(acc, d, sa + g * TC_BM, sb + g * TC_S8_BN, p.level_weight[L], half);
        }
        stage_items<BK, NP, STARTS, KG, PAIRS, I + 1>(p, da0, db0, sa, sb, acc, v0, v1, half);
    }
}

template <int BK, int NP, unsigned STARTS, int KG, unsigned PAIRS>
__global__ void __launch_bounds__(TC_THREADS, 1) tc_s8_kernel(const __grid_constant__ kernel_params p)
{
    constexpr int BN = TC_S8_BN, GPS = BK / KG;
    constexpr uint32_t swz = tc_swizzle_mode(BK);
    __shared__ __align__(8) uint64_t full[TC_MAX_STAGES], empty[TC_MAX_STAGES];
    extern __shared__ unsigned char smem_raw[];
    unsigned char *smem = (unsigned char *)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
    const int a_bytes = TC_BM * BK, b_bytes = BN * BK;
    const int planes_bytes = p.n_a * a_bytes + p.n_b * b_bytes;
    const int stage_bytes = planes_bytes + GPS * (TC_BM + BN) * 4;
    const int wg = threadIdx.x / 128;

    if (threadIdx.x == 0) {
        for (int s = 0; s < p.stages; s++) {
            tc_bar_init(&full[s], 1);
            /* One arrival per consumer warp: each warp reads the stage's
             * scale tiles with its own loads, which the MMAs' completion
             * does not cover. */
            tc_bar_init(&empty[s], 8);
        }
        tc_fence_barrier_init();
    }
    __syncthreads();

    const int tiles = p.tiles_m * p.tiles_n;
    if (wg == 0) {
        tc_regs_dealloc<24>(); /* 24 * 128 + 240 * 256 registers fill the multiprocessor */
        if (threadIdx.x == 0) {
            tc_prefetch_tensor_map(&p.a_scale);
            tc_prefetch_tensor_map(&p.b_scale);
            produce<BN>(p, smem, full, empty, a_bytes, b_bytes, stage_bytes, BK);
        }
        return;
    }

    tc_regs_alloc<240>(); /* two INT32 buffers and the FP32 sum: 192 */
    const int half = wg - 1;
    float acc[BN / 2];
    int32_t v0[BN / 2], v1[BN / 2];
    int it = 0;
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        int tm, tn;
        tc_tile_of(tile, p.tiles_m, p.tiles_n, TC_GROUP_M, &tm, &tn);
#pragma unroll
        for (int i = 0; i < BN / 2; i++)
            acc[i] = 0.0f;
        for (int kb = 0; kb < p.k_blocks; kb++, it++) {
            const int s = it % p.stages;
            tc_bar_wait(&full[s], (it / p.stages) & 1);
            const unsigned char *st = smem + s * stage_bytes;
            const float *sa = (const float *)(st + planes_bytes), *sb = sa + GPS * TC_BM;
            const uint64_t da0 = tc_smem_desc(st + half * 64 * BK, 16, 8 * BK, swz);
            const uint64_t db0 = tc_smem_desc(st + planes_a(PAIRS, NP) * a_bytes, 16, 8 * BK, swz);
            stage_items<BK, NP, STARTS, KG, PAIRS, 0>(p, da0, db0, sa, sb, acc, v0, v1, half);
            __syncwarp(); /* every lane's scale loads are done (add_level may diverge) */
            if (threadIdx.x % 32 == 0)
                tc_bar_arrive(&empty[s]);
        }
        store_tile<BN>(p, acc, tm, tn, half);
    }
}

typedef void (*kernel_fn)(kernel_params);

template <typename Op, bool RN, int BK_BYTES, int NP> kernel_fn pick_np()
{
    return tc_gemm_kernel<Op, RN ? 128 : 256, BK_BYTES, RN, NP>;
}

template <typename Op, bool RN, int BK_BYTES> kernel_fn pick_pairs(int n_pairs)
{
    switch (n_pairs) {
    case 1: return pick_np<Op, RN, BK_BYTES, 1>();
    case 2: return pick_np<Op, RN, BK_BYTES, 2>();
    case 3: return pick_np<Op, RN, BK_BYTES, 3>();
    case 4: return pick_np<Op, RN, BK_BYTES, 4>();
    case 5: return pick_np<Op, RN, BK_BYTES, 5>();
    case 6: return pick_np<Op, RN, BK_BYTES, 6>();
    }
    return nullptr;
}

template <typename Op> kernel_fn pick(bool rn, int bk_bytes, int n_pairs)
{
    if (rn)
        return bk_bytes == 128 ? pick_pairs<Op, true, 128>(n_pairs) : pick_pairs<Op, true, 64>(n_pairs);
    return bk_bytes == 128 ? pick_pairs<Op, false, 128>(n_pairs) : pick_pairs<Op, false, 64>(n_pairs);
}

kernel_fn pick_kernel(enum tc_input fmt, bool rn, int bk_bytes, int n_pairs)
{
    switch (fmt) {
    case TC_IN_FP16: return pick<op_f16>(rn, bk_bytes, n_pairs);
    case TC_IN_BF16: return pick<op_bf16>(rn, bk_bytes, n_pairs);
    case TC_IN_TF32: return pick<op_tf32>(rn, bk_bytes, n_pairs);
    case TC_IN_S8: return nullptr; /* tc_s8_plan_create */
    }
    return nullptr;
}

/* The block-scaled INT8 kernels built: the level structures of MixPert's
 * configurations (I: 00|01,10|11; II and III: 00|01,10|02,11|12 and its
 * mirror; IV: 00|01,10|02,11,20|12,21, and with kgroup 128, at most two
 * pairs a level, 00|01,10|02,11|20|12,21; bit q of `starts` opens a level
 * at pair q) with the k-tiles that their planes get (tc_s8_plan_create). */
struct s8_kernel {
    int bk, np;
    unsigned starts;
    int kgroup;
    unsigned pairs;
    kernel_fn fn;
};
constexpr unsigned PAIRS_I = pair_code("00 01 10 11");
constexpr unsigned PAIRS_II = pair_code("00 01 10 02 11 12");
constexpr unsigned PAIRS_III = pair_code("00 01 10 11 20 21");
constexpr unsigned PAIRS_IV = pair_code("00 01 10 02 11 20 12 21");
#define S8_KERNEL(bk, np, starts, kg, pairs) {bk, np, starts, kg, pairs, tc_s8_kernel<bk, np, starts, kg, pairs>}
const s8_kernel s8_kernels[] = {
    S8_KERNEL(128, 4, 0xBu, 32, PAIRS_I),    S8_KERNEL(128, 4, 0xBu, 64, PAIRS_I),
    S8_KERNEL(128, 4, 0xBu, 128, PAIRS_I),   S8_KERNEL(64, 6, 0x2Bu, 32, PAIRS_II),
    S8_KERNEL(64, 6, 0x2Bu, 64, PAIRS_II),   S8_KERNEL(128, 6, 0x2Bu, 128, PAIRS_II),
    S8_KERNEL(64, 6, 0x2Bu, 32, PAIRS_III),  S8_KERNEL(64, 6, 0x2Bu, 64, PAIRS_III),
    S8_KERNEL(128, 6, 0x2Bu, 128, PAIRS_III), S8_KERNEL(64, 8, 0x4Bu, 32, PAIRS_IV),
    S8_KERNEL(64, 8, 0x4Bu, 64, PAIRS_IV),   S8_KERNEL(128, 8, 0x6Bu, 128, PAIRS_IV),
};
#undef S8_KERNEL

/* The pair list of a problem as pair_code writes it. */
unsigned pairs_of(const struct tc_s8_args *a)
{
    unsigned code = 0;
    for (int q = 0; q < a->n_pairs; q++)
        code |= (unsigned)(a->pairs[q].a | a->pairs[q].b << 2) << (4 * q);
    return code;
}

unsigned level_starts(const struct tc_s8_args *a)
{
    unsigned starts = 1u;
    for (int L = 0; L + 1 < a->n_levels; L++)
        starts |= 1u << a->level_end[L];
    return starts;
}

int stages_for(int stage_bytes)
{
    int s = (TC_SMEM_LIMIT - 1024) / stage_bytes;
    return s > TC_MAX_STAGES ? TC_MAX_STAGES : s;
}

} // namespace

struct tc_plan {
    kernel_params params;
    kernel_fn kernel;
    int grid, smem_bytes, bn, bk_bytes, kgroup;
    enum tc_input fmt;
};

namespace {

/* The planes' tensor maps, K-major tiles of bk values by 128 (A) or bn (B) rows. */
bool encode_planes(kernel_params *p, CUtensorMapDataType type, int eb, const void *const *a_planes,
                   const void *const *b_planes, int64_t m, int64_t n, int64_t k, int64_t ld, int bk, int bn,
                   int bk_bytes, char *why, size_t why_len)
{
    const CUtensorMapSwizzle swizzle = bk_bytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B;
    char what[32];
    for (int i = 0; i < p->n_a; i++) {
        snprintf(what, sizeof what, "A plane %d", i);
        if (!tc_encode_map(&p->a[i], type, eb, a_planes[i], k, m, ld, bk, TC_BM, swizzle, what, why, why_len))
            return false;
    }
    for (int i = 0; i < p->n_b; i++) {
        snprintf(what, sizeof what, "B plane %d", i);
        if (!tc_encode_map(&p->b[i], type, eb, b_planes[i], k, n, ld, bk, bn, swizzle, what, why, why_len))
            return false;
    }
    return true;
}

/* Shared memory and the persistent grid: one CTA per multiprocessor. */
int finish_plan(struct tc_plan *plan, int stage_bytes, char *why, size_t why_len)
{
    kernel_params *p = &plan->params;
    plan->smem_bytes = p->stages * stage_bytes + 1024;
    cudaError_t err = cudaFuncSetAttribute((const void *)plan->kernel,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, plan->smem_bytes);
    if (err != cudaSuccess) {
        snprintf(why, why_len, "cudaFuncSetAttribute(tensor-core engine, %d bytes of shared memory): %s",
                 plan->smem_bytes, cudaGetErrorString(err));
        return (int)err;
    }
    const int sms = tc_sm_count(why, why_len);
    if (!sms)
        return (int)cudaErrorInvalidDevice;
    const int tiles = p->tiles_m * p->tiles_n;
    plan->grid = tiles < sms ? tiles : sms;
    return 0;
}

} // namespace

extern "C" int tc_plane_elem_bytes(enum tc_input fmt)
{
    return fmt == TC_IN_TF32 ? 4 : fmt == TC_IN_S8 ? 1 : 2;
}

extern "C" int64_t tc_plane_ld(enum tc_input fmt, int64_t k)
{
    int64_t per16 = 16 / tc_plane_elem_bytes(fmt);
    return (k + per16 - 1) / per16 * per16;
}

extern "C" int tc_flush_step(enum tc_input fmt)
{
    /* The 64-byte tiles of the planned configurations cover half the k of the 128-byte ones. */
    return 64 / tc_plane_elem_bytes(fmt);
}

extern "C" int tc_scheme_problem_supported(int64_t m, int64_t n, int64_t k, const struct mpb_device_info *dev,
                                           char *why, size_t why_len)
{
    if (m >= INT64_C(1) << 31 || n >= INT64_C(1) << 31 || k >= INT64_C(1) << 31) {
        snprintf(why, why_len, "m, n and k must be below 2^31 (the engine's tensor maps)");
        return 0;
    }
    if (dev && !(dev->cc_major == 9 && dev->cc_minor == 0)) {
        snprintf(why, why_len, "the tensor-core engine is built for sm_90a (Hopper); this GPU is sm_%d%d",
                 dev->cc_major, dev->cc_minor);
        return 0;
    }
    return 1;
}

extern "C" int tc_gemm_supported(const struct tc_gemm_args *a, char *why, size_t why_len)
{
    const int64_t lim = INT64_C(1) << 31;
    if (a->m < 1 || a->n < 1 || a->k < 1 || a->m >= lim || a->n >= lim || a->k >= lim) {
        snprintf(why, why_len, "tensor-core engine: m, n, k must be in 1..2^31-1");
        return 0;
    }
    if (a->fmt == TC_IN_S8) {
        snprintf(why, why_len, "tensor-core engine: INT8 planes take the block-scaled path (tc_s8_plan_create)");
        return 0;
    }
    if (a->n_a_planes < 1 || a->n_a_planes > TC_MAX_PLANES || a->n_b_planes < 1 ||
        a->n_b_planes > TC_MAX_PLANES || a->n_pairs < 1 || a->n_pairs > TC_MAX_PAIRS) {
        snprintf(why, why_len, "tensor-core engine: 1..%d planes and 1..%d pairs", TC_MAX_PLANES, TC_MAX_PAIRS);
        return 0;
    }
    for (int q = 0; q < a->n_pairs; q++)
        if (a->pairs[q].a < 0 || a->pairs[q].a >= a->n_a_planes || a->pairs[q].b < 0 ||
            a->pairs[q].b >= a->n_b_planes) {
            snprintf(why, why_len, "tensor-core engine: pair %d names a plane that is not there", q);
            return 0;
        }
    if (a->ld < a->k || a->ld % (16 / tc_plane_elem_bytes(a->fmt)) != 0) {
        snprintf(why, why_len, "tensor-core engine: plane rows must hold k values and start on 16 bytes");
        return 0;
    }
    if (a->accum == TC_ACCUM_RN && (a->flush_k < 1 || a->flush_k % tc_flush_step(a->fmt) != 0)) {
        snprintf(why, why_len, "tensor-core engine: flush_k must be a positive multiple of %d",
                 tc_flush_step(a->fmt));
        return 0;
    }
    if (a->max_stages != 0 && (a->max_stages < 2 || a->max_stages > TC_MAX_STAGES)) {
        snprintf(why, why_len, "tensor-core engine: max_stages must be 0 (as many as fit) or 2..%d", TC_MAX_STAGES);
        return 0;
    }
    return 1;
}

extern "C" int tc_plan_create(const struct tc_gemm_args *a, struct tc_plan **out, char *why, size_t why_len)
{
    *out = nullptr;
    if (!tc_gemm_supported(a, why, why_len))
        return (int)cudaErrorInvalidValue;
    struct tc_plan *plan = (struct tc_plan *)calloc(1, sizeof *plan);
    if (!plan) {
        snprintf(why, why_len, "tensor-core engine: out of host memory");
        return (int)cudaErrorMemoryAllocation;
    }
    const bool rn = a->accum == TC_ACCUM_RN;
    const int eb = tc_plane_elem_bytes(a->fmt);
    plan->fmt = a->fmt;
    plan->bn = rn ? 128 : 256;
    /* 128-byte k-tiles when three or more stages fit, else 64-byte ones. */
    int bk_bytes = 128;
    if (stages_for((a->n_a_planes * TC_BM + a->n_b_planes * plan->bn) * 128) < 3)
        bk_bytes = 64;
    if (rn && (a->flush_k * eb) % bk_bytes != 0)
        bk_bytes = 64;
    plan->bk_bytes = bk_bytes;
    const int bk = bk_bytes / eb;
    const int stage_bytes = (a->n_a_planes * TC_BM + a->n_b_planes * plan->bn) * bk_bytes;
    kernel_params *p = &plan->params;
    p->stages = stages_for(stage_bytes);
    if (a->max_stages && p->stages > a->max_stages) /* a shallower pipeline: E5's ablation */
        p->stages = a->max_stages;
    if (p->stages < 2) {
        free(plan);
        snprintf(why, why_len, "tensor-core engine: %d+%d planes do not fit two pipeline stages",
                 a->n_a_planes, a->n_b_planes);
        return (int)cudaErrorInvalidValue;
    }
    p->n_a = a->n_a_planes;
    p->n_b = a->n_b_planes;
    p->n_pairs = a->n_pairs;
    for (int q = 0; q < a->n_pairs; q++) {
        p->pa[q] = (signed char)a->pairs[q].a;
        p->pb[q] = (signed char)a->pairs[q].b;
    }
    p->m = (int)a->m;
    p->n = (int)a->n;
    p->k_blocks = (int)((a->k + bk - 1) / bk);
    p->flush_blocks = rn ? a->flush_k / bk : 0;
    p->tiles_m = (int)((a->m + TC_BM - 1) / TC_BM);
    p->tiles_n = (int)((a->n + plan->bn - 1) / plan->bn);
    p->row_exp = a->row_exp;
    p->col_exp = a->col_exp;
    p->c = a->c;
    p->ldc = a->ldc;
    const CUtensorMapDataType type = a->fmt == TC_IN_FP16   ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                     : a->fmt == TC_IN_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                            : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    if (!encode_planes(p, type, eb, a->a_planes, a->b_planes, a->m, a->n, a->k, a->ld, bk, plan->bn, bk_bytes, why,
                       why_len)) {
        free(plan);
        return (int)cudaErrorInvalidValue;
    }
    plan->kernel = pick_kernel(a->fmt, rn, bk_bytes, a->n_pairs);
    int err = finish_plan(plan, stage_bytes, why, why_len);
    if (err) {
        free(plan);
        return err;
    }
    *out = plan;
    return 0;
}

extern "C" int64_t tc_s8_groups(int64_t k, int kgroup)
{
    return (k + kgroup - 1) / kgroup;
}

extern "C" int tc_s8_supported(const struct tc_s8_args *a, char *why, size_t why_len)
{
    const int64_t lim = INT64_C(1) << 31;
    if (a->m < 1 || a->n < 1 || a->k < 1 || a->m >= lim || a->n >= lim || a->k >= lim) {
        snprintf(why, why_len, "tensor-core engine: m, n, k must be in 1..2^31-1");
        return 0;
    }
    if (a->n_a_planes < 1 || a->n_a_planes > TC_MAX_PLANES || a->n_b_planes < 1 || a->n_b_planes > TC_MAX_PLANES ||
        a->n_pairs < 1 || a->n_pairs > TC_MAX_S8_PAIRS || a->n_levels < 1 || a->n_levels > TC_MAX_LEVELS) {
        snprintf(why, why_len, "tensor-core engine (INT8): 1..%d planes, 1..%d pairs, 1..%d levels", TC_MAX_PLANES,
                 TC_MAX_S8_PAIRS, TC_MAX_LEVELS);
        return 0;
    }
    for (int q = 0; q < a->n_pairs; q++)
        if (a->pairs[q].a < 0 || a->pairs[q].a >= a->n_a_planes || a->pairs[q].b < 0 ||
            a->pairs[q].b >= a->n_b_planes) {
            snprintf(why, why_len, "tensor-core engine: pair %d names a plane that is not there", q);
            return 0;
        }
    if (a->kgroup != 32 && a->kgroup != 64 && a->kgroup != 128) {
        snprintf(why, why_len, "tensor-core engine (INT8): kgroup must be 32, 64 or 128");
        return 0;
    }
    for (int L = 0, first = 0; L < a->n_levels; first = a->level_end[L], L++) {
        const int end = a->level_end[L];
        if (end <= first || end > a->n_pairs || (L + 1 == a->n_levels && end != a->n_pairs)) {
            snprintf(why, why_len, "tensor-core engine (INT8): level_end must rise to n_pairs");
            return 0;
        }
        /* |v| <= pairs * kgroup * 128^2 <= 2^22 keeps (float)v exact (add_level). */
        if ((end - first) * a->kgroup > TC_S8_LEVEL_SPAN) {
            snprintf(why, why_len, "tensor-core engine (INT8): level %d has %d pairs, more than %d/kgroup = %d", L,
                     end - first, TC_S8_LEVEL_SPAN, TC_S8_LEVEL_SPAN / a->kgroup);
            return 0;
        }
    }
    if (a->ld < a->k || a->ld % 16 != 0 || a->a_scale_ld < a->m || a->b_scale_ld < a->n || a->a_scale_ld % 4 != 0 ||
        a->b_scale_ld % 4 != 0) {
        snprintf(why, why_len, "tensor-core engine (INT8): plane rows must hold k values and scale rows m (n) "
                 "values, each starting on 16 bytes");
        return 0;
    }
    if (!a->a_scale || !a->b_scale) {
        snprintf(why, why_len, "tensor-core engine (INT8): scales are required");
        return 0;
    }
    if (a->max_stages != 0 && (a->max_stages < 2 || a->max_stages > TC_MAX_STAGES)) {
        snprintf(why, why_len, "tensor-core engine: max_stages must be 0 (as many as fit) or 2..%d", TC_MAX_STAGES);
        return 0;
    }
    return 1;
}

extern "C" int tc_s8_plan_create(const struct tc_s8_args *a, struct tc_plan **out, char *why, size_t why_len)
{
    *out = nullptr;
    if (!tc_s8_supported(a, why, why_len))
        return (int)cudaErrorInvalidValue;
    const int bn = TC_S8_BN;
    auto stage_bytes_of = [&](int bk) {
        return (a->n_a_planes * TC_BM + a->n_b_planes * bn) * bk + bk / a->kgroup * (TC_BM + bn) * 4;
    };
    /* 128-byte k-tiles when three or more stages fit, else 64-byte ones; a
     * scale group must fit in one k-tile, so kgroup 128 takes 128-byte
     * k-tiles in two stages where three do not fit (5 or 6 planes: a stage
     * then holds 4096 tensor-core cycles of MMAs, longer than its loads). */
    const int bk = a->kgroup == 128 || stages_for(stage_bytes_of(128)) >= 3 ? 128 : 64;
    const unsigned starts = level_starts(a);
    kernel_fn fn = nullptr;
    for (const s8_kernel &kn : s8_kernels)
        if (kn.bk == bk && kn.np == a->n_pairs && kn.starts == starts && kn.kgroup == a->kgroup &&
            kn.pairs == pairs_of(a) && planes_a(kn.pairs, kn.np) == a->n_a_planes)
            fn = kn.fn;
    if (!fn) {
        snprintf(why, why_len, "tensor-core engine (INT8): no kernel built for %d pairs 0x%x in levels 0x%x, "
                 "kgroup=%d, %d-byte k-tiles, %d A planes", a->n_pairs, pairs_of(a), starts, a->kgroup, bk,
                 a->n_a_planes);
        return (int)cudaErrorInvalidValue;
    }
    struct tc_plan *plan = (struct tc_plan *)calloc(1, sizeof *plan);
    if (!plan) {
        snprintf(why, why_len, "tensor-core engine: out of host memory");
        return (int)cudaErrorMemoryAllocation;
    }
    plan->fmt = TC_IN_S8;
    plan->bn = bn;
    plan->bk_bytes = bk;
    plan->kgroup = a->kgroup;
    plan->kernel = fn;
    kernel_params *p = &plan->params;
    const int stage_bytes = stage_bytes_of(bk);
    p->stages = stages_for(stage_bytes);
    if (a->max_stages && p->stages > a->max_stages)
        p->stages = a->max_stages;
    if (p->stages < 2) {
        free(plan);
        snprintf(why, why_len, "tensor-core engine: %d+%d planes do not fit two pipeline stages", a->n_a_planes,
                 a->n_b_planes);
        return (int)cudaErrorInvalidValue;
    }
    p->n_a = a->n_a_planes;
    p->n_b = a->n_b_planes;
    p->n_pairs = a->n_pairs;
    for (int q = 0; q < a->n_pairs; q++) {
        p->pa[q] = (signed char)a->pairs[q].a;
        p->pb[q] = (signed char)a->pairs[q].b;
    }
    for (int L = 0; L < a->n_levels; L++)
        p->level_weight[L] = a->level_weight[L];
    p->m = (int)a->m;
    p->n = (int)a->n;
    p->k_blocks = (int)((a->k + bk - 1) / bk);
    p->scale_groups = bk / a->kgroup;
    p->tiles_m = (int)((a->m + TC_BM - 1) / TC_BM);
    p->tiles_n = (int)((a->n + bn - 1) / bn);
    p->row_exp = a->row_exp;
    p->col_exp = a->col_exp;
    p->c = a->c;
    p->ldc = a->ldc;
    const int64_t groups = tc_s8_groups(a->k, a->kgroup);
    bool ok = encode_planes(p, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, (const void *const *)a->a_planes,
                            (const void *const *)a->b_planes, a->m, a->n, a->k, a->ld, bk, bn, bk, why, why_len) &&
              tc_encode_map(&p->a_scale, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, a->a_scale, a->a_scale_ld, groups,
                         a->a_scale_ld, TC_BM, p->scale_groups, CU_TENSOR_MAP_SWIZZLE_NONE, "A scales", why,
                         why_len) &&
              tc_encode_map(&p->b_scale, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, a->b_scale, a->b_scale_ld, groups,
                         a->b_scale_ld, bn, p->scale_groups, CU_TENSOR_MAP_SWIZZLE_NONE, "B scales", why, why_len);
    if (!ok) {
        free(plan);
        return (int)cudaErrorInvalidValue;
    }
    int err = finish_plan(plan, stage_bytes, why, why_len);
    if (err) {
        free(plan);
        return err;
    }
    *out = plan;
    return 0;
}

extern "C" int tc_plan_launch(const struct tc_plan *plan, void *stream)
{
    plan->kernel<<<plan->grid, TC_THREADS, plan->smem_bytes, (cudaStream_t)stream>>>(plan->params);
    return (int)cudaGetLastError();
}

extern "C" void tc_plan_destroy(struct tc_plan *plan)
{
    free(plan);
}

extern "C" void tc_plan_describe(const struct tc_plan *plan, char *buf, size_t len)
{
    const kernel_params *p = &plan->params;
    int n = snprintf(buf, len, "tile=%dx%dx%d stages=%d planes=%d+%d pairs=%d", TC_BM, plan->bn,
                     plan->bk_bytes / tc_plane_elem_bytes(plan->fmt), p->stages, p->n_a, p->n_b, p->n_pairs);
    if (plan->fmt == TC_IN_S8 && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " kgroup=%d", plan->kgroup);
}

extern "C" int tc_plan_stages(const struct tc_plan *plan)
{
    return plan->params.stages;
}
