/* The CUDA environment (cuda_env.h): device, stream, shared cuBLAS handle,
 * error capture, device memory and event timing. */
#include "cuda_env.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "scheme.h"

/* Marks one instrumented call may make; a scheme that loops over k blocks
 * marks each phase once per block. */
#define MPB_PHASE_MAX_MARKS 128

struct mpb_cuda_env {
    struct mpb_device_info info;
    cudaStream_t stream;
    cublasHandle_t cublas;
    char last_error[512];
    bool sticky;
    bool oom;
};

struct mpb_phase_clock {
    struct mpb_cuda_env *env;
    cudaEvent_t start;
    cudaEvent_t marks[MPB_PHASE_MAX_MARKS];
    enum mpb_phase phase[MPB_PHASE_MAX_MARKS];
    int n_marks;
    enum mpb_status status; /* first failure while marking */
};

/* ---- error capture ---------------------------------------------------- */

/* Errors after which the context is unusable: every later call returns the
 * same error (CUDA Runtime API, "Error Handling"; cudaError_t descriptions
 * say "the process must be terminated and relaunched"). */
static bool rt_error_is_sticky(cudaError_t err)
{
    switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorContextIsDestroyed:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorTensorMemoryLeak:
    case cudaErrorECCUncorrectable:
    case cudaErrorNvlinkUncorrectable:
    case cudaErrorContained:
    case cudaErrorExternalDevice:
    case cudaErrorUnknown: return true;
    default: return false;
    }
}

/* "../kernels/x.cu" as the build passes it → "kernels/x.cu". */
static const char *short_path(const char *file)
{
    while (strncmp(file, "../", 3) == 0 || strncmp(file, "./", 2) == 0)
        file += file[1] == '/' ? 2 : 3;
    return file;
}

/* Record a failure. Once the context is dead, the message of the error that
 * killed it is kept: later failures are its echoes. */
static enum mpb_status env_record(struct mpb_cuda_env *env, bool sticky, bool oom, const char *file,
                                  int line, const char *fmt, ...)
{
    if (env->sticky)
        return MPB_STATUS_ERROR;
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(env->last_error, sizeof env->last_error, fmt, ap);
    va_end(ap);
    if (len >= 0 && (size_t)len < sizeof env->last_error)
        snprintf(env->last_error + len, sizeof env->last_error - (size_t)len, " (%s:%d)",
                 short_path(file), line);
    env->sticky = sticky;
    env->oom = oom;
    return MPB_STATUS_ERROR;
}

/* The call as written, or "name(...)" when it is too long to read (a GEMM
 * with fifteen arguments). */
static void call_text(const char *call, char *buf, size_t len)
{
    size_t n = strlen(call);
    const char *paren = strchr(call, '(');
    if (n <= 80 || !paren)
        snprintf(buf, len, "%s", call);
    else
        snprintf(buf, len, "%.*s(...)", (int)(paren - call), call);
}

static enum mpb_status rt_fail(struct mpb_cuda_env *env, cudaError_t err, const char *call,
                               const char *file, int line, bool sticky)
{
    char text[128];
    call_text(call, text, sizeof text);
    /* A non-sticky error is also left as the thread's "last error"; clear it
     * so that the next launch check does not report it a second time. */
    if (!sticky)
        (void)cudaGetLastError();
    return env_record(env, sticky, err == cudaErrorMemoryAllocation, file, line, "%s: %s", text,
                      cudaGetErrorString(err));
}

enum mpb_status mpb_cuda_fail_rt(struct mpb_cuda_env *env, cudaError_t err, const char *call,
                                 const char *file, int line)
{
    return rt_fail(env, err, call, file, line, rt_error_is_sticky(err));
}

enum mpb_status mpb_cuda_fail_blas(struct mpb_cuda_env *env, cublasStatus_t st, const char *call,
                                   const char *file, int line)
{
    char text[128];
    call_text(call, text, sizeof text);
    /* cuBLAS reports its kernels' faults as EXECUTION_FAILED; whether the
     * context died shows at the next synchronisation (env_sync). */
    return env_record(env, false, st == CUBLAS_STATUS_ALLOC_FAILED, file, line, "%s: %s (%s)", text,
                      cublasGetStatusName(st), cublasGetStatusString(st));
}

