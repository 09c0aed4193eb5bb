/* The probe's kernels (tc_probe.h): one tensor-core instruction per test,
 * the test in row 0 of A, column 0 of B and entry (0,0) of C. Fragment
 * layouts: PTX ISA "Matrix fragments for mma.m16n8k16 / m16n8k8 / m16n8k32"
 * and, for wgmma, K-major operands without swizzle ("core matrices" of 8
 * rows x 16 bytes: LBO = 128 bytes between neighbours along K, SBO = 256
 * bytes between neighbours along M or N). */
#include "tc/tc_probe.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "cuda_check.h"
#include "tc/tc_ptx.cuh"
#include "tc/tc_wgmma.cuh"

namespace {

/* Element (row, col) of the test's A (row 0 only) and (kk, col) of its B. */
template <typename T> struct test_view {
    const T *a, *b;
    __device__ T a_at(int row, int col) const { return row == 0 ? a[col] : T(0); }
    __device__ T b_at(int kk, int col) const { return col == 0 ? b[kk] : T(0); }
};

__device__ uint32_t pack_half2(float lo, float hi, enum tc_input fmt)
{
    uint16_t l, h;
    if (fmt == TC_IN_FP16) {
        l = __half_as_ushort(__float2half_rn(lo));
        h = __half_as_ushort(__float2half_rn(hi));
    } else {
        l = __bfloat16_as_ushort(__float2bfloat16_rn(lo));
        h = __bfloat16_as_ushort(__float2bfloat16_rn(hi));
    }
    return (uint32_t)l | ((uint32_t)h << 16);
}

__device__ uint32_t pack_s8x4(int8_t x0, int8_t x1, int8_t x2, int8_t x3)
{
    return (uint32_t)(uint8_t)x0 | ((uint32_t)(uint8_t)x1 << 8) | ((uint32_t)(uint8_t)x2 << 16) |
           ((uint32_t)(uint8_t)x3 << 24);
}

/* ---- mma.sync: one warp per test ---- */

__global__ void probe_mma_sync_16bit(enum tc_input fmt, int n_tests, const float *a, const float *b,
                                     const float *c, float *d)
{
    const int lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
    for (int t = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; t < n_tests;
         t += gridDim.x * (blockDim.x / 32)) {
        test_view<float> v = {a + t * 16, b + t * 16};
        uint32_t ra[4], rb[2];
        ra[0] = pack_half2(v.a_at(g, 2 * q), v.a_at(g, 2 * q + 1), fmt);
        ra[1] = pack_half2(v.a_at(g + 8, 2 * q), v.a_at(g + 8, 2 * q + 1), fmt);
        ra[2] = pack_half2(v.a_at(g, 2 * q + 8), v.a_at(g, 2 * q + 9), fmt);
        ra[3] = pack_half2(v.a_at(g + 8, 2 * q + 8), v.a_at(g + 8, 2 * q + 9), fmt);
        rb[0] = pack_half2(v.b_at(2 * q, g), v.b_at(2 * q + 1, g), fmt);
        rb[1] = pack_half2(v.b_at(2 * q + 8, g), v.b_at(2 * q + 9, g), fmt);
        float acc[4] = {lane == 0 ? c[t] : 0.0f, 0.0f, 0.0f, 0.0f};
        if (fmt == TC_IN_FP16)
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                         "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                         : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                         : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
        else
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, "
                         "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                         : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                         : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
        if (lane == 0)
            d[t] = acc[0];
    }
}

__global__ void probe_mma_sync_tf32(int n_tests, const float *a, const float *b, const float *c, float *d)
{
    const int lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
    for (int t = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; t < n_tests;
         t += gridDim.x * (blockDim.x / 32)) {
        test_view<float> v = {a + t * 8, b + t * 8};
        uint32_t ra[4] = {__float_as_uint(v.a_at(g, q)), __float_as_uint(v.a_at(g + 8, q)),
                          __float_as_uint(v.a_at(g, q + 4)), __float_as_uint(v.a_at(g + 8, q + 4))};
        uint32_t rb[2] = {__float_as_uint(v.b_at(q, g)), __float_as_uint(v.b_at(q + 4, g))};
        float acc[4] = {lane == 0 ? c[t] : 0.0f, 0.0f, 0.0f, 0.0f};
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, "
                     "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                     : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
        if (lane == 0)
            d[t] = acc[0];
    }
}

__global__ void probe_mma_sync_int8(int n_tests, const int8_t *a, const int8_t *b, const int32_t *c,
                                    int32_t *d)
{
    const int lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
    for (int t = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; t < n_tests;
         t += gridDim.x * (blockDim.x / 32)) {
        test_view<int8_t> v = {a + t * 32, b + t * 32};
        uint32_t ra[4], rb[2];
        for (int r = 0; r < 4; r++) {
            int row = g + (r & 1) * 8, col = 4 * q + (r >> 1) * 16;
            ra[r] = pack_s8x4(v.a_at(row, col), v.a_at(row, col + 1), v.a_at(row, col + 2), v.a_at(row, col + 3));
        }
        for (int r = 0; r < 2; r++) {
            int kk = 4 * q + r * 16;
            rb[r] = pack_s8x4(v.b_at(kk, g), v.b_at(kk + 1, g), v.b_at(kk + 2, g), v.b_at(kk + 3, g));
        }
        int32_t acc[4] = {lane == 0 ? c[t] : 0, 0, 0, 0};
        asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, "
                     "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+r"(acc[0]), "+r"(acc[1]), "+r"(acc[2]), "+r"(acc[3])
                     : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
        if (lane == 0)
            d[t] = acc[0];
    }
}

/* ---- wgmma: one warpgroup (one block of 128 threads) per test at a time ---- */

/* Byte offset of element (row, kk) in a K-major operand of 32 bytes per row
 * laid out as 8x16-byte core matrices: (row/8, kk-block) at (row/8*2 + kb)*128. */
__device__ int core_offset(int row, int kk_byte)
{
    return ((row / 8) * 2 + kk_byte / 16) * 128 + (row % 8) * 16 + kk_byte % 16;
}

template <typename Elem, typename Acc, typename Fill, typename Mma>
__device__ void probe_wgmma_loop(int n_tests, Fill fill, Mma mma, const Acc *c, Acc *d)
{
    __shared__ __align__(128) unsigned char sa[64 * 32];
    __shared__ __align__(128) unsigned char sb[8 * 32];
    const int tid = threadIdx.x;
    for (int t = blockIdx.x; t < n_tests; t += gridDim.x) {
        /* 64 rows of A and 8 of B, 32 bytes each: a thread per 16-byte half row. */
        for (int i = tid; i < (64 + 8) * 2; i += blockDim.x) {
            int row = i / 2, half = i % 2;
            bool is_a = row < 64;
            unsigned char *base = is_a ? sa : sb;
            int r = is_a ? row : row - 64;
            for (int e = 0; e < 16 / (int)sizeof(Elem); e++) {
                int kk = half * (16 / (int)sizeof(Elem)) + e;
                Elem v = fill(t, is_a, r, kk);
                *(Elem *)(base + core_offset(r, kk * (int)sizeof(Elem))) = v;
            }
        }
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        Acc acc[4] = {tid == 0 ? c[t] : Acc(0), Acc(0), Acc(0), Acc(0)};
        uint64_t da = tc_smem_desc(sa, 128, 256, 0), db = tc_smem_desc(sb, 128, 256, 0);
        tc_wgmma_fence();
        mma(acc, da, db);
        tc_wgmma_commit();
        tc_wgmma_wait<0>();
        if (tid == 0)
            d[t] = acc[0];
        __syncthreads();
    }
}

__global__ void probe_wgmma_16bit(enum tc_input fmt, int n_tests, const float *a, const float *b,
                                  const float *c, float *d)
{
    auto fill = [=](int t, bool is_a, int r, int kk) -> uint16_t {
        float x = r == 0 ? (is_a ? a[t * 16 + kk] : b[t * 16 + kk]) : 0.0f;
        return (uint16_t)(pack_half2(x, 0.0f, fmt) & 0xFFFF);
    };
    if (fmt == TC_IN_FP16)
        probe_wgmma_loop<uint16_t, float>(
            n_tests, fill,
            [](float(&acc)[4], uint64_t da, uint64_t db) { tc_wgmma_m64n8k16_f16(acc, da, db, 1); },
            c, d);
    else
        probe_wgmma_loop<uint16_t, float>(
            n_tests, fill,
            [](float(&acc)[4], uint64_t da, uint64_t db) { tc_wgmma_m64n8k16_bf16(acc, da, db, 1); },
            c, d);
}

__global__ void probe_wgmma_tf32(int n_tests, const float *a, const float *b, const float *c, float *d)
{
    auto fill = [=](int t, bool is_a, int r, int kk) -> uint32_t {
        return __float_as_uint(r == 0 ? (is_a ? a[t * 8 + kk] : b[t * 8 + kk]) : 0.0f);
    };
    probe_wgmma_loop<uint32_t, float>(
        n_tests, fill,
        [](float(&acc)[4], uint64_t da, uint64_t db) { tc_wgmma_m64n8k8_tf32(acc, da, db, 1); }, c,
        d);
}

__global__ void probe_wgmma_int8(int n_tests, const int8_t *a, const int8_t *b, const int32_t *c, int32_t *d)
{
    auto fill = [=](int t, bool is_a, int r, int kk) -> int8_t {
        return r == 0 ? (is_a ? a[t * 32 + kk] : b[t * 32 + kk]) : (int8_t)0;
    };
    probe_wgmma_loop<int8_t, int32_t>(
        n_tests, fill,
        [](int32_t(&acc)[4], uint64_t da, uint64_t db) { tc_wgmma_m64n8k32_s8(acc, da, db, 1); }, c,
        d);
}

int grid_for(int n_tests, int per_block)
{
    int blocks = (n_tests + per_block - 1) / per_block;
    return blocks < 1 ? 1 : blocks > 1024 ? 1024 : blocks;
}

/* Device copies of the test arrays, freed on every path out. */
struct buffers {
    struct mpb_cuda_env *env;
    void *p[4] = {nullptr, nullptr, nullptr, nullptr};
    ~buffers()
    {
        for (void *q : p)
            mpb_cuda_free(env, q);
    }
};

enum mpb_status upload(struct mpb_cuda_env *env, void **dev, const void *host, size_t bytes)
{
    enum mpb_status st = mpb_cuda_alloc(env, dev, bytes);
    return st == MPB_STATUS_OK && host ? mpb_cuda_upload(env, *dev, host, bytes) : st;
}

} // namespace

