/* CUDA backends of cuBLAS's emulation baselines (cublas_emu.h says what
 * they report). API: cuBLAS 13.1 documentation §1.5 "Floating Point
 * Emulation" and §2.4.26–2.4.37 (emulation helper functions); usage as in
 * NVIDIA's CUDALibrarySamples cuBLAS/Emulation/gemmEx_dynamic: cublasGemmEx
 * with the emulated compute type, every knob set on the handle. */
#include "cublas_emu/cublas_emu.h"

#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "common/cublas_util.h"

/* One handle per case, with its own workspace. */
struct mpb_emu_state {
    cublasHandle_t handle;
    void *workspace;
    size_t workspace_bytes;
    int *bits; /* device int: mantissa bits cuBLAS retained (fp64emu only) */
};

static const double one = 1.0, zero = 0.0;
static const float onef = 1.0f, zerof = 0.0f;

/* cuBLAS's defaults for max_bits = 0 (docs §1.5.3, "Default Library
 * Configurations"). */
#define MPB_FP64EMU_DEFAULT_BITS_DYNAMIC 79
#define MPB_FP64EMU_DEFAULT_BITS_FIXED 55

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* The safe upper bound of the fixed-point workspace, transcribed from docs
 * §1.5.2.4 "Fixed-Point Workspace Requirements" for a real, unbatched GEMM.
 * With less, cuBLAS allocates the rest with cudaMallocAsync inside the call
 * (§1.5.2.5), which the timed calls would then include. */
static size_t fixed_point_workspace_bytes(int64_t m, int64_t n, int64_t k, bool dynamic,
                                          int max_bits)
{
    int64_t slices = ceil_div(max_bits + 1, 8);
    int64_t max_splitk = ceil_div(k, 8192);
    int64_t pm = ceil_div(m, 1024) * 1024, pn = ceil_div(n, 1024) * 1024;
    int64_t pk = ceil_div(k, 128) * 128, blocks_k = ceil_div(k, 64);
    double gemm = (double)(pm * pk + pn * pk) * (double)slices + 4.0 * (double)(pm + pn);
    double acc = 4.0 * (double)pm * (double)pn * (double)slices;
    gemm += (acc < 0x1p32 ? acc : 0x1p32) * (double)max_splitk;
    double adp =
        dynamic ? 4.0 * ((double)m * blocks_k + (double)n * blocks_k + (double)m * n) : 0.0;
    return (size_t)((gemm > adp ? gemm : adp) * 1.25) + ((size_t)128 << 20);
}

/* The docs give no formula for BF16x9. An estimate: the three BF16 slices of
 * A and of B (6 bytes an element, docs §1.5.1) plus the 32 MiB that
 * cublasSetWorkspace's documentation recommends for Hopper and later. */
static size_t bf16x9_workspace_bytes(int64_t m, int64_t n, int64_t k)
{
    return (size_t)6 * (size_t)(m * k + k * n) + ((size_t)32 << 20);
}

static void emu_teardown(struct mpb_cuda_env *env, void *state)
{
    struct mpb_emu_state *s = (struct mpb_emu_state *)state;
    if (!s)
        return;
    /* The handle goes before the memory it points to. */
    if (s->handle)
        MPB_CUBLAS_NOTE(env, cublasDestroy(s->handle));
    mpb_cuda_free(env, s->workspace);
    mpb_cuda_free(env, s->bits);
    free(s);
}

/* A fresh handle on the env's stream: alpha/beta on the host, the default
 * math mode (emulation is asked for per call, by the compute type), the
 * strategy and the special-value handling stated, not inherited. */
