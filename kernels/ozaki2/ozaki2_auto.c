/* moduli=auto: the fewest moduli whose rigorous error bound stays within
 * the native GEMM's probabilistic one (or a user's tol=), from integer statistics that the host
 * model and the GPU compute alike (struct mpb_oz2_side), evaluated here in
 * one fixed order, so both backends choose the same count.
 * kernels/ozaki2/README.md "moduli=auto" has the derivation and the numbers;
 * in short, with a'_il = trunc(2^mu_i·a_il), b'_lj = trunc(2^nu_j·b_lj)
 * and X = A'B' recovered by the CRT:
 *   |C_ij − 2^-(mu_i+nu_j)X_ij| ≤ 2^-mu_i‖b_j‖₁ + 2^-nu_j‖a_i‖₁
 * (|2^mu·a − a'| < 1 and |a'| ≤ 2^mu|a|; Uchino, Ozaki, Imamura, arXiv
 * 2602.02549, Lemma 2, bound the same difference), plus the CRT's
 * reconstruction, ≤ 2^(bitlen(M)−81) ≤ 2^(L−78) in the scaled domain
 * (tests/kernels/test_ozaki2.c). With p_i = 2^-mu_i, q_j = ‖b_j‖₁,
 * r_i = ‖a_i‖₁, s_j = 2^-nu_j, the triangle inequality gives
 *   ‖Ĉ − C‖_F ≤ ‖p‖‖q‖ + ‖r‖‖s‖ + 2^(L−78)‖p‖‖s‖   (before the final rounding).
 * The native GEMM's worst case, γ_k|A||B|, is almost never approached (its
 * rounding errors do not all point one way), while the bound above nearly
 * is (truncation errors of same-sign data do): comparing the two picked one
 * modulus too few (README). The comparison is with λ√k·u‖|A||B|‖_F, the
 * probabilistic bound of Higham and Mary (SIAM J. Sci. Comput. 41(5),
 * 2019), at λ = 1/2, where the native error of same-sign data lies
 * (≈ √k·u|A||B|/3 under their model, Ozaki-II's ≈ half its bound: README):
 *   bound ≤ ½√k·u·LB,  LB ≤ ‖|A||B|‖_F   (tol=T > 0: bound ≤ T·LB),
 *   LB = max(Σ_ij(|A||B|)_ij/√(mn), (Σ_l ‖A(:,l)‖²‖B(l,:)‖²)^½)
 * (Cauchy–Schwarz, and the cross terms of a sum of nonnegative products
 * dropped), from the per-l digit sums. Everything is relative to
 * 2^(E_A+E_B), so no sum overflows; doubles sum at most m+n+k terms, so the
 * bound is inflated and LB deflated by (m+n+k+8)·2^-52 to stay rigorous. */
#include "ozaki2/ozaki2.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* x·2^e with e raised to −500 at least: its square cannot underflow, so
 * the sums of squares below stay upper bounds (the terms raised are below
 * 2^-1000 relative to 2^E, the largest that counts above 2^-320). */
static double pow2_floor(double x, int e)
{
    return ldexp(x, e < -500 ? -500 : e);
}

static bool counts(uint64_t max_bits)
{
    return max_bits != 0 && mpb_oz2_abs_bits_finite(max_bits);
}

int mpb_oz2_e_ref(const uint64_t *max, int64_t count)
{
    uint64_t top = 0;
    for (int64_t v = 0; v < count; v++)
        if (counts(max[v]) && max[v] > top)
            top = max[v];
    return mpb_oz2_exponent(top);
}

/* Σ_v ‖x_v‖₁²/4^E ≤ Σ_v (2^(e_v−15−E)·l1_v)². */
static double l1_sq(const struct mpb_oz2_side *s)
{
    double sum = 0;
    for (int64_t v = 0; v < s->count; v++) {
        if (!counts(s->max[v]))
            continue;
        double t = pow2_floor((double)s->l1[v], mpb_oz2_exponent(s->max[v]) - MPB_OZ2_NORM_DIGIT_BITS - s->e_ref);
        sum += t * t;
    }
    return sum;
}

/* Σ_v 4^(−mu_v−E) for the scales of budget L (zero vectors are exact). */
static double scale_sq(const struct mpb_oz2_side *s, const int *e, const int *bits, bool accurate, int budget)
{
    double sum = 0;
    for (int64_t v = 0; v < s->count; v++) {
        if (!counts(s->max[v]))
            continue;
        int mu = accurate ? mpb_oz2_scale_accurate_bits(e[v], bits[v], budget)
                          : mpb_oz2_scale_fast_bits(e[v], bits[v], budget);
        double t = pow2_floor(1.0, -mu - s->e_ref);
        sum += t * t;
    }
    return sum;
}