extern "C" enum mpb_status mpb_cuda_fail(struct mpb_cuda_env *env, const char *what,
                                         const char *file, int line)
{
    return env_record(env, false, false, file, line, "%s", what);
}

/* A failure seen at a synchronisation comes from work already enqueued (a
 * kernel or library call that faulted): unless it is an out-of-memory, the
 * context cannot be trusted after it, whatever the code. */
static enum mpb_status env_sync(struct mpb_cuda_env *env, const char *file, int line)
{
    cudaError_t err = cudaStreamSynchronize(env->stream);
    if (err == cudaSuccess)
        return MPB_STATUS_OK;
    return rt_fail(env, err, "cudaStreamSynchronize(stream)", file, line,
                   err != cudaErrorMemoryAllocation);
}

extern "C" const char *mpb_cuda_last_error(const struct mpb_cuda_env *env)
{
    return env->last_error;
}

extern "C" bool mpb_cuda_is_sticky(const struct mpb_cuda_env *env)
{
    return env->sticky;
}

extern "C" bool mpb_cuda_last_was_oom(const struct mpb_cuda_env *env)
{
    return env->oom;
}

/* ---- device ----------------------------------------------------------- */

/* The NVIDIA driver release ("580.159.04"): the first token of the first
 * line of /proc/driver/nvidia/version that reads as digits and dots
 * ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Tue ..."). */
static void read_driver_release(char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f)
        return;
    char line[512];
    if (fgets(line, sizeof line, f)) {
        for (char *tok = strtok(line, " \t\n"); tok; tok = strtok(NULL, " \t\n")) {
            size_t digits = strspn(tok, "0123456789.");
            if (digits == strlen(tok) && tok[0] != '.' && strchr(tok, '.')) {
                snprintf(out, len, "%s", tok);
                break;
            }
        }
    }
    fclose(f);
}

static enum mpb_status device_info_fill(struct mpb_cuda_env *env, int ordinal)
{
    struct mpb_device_info *d = &env->info;
    cudaDeviceProp prop;
    MPB_CUDA_TRY(env, cudaGetDeviceProperties(&prop, ordinal));
    d->ordinal = ordinal;
    snprintf(d->name, sizeof d->name, "%s", prop.name);
    d->total_mem = prop.totalGlobalMem;
    const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
    snprintf(d->uuid, sizeof d->uuid,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
             u[15]);
    const struct {
        int *field;
        cudaDeviceAttr attr;
    } attrs[] = {
        {&d->cc_major, cudaDevAttrComputeCapabilityMajor},
        {&d->cc_minor, cudaDevAttrComputeCapabilityMinor},
        {&d->sm_count, cudaDevAttrMultiProcessorCount},
        {&d->l2_bytes, cudaDevAttrL2CacheSize},
        {&d->clock_khz, cudaDevAttrClockRate},
        {&d->mem_clock_khz, cudaDevAttrMemoryClockRate},
        {&d->mem_bus_width, cudaDevAttrGlobalMemoryBusWidth},
    };
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
        MPB_CUDA_TRY(env, cudaDeviceGetAttribute(attrs[i].field, attrs[i].attr, ordinal));
    MPB_CUDA_TRY(env, cudaDriverGetVersion(&d->driver_version));
    MPB_CUDA_TRY(env, cudaRuntimeGetVersion(&d->runtime_version));
    MPB_CUBLAS_TRY(env, cublasGetVersion(env->cublas, &d->cublas_version));
    read_driver_release(d->driver_string, sizeof d->driver_string);
    return MPB_STATUS_OK;
}

