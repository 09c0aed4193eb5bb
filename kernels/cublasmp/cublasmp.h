/* Distributed GEMM through NVIDIA's cuBLASMp: one GEMM over
 * several GPUs, A, B and C 2-D block-cyclic over an nprow×npcol grid, one
 * process per GPU joined by an NCCL communicator (cublasMpGemm, the PBLAS
 * PDGEMM of cuBLASMp's documentation).
 *   mp_dgemm    native FP64 (CUBLAS_COMPUTE_64F); host model: every part's
 *               C from the fma loop of dgemm's host model (host_gemm.c),
 *               so a host run spread over any grid gives dgemm's bits
 *   mp_fp64emu  cuBLASMp's FP64 fixed-point emulation (cuBLASMp ≥ 0.9:
 *               CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT with the handle's
 *               strategy and mantissa control, as cublas_fp64emu); no host
 *               model
 * Built only with meson -Dcublasmp=enabled (README "Building with
 * cuBLASMp"); without it the CUDA backend says not_supported.
 *
 * What a row reports: slices = mantissa bits retained (mp_fp64emu, as
 * cublas_fp64emu; -1 native), settings = grid, block, ranks, the library
 * versions and, for mp_fp64emu, the emulation knobs read back. */
#ifndef MPB_CUBLASMP_H
#define MPB_CUBLASMP_H

#include <stdbool.h>
#include <stddef.h>
#include "cuda_env.h"
#include "gemm.h"
#include "param.h"
#include "scheme.h"

enum mpb_mp_param {
    MPB_MP_GPUS = 0,  /* processes = GPUs of one GEMM */
    MPB_MP_BLOCK,     /* block size of the distribution */
    MPB_MP_PROWS,     /* rows of the grid; 0 = the squarest grid */
    MPB_MP_DGEMM_N_PARAMS,
    MPB_MP_STRATEGY = MPB_MP_DGEMM_N_PARAMS, /* mp_fp64emu: eager | performant | default */
    MPB_MP_MANTISSA,                         /* dynamic | fixed */
    MPB_MP_MAX_BITS,                         /* 0 = the library's default */
    MPB_MP_FP64EMU_N_PARAMS
};

extern const struct mpb_param_spec mpb_mp_dgemm_params[], mpb_mp_fp64emu_params[];
extern const struct mpb_scheme_multi mpb_mp_dgemm_multi, mpb_mp_fp64emu_multi;

bool mpb_mp_dgemm_check(const double *params, const struct mpb_gemm *g,
                        const struct mpb_device_info *dev, char *why, size_t why_len);
bool mpb_mp_fp64emu_check(const double *params, const struct mpb_gemm *g,
                          const struct mpb_device_info *dev, char *why, size_t why_len);

/* The grid of `gpus` processes: prows×(gpus/prows), or the squarest
 * (nprow ≤ npcol, nprow the largest divisor of gpus not above its root). */
void mpb_mp_grid(int gpus, int prows, int *nprow, int *npcol);

/* Host model of mp_dgemm's part (cublasmp_host.c). */
enum mpb_status mpb_mp_dgemm_host(const struct mpb_multi_part *part, const double *params,
                                  struct mpb_scheme_info *info);

#ifdef MPB_HAVE_CUBLASMP
/* The GPU side (cublasmp.c). */
enum mpb_status mpb_mp_new_comm_id(unsigned char id[128], char *why, size_t why_len);
enum mpb_status mpb_mp_dgemm_setup(struct mpb_cuda_env *env, const struct mpb_multi_part *part,
                                   const double *params, void **state);
enum mpb_status mpb_mp_fp64emu_setup(struct mpb_cuda_env *env, const struct mpb_multi_part *part,
                                     const double *params, void **state);
extern const struct mpb_scheme_cuda mpb_mp_calls;
/* cublasMpGetVersion: major·1000 + minor·100 + patch. */
int mpb_mp_library_version(void);
#endif

#endif
