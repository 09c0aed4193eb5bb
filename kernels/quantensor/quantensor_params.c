/* Host-side descriptor parts of quantensor_int8: the parameter table,
 * check(), the error bound, the workspace and the row's settings and note,
 * which both backends share. */
#include "quantensor/quantensor.h"

#include <math.h>
#include <stdio.h>

#include "common/crt_arith.h"
#include "common/cublas_util.h"
#include "common/int8_gemm_auto.h"
#include "mpb_size.h"
#include "tc/tc_engine.h"

static const char *const gemm_choices[] = {"calls", "engine", "auto", NULL};

/* Default 3: the full resolution, the variant that aims at FP32 accuracy
 * (MixPert §2.2: 1.5e-6 against 6.76e-5 for plain quantisation). */
const struct mpb_param_spec mpb_quantensor_params[MPB_QT_N_PARAMS] = {
    [MPB_QT_LEVELS] = {.name = "levels", .kind = MPB_PARAM_INT, .def = "3", .lo = 0,
                       .hi = MPB_QT_MAX_LEVEL,
                       .help = "residual refinement levels: 0 = plain INT8 quantisation (1 INT8 "
                               "GEMM), 1 = +2 cross products (3), 2 = 3 slices, weights <= 2 (6), "
                               "3 = all 9 products of 3 slices"},
    [MPB_QT_GEMM] = {.name = "gemm", .kind = MPB_PARAM_CHOICE, .def = "auto",
                     .choices = gemm_choices,
                     .help = "INT8 GEMMs: calls = one cublasGemmEx per slice pair and k chunk; "
                             "engine = all of them in one launch of mpbench's INT8 engine "
                             "(24 products a launch at most; sm_90a); auto = engine up to "
                             "m*n*k = 8192^3 where it runs, else calls (settings say which)"},
};

int64_t mpb_qt_padded_k(int64_t k)
{
    return (k + 31) / 32 * 32;
}

void mpb_qt_chunking(int64_t k, int64_t *chunks, int64_t *len)
{
    int64_t kp = mpb_qt_padded_k(k), most = k <= MPB_CRT_MAX_K ? kp : MPB_CRT_CHUNK_K;
    *chunks = mpb_crt_chunks(kp, most);
    *len = mpb_crt_chunk_len(kp, most, 32);
}

int64_t mpb_qt_slice_ld(bool engine, int64_t k)
{
    if (!engine)
        return mpb_qt_padded_k(k);
    int64_t chunks, len;
    mpb_qt_chunking(k, &chunks, &len);
    return chunks * len;
}

int64_t mpb_qt_plane_ld(bool engine, int64_t m)
{
    return engine ? (m + 3) / 4 * 4 : m;
}

bool mpb_qt_gemm_engine_used(const double *params, const struct mpb_gemm *g,
                             const struct mpb_device_info *dev)
{
    if (params[MPB_QT_GEMM] != MPB_QT_GEMM_AUTO)
        return params[MPB_QT_GEMM] == MPB_QT_GEMM_ENGINE;
    return mpb_int8_auto_engine(g, mpb_qt_slice_ld(true, g->k), dev);
}

void mpb_qt_report(int level, int64_t k, const uint64_t lost[2][MPB_QT_LOST_N],
                   struct mpb_scheme_info *info)
{
    struct mpb_qt_pair pairs[MPB_QT_MAX_PAIRS];
    int s = mpb_qt_slices(level);
    int64_t chunks, len;
    mpb_qt_chunking(k, &chunks, &len);
    info->slices = s;
    info->fallback = 0;
    int used = snprintf(info->settings, sizeof info->settings, "levels=%d slices=%d products=%d",
                        level, s, mpb_qt_pairs(level, pairs));
    if (chunks > 1 && used > 0 && (size_t)used < sizeof info->settings)
        snprintf(info->settings + used, sizeof info->settings - (size_t)used,
                 " kchunks=%lld kchunk=%lld", (long long)chunks, (long long)len);
    size_t n = 0;
    info->note[0] = '\0';
    for (int side = 0; side < 2 && n < sizeof info->note; side++) {
        const uint64_t *c = lost[side];
        const char *sep = n ? "; " : "", *name = side ? "B" : "A";
        if (c[MPB_QT_LOST_INEXACT] && n < sizeof info->note)
            n += (size_t)snprintf(info->note + n, sizeof info->note - n,
                                  "%s%s: %llu values truncated by %d slices (%llu to zero)", sep, name,
                                  (unsigned long long)c[MPB_QT_LOST_INEXACT], s,
                                  (unsigned long long)c[MPB_QT_LOST_ZERO]);
        if (c[MPB_QT_LOST_NONFINITE] && n < sizeof info->note)
            n += (size_t)snprintf(info->note + n, sizeof info->note - n,
                                  "%s%llu %s with NaN/Inf fixed up",
                                  c[MPB_QT_LOST_INEXACT] ? ", " : n ? "; " : "",
                                  (unsigned long long)c[MPB_QT_LOST_NONFINITE],
                                  side ? "columns of B" : "rows of A");
    }
    mpb_cublas_env_note(info->note, sizeof info->note);
}

