/* The GPU side of the cuBLASMp schemes: one process's part of a
 * distributed GEMM. setup joins the communicator (ncclCommInitRank, the id
 * from rank 0), makes the cuBLASMp handle on the env's stream, the grid and
 * the three matrix descriptors, and sizes the workspaces (cuBLASMp
 * documentation, "cublasMpGemm"); run is one cublasMpGemm, a collective
 * call that every rank makes. Every cuBLASMp and NCCL call is checked. */
#include "cublasmp/cublasmp.h"

#include <cublasmp.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mp_state {
    ncclComm_t comm;
    cublasMpHandle_t handle;
    cublasMpGrid_t grid;
    cublasMpMatrixDescriptor_t da, db, dc;
    cublasComputeType_t compute;
    const void *a, *b;
    void *c;
    int64_t m, n, k;
    void *d_work, *h_work;
    size_t d_work_bytes, h_work_bytes;
    int *bits;            /* mp_fp64emu: mantissa bits of the last call (device) */
    int nprow, npcol;
    int64_t block;
};

static enum mpb_status mp_fail(struct mpb_cuda_env *env, const char *call, const char *what, int code,
                               const char *file, int line)
{
    char text[512];
    snprintf(text, sizeof text, "%s: %s (%d)", call, what, code);
    return mpb_cuda_fail(env, text, file, line);
}

#define MP_TRY(env, call)                                                                          \
    do {                                                                                           \
        cublasMpStatus_t mp_st_ = (call);                                                          \
        if (mp_st_ != CUBLASMP_STATUS_SUCCESS)                                                     \
            return mp_fail((env), #call, cublasMpGetStatusString(mp_st_), (int)mp_st_, __FILE__,  \
                           __LINE__);                                                              \
    } while (0)

#define MP_NCCL_TRY(env, call)                                                                     \
    do {                                                                                           \
        ncclResult_t nccl_st_ = (call);                                                            \
        if (nccl_st_ != ncclSuccess)                                                               \
            return mp_fail((env), #call, ncclGetErrorString(nccl_st_), (int)nccl_st_, __FILE__,   \
                           __LINE__);                                                              \
    } while (0)

int mpb_mp_library_version(void)
{
    int version = 0;
    return cublasMpGetVersion(&version) == CUBLASMP_STATUS_SUCCESS ? version : 0;
}

enum mpb_status mpb_mp_new_comm_id(unsigned char id[128], char *why, size_t why_len)
{
    ncclUniqueId uid;
    _Static_assert(sizeof uid == 128, "ncclUniqueId is 128 bytes");
    ncclResult_t st = ncclGetUniqueId(&uid);
    if (st != ncclSuccess) {
        snprintf(why, why_len, "ncclGetUniqueId: %s", ncclGetErrorString(st));
        return MPB_STATUS_ERROR;
    }
    memcpy(id, &uid, sizeof uid);
    return MPB_STATUS_OK;
}

static void mp_teardown(struct mpb_cuda_env *env, void *state)
{
    struct mp_state *s = state;
    if (!s)
        return;
    /* The descriptors and the grid before the communicator they use. */
    cublasMpMatrixDescriptor_t descs[] = {s->da, s->db, s->dc};
    for (int i = 0; i < 3; i++)
        if (descs[i] && cublasMpMatrixDescriptorDestroy(descs[i]) != CUBLASMP_STATUS_SUCCESS)
            (void)mpb_cuda_fail(env, "cublasMpMatrixDescriptorDestroy failed", __FILE__, __LINE__);
    if (s->grid && cublasMpGridDestroy(s->grid) != CUBLASMP_STATUS_SUCCESS)
        (void)mpb_cuda_fail(env, "cublasMpGridDestroy failed", __FILE__, __LINE__);
    if (s->handle && cublasMpDestroy(s->handle) != CUBLASMP_STATUS_SUCCESS)
        (void)mpb_cuda_fail(env, "cublasMpDestroy failed", __FILE__, __LINE__);
    if (s->comm && ncclCommDestroy(s->comm) != ncclSuccess)
        (void)mpb_cuda_fail(env, "ncclCommDestroy failed", __FILE__, __LINE__);
    mpb_cuda_free(env, s->d_work);
    mpb_cuda_free(env, s->bits);
    free(s->h_work);
    free(s);
}