static enum mpb_status env_init(struct mpb_cuda_env *env, int ordinal)
{
    MPB_CUDA_TRY(env, cudaSetDevice(ordinal));
    MPB_CUDA_TRY(env, cudaStreamCreateWithFlags(&env->stream, cudaStreamNonBlocking));
    MPB_CUBLAS_TRY(env, cublasCreate(&env->cublas));
    MPB_CUBLAS_TRY(env, cublasSetStream(env->cublas, env->stream));
    /* Stated, not assumed: alpha/beta live on the host, and no tensor-op or
     * emulation math unless a scheme asks for it through its compute type. */
    MPB_CUBLAS_TRY(env, cublasSetPointerMode(env->cublas, CUBLAS_POINTER_MODE_HOST));
    MPB_CUBLAS_TRY(env, cublasSetMathMode(env->cublas, CUBLAS_DEFAULT_MATH));
    return device_info_fill(env, ordinal);
}

extern "C" int mpb_cuda_device_count(char *why, size_t why_len)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count); /* no env to record into: checked here */
    if (err != cudaSuccess) {
        snprintf(why, why_len, "no CUDA device: cudaGetDeviceCount: %s", cudaGetErrorString(err));
        (void)cudaGetLastError();
        return 0;
    }
    if (count == 0)
        snprintf(why, why_len, "no CUDA device: cudaGetDeviceCount found none");
    return count;
}

extern "C" struct mpb_cuda_env *mpb_cuda_open(int ordinal, char *why, size_t why_len)
{
    int count = 0;
    /* No env exists yet to record into: this one call is checked by hand. */
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        /* Without a loaded NVIDIA kernel module the runtime says its driver
         * is "insufficient"; say what is actually missing. */
        FILE *f = fopen("/proc/driver/nvidia/version", "r");
        bool no_module = err == cudaErrorInsufficientDriver && !f;
        if (f)
            fclose(f);
        snprintf(why, why_len, "no CUDA device: %scudaGetDeviceCount: %s",
                 no_module ? "no NVIDIA driver loaded; " : "", cudaGetErrorString(err));
        (void)cudaGetLastError();
        return NULL;
    }
    if (count == 0) {
        snprintf(why, why_len, "no CUDA device: cudaGetDeviceCount found none");
        return NULL;
    }
    if (ordinal < 0 || ordinal >= count) {
        snprintf(why, why_len, "no CUDA device %d: %d visible (0..%d)", ordinal, count, count - 1);
        return NULL;
    }
    struct mpb_cuda_env *env = (struct mpb_cuda_env *)calloc(1, sizeof *env);
    if (!env) {
        snprintf(why, why_len, "out of host memory opening CUDA device %d", ordinal);
        return NULL;
    }
    if (env_init(env, ordinal) != MPB_STATUS_OK) {
        snprintf(why, why_len, "CUDA device %d unusable: %s", ordinal, env->last_error);
        mpb_cuda_close(env);
        return NULL;
    }
    return env;
}

extern "C" void mpb_cuda_close(struct mpb_cuda_env *env)
{
    if (!env)
        return;
    if (env->cublas)
        MPB_CUBLAS_NOTE(env, cublasDestroy(env->cublas));
    if (env->stream)
        MPB_CUDA_NOTE(env, cudaStreamDestroy(env->stream));
    free(env);
}

extern "C" const struct mpb_device_info *mpb_cuda_device(const struct mpb_cuda_env *env)
{
    return &env->info;
}

extern "C" void *mpb_cuda_stream(struct mpb_cuda_env *env)
{
    return (void *)env->stream;
}

extern "C" void *mpb_cuda_cublas(struct mpb_cuda_env *env)
{
    return (void *)env->cublas;
}

/* ---- memory ----------------------------------------------------------- */

extern "C" enum mpb_status mpb_cuda_alloc(struct mpb_cuda_env *env, void **p, size_t bytes)
{
    *p = NULL;
    if (bytes == 0)
        return MPB_STATUS_OK;
    cudaError_t err = cudaMalloc(p, bytes);
    if (err != cudaSuccess) {
        char call[96];
        snprintf(call, sizeof call, "cudaMalloc(%zu bytes = %.3g GiB)", bytes,
                 (double)bytes / 1073741824.0);
        *p = NULL;
        return mpb_cuda_fail_rt(env, err, call, __FILE__, __LINE__);
    }
    return MPB_STATUS_OK;
}

