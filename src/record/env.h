/* The environment a measurement is made in: GPUs, driver, CUDA runtime and
 * cuBLAS, MPFR and GMP, the build, the host. One gatherer, two renderings:
 * `key: value` lines here (`mpbench env`, and the header `run` and `grade`
 * print when they write a CSV, as MAGMA's testers print theirs) and the
 * members of the meta.json sidecar (record/meta.c). */
#ifndef MPB_ENV_H
#define MPB_ENV_H

#include <stdbool.h>
#include <stdio.h>

#include "cuda_env.h"
#include "mpb_nvml.h"

#define MPB_ENV_MAX_GPUS 64
/* What every file is compiled with that changes numerics (meson.build). */
#define MPB_BUILD_FLAGS "-ffp-contract=off, nvcc -fmad=false"

struct mpb_env_gpu {
    bool have_cuda;              /* a GPU the caller opened: CUDA's view of it */
    struct mpb_device_info cuda;
    bool have_nvml;              /* NVML's view: clocks, power, state */
    struct mpb_nvml_gpu nvml;
};

struct mpb_env {
    char hostname[256], os[400], cpu[256];
    long cpus;
    long long mem_bytes;
    bool nvml;                   /* false: no NVIDIA driver, nvml_why says why */
    char nvml_why[256];
    char driver[96];             /* the driver release, "" when unknown */
    int cuda_runtime, cublas;    /* as mpb_cuda_library_versions gives them */
    int n_gpus;
    struct mpb_env_gpu gpus[MPB_ENV_MAX_GPUS];
};

/* Gather it now. `devs`: the n GPUs the caller opened (CUDA's view, NVML's
 * added by UUID); with n = 0, every GPU NVML sees. */
void mpb_env_gather(struct mpb_env *e, const struct mpb_device_info *devs, int n);

/* `key: value` lines, each after `prefix` ("# " for a header). */
void mpb_env_print(FILE *f, const struct mpb_env *e, const char *prefix);

/* The header `run` and `grade` print before their first case when they
 * write a CSV: the lines of mpb_env_print after "# ", for the GPU `dev`
 * (NULL: every GPU NVML sees). */
void mpb_env_header(FILE *f, const struct mpb_device_info *dev);

/* The build's description: buildtype, sanitizers, compilers, flags. */
void mpb_env_build(char *buf, size_t len);

#endif