static enum mpb_status handle_create(struct mpb_cuda_env *env, struct mpb_emu_state *s,
                                     cublasEmulationStrategy_t strategy)
{
    MPB_CUBLAS_TRY(env, cublasCreate(&s->handle));
    MPB_CUBLAS_TRY(env, cublasSetStream(s->handle, mpb_stream(env)));
    MPB_CUBLAS_TRY(env, cublasSetPointerMode(s->handle, CUBLAS_POINTER_MODE_HOST));
    MPB_CUBLAS_TRY(env, cublasSetMathMode(s->handle, CUBLAS_DEFAULT_MATH));
    MPB_CUBLAS_TRY(env, cublasSetEmulationStrategy(s->handle, strategy));
    MPB_CUBLAS_TRY(env, cublasSetEmulationSpecialValuesSupport(
                            s->handle, CUDA_EMULATION_SPECIAL_VALUES_SUPPORT_DEFAULT));
    return MPB_STATUS_OK;
}

static enum mpb_status workspace_set(struct mpb_cuda_env *env, struct mpb_emu_state *s,
                                     size_t bytes)
{
    enum mpb_status st = mpb_cuda_alloc(env, &s->workspace, bytes);
    if (st != MPB_STATUS_OK)
        return st;
    s->workspace_bytes = bytes;
    MPB_CUBLAS_TRY(env, cublasSetWorkspace(s->handle, s->workspace, bytes));
    return MPB_STATUS_OK;
}

typedef enum mpb_status (*mpb_emu_configure_fn)(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                                                const double *params, struct mpb_emu_state *s);

/* State, handle and workspace, everything settled before the first call;
 * on failure nothing is left behind (the caller does not tear down). */
static enum mpb_status emu_setup(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                                 const double *params, mpb_emu_configure_fn configure, void **state)
{
    *state = NULL;
    struct mpb_emu_state *s = (struct mpb_emu_state *)calloc(1, sizeof *s);
    if (!s)
        return mpb_cuda_fail(env, "out of host memory for the scheme state", __FILE__, __LINE__);
    enum mpb_status st = configure(env, g, params, s);
    if (st == MPB_STATUS_OK)
        st = mpb_cuda_sync(env);
    if (st != MPB_STATUS_OK) {
        emu_teardown(env, s);
        return st;
    }
    *state = s;
    return MPB_STATUS_OK;
}

static const char *strategy_name(cublasEmulationStrategy_t s)
{
    switch (s) {
    case CUBLAS_EMULATION_STRATEGY_DEFAULT: return "default";
    case CUBLAS_EMULATION_STRATEGY_PERFORMANT: return "performant";
    case CUBLAS_EMULATION_STRATEGY_EAGER: return "eager";
    default: return "unknown";
    }
}

/* The handle's strategy, special-value mask and math mode, read back. */
static enum mpb_status common_settings(struct mpb_cuda_env *env, const struct mpb_emu_state *s,
                                       char *buf, size_t len)
{
    cublasEmulationStrategy_t strategy;
    cudaEmulationSpecialValuesSupport special;
    cublasMath_t math;
    MPB_CUBLAS_TRY(env, cublasGetEmulationStrategy(s->handle, &strategy));
    MPB_CUBLAS_TRY(env, cublasGetEmulationSpecialValuesSupport(s->handle, &special));
    MPB_CUBLAS_TRY(env, cublasGetMathMode(s->handle, &math));
    snprintf(buf, len, "strategy=%s special_values=0x%x math_mode=%s workspace_mb=%.0f",
             strategy_name(strategy), (unsigned)special, mpb_cublas_math_mode_name(math),
             (double)s->workspace_bytes / 1048576.0);
    return MPB_STATUS_OK;
}

/* ---- cublas_fp64emu --------------------------------------------------- */

static cublasEmulationStrategy_t strategy_of(double choice)
{
    switch ((int)choice) {
    case MPB_FP64EMU_PERFORMANT: return CUBLAS_EMULATION_STRATEGY_PERFORMANT;
    case MPB_FP64EMU_DEFAULT: return CUBLAS_EMULATION_STRATEGY_DEFAULT;
    default: return CUBLAS_EMULATION_STRATEGY_EAGER;
    }
}

