/* tf32x3_c, ape_bf16x3_c: the FP32 splits for complex FP32, 4M by the real
 * embedding of kernels/common/complex_embed.h (one tf32x3 or ape_bf16x3
 * product of 2m×n×2k on the wgmma engine). */
#ifndef MPB_FP32SPLIT_COMPLEX_H
#define MPB_FP32SPLIT_COMPLEX_H

#include "common/complex_embed.h"

#ifdef __cplusplus
extern "C" {
#endif

MPB_EMBED_COMPLEX_DECLARE(mpb_tf32x3_c);
MPB_EMBED_COMPLEX_DECLARE(mpb_ape_bf16x3_c);

#ifdef __cplusplus
}
#endif

#endif