bool mpb_qt_check(const double *params, const struct mpb_gemm *g,
                  const struct mpb_device_info *dev, char *why, size_t why_len)
{
    if (!dev)
        return true;
    if (params[MPB_QT_GEMM] == MPB_QT_GEMM_ENGINE &&
        !tc_scheme_problem_supported(g->m, g->n, mpb_qt_slice_ld(true, g->k), dev, why, why_len))
        return false;
    /* The slices' leading dimension is the padded k. */
    struct mpb_gemm padded = *g;
    padded.k = mpb_qt_slice_ld(mpb_qt_gemm_engine_used(params, g, dev), g->k);
    return mpb_cublas_int_dims(&padded, "cublasGemmEx", why, why_len);
}

/* The bound, row/column-wise: the quantisation is fixed point per row
 * (column), so an entry far below its row maximum loses bits and no
 * componentwise bound holds. For a row a (max α, scale e) and column b
 * (max β): u_0 = 2^(e−7) ≤ c·2^−6·α with c = 256/255 (α ≥ (255/256)·2^(e−1),
 * mpb_qt_exponent); after s slices |r_l| ≤ u_0·2^(−7(s−1))/2 ≤ c·2^(−7s)·α;
 * slice p ≥ 1 is r_p − r_(p+1), so |A_p| ≤ u_(p−1) ≤ c·2^(1−7p)·α. Then,
 * with Σ_l |r_l||b_l| ≤ max|r|·√k‖b‖₂ and αβ ≤ ‖a‖₂‖b‖₂:
 *   quantisation  Σ |r_a||b| + |a||r_b| + |r_a||r_b|
 *                   ≤ (2c·2^(−7s)·√k + c²·2^(−14s)·k)·‖a‖₂‖b‖₂;
 *   dropped pairs Σ over (p,q), p,q < s, p+q above the level's weight:
 *                   k·c²·2^(2−7(p+q))·‖a‖₂‖b‖₂;
 *   FP32 sums     W+1 weights, each converted once and added once: γ_(W+1)
 *                 times Σ_pairs |A_p||B_q| ≤ Σ_l (|a_l| + εα)(|b_l| + εβ)
 *                 ≤ (1 + ε√k)²‖a‖₂‖b‖₂, ε = 1.01·c·2^−6 (Σ_p |A_p| ≤ |a| +
 *                 Σ_p u_p);
 * the scaling by 2^(e_i+f_j−14) is exact where C_ij is normal. */
double mpb_qt_bound(const double *params, int64_t k)
{
    int level = (int)params[MPB_QT_LEVELS], s = mpb_qt_slices(level);
    int wmax = mpb_qt_max_weight(level);
    const double c = 256.0 / 255.0, eps = 1.01 * c * 0x1p-6, rk = sqrt((double)k);
    double dropped = 0;
    for (int p = 1; p < s; p++)
        for (int q = 1; q < s; q++)
            if (p + q > wmax)
                dropped += ldexp(1.0, 2 - MPB_QT_BETA * (p + q));
    double quant = 2 * c * ldexp(rk, -MPB_QT_BETA * s) + c * c * ldexp((double)k, -2 * MPB_QT_BETA * s);
    return quant + (double)k * c * c * dropped +
           mpb_gamma_k(wmax + 1, 0x1p-24) * (1 + eps * rk) * (1 + eps * rk);
}

/* Mirrors quantensor_host.c's allocations (slices over k, a maximum and an
 * exponent per row and column) and quantensor.cu's (slices over
 * mpb_qt_slice_ld, one INT32 plane of mpb_qt_plane_ld rows per product and
 * k chunk, the maxima, the loss counters, each part of its one allocation
 * rounded up to 256 bytes). */
size_t mpb_qt_workspace(const double *params, const struct mpb_gemm *g, bool on_device)
{
    int level = (int)params[MPB_QT_LEVELS];
    struct mpb_qt_pair pairs[MPB_QT_MAX_PAIRS];
    size_t s = (size_t)mpb_qt_slices(level), np = (size_t)mpb_qt_pairs(level, pairs);
    int64_t vecs = g->m + g->n, chunks, len;
    mpb_qt_chunking(g->k, &chunks, &len);
    size_t bytes = mpb_size_add(mpb_size_matrix(vecs, 1, 2 * sizeof(int32_t)), 8 * 256);
    if (!on_device)
        return mpb_size_add(bytes, mpb_size_mul(s, mpb_size_matrix(vecs, g->k, 1)));
    /* gemm=auto where the shape wants the engine: the engine's layout, the
     * larger (the device decides which runs) */
    bool engine = params[MPB_QT_GEMM] == MPB_QT_GEMM_ENGINE ||
                  (params[MPB_QT_GEMM] == MPB_QT_GEMM_AUTO && mpb_int8_auto_wants_engine(g));
    bytes = mpb_size_add(bytes, mpb_size_mul(s, mpb_size_matrix(vecs, mpb_qt_slice_ld(engine, g->k), 1)));
    return mpb_size_add(bytes, mpb_size_mul(np * (size_t)chunks,
                                            mpb_size_matrix(mpb_qt_plane_ld(engine, g->m), g->n,
                                                            sizeof(int32_t))));
}