extern "C" enum mpb_status tc_probe_float(struct mpb_cuda_env *env, enum tc_probe_path path, enum tc_input fmt,
                                          int n_tests, const float *a, const float *b, const float *c, float *d)
{
    const size_t k = (size_t)tc_input_k(fmt), n = (size_t)n_tests;
    buffers buf{env};
    enum mpb_status st = upload(env, &buf.p[0], a, n * k * sizeof *a);
    if (st == MPB_STATUS_OK)
        st = upload(env, &buf.p[1], b, n * k * sizeof *b);
    if (st == MPB_STATUS_OK)
        st = upload(env, &buf.p[2], c, n * sizeof *c);
    if (st == MPB_STATUS_OK)
        st = upload(env, &buf.p[3], nullptr, n * sizeof *d);
    if (st != MPB_STATUS_OK)
        return st;
    const float *da = (const float *)buf.p[0], *db = (const float *)buf.p[1], *dc = (const float *)buf.p[2];
    float *dd = (float *)buf.p[3];
    cudaStream_t s = mpb_stream(env);
    if (path == TC_PATH_MMA_SYNC) {
        if (fmt == TC_IN_TF32)
            probe_mma_sync_tf32<<<grid_for(n_tests, 4), 128, 0, s>>>(n_tests, da, db, dc, dd);
        else
            probe_mma_sync_16bit<<<grid_for(n_tests, 4), 128, 0, s>>>(fmt, n_tests, da, db, dc, dd);
    } else {
        if (fmt == TC_IN_TF32)
            probe_wgmma_tf32<<<grid_for(n_tests, 1), 128, 0, s>>>(n_tests, da, db, dc, dd);
        else
            probe_wgmma_16bit<<<grid_for(n_tests, 1), 128, 0, s>>>(fmt, n_tests, da, db, dc, dd);
    }
    MPB_LAUNCH_CHECK(env);
    return mpb_cuda_download(env, d, dd, n * sizeof *d);
}

