/* adp_z: Automatic Dynamic Precision for complex FP64, 4M by the real
 * embedding of kernels/common/complex_embed.h (one adp product of
 * 2m×n×2k: the ESC, the guardrails and the DGEMM fallback decide on the
 * embedded operands). */
#ifndef MPB_ADP_COMPLEX_H
#define MPB_ADP_COMPLEX_H

#include "common/complex_embed.h"

#ifdef __cplusplus
extern "C" {
#endif

MPB_EMBED_COMPLEX_DECLARE(mpb_adp_z);

#ifdef __cplusplus
}
#endif

#endif