static enum mpb_status descriptor(struct mpb_cuda_env *env, const struct mp_state *s,
                                  const struct mpb_block_cyclic *d, cublasMpMatrixDescriptor_t *out)
{
    int64_t lld = mpb_bc_local_rows(d);
    MP_TRY(env, cublasMpMatrixDescriptorCreate(d->rows, d->cols, d->mb, d->nb, 0, 0, lld > 0 ? lld : 1,
                                               CUDA_R_64F, s->grid, out));
    return MPB_STATUS_OK;
}

static enum mpb_status workspaces(struct mpb_cuda_env *env, struct mp_state *s)
{
    const double one = 1.0, zero = 0.0;
    MP_TRY(env, cublasMpGemm_bufferSize(s->handle, CUBLAS_OP_N, CUBLAS_OP_N, s->m, s->n, s->k, &one,
                                        s->a, 1, 1, s->da, s->b, 1, 1, s->db, &zero, s->c, 1, 1, s->dc,
                                        s->compute, &s->d_work_bytes, &s->h_work_bytes));
    enum mpb_status st = mpb_cuda_alloc(env, &s->d_work, s->d_work_bytes ? s->d_work_bytes : 1);
    if (st != MPB_STATUS_OK)
        return st;
    s->h_work = malloc(s->h_work_bytes ? s->h_work_bytes : 1);
    if (!s->h_work)
        return mpb_cuda_fail(env, "out of host memory for cuBLASMp's host workspace", __FILE__, __LINE__);
    return MPB_STATUS_OK;
}

/* Everything but the emulation settings; the state is in *state from the
 * first allocation on, so that the caller's teardown frees a partial one. */
static enum mpb_status setup_common(struct mpb_cuda_env *env, const struct mpb_multi_part *part,
                                    const double *params, cublasComputeType_t compute,
                                    struct mp_state **state)
{
    struct mp_state *s = calloc(1, sizeof *s);
    *state = s;
    if (!s)
        return mpb_cuda_fail(env, "out of host memory for the scheme state", __FILE__, __LINE__);
    s->compute = compute;
    s->a = part->la;
    s->b = part->lb;
    s->c = part->lc;
    s->m = part->m;
    s->n = part->n;
    s->k = part->k;
    s->nprow = part->c.nprow;
    s->npcol = part->c.npcol;
    s->block = (int64_t)params[MPB_MP_BLOCK];
    ncclUniqueId uid;
    memcpy(&uid, part->comm_id, sizeof uid);
    MP_NCCL_TRY(env, ncclCommInitRank(&s->comm, part->ranks, uid, part->rank));
    MP_TRY(env, cublasMpCreate(&s->handle, (cudaStream_t)mpb_cuda_stream(env)));
    MP_TRY(env, cublasMpGridCreate(s->nprow, s->npcol, CUBLASMP_GRID_LAYOUT_COL_MAJOR, s->comm, &s->grid));
    enum mpb_status st = descriptor(env, s, &part->a, &s->da);
    if (st == MPB_STATUS_OK)
        st = descriptor(env, s, &part->b, &s->db);
    if (st == MPB_STATUS_OK)
        st = descriptor(env, s, &part->c, &s->dc);
    return st;
}

static enum mpb_status finish_setup(struct mpb_cuda_env *env, struct mp_state *s, enum mpb_status st,
                                    void **state)
{
    if (st == MPB_STATUS_OK)
        st = workspaces(env, s);
    if (st == MPB_STATUS_OK)
        st = mpb_cuda_sync(env);
    if (st != MPB_STATUS_OK) {
        mp_teardown(env, s);
        return st;
    }
    *state = s;
    return MPB_STATUS_OK;
}

enum mpb_status mpb_mp_dgemm_setup(struct mpb_cuda_env *env, const struct mpb_multi_part *part,
                                   const double *params, void **state)
{
    struct mp_state *s;
    *state = NULL;
    enum mpb_status st = setup_common(env, part, params, CUBLAS_COMPUTE_64F, &s);
    if (!s)
        return st;
    return finish_setup(env, s, st, state);
}

