/* Double-double arithmetic of the dd reference (reference/ref_dd.h), shared
 * by the host (ref_dd_host.c) and the GPU kernel (ref_dd.cu) through MPB_HD:
 * both evaluate the same operations in the same order, so they give the same
 * bits. Compiled without contraction on both sides; fma() is written where
 * one is meant.
 *
 * One entry C_ij = Σ_l a_il·b_lj, l = 0, 1, …, k−1 in that order:
 *   (p_h, p_l) = TwoProd(a, b)          exact unless a·b underflows
 *   S ← AccurateDWPlusDW(S, (p_h, p_l))  relative error ≤ 3u²/(1−4u) of S + p
 *   abs ← abs + |p_h|                   (|A||B|)_ij in plain double
 * Error (u = 2^-53; JMP = Joldes, Muller, Popescu, "Tight and rigorous error
 * bounds for basic building blocks of double-word arithmetic", ACM TOMS
 * 44(2), 2017, Algorithm 6 and Theorem 3.1): step l adds at most
 * 3u²/(1−4u)·|Ŝ_{l−1} + p_l| ≤ 3u²(1+O(u))·(|A||B|)_ij, as every partial sum
 * is bounded by (|A||B|)_ij up to the error so far; so
 *   |Ŝ_k − C_ij| ≤ 3k·u²·(1 + 4ku)·(|A||B|)_ij + k·2^-1075,
 * the last term from products below 2^-969, whose TwoProd error term is
 * rounded to the subnormal grid (Boldo, Muller, "Exact and approximated
 * error of the FMA", IEEE TC 60(2), 2011). Additions of doubles never
 * underflow (a subnormal sum is exact), so TwoSum stays exact. Anything
 * beyond the double range (|a·b| or a partial sum ≥ 2^1024) gives a NaN or
 * ±Inf entry, which the caller recomputes exactly. */
#ifndef MPB_REF_DD_ARITH_H
#define MPB_REF_DD_ARITH_H

#include <math.h>
#include "mpb_hd.h"

struct mpb_dd {
    double hi, lo;
};

/* a + b = s + e exactly, any order of magnitude (Knuth, TAOCP 2, §4.2.2,
 * Theorem B; Møller 1965): 6 additions. */
MPB_HD struct mpb_dd mpb_dd_two_sum(double a, double b)
{
    double s = a + b;
    double bb = s - a;
    double e = (a - (s - bb)) + (b - bb);
    struct mpb_dd r = {s, e};
    return r;
}

/* a + b = s + e exactly when the exponent of a is at least that of b
 * (Dekker 1971): 3 additions. JMP prove the condition holds where
 * Algorithm 6 uses it. */
MPB_HD struct mpb_dd mpb_dd_fast_two_sum(double a, double b)
{
    double s = a + b;
    double z = s - a;
    struct mpb_dd r = {s, b - z};
    return r;
}

/* a·b = p + e exactly unless a·b underflows (see above): the FMA computes
 * a·b − p with one rounding of an exactly representable value. */
MPB_HD struct mpb_dd mpb_dd_two_prod(double a, double b)
{
    double p = a * b;
    struct mpb_dd r = {p, fma(a, b, -p)};
    return r;
}

/* x + y for normalized double-words (|lo| ≤ ulp(hi)/2), result normalized:
 * JMP Algorithm 6 (AccurateDWPlusDW), 20 additions, relative error
 * ≤ 3u²/(1−4u) (JMP Theorem 3.1). */
MPB_HD struct mpb_dd mpb_dd_add(struct mpb_dd x, struct mpb_dd y)
{
    struct mpb_dd s = mpb_dd_two_sum(x.hi, y.hi);
    struct mpb_dd t = mpb_dd_two_sum(x.lo, y.lo);
    double c = s.lo + t.hi;
    struct mpb_dd v = mpb_dd_fast_two_sum(s.hi, c);
    double w = t.lo + v.lo;
    return mpb_dd_fast_two_sum(v.hi, w);
}

/* One term of an entry: the accumulator and the running Σ|a_il·b_lj|. */
struct mpb_dd_acc {
    struct mpb_dd s;
    double abs;
};

MPB_HD struct mpb_dd_acc mpb_dd_acc_zero(void)
{
    struct mpb_dd_acc z = {{0.0, 0.0}, 0.0};
    return z;
}

MPB_HD void mpb_dd_acc_step(struct mpb_dd_acc *acc, double a, double b)
{
    struct mpb_dd p = mpb_dd_two_prod(a, b);
    acc->s = mpb_dd_add(acc->s, p);
    acc->abs = acc->abs + fabs(p.hi);
}

#endif
