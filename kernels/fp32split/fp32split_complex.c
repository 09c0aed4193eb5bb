/* tf32x3_c on tf32x3, ape_bf16x3_c on ape_bf16x3 (fp32split_complex.h). */
#include "fp32split/fp32split_complex.h"

#include "fp32split/fp32split.h"

static const struct mpb_embed_real tf32x3_real = {
    .cuda = &mpb_tf32x3_cuda, .run_host = mpb_tf32x3_host, .check = mpb_tf32x3_check,
    .bound = mpb_tf32x3_bound, .workspace = mpb_tf32x3_workspace,
};

static const struct mpb_embed_real ape_bf16x3_real = {
    .cuda = &mpb_ape_bf16x3_cuda, .run_host = mpb_ape_bf16x3_host, .check = mpb_ape_bf16x3_check,
    .bound = mpb_ape_bf16x3_bound, .workspace = mpb_ape_bf16x3_workspace,
};

MPB_EMBED_COMPLEX(mpb_tf32x3_c, tf32x3_real)
MPB_EMBED_COMPLEX(mpb_ape_bf16x3_c, ape_bf16x3_real)