static enum mpb_status emulation_settings(struct mpb_cuda_env *env, struct mp_state *s, const double *params)
{
    static const cublasMpEmulationStrategy_t strategies[] = {
        CUBLASMP_EMULATION_STRATEGY_EAGER, CUBLASMP_EMULATION_STRATEGY_PERFORMANT,
        CUBLASMP_EMULATION_STRATEGY_DEFAULT};
    bool fixed = params[MPB_MP_MANTISSA] == 1;
    MP_TRY(env, cublasMpSetEmulationStrategy(s->handle, strategies[(int)params[MPB_MP_STRATEGY]]));
    MP_TRY(env, cublasMpSetFixedPointEmulationMantissaControl(
                    s->handle, fixed ? CUDA_EMULATION_MANTISSA_CONTROL_FIXED : CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC));
    MP_TRY(env, cublasMpSetFixedPointEmulationMaxMantissaBitCount(s->handle, (int)params[MPB_MP_MAX_BITS]));
    enum mpb_status st = mpb_cuda_alloc(env, (void **)&s->bits, sizeof *s->bits);
    /* −1 until the library writes a count: a call that ran native shows as −1. */
    if (st == MPB_STATUS_OK)
        st = mpb_cuda_memset(env, s->bits, 0xFF, sizeof *s->bits);
    if (st != MPB_STATUS_OK)
        return st;
    MP_TRY(env, cublasMpSetFixedPointEmulationMantissaBitCountPointer(s->handle, s->bits));
    return MPB_STATUS_OK;
}

enum mpb_status mpb_mp_fp64emu_setup(struct mpb_cuda_env *env, const struct mpb_multi_part *part,
                                     const double *params, void **state)
{
    *state = NULL;
    struct mp_state *s;
    enum mpb_status st = setup_common(env, part, params, CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT, &s);
    if (st == MPB_STATUS_OK)
        st = emulation_settings(env, s, params);
    if (!s)
        return st;
    return finish_setup(env, s, st, state);
}

static enum mpb_status mp_run(struct mpb_cuda_env *env, void *state, const struct mpb_gemm *g,
                              struct mpb_phase_clock *clock)
{
    (void)g;
    struct mp_state *s = state;
    const double one = 1.0, zero = 0.0;
    MP_TRY(env, cublasMpGemm(s->handle, CUBLAS_OP_N, CUBLAS_OP_N, s->m, s->n, s->k, &one, s->a, 1, 1, s->da,
                             s->b, 1, 1, s->db, &zero, s->c, 1, 1, s->dc, s->compute, s->d_work,
                             s->d_work_bytes, s->h_work, s->h_work_bytes));
    mpb_phase_mark(clock, MPB_PHASE_GEMM);
    return MPB_STATUS_OK;
}

static enum mpb_status mp_report(struct mpb_cuda_env *env, void *state, struct mpb_scheme_info *info)
{
    struct mp_state *s = state;
    int version = mpb_mp_library_version(), nccl = 0;
    MP_NCCL_TRY(env, ncclGetVersion(&nccl));
    char common[160];
    snprintf(common, sizeof common, "grid=%dx%d block=%lld cublasmp=%d.%d.%d nccl=%d.%d.%d workspace_mb=%zu",
             s->nprow, s->npcol, (long long)s->block, version / 1000, version % 1000 / 100, version % 100,
             nccl / 10000, nccl % 10000 / 100, nccl % 100, s->d_work_bytes >> 20);
    info->fallback = 0;
    if (!s->bits) {
        snprintf(info->settings, sizeof info->settings, "%s", common);
        return MPB_STATUS_OK;
    }
    cublasMpEmulationStrategy_t strategy;
    cudaEmulationMantissaControl_t control;
    int max_bits, bits;
    MP_TRY(env, cublasMpGetEmulationStrategy(s->handle, &strategy));
    MP_TRY(env, cublasMpGetFixedPointEmulationMantissaControl(s->handle, &control));
    MP_TRY(env, cublasMpGetFixedPointEmulationMaxMantissaBitCount(s->handle, &max_bits));
    enum mpb_status st = mpb_cuda_download(env, &bits, s->bits, sizeof bits);
    if (st != MPB_STATUS_OK)
        return st;
    static const char *const strategy_names[] = {"default", "performant", "eager"};
    snprintf(info->settings, sizeof info->settings, "strategy=%s mantissa=%s max_bits=%d %s",
             (unsigned)strategy < 3 ? strategy_names[strategy] : "?",
             control == CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC ? "dynamic" : "fixed", max_bits, common);
    info->slices = bits;
    info->fallback = bits < 0;
    if (bits < 0)
        snprintf(info->note, sizeof info->note, "cuBLASMp ran native FP64 (no mantissa bit count written)");
    else
        snprintf(info->note, sizeof info->note, "%d mantissa bits retained = %d INT8 slices", bits, (bits + 1 + 7) / 8);
    return MPB_STATUS_OK;
}

const struct mpb_scheme_cuda mpb_mp_calls = {
    .run = mp_run,
    .report = mp_report,
    .teardown = mp_teardown,
};
