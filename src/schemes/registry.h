/* The scheme registry: one explicit table of descriptors (src/schemes/registry.c),
 * the only program file that names the kernels. What a descriptor holds is
 * scheme.h's. */
#ifndef MPB_REGISTRY_H
#define MPB_REGISTRY_H

#include "scheme.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const struct mpb_scheme *const mpb_schemes[];
extern const int mpb_n_schemes;

const struct mpb_scheme *mpb_scheme_find(const char *name);
/* The native GEMM of a target and field (dgemm, sgemm; zgemm, cgemm: the 4M
 * products): what --vs-native compares with and the run summary's
 * "x native" divides by. */
const struct mpb_scheme *mpb_scheme_native(enum mpb_target t, enum mpb_field f);

#ifdef __cplusplus
}
#endif

#endif
