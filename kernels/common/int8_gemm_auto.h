/* gemm=auto, the default of the INT8 schemes (ozaki2_int8, ozaki2_int8_sp,
 * ozaki1_int8, quantensor_int8, adp): their products on mpbench's INT8
 * engine (kernels/tc/tc_i8.h) where it was measured faster than cuBLAS's
 * calls and the engine can run the case, cuBLAS's calls elsewhere. Both give
 * the same bits (INT8 products are exact), so the choice is speed only.
 *
 * Measured on the H200 with the engine's 2-CTA cluster, calls' time over the
 * engine's (results/h200/int8-engine/README.md: ozaki2-cluster2.csv,
 * schemes-cluster2.csv): 0.99–1.03 at 4096, 1.03–1.14 at 8192 and 0.96–1.00
 * at 16384 (cuBLAS's column-block calls run the products faster there). So
 * the engine up to 8192³ multiply-adds per product, the calls above; sizes
 * between 8192 and 16384 were not measured and keep the calls. */
#ifndef MPB_INT8_GEMM_AUTO_H
#define MPB_INT8_GEMM_AUTO_H

#include <stdbool.h>

#include "gemm.h"
#include "tc/tc_engine.h"

#define MPB_INT8_AUTO_ENGINE_MAX_WORK (8192.0 * 8192.0 * 8192.0)

/* Whether gemm=auto takes the engine for this shape, before the scheme asks
 * whether the engine can run it on this device. */
static inline bool mpb_int8_auto_wants_engine(const struct mpb_gemm *g)
{
    return (double)g->m * (double)g->n * (double)g->k <= MPB_INT8_AUTO_ENGINE_MAX_WORK;
}

/* gemm=auto's choice for a scheme whose engine form has no limits of its
 * own: the shape wants the engine and it can run m×n×k_engine (the
 * family's padded k) on dev; never without a device. */
static inline bool mpb_int8_auto_engine(const struct mpb_gemm *g, int64_t k_engine, const struct mpb_device_info *dev)
{
    char why[256];
    return dev && mpb_int8_auto_wants_engine(g) &&
           tc_scheme_problem_supported(g->m, g->n, k_engine, dev, why, sizeof why);
}

#endif
