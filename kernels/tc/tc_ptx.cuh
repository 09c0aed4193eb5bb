/* Inline PTX for mpbench's Hopper tensor-core kernels (sm_90a): shared-memory
 * barriers, the bulk tensor copy (TMA), warpgroup MMA (wgmma) and register
 * reallocation. PTX ISA 8.x, "Asynchronous warpgroup level matrix multiply"
 * and "mbarrier" sections; nothing here computes, it only names instructions. */
#ifndef MPB_TC_PTX_CUH
#define MPB_TC_PTX_CUH

#include <stdint.h>

__device__ static inline uint32_t tc_smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* Stores to a shared-memory address (tc_smem_addr): STS, where a generic
 * pointer that the compiler cannot place in shared memory would give ST. */
__device__ static inline void tc_st_shared_u32(uint32_t addr, uint32_t v)
{
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}
__device__ static inline void tc_st_shared_u8(uint32_t addr, uint32_t v)
{
    asm volatile("st.shared.u8 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}

/* ---- mbarrier ---- */

__device__ static inline void tc_bar_init(uint64_t *bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(tc_smem_addr(bar)), "r"(count));
}

/* Make the initialised barriers visible to the copy engine (async proxy). */
__device__ static inline void tc_fence_barrier_init(void)
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

__device__ static inline void tc_bar_arrive(uint64_t *bar)
{
    asm volatile("{\n\t.reg .b64 state;\n\t"
                 "mbarrier.arrive.shared::cta.b64 state, [%0];\n\t}" ::"r"(tc_smem_addr(bar))
                 : "memory");
}

/* Arrive and announce `bytes` that the copy engine will complete on this barrier. */
__device__ static inline void tc_bar_arrive_expect_tx(uint64_t *bar, uint32_t bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(tc_smem_addr(bar)),
                 "r"(bytes)
                 : "memory");
}

/* Wait until the barrier's phase `parity` has completed. */
__device__ static inline void tc_bar_wait(uint64_t *bar, uint32_t parity)
{
    asm volatile("{\n\t.reg .pred done;\n"
                 "TC_WAIT_%=:\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
                 "@!done bra TC_WAIT_%=;\n\t}" ::"r"(tc_smem_addr(bar)),
                 "r"(parity)
                 : "memory");
}

/* ---- bulk tensor copy (TMA) ---- */

/* 2-D tile at element coordinates (c0 along the contiguous dimension, c1
 * along rows) of the tensor map into shared memory; completion counts
 * bytes on `bar`. Out-of-bounds elements arrive as zeros. */
__device__ static inline void tc_tma_load_2d(void *dst, const void *tensor_map, uint64_t *bar, int c0,
                                             int c1)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4}], [%2];" ::"r"(tc_smem_addr(dst)),
                 "l"((uint64_t)tensor_map), "r"(tc_smem_addr(bar)), "r"(c0), "r"(c1)
                 : "memory");
}

/* The same tile into shared memory at `dst` of every CTA of the cluster in
 * `cta_mask`, completing on the barrier at `bar`'s offset in each. */
__device__ static inline void tc_tma_load_2d_multicast(void *dst, const void *tensor_map, uint64_t *bar, int c0,
                                                       int c1, uint16_t cta_mask)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(tc_smem_addr(dst)),
                 "l"((uint64_t)tensor_map), "r"(tc_smem_addr(bar)), "r"(c0), "r"(c1), "h"(cta_mask)
                 : "memory");
}

/* 2-D tile from the shared-memory address `src` (tc_smem_addr) to the
 * tensor map's tensor at element coordinates (c0, c1); elements outside the
 * tensor are not written. The writing threads must have made `src` visible
 * to the async proxy (tc_fence_proxy_async) and synchronised before. */
__device__ static inline void tc_tma_store_2d(const void *tensor_map, uint32_t src, int c0, int c1)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                     (uint64_t)tensor_map),
                 "r"(src), "r"(c0), "r"(c1)
                 : "memory");
}

