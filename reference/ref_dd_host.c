/* The dd reference on the host (ref_dd.h): A is copied once to row-major
 * doubles so that each entry reads two contiguous vectors; threads take
 * contiguous ranges of columns of C. Four rows are carried together to give
 * the core independent chains; each entry still runs its own l = 0 … k−1
 * sequence of ref_dd_arith.h, the one the GPU runs. */
#include "ref_dd.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "ref_dd_arith.h"
#include "ref_threads.h"

/* Rows evaluated together. */
#define DD_ROWS 4

struct dd_job {
    const struct mpb_gemm *g;
    const double *at; /* A row-major, k per row */
    const struct mpb_ref_dd_out *out;
};

static double dd_elem(const void *p, int64_t idx, enum mpb_target t)
{
    return t == MPB_TARGET_FP64 ? ((const double *)p)[idx] : ((const float *)p)[idx];
}

static void dd_store(const struct mpb_ref_dd_out *out, int64_t p, const struct mpb_dd_acc *acc)
{
    out->hi[p] = acc->s.hi;
    out->lo[p] = acc->s.lo;
    out->absab[p] = acc->abs;
}

/* Columns [j_begin, j_end) of C. */
static bool dd_run(void *ctx, int64_t j_begin, int64_t j_end)
{
    const struct dd_job *job = ctx;
    const struct mpb_gemm *g = job->g;
    int64_t m = g->m, k = g->k;
    double *bj = malloc(sizeof *bj * (size_t)(k > 0 ? k : 1));
    if (!bj)
        return false;
    for (int64_t j = j_begin; j < j_end; j++) {
        for (int64_t l = 0; l < k; l++)
            bj[l] = dd_elem(g->b, l + j * k, g->target);
        for (int64_t i0 = 0; i0 < m; i0 += DD_ROWS) {
            int rows = m - i0 < DD_ROWS ? (int)(m - i0) : DD_ROWS;
            struct mpb_dd_acc acc[DD_ROWS];
            for (int r = 0; r < DD_ROWS; r++)
                acc[r] = mpb_dd_acc_zero();
            const double *arow = job->at + i0 * k;
            if (rows == DD_ROWS) {
                for (int64_t l = 0; l < k; l++)
                    for (int r = 0; r < DD_ROWS; r++)
                        mpb_dd_acc_step(&acc[r], arow[r * k + l], bj[l]);
            } else {
                for (int r = 0; r < rows; r++)
                    for (int64_t l = 0; l < k; l++)
                        mpb_dd_acc_step(&acc[r], arow[r * k + l], bj[l]);
            }
            for (int r = 0; r < rows; r++)
                dd_store(job->out, i0 + r + j * m, &acc[r]);
        }
    }
    free(bj);
    return true;
}

bool mpb_ref_dd_host(const struct mpb_gemm *g, int threads, const struct mpb_ref_dd_out *out)
{
    int64_t m = g->m, n = g->n, k = g->k;
    if (m <= 0 || n <= 0)
        return true;
    double *at = malloc(sizeof *at * (size_t)(m * k > 0 ? m * k : 1));
    if (!at)
        return false;
    for (int64_t l = 0; l < k; l++)
        for (int64_t i = 0; i < m; i++)
            at[i * k + l] = dd_elem(g->a, i + l * m, g->target);
    struct dd_job job = {g, at, out};
    bool ok = mpb_ref_parallel(n, threads, &job, dd_run);
    free(at);
    return ok;
}

/* RN_fp32(hi + lo), ties to even. hi = RN_fp64(hi + lo), and every fp32
 * number and midpoint (the overflow threshold 2^128·(1 − 2^-25) included)
 * is a double, so none lies strictly between hi + lo and hi: rounding hi
 * gives the answer, except when hi is itself a midpoint and lo ≠ 0, where
 * lo's sign says on which side hi + lo lies. */
static double dd_round_fp32(double hi, double lo)
{
    float f = (float)hi;
    if (lo == 0 || !isfinite(hi) || (double)f == hi)
        return f;
    /* On magnitudes: the fp32 numbers around |hi|, 2^128 standing for the
     * one past FLT_MAX (overflow). */
    double a = fabs(hi);
    float g = (float)a;
    if ((double)g > a)
        g = nextafterf(g, 0.0f); /* from +Inf too: FLT_MAX */
    double down = g, up = g == FLT_MAX ? 0x1p128 : nextafterf(g, INFINITY);
    if (a - down != up - a)
        return f;
    double r = (lo > 0) == (hi > 0) ? up : down;
    return copysign(r >= 0x1p128 ? INFINITY : r, hi);
}

struct mpb_ref_value mpb_ref_dd_value(const struct mpb_ref_dd_out *out, int64_t p,
                                      enum mpb_target target)
{
    struct mpb_ref_value v;
    v.hi = out->hi[p];
    v.lo = out->lo[p];
    v.absab = out->absab[p];
    v.finite = isfinite(v.hi);
    v.rounded = target == MPB_TARGET_FP64 ? v.hi : dd_round_fp32(v.hi, v.lo);
    if (!v.finite)
        v.lo = 0;
    return v;
}

double mpb_ref_dd_disagreement(const struct mpb_ref_value *dd, const struct mpb_ref_value *x,
                               enum mpb_target target)
{
    if (!dd->finite || !x->finite) {
        bool agree = dd->finite == x->finite &&
                     ((isnan(dd->hi) && isnan(x->hi)) || dd->hi == x->hi);
        return agree ? 0 : INFINITY;
    }
    /* hi − hi is exact when both are close (Sterbenz), the case that
     * matters; long double keeps the sum of the two differences exact there. */
    long double diff = fabsl(((long double)dd->hi - x->hi) + ((long double)dd->lo - x->lo));
    if (diff == 0)
        return 0;
    long double unit = (long double)(target == MPB_TARGET_FP64 ? 0x1p-53 : 0x1p-24) * x->absab;
    return unit == 0 ? INFINITY : (double)(diff / unit);
}