extern "C" enum mpb_status tc_probe_int8(struct mpb_cuda_env *env, enum tc_probe_path path, int n_tests,
                                         const int8_t *a, const int8_t *b, const int32_t *c, int32_t *d)
{
    const size_t n = (size_t)n_tests;
    buffers buf{env};
    enum mpb_status st = upload(env, &buf.p[0], a, n * 32);
    if (st == MPB_STATUS_OK)
        st = upload(env, &buf.p[1], b, n * 32);
    if (st == MPB_STATUS_OK)
        st = upload(env, &buf.p[2], c, n * sizeof *c);
    if (st == MPB_STATUS_OK)
        st = upload(env, &buf.p[3], nullptr, n * sizeof *d);
    if (st != MPB_STATUS_OK)
        return st;
    const int8_t *da = (const int8_t *)buf.p[0], *db = (const int8_t *)buf.p[1];
    const int32_t *dc = (const int32_t *)buf.p[2];
    int32_t *dd = (int32_t *)buf.p[3];
    cudaStream_t s = mpb_stream(env);
    if (path == TC_PATH_MMA_SYNC)
        probe_mma_sync_int8<<<grid_for(n_tests, 4), 128, 0, s>>>(n_tests, da, db, dc, dd);
    else
        probe_wgmma_int8<<<grid_for(n_tests, 1), 128, 0, s>>>(n_tests, da, db, dc, dd);
    MPB_LAUNCH_CHECK(env);
    return mpb_cuda_download(env, d, dd, n * sizeof *d);
}
