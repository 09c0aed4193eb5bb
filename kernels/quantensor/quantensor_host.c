/* Host model of quantensor_int8: the same MPB_HD steps as quantensor.cu,
 * with the INT8×INT8→INT32 GEMMs computed exactly in integers. The GPU's
 * chunk sums of a long k are added in int64, exactly, so one int64 dot
 * product per slice pair is what they give, whatever the split: the output
 * is bitwise the GPU's. Meant for the small sizes of tests and
 * `--backend host` (up to nine integer GEMMs, single-threaded). */
#include "quantensor/quantensor.h"

#include <stdio.h>
#include <stdlib.h>

#include "mpb_size.h"

/* An operand as the scheme sees it: `vecs` vectors of length k (rows of A,
 * columns of B), element l of vector v at x[v·vstride + l·lstride]. */
struct operand {
    const float *x;
    int64_t vecs, k;
    size_t vstride, lstride;
};

/* Scale exponents, finite flags and the s slices of every element
 * (d[(p·vecs + v)·k + l]; zero in a non-finite vector), counting what the
 * slices lose. */
static void quantise(const struct operand *o, int s, int *e, bool *finite, int8_t *d,
                     uint64_t lost[MPB_QT_LOST_N])
{
    for (int64_t v = 0; v < o->vecs; v++) {
        const float *x = o->x + (size_t)v * o->vstride;
        uint32_t mx = 0;
        for (int64_t l = 0; l < o->k; l++) {
            uint32_t a = mpb_qt_abs_bits(x[(size_t)l * o->lstride]);
            mx = a > mx ? a : mx;
        }
        finite[v] = mpb_qt_finite_bits(mx);
        e[v] = finite[v] ? mpb_qt_exponent(mx) : 0;
        lost[MPB_QT_LOST_NONFINITE] += !finite[v];
        for (int64_t l = 0; l < o->k; l++) {
            float xl = finite[v] ? x[(size_t)l * o->lstride] : 0.0f;
            int8_t dl[MPB_QT_MAX_SLICES] = {0};
            bool inexact = mpb_qt_slice(xl, e[v], s, dl) != 0;
            bool zero = true;
            for (int p = 0; p < s; p++) {
                d[((size_t)p * (size_t)o->vecs + (size_t)v) * (size_t)o->k + (size_t)l] = dl[p];
                zero = zero && dl[p] == 0;
            }
            lost[MPB_QT_LOST_INEXACT] += inexact;
            lost[MPB_QT_LOST_ZERO] += inexact && zero;
        }
    }
}

static int64_t dot_i8(const int8_t *x, const int8_t *y, int64_t k)
{
    int64_t s = 0;
    for (int64_t l = 0; l < k; l++)
        s += (int32_t)x[l] * y[l];
    return s;
}

enum mpb_status mpb_quantensor_host(const struct mpb_gemm *g, const double *params,
                                    struct mpb_scheme_info *info)
{
    int level = (int)params[MPB_QT_LEVELS], s = mpb_qt_slices(level);
    struct mpb_qt_pair pairs[MPB_QT_MAX_PAIRS];
    int npairs = mpb_qt_pairs(level, pairs), wmax = mpb_qt_max_weight(level);
    int64_t m = g->m, n = g->n, k = g->k;
    struct operand a = {(const float *)g->a, m, k, 1, (size_t)m};
    struct operand b = {(const float *)g->b, n, k, (size_t)k, 1};
    size_t slice_bytes = mpb_size_mul((size_t)s, mpb_size_matrix(m + n, k, 1));
    int *ea = malloc(sizeof(int) * (size_t)(m + n) + 1), *eb = ea + m;
    bool *fa = malloc((size_t)(m + n) + 1), *fb = fa + m;
    int8_t *da = slice_bytes == SIZE_MAX ? NULL : malloc(slice_bytes + 1);
    if (!ea || !fa || !da) {
        free(ea), free(fa), free(da);
        snprintf(info->note, sizeof info->note, "out of host memory for the slices");
        return MPB_STATUS_ERROR;
    }
    int8_t *db = da + (size_t)s * (size_t)(m * k);
    uint64_t lost[2][MPB_QT_LOST_N] = {{0}};
    quantise(&a, s, ea, fa, da, lost[0]);
    quantise(&b, s, eb, fb, db, lost[1]);
    float *c = (float *)g->c;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            size_t p = (size_t)(i + j * m);
            if (!fa[i] || !fb[j]) {
                c[p] = mpb_qt_nonfinite_entry(a.x + i, m, b.x + (size_t)(j * k), k);
                continue;
            }
            int64_t sw[MPB_QT_MAX_WEIGHT + 1] = {0};
            for (int t = 0; t < npairs; t++) {
                const int8_t *x = da + ((size_t)pairs[t].p * (size_t)m + (size_t)i) * (size_t)k;
                const int8_t *y = db + ((size_t)pairs[t].q * (size_t)n + (size_t)j) * (size_t)k;
                sw[pairs[t].p + pairs[t].q] += dot_i8(x, y, k);
            }
            c[p] = mpb_qt_combine(sw, wmax, ea[i] + eb[j] - 2 * MPB_QT_BETA);
        }
    free(ea), free(fa), free(da);
    mpb_qt_report(level, k, lost, info);
    return MPB_STATUS_OK;
}
