/* adp_z on adp (adp_complex.h). */
#include "adp/adp_complex.h"

#include "adp/adp.h"

static const struct mpb_embed_real adp_real = {
    .cuda = &mpb_adp_cuda, .run_host = mpb_adp_host, .check = mpb_adp_check, .bound = mpb_adp_bound,
    .workspace = mpb_adp_workspace,
};

MPB_EMBED_COMPLEX(mpb_adp_z, adp_real)
