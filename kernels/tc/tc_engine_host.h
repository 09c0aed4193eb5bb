/* Host model of the tensor-core engine: tc_gemm_args with host pointers
 * (planes, scales and C), every MMA through the model of tc_mma_model.h. */
#ifndef MPB_TC_ENGINE_HOST_H
#define MPB_TC_ENGINE_HOST_H

#include "tc/tc_engine.h"
#include "tc/tc_i8.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Entry (i, j) of C, as the engine computes it. */
float tc_engine_entry(const struct tc_mma_model *model, const struct tc_gemm_args *g, int64_t i, int64_t j);

/* Every entry of C. */
void tc_engine_host(const struct tc_mma_model *model, const struct tc_gemm_args *g);

/* The block-scaled INT8 path (tc_s8_args): entry (i, j), and every entry. */
float tc_s8_engine_entry(const struct tc_s8_args *g, int64_t i, int64_t j);
void tc_s8_engine_host(const struct tc_s8_args *g);

/* The plain INT8 GEMM (tc_i8_args): the INT32 sum of product `gemm` at
 * (i, j), modulo 2^32 as the tensor cores form it; and every product's C as
 * its epilogue writes it (INT32, or the residue tc_i8_mod). */
int32_t tc_i8_entry(const struct tc_i8_args *g, int gemm, int64_t i, int64_t j);
void tc_i8_host(const struct tc_i8_args *g);

#ifdef __cplusplus
}
#endif

#endif