extern "C" void mpb_cuda_free(struct mpb_cuda_env *env, void *p)
{
    if (p)
        MPB_CUDA_NOTE(env, cudaFree(p));
}

extern "C" enum mpb_status mpb_cuda_host_alloc(struct mpb_cuda_env *env, void **p, size_t bytes)
{
    *p = NULL;
    if (bytes == 0)
        return MPB_STATUS_OK;
    cudaError_t err = cudaMallocHost(p, bytes);
    if (err != cudaSuccess) {
        char call[96];
        snprintf(call, sizeof call, "cudaMallocHost(%zu bytes = %.3g GiB)", bytes,
                 (double)bytes / 1073741824.0);
        *p = NULL;
        return mpb_cuda_fail_rt(env, err, call, __FILE__, __LINE__);
    }
    return MPB_STATUS_OK;
}

extern "C" void mpb_cuda_host_free(struct mpb_cuda_env *env, void *p)
{
    if (p)
        MPB_CUDA_NOTE(env, cudaFreeHost(p));
}

extern "C" enum mpb_status mpb_cuda_mem_info(struct mpb_cuda_env *env, size_t *free_bytes,
                                             size_t *total_bytes)
{
    *free_bytes = *total_bytes = 0;
    MPB_CUDA_TRY(env, cudaMemGetInfo(free_bytes, total_bytes));
    return MPB_STATUS_OK;
}

extern "C" enum mpb_status mpb_cuda_upload(struct mpb_cuda_env *env, void *dev, const void *host,
                                           size_t bytes)
{
    if (bytes == 0)
        return MPB_STATUS_OK;
    MPB_CUDA_TRY(env, cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, env->stream));
    return env_sync(env, __FILE__, __LINE__);
}

extern "C" enum mpb_status mpb_cuda_download(struct mpb_cuda_env *env, void *host, const void *dev,
                                             size_t bytes)
{
    if (bytes == 0)
        return MPB_STATUS_OK;
    MPB_CUDA_TRY(env, cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, env->stream));
    return env_sync(env, __FILE__, __LINE__);
}

extern "C" enum mpb_status mpb_cuda_download_async(struct mpb_cuda_env *env, void *host,
                                                   const void *dev, size_t bytes)
{
    if (bytes == 0)
        return MPB_STATUS_OK;
    MPB_CUDA_TRY(env, cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, env->stream));
    return MPB_STATUS_OK;
}

extern "C" enum mpb_status mpb_cuda_memset(struct mpb_cuda_env *env, void *dev, int byte,
                                           size_t bytes)
{
    if (bytes == 0)
        return MPB_STATUS_OK;
    MPB_CUDA_TRY(env, cudaMemsetAsync(dev, byte, bytes, env->stream));
    return MPB_STATUS_OK;
}

extern "C" enum mpb_status mpb_cuda_sync(struct mpb_cuda_env *env)
{
    return env_sync(env, __FILE__, __LINE__);
}

/* ---- timing ----------------------------------------------------------- */

extern "C" void mpb_phase_mark(struct mpb_phase_clock *clock, enum mpb_phase phase)
{
    if (!clock || clock->status != MPB_STATUS_OK)
        return;
    if ((int)phase < 0 || phase >= MPB_PHASE_COUNT) {
        clock->status =
            mpb_cuda_fail(clock->env, "mpb_phase_mark: no such phase", __FILE__, __LINE__);
        return;
    }
    if (clock->n_marks == MPB_PHASE_MAX_MARKS) {
        char what[96];
        snprintf(what, sizeof what, "more than %d phase marks in one call (MPB_PHASE_MAX_MARKS)",
                 MPB_PHASE_MAX_MARKS);
        clock->status = mpb_cuda_fail(clock->env, what, __FILE__, __LINE__);
        return;
    }
    int i = clock->n_marks;
    cudaError_t err = cudaEventRecord(clock->marks[i], clock->env->stream);
    if (err != cudaSuccess) {
        clock->status =
            mpb_cuda_fail_rt(clock->env, err, "cudaEventRecord(mark, stream)", __FILE__, __LINE__);
        return;
    }
    clock->phase[i] = phase;
    clock->n_marks = i + 1;
}

