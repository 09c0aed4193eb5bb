/* Descriptor parts of the cuBLASMp schemes: parameters, check(), the grid,
 * and the ops table, whose GPU entries exist only in a build with
 * cuBLASMp (MPB_HAVE_CUBLASMP, meson -Dcublasmp=enabled). */
#include "cublasmp/cublasmp.h"

#include <stdio.h>

static const char *const strategy_choices[] = {"eager", "performant", "default", NULL};
static const char *const mantissa_choices[] = {"dynamic", "fixed", NULL};

#define MP_COMMON_PARAMS                                                                          \
    [MPB_MP_GPUS] = {.name = "gpus", .kind = MPB_PARAM_INT, .def = "1", .lo = 1, .hi = 64,        \
                     .help = "GPUs (one process each) that share the GEMM: GPUs 0..gpus-1 of "   \
                             "the process (CUDA_VISIBLE_DEVICES applies)"},                       \
    [MPB_MP_BLOCK] = {.name = "block", .kind = MPB_PARAM_INT, .def = "1024", .lo = 1,             \
                      .hi = 1 << 20,                                                              \
                      .help = "rows and columns of a block of the 2-D block-cyclic distribution"}, \
    [MPB_MP_PROWS] = {.name = "prows", .kind = MPB_PARAM_INT, .def = "0", .lo = 0, .hi = 64,       \
                      .help = "rows of the process grid, a divisor of gpus; 0 = the squarest "    \
                              "grid (prows <= gpus/prows)"}

const struct mpb_param_spec mpb_mp_dgemm_params[] = {MP_COMMON_PARAMS};

const struct mpb_param_spec mpb_mp_fp64emu_params[] = {
    MP_COMMON_PARAMS,
    [MPB_MP_STRATEGY] = {.name = "strategy", .kind = MPB_PARAM_CHOICE, .def = "eager",
                         .choices = strategy_choices,
                         .help = "cublasMpSetEmulationStrategy: eager = emulate whenever possible; "
                                 "performant/default may run native FP64"},
    [MPB_MP_MANTISSA] = {.name = "mantissa", .kind = MPB_PARAM_CHOICE, .def = "dynamic",
                         .choices = mantissa_choices,
                         .help = "cublasMpSetFixedPointEmulationMantissaControl: dynamic = bits "
                                 "chosen per call; fixed = max_bits always"},
    [MPB_MP_MAX_BITS] = {.name = "max_bits", .kind = MPB_PARAM_INT, .def = "0", .lo = 0, .hi = 255,
                         .help = "cublasMpSetFixedPointEmulationMaxMantissaBitCount; 0 = the "
                                 "library's default"},
};

void mpb_mp_grid(int gpus, int prows, int *nprow, int *npcol)
{
    int rows = prows;
    if (rows == 0)
        for (int d = 1; d * d <= gpus; d++)
            if (gpus % d == 0)
                rows = d;
    *nprow = rows;
    *npcol = gpus / rows;
}

static void layout(const double *params, int *nprow, int *npcol, int64_t *block)
{
    mpb_mp_grid((int)params[MPB_MP_GPUS], (int)params[MPB_MP_PROWS], nprow, npcol);
    *block = (int64_t)params[MPB_MP_BLOCK];
}

/* What both schemes ask of a case, on either backend. */
static bool check_common(const double *params, char *why, size_t why_len)
{
    int gpus = (int)params[MPB_MP_GPUS], prows = (int)params[MPB_MP_PROWS];
    if (prows != 0 && gpus % prows != 0) {
        snprintf(why, why_len, "prows=%d does not divide gpus=%d", prows, gpus);
        return false;
    }
    return true;
}

/* The GPU side: cuBLASMp linked in. */
static bool check_library(char *why, size_t why_len, int need_version)
{
#ifdef MPB_HAVE_CUBLASMP
    int version = mpb_mp_library_version();
    if (version < need_version) {
        snprintf(why, why_len, "cuBLASMp %d.%d.%d has no FP64 emulation (added in 0.9.0)",
                 version / 1000, version % 1000 / 100, version % 100);
        return false;
    }
    return true;
#else
    (void)need_version;
    snprintf(why, why_len, "mpbench was built without cuBLASMp (meson setup -Dcublasmp=enabled; "
                           "README \"Building with cuBLASMp\")");
    return false;
#endif
}

bool mpb_mp_dgemm_check(const double *params, const struct mpb_gemm *g,
                        const struct mpb_device_info *dev, char *why, size_t why_len)
{
    (void)g;
    return check_common(params, why, why_len) && (!dev || check_library(why, why_len, 0));
}

bool mpb_mp_fp64emu_check(const double *params, const struct mpb_gemm *g,
                          const struct mpb_device_info *dev, char *why, size_t why_len)
{
    (void)g;
    if (!check_common(params, why, why_len))
        return false;
    if (!dev) {
        snprintf(why, why_len, "no host model (cuBLASMp's emulation runs on the GPU only)");
        return false;
    }
    return check_library(why, why_len, 900);
}

#ifdef MPB_HAVE_CUBLASMP
#define MP_GPU(x) x
#else
#define MP_GPU(x) NULL
#endif

const struct mpb_scheme_multi mpb_mp_dgemm_multi = {
    .layout = layout,
    .new_comm_id = MP_GPU(mpb_mp_new_comm_id),
    .setup = MP_GPU(mpb_mp_dgemm_setup),
    .calls = MP_GPU(&mpb_mp_calls),
    .run_host = mpb_mp_dgemm_host,
};

const struct mpb_scheme_multi mpb_mp_fp64emu_multi = {
    .layout = layout,
    .new_comm_id = MP_GPU(mpb_mp_new_comm_id),
    .setup = MP_GPU(mpb_mp_fp64emu_setup),
    .calls = MP_GPU(&mpb_mp_calls),
};