/* The most mantissa bits a call may retain: fixed control keeps exactly
 * max_bits, dynamic control runs native FP64 when its choice exceeds it
 * (docs §1.5.2.1); 0 stands for cuBLAS's default. */
static int bits_limit(bool dynamic, int max_bits)
{
    if (max_bits)
        return max_bits;
    return dynamic ? MPB_FP64EMU_DEFAULT_BITS_DYNAMIC : MPB_FP64EMU_DEFAULT_BITS_FIXED;
}

static enum mpb_status fp64emu_configure(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                                         const double *params, struct mpb_emu_state *s)
{
    bool dynamic = params[MPB_FP64EMU_MANTISSA] == MPB_FP64EMU_DYNAMIC;
    int max_bits = (int)params[MPB_FP64EMU_MAX_BITS];
    enum mpb_status st = handle_create(env, s, strategy_of(params[MPB_FP64EMU_STRATEGY]));
    if (st != MPB_STATUS_OK)
        return st;
    MPB_CUBLAS_TRY(env, cublasSetFixedPointEmulationMantissaControl(
                            s->handle, dynamic ? CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC
                                               : CUDA_EMULATION_MANTISSA_CONTROL_FIXED));
    /* 0 restores cuBLAS's default for the mantissa control in force. */
    MPB_CUBLAS_TRY(env, cublasSetFixedPointEmulationMaxMantissaBitCount(s->handle, max_bits));
    MPB_CUBLAS_TRY(env, cublasSetFixedPointEmulationMantissaBitOffset(
                            s->handle, (int)params[MPB_FP64EMU_BIT_OFFSET]));
    /* Complex: the docs give the real formula only; it is taken at twice
     * each dimension, room for any real embedding of the complex product. */
    int64_t x = g->field == MPB_FIELD_COMPLEX ? 2 : 1;
    st = workspace_set(env, s,
                       fixed_point_workspace_bytes(x * g->m, x * g->n, x * g->k, dynamic,
                                                   bits_limit(dynamic, max_bits)));
    if (st == MPB_STATUS_OK)
        st = mpb_cuda_alloc(env, (void **)&s->bits, sizeof *s->bits);
    /* −1 until cuBLAS writes a count: a call that ran native shows as −1. */
    if (st == MPB_STATUS_OK)
        st = mpb_cuda_memset(env, s->bits, 0xFF, sizeof *s->bits);
    if (st != MPB_STATUS_OK)
        return st;
    MPB_CUBLAS_TRY(env, cublasSetFixedPointEmulationMantissaBitCountPointer(s->handle, s->bits));
    return MPB_STATUS_OK;
}

static enum mpb_status fp64emu_setup(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                                     const double *params, void **state)
{
    char why[256];
    *state = NULL;
    if (!mpb_cublas_fp64emu_check(params, g, mpb_cuda_device(env), why, sizeof why))
        return mpb_cuda_fail(env, why, __FILE__, __LINE__);
    return emu_setup(env, g, params, fp64emu_configure, state);
}

static enum mpb_status fp64emu_run(struct mpb_cuda_env *env, void *state, const struct mpb_gemm *g,
                                   struct mpb_phase_clock *clock)
{
    const struct mpb_emu_state *s = (const struct mpb_emu_state *)state;
    int m = (int)g->m, n = (int)g->n, k = (int)g->k;
    MPB_CUBLAS_TRY(env, cublasGemmEx(s->handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, g->a,
                                     CUDA_R_64F, m, g->b, CUDA_R_64F, k, &zero, g->c, CUDA_R_64F, m,
                                     CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT, CUBLAS_GEMM_DEFAULT));
    mpb_phase_mark(clock, MPB_PHASE_GEMM);
    return MPB_STATUS_OK;
}

