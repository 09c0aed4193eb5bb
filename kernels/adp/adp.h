/* The `adp` scheme: Automatic Dynamic Precision (Schwarz et al., NVIDIA,
 * SCA/HPCAsia 2026; kernels/adp/README.md). The ESC estimate of the bits an
 * input needs and guardrails that fall back to native DGEMM, around one of
 * two exact INT8 engines for the W-bit fixed-point inputs: Ozaki scheme I with
 * the unsigned slice encoding (engine=slices; adp_arith.h) or CRT residues
 * (engine=crt, the default, where its 25 moduli suffice; adp_crt_arith.h).
 * adp.cu is the GPU path, adp_host.c the host model.
 *
 * What a row reports (kernels/adp/README.md):
 *   slices   = INT8 slices s, or CRT moduli N, of the last call (0 when it
 *              ran native)
 *   fallback = 1 when native DGEMM ran; the note says why (nonfinite or
 *              subnormal input, 53 + ESC above max_bits / fixed_bits,
 *              decision=auto predicted native faster)
 *   settings = the knobs, then esc= and bits= of the last call */
#ifndef MPB_ADP_H
#define MPB_ADP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "cuda_env.h"
#include "gemm.h"
#include "param.h"
#include "scheme.h"
#include "adp/adp_crt_arith.h"

#ifdef __cplusplus
extern "C" {
#endif

enum mpb_adp_param {
    MPB_ADP_MAX_BITS = 0, /* 7..255 */
    MPB_ADP_FALLBACK,     /* on | off */
    MPB_ADP_DECISION,     /* auto | eager */
    MPB_ADP_BLOCK,        /* ESC coarsening along k */
    MPB_ADP_FIXED_BITS,   /* 0 = dynamic */
    MPB_ADP_ENGINE,       /* crt | slices */
    MPB_ADP_GEMM,         /* calls | engine */
    MPB_ADP_N_PARAMS
};
enum mpb_adp_fallback { MPB_ADP_FALLBACK_ON = 0, MPB_ADP_FALLBACK_OFF };
enum mpb_adp_decision { MPB_ADP_AUTO = 0, MPB_ADP_EAGER };
enum mpb_adp_engine { MPB_ADP_ENGINE_CRT = 0, MPB_ADP_ENGINE_SLICES };
/* The CRT engine's INT8 products: one cublasGemmEx per modulus, or all N in
 * one launch of the tensor-core engine's INT8 GEMM (kernels/tc/tc_i8.h,
 * INT32 C; sm_90a, k ≤ ADP_MAX_TERMS), or auto (common/int8_gemm_auto.h).
 * The slice engine's stay cuBLAS calls. */
enum mpb_adp_gemm { MPB_ADP_GEMM_CALLS = 0, MPB_ADP_GEMM_ENGINE, MPB_ADP_GEMM_AUTO };

extern const struct mpb_param_spec mpb_adp_params[];
extern const struct mpb_scheme_cuda mpb_adp_cuda;

/* INT8 GEMMs whose INT32 results one accumulation pass adds (adp.cu). One
 * pass per GEMM reads and writes the 16-byte accumulator for 4 bytes of
 * INT32 result; in groups of 4 the accumulator moves once per 4 planes. On
 * the H200, phi = 0.5, accum_ms went from 4.7 to 1.6 ms at n = 8192 (8
 * GEMMs) and from 21.0 to 5.7 ms at 16384 (11 GEMMs), with the same output
 * bits (kernels/adp/README.md "One accumulation pass per 4 INT8 GEMMs"). */
#define ADP_ACC_GROUP 4

/* cuBLAS's workspace size: 32 MiB, cublasSetWorkspace's recommendation for
 * Hopper. */
#define ADP_WORKSPACE_BYTES ((size_t)32 << 20)

/* The CRT engine's constants for n moduli (2..ADP_CRT_MAX_MODULI) and
 * their budget L (adp_crt_budget(n) must equal it); false for other n. */
bool mpb_adp_crt_init(int n, struct adp_crt *tab, int *budget);

/* The knobs of a case as the arithmetic needs them. */
struct adp_config mpb_adp_config(const double *params, const struct mpb_gemm *g);

/* Dimensions (k padded) beyond INT_MAX on the GPU (cublasGemmEx takes int);
 * k above ADP_MAX_TERMS is split into chunks, not refused, but with
 * gemm=engine (whose one launch per count of moduli takes no chunk fold),
 * as are engine=slices with gemm=engine and a GPU other than sm_90a. */
bool mpb_adp_check(const double *params, const struct mpb_gemm *g,
                   const struct mpb_device_info *dev, char *why, size_t why_len);

/* Whether the CRT products of a case run on the engine: gemm=engine, or
 * gemm=auto where the shape wants the engine and it can run the case on dev
 * (never without a device). */
bool mpb_adp_gemm_engine_used(const double *params, const struct mpb_gemm *g,
                              const struct mpb_device_info *dev);

/* decision=auto's working-set limit: it runs DGEMM by shape where the
 * emulated path would need more device memory than this beyond A, B and C
 * (60 GiB: n = 16384 needs 43 GB and fits an 80 GB H100 beside its
 * operands; 20480 would need 67 GB). A fixed number, not the device's, so
 * that the host model and every GPU decide alike. */
#define ADP_AUTO_WORKSPACE_BYTES ((size_t)60 << 30)

/* What decision=auto decides before any kernel runs: ADP_NATIVE_SHAPE where
 * the time model says native even at the fewest bits (adp_native_by_shape),
 * ADP_NATIVE_MEMORY where the emulated path's working set exceeds
 * ADP_AUTO_WORKSPACE_BYTES, else ADP_EMULATED (the data decide; eager
 * always). */
int mpb_adp_shape_decision(const double *params, const struct mpb_gemm *g);

/* The most CRT moduli any decision of this config can pick (0 when
 * engine=slices). */
int mpb_adp_moduli_max(const struct adp_config *c);

/* Bytes the host model (on_device false) or setup (true) allocates beyond
 * A, B and C (the descriptor's workspace_bytes). */
size_t mpb_adp_workspace(const double *params, const struct mpb_gemm *g, bool on_device);

/* |Ĉ − C| ≤ f·(|A||B|) (adp_host.c has the derivation); +Inf with
 * fallback=off, which gives no guarantee. */
double mpb_adp_bound(const double *params, int64_t k);

/* Host model: the same scan, ESC, decision, slicing, exact integer
 * products and accumulation order as the GPU; native cases run the dgemm
 * host model. */
enum mpb_status mpb_adp_host(const struct mpb_gemm *g, const double *params,
                             struct mpb_scheme_info *info);

/* The host model with at most `most` terms per INT32 sum instead of
 * ADP_MAX_TERMS (tests: the k-split at small k). The CRT engine's output
 * does not depend on it; the slice engine's double-word sum takes the
 * chunks as separate terms. */
enum mpb_status mpb_adp_host_split(const struct mpb_gemm *g, const double *params,
                                   struct mpb_scheme_info *info, int64_t most);

/* settings and note of a row from the config and the decision. */
void mpb_adp_describe(const struct adp_config *c, const struct adp_decision *d,
                      struct mpb_scheme_info *info);

#ifdef __cplusplus
}
#endif

#endif