/* LB/2^(E_A+E_B) (see the top). */
static double lower_bound(const struct mpb_oz2_side *a, const struct mpb_oz2_side *b, int64_t k)
{
    double s1 = 0, s2 = 0;
    for (int64_t l = 0; l < k; l++) {
        s1 += (double)a->sum[l] * (double)b->sum[l];
        s2 += (double)a->sumsq[l] * (double)b->sumsq[l];
    }
    double lb1 = ldexp(s1, -2 * MPB_OZ2_SUM_DIGIT_BITS) / sqrt((double)a->count * (double)b->count);
    double lb2 = ldexp(sqrt(s2), -2 * MPB_OZ2_SQ_DIGIT_BITS);
    return lb1 > lb2 ? lb1 : lb2;
}

bool mpb_oz2_auto_choose(const struct mpb_oz2_side *a, const struct mpb_oz2_side *b, int64_t k,
                         bool accurate, enum mpb_target target, double tol, const int *budget,
                         struct mpb_oz2_auto *out)
{
    double u = target == MPB_TARGET_FP64 ? 0x1p-53 : 0x1p-24;
    *out = (struct mpb_oz2_auto){.moduli = MPB_OZ2_MAX_MODULI, .met = false, .user = tol > 0, .bound = INFINITY,
                                 .target = tol > 0 ? tol : 0.5 * sqrt((double)k) * u, .fewer = NAN};
    if (a->count == 0 || b->count == 0) { /* no entries: any count gives the empty C */
        *out = (struct mpb_oz2_auto){.moduli = MPB_OZ2_MIN_MODULI, .met = true, .user = out->user, .bound = 0,
                                     .target = out->target, .fewer = NAN};
        return true;
    }
    const struct mpb_oz2_side *side[2] = {a, b};
    int *e[2], *bits[2];
    for (int t = 0; t < 2; t++) {
        e[t] = malloc(sizeof(int) * (size_t)(side[t]->count + 1));
        bits[t] = malloc(sizeof(int) * (size_t)(side[t]->count + 1));
        for (int64_t v = 0; e[t] && bits[t] && v < side[t]->count; v++) {
            e[t][v] = mpb_oz2_exponent(side[t]->max[v]);
            bits[t][v] = mpb_oz2_bitlen(side[t]->stat[v]);
        }
    }
    if (!e[0] || !e[1] || !bits[0] || !bits[1]) {
        free(e[0]), free(e[1]), free(bits[0]), free(bits[1]);
        return false;
    }
    double slack = (double)(a->count + b->count + k + 8) * 0x1p-52;
    double lb = lower_bound(a, b, k) * (1 - slack);
    double q = sqrt(l1_sq(b)), r = sqrt(l1_sq(a)), prev = NAN, least = INFINITY;
    for (int nm = MPB_OZ2_MIN_MODULI; nm <= MPB_OZ2_MAX_MODULI; nm++) {
        double p = sqrt(scale_sq(a, e[0], bits[0], accurate, budget[nm]));
        double s = sqrt(scale_sq(b, e[1], bits[1], accurate, budget[nm]));
        double bound = (p * q + r * s + ldexp(p * s, budget[nm] - 78)) * (1 + slack);
        /* relative to LB; 0/0 (A or B zero: C = 0 exactly) is 0 */
        double rel = bound == 0 ? 0 : bound / lb;
        if (rel < least) {
            least = rel;
            out->moduli = nm;
            out->bound = rel;
            out->fewer = prev;
        }
        if (rel <= out->target) {
            out->met = true;
            break;
        }
        prev = rel;
    }
    free(e[0]), free(e[1]), free(bits[0]), free(bits[1]);
    return true;
}

void mpb_oz2_auto_note(const struct mpb_oz2_auto *c, char *buf, size_t len)
{
    const char *what = c->user ? "tol" : "native";
    int used = c->met ? snprintf(buf, len, "auto: %d moduli, error bound %.2g <= %s %.2g", c->moduli, c->bound,
                                 what, c->target)
                      : snprintf(buf, len, "auto: %d moduli, the least error bound %.2g > %s %.2g",
                                 c->moduli, c->bound, what, c->target);
    if (used > 0 && (size_t)used < len && c->met && !isnan(c->fewer))
        used += snprintf(buf + used, len - (size_t)used, " (%d: %.2g)", c->moduli - 1, c->fewer);
    if (used > 0 && (size_t)used < len)
        snprintf(buf + used, len - (size_t)used, ", relative to a lower bound of ||(|A||B|)||_F");
}