static enum mpb_status fp64emu_report(struct mpb_cuda_env *env, void *state,
                                      struct mpb_scheme_info *info)
{
    const struct mpb_emu_state *s = (const struct mpb_emu_state *)state;
    cudaEmulationMantissaControl control;
    int max_bits, offset, bits;
    char common[160];
    MPB_CUBLAS_TRY(env, cublasGetFixedPointEmulationMantissaControl(s->handle, &control));
    MPB_CUBLAS_TRY(env, cublasGetFixedPointEmulationMaxMantissaBitCount(s->handle, &max_bits));
    MPB_CUBLAS_TRY(env, cublasGetFixedPointEmulationMantissaBitOffset(s->handle, &offset));
    enum mpb_status st = common_settings(env, s, common, sizeof common);
    if (st == MPB_STATUS_OK)
        st = mpb_cuda_download(env, &bits, s->bits, sizeof bits);
    if (st != MPB_STATUS_OK)
        return st;
    bool dynamic = control == CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC;
    snprintf(info->settings, sizeof info->settings, "mantissa=%s max_bits=%d bit_offset=%d %s",
             dynamic ? "dynamic" : "fixed", max_bits, offset, common);
    /* Native FP64 shows two ways. A call that runs native (strategy
     * performant or default on a GPU where emulation does not pay) writes no
     * count, leaving setup's −1. Dynamic control whose choice exceeds the
     * maximum writes its choice and runs native (docs §1.5.2.1; on H200,
     * cuBLAS 13.1.0, the result then equals cublasDgemm's bit for bit). */
    int limit = bits_limit(dynamic, max_bits);
    bool native = bits < 0 || (dynamic && bits > limit);
    info->slices = native ? -1 : bits;
    info->fallback = native;
    if (bits < 0)
        snprintf(info->note, sizeof info->note,
                 "cuBLAS ran native FP64 (no mantissa bit count written)");
    else if (native)
        snprintf(
            info->note, sizeof info->note,
            "cuBLAS ran native FP64: the dynamic choice, %d mantissa bits, exceeds the maximum %d",
            bits, limit);
    else
        snprintf(info->note, sizeof info->note, "%d mantissa bits retained = %d INT8 slices", bits,
                 (bits + 1 + 7) / 8);
    mpb_cublas_env_note(info->note, sizeof info->note);
    return MPB_STATUS_OK;
}

/* ---- cublas_zfp64emu -------------------------------------------------- */

static const cuDoubleComplex zone = {1.0, 0.0}, zzero = {0.0, 0.0};

static cublasStatus_t zfp64emu_call(const struct mpb_emu_state *s, const struct mpb_gemm *g)
{
    int m = (int)g->m, n = (int)g->n, k = (int)g->k;
    return cublasGemmEx(s->handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &zone, g->a, CUDA_C_64F, m, g->b,
                        CUDA_C_64F, k, &zzero, g->c, CUDA_C_64F, m, CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT,
                        CUBLAS_GEMM_DEFAULT);
}

/* As cublas_fp64emu, then one untimed call: the documentation (§1.5) does
 * not say whether the fixed-point compute type takes complex data, so the
 * library is asked, and a refusal is this case's not_supported, named. */
static enum mpb_status zfp64emu_setup(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                                      const double *params, void **state)
{
    enum mpb_status st = fp64emu_setup(env, g, params, state);
    if (st != MPB_STATUS_OK)
        return st;
    cublasStatus_t cs = zfp64emu_call((const struct mpb_emu_state *)*state, g);
    if (cs == CUBLAS_STATUS_SUCCESS)
        return mpb_cuda_sync(env);
    emu_teardown(env, *state);
    *state = NULL;
    int runtime, version;
    mpb_cuda_library_versions(&runtime, &version);
    char why[224];
    snprintf(why, sizeof why,
             "cuBLAS %d: cublasGemmEx with CUDA_C_64F and CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT returns %s",
             version, cublasGetStatusName(cs));
    mpb_cuda_fail(env, why, __FILE__, __LINE__);
    return cs == CUBLAS_STATUS_NOT_SUPPORTED || cs == CUBLAS_STATUS_INVALID_VALUE ? MPB_STATUS_NOT_SUPPORTED
                                                                                 : MPB_STATUS_ERROR;
}

