/* ozaki1_int8_z on ozaki1_int8 (ozaki1_complex.h). */
#include "ozaki1/ozaki1_complex.h"

#include "ozaki1/ozaki1.h"

static const struct mpb_embed_real ozaki1_int8_real = {
    .cuda = &mpb_ozaki1_int8_cuda, .run_host = mpb_ozaki1_int8_host, .check = mpb_ozaki1_int8_check,
    .bound = mpb_ozaki1_int8_bound,
};

MPB_EMBED_COMPLEX(mpb_ozaki1_int8_z, ozaki1_int8_real)