/* Closes the bulk group of this thread's stores issued so far. */
__device__ static inline void tc_bulk_commit(void)
{
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

/* Waits until at most N of this thread's bulk groups still read shared memory. */
template <int N> __device__ static inline void tc_bulk_wait_read(void)
{
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}

/* Waits until every bulk group of this thread has completed (its writes done). */
__device__ static inline void tc_bulk_wait_all(void)
{
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

/* Orders this thread's ordinary shared-memory writes before later reads by the async proxy (TMA). */
__device__ static inline void tc_fence_proxy_async(void)
{
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

__device__ static inline void tc_prefetch_tensor_map(const void *tensor_map)
{
    asm volatile("prefetch.tensormap [%0];" ::"l"((uint64_t)tensor_map) : "memory");
}

/* ---- clusters and named barriers ---- */

__device__ static inline uint32_t tc_cluster_rank(void)
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

/* Every thread of every CTA of the cluster arrives, then waits for all;
 * release/acquire order shared-memory accesses across the cluster. Not
 * .aligned: warps may arrive from divergent code. */
__device__ static inline void tc_cluster_sync(void)
{
    asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
}

/* Arrive on the barrier at `bar`'s offset in the shared memory of cluster
 * CTA `rank`. Release at CTA scope only: the arrival says that this CTA's
 * MMAs are done reading, nothing the peer reads was written (a cluster-scope
 * release costs a MEMBAR.ALL.GPU per stage: the first H200 profile). */
__device__ static inline void tc_bar_arrive_cluster(uint64_t *bar, uint32_t rank)
{
    asm volatile("{\n\t.reg .b32 remote;\n\t"
                 "mapa.shared::cluster.u32 remote, %0, %1;\n\t"
                 "mbarrier.arrive.shared::cluster.b64 _, [remote];\n\t}" ::"r"(tc_smem_addr(bar)),
                 "r"(rank)
                 : "memory");
}

/* bar.sync on barrier `id` (1..15; 0 is __syncthreads) among `threads` threads. */
__device__ static inline void tc_named_sync(uint32_t id, uint32_t threads)
{
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

/* ---- register reallocation between warpgroups (setmaxnreg) ---- */

template <int N> __device__ static inline void tc_regs_dealloc(void)
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N));
}
template <int N> __device__ static inline void tc_regs_alloc(void)
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N));
}

/* ---- wgmma ---- */

__device__ static inline void tc_wgmma_fence(void)
{
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ static inline void tc_wgmma_commit(void)
{
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N> __device__ static inline void tc_wgmma_wait(void)
{
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

/* Shared-memory matrix descriptor (PTX "Matrix Descriptor Format"): start
 * address, leading and stride byte offsets (all >> 4), swizzle mode in bits
 * 62-63 (1 = 128-byte, 2 = 64-byte, 3 = 32-byte, 0 = none). */
__device__ static inline uint64_t tc_smem_desc(const void *p, uint32_t lbo_bytes, uint32_t sbo_bytes,
                                               uint32_t swizzle_mode)
{
    uint64_t d = (uint64_t)((tc_smem_addr(p) & 0x3FFFF) >> 4);
    d |= (uint64_t)((lbo_bytes & 0x3FFFF) >> 4) << 16;
    d |= (uint64_t)((sbo_bytes & 0x3FFFF) >> 4) << 32;
    d |= (uint64_t)swizzle_mode << 62;
    return d;
}

/* The swizzle mode whose row is `row_bytes` long (K-major tiles whose rows
 * are exactly one swizzle span: 128, 64 or 32 bytes). */
__host__ __device__ constexpr uint32_t tc_swizzle_mode(int row_bytes)
{
    return row_bytes == 128 ? 1u : row_bytes == 64 ? 2u : 3u;
}

#endif