static enum mpb_status zfp64emu_run(struct mpb_cuda_env *env, void *state, const struct mpb_gemm *g,
                                    struct mpb_phase_clock *clock)
{
    MPB_CUBLAS_TRY(env, zfp64emu_call((const struct mpb_emu_state *)state, g));
    mpb_phase_mark(clock, MPB_PHASE_GEMM);
    return MPB_STATUS_OK;
}

/* ---- cublas_bf16x9 ---------------------------------------------------- */

static enum mpb_status bf16x9_configure(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                                        const double *params, struct mpb_emu_state *s)
{
    (void)params;
    enum mpb_status st = handle_create(env, s, CUBLAS_EMULATION_STRATEGY_EAGER);
    if (st != MPB_STATUS_OK)
        return st;
    return workspace_set(env, s, bf16x9_workspace_bytes(g->m, g->n, g->k));
}

static enum mpb_status bf16x9_setup(struct mpb_cuda_env *env, const struct mpb_gemm *g,
                                    const double *params, void **state)
{
    char why[256];
    *state = NULL;
    if (!mpb_cublas_int_dims(g, "cublasGemmEx", why, sizeof why))
        return mpb_cuda_fail(env, why, __FILE__, __LINE__);
    return emu_setup(env, g, params, bf16x9_configure, state);
}

static enum mpb_status bf16x9_run(struct mpb_cuda_env *env, void *state, const struct mpb_gemm *g,
                                  struct mpb_phase_clock *clock)
{
    const struct mpb_emu_state *s = (const struct mpb_emu_state *)state;
    int m = (int)g->m, n = (int)g->n, k = (int)g->k;
    MPB_CUBLAS_TRY(env, cublasGemmEx(s->handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &onef, g->a,
                                     CUDA_R_32F, m, g->b, CUDA_R_32F, k, &zerof, g->c, CUDA_R_32F,
                                     m, CUBLAS_COMPUTE_32F_EMULATED_16BFX9, CUBLAS_GEMM_DEFAULT));
    mpb_phase_mark(clock, MPB_PHASE_GEMM);
    return MPB_STATUS_OK;
}

/* cuBLAS has no read-back of what BF16x9 did; the docs' support table (§1.5:
 * compute capability 10.0 and 10.3) is all there is to go on. */
static enum mpb_status bf16x9_report(struct mpb_cuda_env *env, void *state,
                                     struct mpb_scheme_info *info)
{
    const struct mpb_emu_state *s = (const struct mpb_emu_state *)state;
    const struct mpb_device_info *dev = mpb_cuda_device(env);
    enum mpb_status st = common_settings(env, s, info->settings, sizeof info->settings);
    if (st != MPB_STATUS_OK)
        return st;
    if (dev->cc_major == 10) {
        info->fallback = -1;
        snprintf(
            info->note, sizeof info->note,
            "cuBLAS does not report whether BF16x9 ran; eager strategy on compute capability %d.%d",
            dev->cc_major, dev->cc_minor);
    } else {
        info->fallback = 1;
        snprintf(
            info->note, sizeof info->note,
            "native FP32: cuBLAS emulates BF16x9 on compute capability 10.x only, this is %d.%d",
            dev->cc_major, dev->cc_minor);
    }
    mpb_cublas_env_note(info->note, sizeof info->note);
    return MPB_STATUS_OK;
}

extern "C" const struct mpb_scheme_cuda mpb_cublas_fp64emu_cuda = {fp64emu_setup, fp64emu_run,
                                                                   fp64emu_report, emu_teardown};
extern "C" const struct mpb_scheme_cuda mpb_cublas_zfp64emu_cuda = {zfp64emu_setup, zfp64emu_run,
                                                                    fp64emu_report, emu_teardown};
extern "C" const struct mpb_scheme_cuda mpb_cublas_bf16x9_cuda = {bf16x9_setup, bf16x9_run,
                                                                  bf16x9_report, emu_teardown};
