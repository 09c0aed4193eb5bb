/* Host side shared by the engine's plans (tc_engine.cu, tc_i8.cu): tensor
 * maps for the bulk tensor copy (TMA), the shared-memory budget of a CTA and
 * the multiprocessor count. C++ (CUDA driver types); internal to kernels/tc. */
#ifndef MPB_TC_LAUNCH_H
#define MPB_TC_LAUNCH_H

#include <cuda.h>
#include <stddef.h>
#include <stdint.h>

/* sm_90's opt-in maximum of dynamic shared memory per block. */
constexpr int TC_SMEM_LIMIT = 227 * 1024;

/* One 2-D tensor map: `rows` rows of `cols` elements, `stride_elems`
 * elements apart, read or written in boxes of box_cols x box_rows. false
 * with a reason naming `what` when the driver refuses it. */
bool tc_encode_map(CUtensorMap *map, CUtensorMapDataType type, int elem_bytes, const void *base, int64_t cols,
                   int64_t rows, int64_t stride_elems, int box_cols, int box_rows, CUtensorMapSwizzle swizzle,
                   const char *what, char *why, size_t why_len);

/* Multiprocessors of the current device; 0 with a reason on failure. */
int tc_sm_count(char *why, size_t why_len);

#endif
