/* Device fill: one grid-stride kernel over the column-major index, the
 * config passed by value (it is small and read by every thread), each
 * element from the shared element function (gen_element.h), so a device fill
 * equals the host fill bit for bit. Consecutive threads write consecutive
 * addresses (coalesced). The file generator has no element function: its
 * host fill is uploaded. */
#include "generators.h"

#include <stdlib.h>

#include "block_cyclic.h"
#include "gen_element.h"
#include "cuda_check.h"

__global__ void mpb_gen_fill_kernel(const struct mpb_gen_config cfg, enum mpb_operand which,
                                    void *dst, int64_t rows, int64_t total)
{
    int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= total)
        return;
    /* Step (r, c) by the grid stride instead of dividing per element. */
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    int64_t r = idx % rows, c = idx / rows;
    int64_t dr = stride % rows, dc = stride / rows;
    for (; idx < total; idx += stride) {
        mpb_gen_fill_element(&cfg, which, dst, idx, r, c);
        r += dr;
        c += dc;
        if (r >= rows) {
            r -= rows;
            c++;
        }
    }
}

/* One process's blocks (block_cyclic.h): thread per local element, its
 * global position found by the layout's index map. */
__global__ void mpb_gen_fill_cyclic_kernel(const struct mpb_gen_config cfg, enum mpb_operand which,
                                           const struct mpb_block_cyclic d, void *dst, int64_t rows,
                                           int64_t total)
{
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; idx < total; idx += stride) {
        int64_t r = idx % rows, c = idx / rows;
        mpb_gen_fill_element(&cfg, which, dst, idx, mpb_bc_global_row(&d, r), mpb_bc_global_col(&d, c));
    }
}

/* Blocks of 256 threads, enough resident blocks to cover every SM several
 * times over; more only repeats the per-thread setup. */
static unsigned fill_blocks(struct mpb_cuda_env *env, int64_t total, int threads)
{
    const struct mpb_device_info *dev = mpb_cuda_device(env);
    int64_t max_blocks = dev != NULL && dev->sm_count > 0 ? (int64_t)dev->sm_count * 64 : 8192;
    int64_t blocks = (total + threads - 1) / threads;
    return (unsigned)(blocks > max_blocks ? max_blocks : blocks);
}

enum mpb_status mpb_gen_fill_cuda_cyclic(struct mpb_cuda_env *env, const struct mpb_gen_config *cfg,
                                         enum mpb_operand which, const struct mpb_block_cyclic *d,
                                         void *dst)
{
    int64_t rows = mpb_bc_local_rows(d);
    int64_t total = rows * mpb_bc_local_cols(d);
    if (total <= 0)
        return MPB_STATUS_OK;
    const int threads = 256;
    mpb_gen_fill_cyclic_kernel<<<fill_blocks(env, total, threads), threads, 0, mpb_stream(env)>>>(
        *cfg, which, *d, dst, rows, total);
    MPB_LAUNCH_CHECK(env);
    return MPB_STATUS_OK;
}

/* The file generator's operand: the host fill, uploaded. */
static enum mpb_status fill_upload(struct mpb_cuda_env *env, const struct mpb_gen_config *cfg,
                                   enum mpb_operand which, void *dst, int64_t total)
{
    size_t bytes = (size_t)total * mpb_elem_size(cfg->target, cfg->field);
    void *host = malloc(bytes);
    if (!host)
        return MPB_STATUS_ERROR;
    mpb_gen_fill_host(cfg, which, host);
    enum mpb_status st = mpb_cuda_upload(env, dst, host, bytes);
    free(host);
    return st;
}

enum mpb_status mpb_gen_fill_cuda(struct mpb_cuda_env *env, const struct mpb_gen_config *cfg,
                                  enum mpb_operand which, void *dst)
{
    int64_t rows = mpb_gen_rows(cfg, which);
    int64_t total = rows * mpb_gen_cols(cfg, which);
    if (total <= 0)
        return MPB_STATUS_OK;
    if (cfg->kind == MPB_GEN_FILE)
        return fill_upload(env, cfg, which, dst, total);
    const int threads = 256;
    mpb_gen_fill_kernel<<<fill_blocks(env, total, threads), threads, 0, mpb_stream(env)>>>(
        *cfg, which, dst, rows, total);
    MPB_LAUNCH_CHECK(env);
    return MPB_STATUS_OK;
}