/* The instrumented call: phase p gets the time from the mark before it (or
 * the start) to its own mark, summed over its marks. */
static enum mpb_status time_phases(struct mpb_cuda_env *env, const struct mpb_scheme_cuda *ops,
                                   void *state, const struct mpb_gemm *g,
                                   struct mpb_phase_clock *clock, double *phase_ms)
{
    clock->env = env;
    clock->n_marks = 0;
    clock->status = MPB_STATUS_OK;
    MPB_CUDA_TRY(env, cudaEventRecord(clock->start, env->stream));
    enum mpb_status st = ops->run(env, state, g, clock);
    if (st != MPB_STATUS_OK)
        return st;
    if (clock->status != MPB_STATUS_OK)
        return clock->status;
    st = env_sync(env, __FILE__, __LINE__);
    if (st != MPB_STATUS_OK)
        return st;
    cudaEvent_t prev = clock->start;
    for (int i = 0; i < clock->n_marks; i++) {
        float ms;
        MPB_CUDA_TRY(env, cudaEventElapsedTime(&ms, prev, clock->marks[i]));
        double *acc = &phase_ms[clock->phase[i]];
        *acc = isnan(*acc) ? ms : *acc + ms;
        prev = clock->marks[i];
    }
    return MPB_STATUS_OK;
}

/* Events exist before the first call; the timed loop only records them, and
 * the host waits once, after the last call (DESIGN.md "Timing"). */
static double host_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Untimed calls: `warmup` of them, then more, one at a time (waiting for
 * each), until `warmup_ms` ms have passed since the first. The second part
 * brings the GPU to the clock and power state of sustained work, which
 * under a power cap is not the state of the first calls (README
 * "Gating a driver upgrade"). */
static enum mpb_status warm_up(struct mpb_cuda_env *env, const struct mpb_scheme_cuda *ops,
                               void *state, const struct mpb_gemm *g, int warmup, int warmup_ms)
{
    double t0 = host_ms();
    for (int w = 0; w < warmup; w++) {
        enum mpb_status st = ops->run(env, state, g, NULL);
        if (st != MPB_STATUS_OK)
            return st;
    }
    /* A fault in the warm-up is reported as such, not as a timing failure. */
    enum mpb_status st = env_sync(env, __FILE__, __LINE__);
    while (st == MPB_STATUS_OK && host_ms() - t0 < warmup_ms) {
        st = ops->run(env, state, g, NULL);
        if (st == MPB_STATUS_OK)
            st = env_sync(env, __FILE__, __LINE__);
    }
    return st;
}

/* The timed calls: events around each, one wait after the last. */
static enum mpb_status timed_loop(struct mpb_cuda_env *env, const struct mpb_scheme_cuda *ops, void *state,
                                  const struct mpb_gemm *g, int reps, cudaEvent_t *ev)
{
    for (int r = 0; r < reps; r++) {
        MPB_CUDA_TRY(env, cudaEventRecord(ev[2 * r], env->stream));
        enum mpb_status st = ops->run(env, state, g, NULL);
        if (st != MPB_STATUS_OK)
            return st;
        MPB_CUDA_TRY(env, cudaEventRecord(ev[2 * r + 1], env->stream));
    }
    return env_sync(env, __FILE__, __LINE__);
}

/* The timed calls and their untimed repeats, as the energy window calls
 * them (mpb_energy.h). */
struct energy_calls {
    struct mpb_cuda_env *env;
    const struct mpb_scheme_cuda *ops;
    void *state;
    const struct mpb_gemm *g;
    int reps;
    cudaEvent_t *ev;
};

static enum mpb_status energy_timed(void *ctx)
{
    struct energy_calls *x = (struct energy_calls *)ctx;
    return timed_loop(x->env, x->ops, x->state, x->g, x->reps, x->ev);
}

static enum mpb_status energy_more(void *ctx, long n)
{
    struct energy_calls *x = (struct energy_calls *)ctx;
    for (long i = 0; i < n; i++) {
        enum mpb_status st = x->ops->run(x->env, x->state, x->g, NULL);
        if (st != MPB_STATUS_OK)
            return st;
    }
    return env_sync(x->env, __FILE__, __LINE__);
}

