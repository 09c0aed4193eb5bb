/* ozaki1_int8_z: Ozaki scheme I INT8 for complex FP64, 4M by the real
 * embedding of kernels/common/complex_embed.h (one ozaki1_int8 product of
 * 2m×n×2k). */
#ifndef MPB_OZAKI1_COMPLEX_H
#define MPB_OZAKI1_COMPLEX_H

#include "common/complex_embed.h"

#ifdef __cplusplus
extern "C" {
#endif

MPB_EMBED_COMPLEX_DECLARE(mpb_ozaki1_int8_z);

#ifdef __cplusplus
}
#endif

#endif
