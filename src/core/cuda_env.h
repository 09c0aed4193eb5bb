/* The CUDA side as seen from C: one device, one stream, one cuBLAS handle,
 * error capture, device memory, event timing and phase marks.
 * Implemented in src/core/cuda_env.cu. Every CUDA/cuBLAS call goes through
 * MPB_CUDA_TRY / MPB_CUBLAS_TRY (in cuda_check.h, for .cu files), which
 * record the failing call, file and line here and return MPB_STATUS_ERROR. */
#ifndef MPB_CUDA_ENV_H
#define MPB_CUDA_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include "gemm.h"
#include "mpb_energy.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct mpb_device_info {
    int ordinal;
    char name[256];
    int cc_major, cc_minor;
    int sm_count;
    size_t total_mem;
    int l2_bytes;
    int clock_khz;          /* max SM clock the driver reports (cudaDevAttrClockRate) */
    int mem_clock_khz;
    int mem_bus_width;
    int driver_version;     /* cudaDriverGetVersion, e.g. 13000 */
    int runtime_version;    /* cudaRuntimeGetVersion */
    int cublas_version;     /* cublasGetVersion, e.g. 130100 */
    char driver_string[64]; /* NVIDIA driver release, e.g. "580.159.04" (from /proc or NVML-free sources; "" when unknown) */
    char uuid[64];
};

/* Opaque: defined in cuda_env.cu. */
struct mpb_cuda_env;

/* Open device `ordinal`. On failure returns NULL and writes why into `why`
 * (no GPU, driver too old, …): the caller maps that to exit 77. */
struct mpb_cuda_env *mpb_cuda_open(int ordinal, char *why, size_t why_len);

/* How many CUDA devices this process sees; 0 with a reason when none (no
 * driver, no GPU). */
int mpb_cuda_device_count(char *why, size_t why_len);
void mpb_cuda_close(struct mpb_cuda_env *env);

const struct mpb_device_info *mpb_cuda_device(const struct mpb_cuda_env *env);

/* The last failure: "cudaMalloc(&p, bytes): out of memory (kernels/x.cu:12)". */
const char *mpb_cuda_last_error(const struct mpb_cuda_env *env);
/* True once a sticky error (illegal address, launch failure…) happened:
 * the context is unusable and the sweep must end. */
bool mpb_cuda_is_sticky(const struct mpb_cuda_env *env);
/* True when the last failure was an out-of-memory. */
bool mpb_cuda_last_was_oom(const struct mpb_cuda_env *env);

/* Record a failure (used by the TRY macros; also callable for scheme-level
 * failures with a free text). Always returns MPB_STATUS_ERROR. */
enum mpb_status mpb_cuda_fail(struct mpb_cuda_env *env, const char *what,
                              const char *file, int line);

/* Opaque handles for .cu code (void* so that C sees no CUDA types). */
void *mpb_cuda_stream(struct mpb_cuda_env *env);   /* cudaStream_t */
void *mpb_cuda_cublas(struct mpb_cuda_env *env);   /* cublasHandle_t, bound to the stream */

/* Device memory. */
enum mpb_status mpb_cuda_alloc(struct mpb_cuda_env *env, void **p, size_t bytes);
void mpb_cuda_free(struct mpb_cuda_env *env, void *p);
/* Free and total device memory (cudaMemGetInfo), for deciding before any
 * allocation whether a case fits. */
enum mpb_status mpb_cuda_mem_info(struct mpb_cuda_env *env, size_t *free_bytes, size_t *total_bytes);
enum mpb_status mpb_cuda_download(struct mpb_cuda_env *env, void *host, const void *dev, size_t bytes);
/* Page-locked host memory (cudaMallocHost), and a download only enqueued on
 * the env's stream (mpb_cuda_sync waits for it): a host buffer the DMA engine
 * fills while the CPU works on another. */
enum mpb_status mpb_cuda_host_alloc(struct mpb_cuda_env *env, void **p, size_t bytes);
void mpb_cuda_host_free(struct mpb_cuda_env *env, void *p);
enum mpb_status mpb_cuda_download_async(struct mpb_cuda_env *env, void *host, const void *dev, size_t bytes);
enum mpb_status mpb_cuda_upload(struct mpb_cuda_env *env, void *dev, const void *host, size_t bytes);
/* Fill with a byte pattern (poison outputs before a run: 0xFF = NaN). */
enum mpb_status mpb_cuda_memset(struct mpb_cuda_env *env, void *dev, int byte, size_t bytes);
enum mpb_status mpb_cuda_sync(struct mpb_cuda_env *env);

/* Phases of one instrumented call (DESIGN.md "Timing"). A scheme calls
 * mpb_phase_mark(clock, MPB_PHASE_X) when phase X has been enqueued; a NULL
 * clock makes it a no-op, so timed calls pay nothing. */
enum mpb_phase { MPB_PHASE_SPLIT = 0, MPB_PHASE_GEMM, MPB_PHASE_ACCUM, MPB_PHASE_COUNT };
struct mpb_phase_clock;
void mpb_phase_mark(struct mpb_phase_clock *clock, enum mpb_phase phase);

/* Times of `reps` calls of scheme->run after `warmup` untimed ones, and
 * after more untimed ones until `warmup_ms` ms have passed since the first
 * (0: none), events around each timed call; then one instrumented call for
 * the phases (ms, NaN for a phase the scheme never marked). `times_ms` has
 * `reps` entries. With `energy`, the energy of the timed calls over a window
 * of at least energy->min_ms (mpb_energy.h): untimed repeats after the
 * timed calls extend a shorter one, so the times are those of `reps` calls
 * either way. */
struct mpb_scheme_cuda;
enum mpb_status mpb_cuda_time(struct mpb_cuda_env *env, const struct mpb_scheme_cuda *ops,
                              void *state, const struct mpb_gemm *g, int warmup, int warmup_ms,
                              int reps, double *times_ms, double phase_ms[MPB_PHASE_COUNT],
                              struct mpb_energy *energy);

/* The CUDA runtime and cuBLAS versions this binary runs with (12080,
 * 130100, as cudaRuntimeGetVersion and cublasGetVersion give them); 0 for
 * one that cannot be read. Needs no GPU. */
void mpb_cuda_library_versions(int *runtime, int *cublas);

#ifdef __cplusplus
}
#endif

#endif