static enum mpb_status time_calls(struct mpb_cuda_env *env, const struct mpb_scheme_cuda *ops,
                                  void *state, const struct mpb_gemm *g, int warmup,
                                  int warmup_ms, int reps, cudaEvent_t *ev,
                                  struct mpb_phase_clock *clock, double *times_ms,
                                  double *phase_ms, struct mpb_energy *energy)
{
    for (int i = 0; i < 2 * reps; i++)
        MPB_CUDA_TRY(env, cudaEventCreate(&ev[i]));
    MPB_CUDA_TRY(env, cudaEventCreate(&clock->start));
    for (int i = 0; i < MPB_PHASE_MAX_MARKS; i++)
        MPB_CUDA_TRY(env, cudaEventCreate(&clock->marks[i]));
    enum mpb_status st = warm_up(env, ops, state, g, warmup, warmup_ms);
    if (st != MPB_STATUS_OK)
        return st;
    /* The warm-up ended with a wait: the window opens on the timed calls. */
    if (energy) {
        struct energy_calls x = {env, ops, state, g, reps, ev};
        struct mpb_energy_calls calls = {energy_timed, energy_more, &x, reps};
        st = mpb_energy_measure(env->info.uuid, &calls, energy);
    } else {
        st = timed_loop(env, ops, state, g, reps, ev);
    }
    if (st != MPB_STATUS_OK)
        return st;
    for (int r = 0; r < reps; r++) {
        float ms;
        MPB_CUDA_TRY(env, cudaEventElapsedTime(&ms, ev[2 * r], ev[2 * r + 1]));
        times_ms[r] = ms;
    }
    return time_phases(env, ops, state, g, clock, phase_ms);
}

extern "C" enum mpb_status mpb_cuda_time(struct mpb_cuda_env *env,
                                         const struct mpb_scheme_cuda *ops, void *state,
                                         const struct mpb_gemm *g, int warmup, int warmup_ms,
                                         int reps, double *times_ms,
                                         double phase_ms[MPB_PHASE_COUNT],
                                         struct mpb_energy *energy)
{
    for (int p = 0; p < MPB_PHASE_COUNT; p++)
        phase_ms[p] = NAN;
    if (energy)
        mpb_energy_clear(energy);
    if (reps < 0 || warmup < 0 || warmup_ms < 0)
        return mpb_cuda_fail(env, "mpb_cuda_time: negative warmup or reps", __FILE__, __LINE__);
    cudaEvent_t *ev = (cudaEvent_t *)calloc((size_t)reps * 2 + 1, sizeof *ev);
    struct mpb_phase_clock *clock = (struct mpb_phase_clock *)calloc(1, sizeof *clock);
    enum mpb_status st;
    if (ev && clock)
        st = time_calls(env, ops, state, g, warmup, warmup_ms, reps, ev, clock, times_ms,
                        phase_ms, energy);
    else
        st = mpb_cuda_fail(env, "out of host memory for timing events", __FILE__, __LINE__);
    for (int i = 0; ev && i < 2 * reps; i++)
        if (ev[i])
            MPB_CUDA_NOTE(env, cudaEventDestroy(ev[i]));
    for (int i = 0; clock && i < MPB_PHASE_MAX_MARKS; i++)
        if (clock->marks[i])
            MPB_CUDA_NOTE(env, cudaEventDestroy(clock->marks[i]));
    if (clock && clock->start)
        MPB_CUDA_NOTE(env, cudaEventDestroy(clock->start));
    free(ev);
    free(clock);
    return st;
}

extern "C" void mpb_cuda_library_versions(int *runtime, int *cublas)
{
    int major, minor, patch;
    if (cudaRuntimeGetVersion(runtime) != cudaSuccess)
        *runtime = 0;
    /* cublasGetProperty needs no handle, hence no GPU */
    if (cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS)
        *cublas = major * 10000 + minor * 100 + patch;
    else
        *cublas = 0;
}
