/* The exact reference (reference.h).
 *
 * Each product a_il·b_lj is built exactly, without mpfr_mul: the two 53-bit
 * integer significands are multiplied in 128-bit integer arithmetic and the
 * (at most 106-bit) product is handed to MPFR as a 128-bit number through
 * its custom interface (MPFR manual, "Custom Interface"). Products of doubles span
 * 2^-2148 .. 2^2048, far outside the double range, but inside MPFR's
 * default exponent range, so no product ever over- or underflows. An fp32
 * input is widened to double first (exact), its 24-bit significand then
 * has trailing zeros.
 *
 * One mpfr_sum per entry gives S = RN_128(C) and the exact sign of S − C:
 * in MPFR 4, mpfr_sum is correctly rounded in any precision and returns the
 * exact ternary value, whatever the exponent spread of the terms (Lefèvre,
 * "Correctly rounded arbitrary-precision floating-point summation", IEEE
 * TC 66(12), 2017). Every rounding the interface asks for (to double or
 * float, subnormals and overflow included) is derived from (S, ternary) in
 * ref_round_format; a second sum is needed only when C − hi is too small
 * relative to C for S to determine it (ref_lo), and a third, rounded up,
 * gives (|A||B|)_ij.
 *
 * Complex operands: each part of C_ij is a real sum of 2k exact products,
 * Re = Σ ar·br + (−ai)·bi and Im = Σ ar·bi + ai·br, evaluated by the same
 * code on the 2k pairs (ref_gather), so each part is rounded once; the
 * part's (|A||B|) is then Σ|ar||br| + |ai||bi| (Re) or Σ|ar||bi| + |ai||br|
 * (Im), the per-part bound of a 4M product. */
#include "reference.h"
#include "ref_threads.h"

#include <gmp.h>
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>

#include "mpb_arith.h"

_Static_assert(GMP_NUMB_BITS == 64 && sizeof(mp_limb_t) == sizeof(uint64_t),
               "a product is stored in two 64-bit limbs");

/* A product has at most 106 bits; it is stored normalized in two limbs. */
#define REF_TERM_PREC 128
/* Precision of S. The roundings to double and float need only 54 bits
 * (ref_round_format); the other bits let S also give lo, unless
 * |C − hi| < about 2^-74·|C| (ref_lo). */
#define REF_SUM_PREC 128
/* Scratch precision: S − hi is exact in it (ref_lo). */
#define REF_WIDE_PREC 256

/* An IEEE binary format: p significand bits, normal numbers from 2^emin,
 * overflow at 2^emax. */
struct ref_format {
    int p;
    mpfr_exp_t emin, emax;
};

static const struct ref_format ref_fp64 = {53, -1022, 1024};
static const struct ref_format ref_fp32 = {24, -126, 128};

/* The spacing 2^q of the format's numbers in the binade [2^(e−1), 2^e)
 * (MPFR's exponent convention): 2^(e−p) for normal numbers, the fixed
 * subnormal spacing 2^(emin−p+1) below 2^emin. */
static mpfr_exp_t ref_quantum(mpfr_exp_t e, const struct ref_format *f)
{
    mpfr_exp_t q = e - f->p, q_sub = f->emin - f->p + 1;
    return q > q_sub ? q : q_sub;
}

/* RN_f(X), ties to even, with subnormals and overflow to ±Inf (IEEE 754-2019
 * §4.3.1, §7.4), from s = RN_P(X) and t = sign(s − X) (the ternary value).
 * Rounding s instead of X is a double rounding; it can only go wrong when
 * s is a midpoint of f's grid (Boldo & Melquiond, "When double rounding is
 * odd", 2005). Precondition: f's midpoints in the binade of s and the one
 * below are P-bit numbers. That holds for P ≥ p+1 (their spacing
 * 2^(qe−1) ≥ 2^(e−p−1) is a multiple of the P-bit spacing), and for P = p
 * (a normal s is then on f's grid; subnormal midpoints are multiples of
 * 2^(emin−p), p-bit numbers). As no P-bit number lies strictly between X
 * and s, X is a midpoint only if X = s, and a midpoint other than s never
 * separates them: RN_f(X) = RN_f(s) unless s is a midpoint and t ≠ 0, when X
 * lies on the side of s that t gives. `q`: scratch, precision ≥ that of s. */
static double ref_round_format(mpfr_srcptr s, int t, const struct ref_format *f, mpfr_ptr q)
{
    if (!mpfr_regular_p(s))
        return mpfr_get_d(s, MPFR_RNDN);
    mpfr_exp_t qe = ref_quantum(mpfr_get_exp(s), f);
    mpfr_mul_2si(q, s, 1 - qe, MPFR_RNDN); /* 2·s/2^qe, exact */
    bool half_integer = mpfr_integer_p(q);
    mpfr_div_2ui(q, q, 1, MPFR_RNDN);
    bool tie = half_integer && !mpfr_integer_p(q);
    if (tie && t > 0)
        mpfr_floor(q, q);
    else if (tie && t < 0)
        mpfr_ceil(q, q);
    else
        mpfr_rint(q, q, MPFR_RNDN);
    /* q is now an integer of at most p+1 bits, and q·2^qe is exact in
     * double unless it overflows f, caught next. */
    double r = ldexp(mpfr_get_d(q, MPFR_RNDN), (int)qe);
    return fabs(r) >= ldexp(1.0, (int)f->emax) ? copysign(INFINITY, r) : r;
}

/* Per-thread workspace, sized for k once: the terms of one entry and the
 * MPFR variables of its roundings. */
struct ref_work {
    int64_t k;
    double *x, *y;            /* row i of A and column j of B, as doubles */
    mp_limb_t *limbs;         /* two per product */
    __mpfr_struct *terms;     /* the products (pointing into limbs) */
    __mpfr_struct *abs_terms; /* the same significands, positive */
    mpfr_ptr *ptrs;           /* k + 1: room for −hi (ref_lo) */
    mpfr_ptr *abs_ptrs;
    mpfr_t s, wide, q, s53, neg_hi, abs_sum;
};

static void ref_work_free(struct ref_work *w)
{
    free(w->x);
    free(w->y);
    free(w->limbs);
    free(w->terms);
    free(w->abs_terms);
    free(w->ptrs);
    free(w->abs_ptrs);
    mpfr_clears(w->s, w->wide, w->q, w->s53, w->neg_hi, w->abs_sum, (mpfr_ptr)0);
}

static bool ref_work_init(struct ref_work *w, int64_t k)
{
    size_t n = (size_t)k + 1;
    w->k = k;
    w->x = malloc(n * sizeof *w->x);
    w->y = malloc(n * sizeof *w->y);
    w->limbs = malloc(2 * n * sizeof *w->limbs);
    w->terms = malloc(n * sizeof *w->terms);
    w->abs_terms = malloc(n * sizeof *w->abs_terms);
    w->ptrs = malloc(n * sizeof *w->ptrs);
    w->abs_ptrs = malloc(n * sizeof *w->abs_ptrs);
    mpfr_init2(w->s, REF_SUM_PREC);
    mpfr_init2(w->wide, REF_WIDE_PREC);
    mpfr_init2(w->q, REF_WIDE_PREC);
    mpfr_inits2(53, w->s53, w->neg_hi, w->abs_sum, (mpfr_ptr)0);
    if (!w->x || !w->y || !w->limbs || !w->terms || !w->abs_terms || !w->ptrs || !w->abs_ptrs) {
        ref_work_free(w);
        return false;
    }
    return true;
}

/* Scalar `idx` of a target-typed array, widened to double. */
static double ref_scalar(const void *p, int64_t idx, enum mpb_target t)
{
    return t == MPB_TARGET_FP64 ? ((const double *)p)[idx] : ((const float *)p)[idx];
}

/* The pairs of part `part` of C_ij into x[] and y[] (w->k of them): row i
 * of A and column j of B (column-major, lda = m, ldb = k), widened to
 * double; for complex operands (parts interleaved) Re: (ar, br), (−ai, bi)
 * and Im: (ar, bi), (ai, br) for each l. */
static void ref_gather(const struct mpb_gemm *g, int64_t i, int64_t j, int part, struct ref_work *w)
{
    int64_t m = g->m, k = g->k;
    if (g->field != MPB_FIELD_COMPLEX) {
        for (int64_t l = 0; l < k; l++) {
            w->x[l] = ref_scalar(g->a, i + l * m, g->target);
            w->y[l] = ref_scalar(g->b, l + j * k, g->target);
        }
        return;
    }
    for (int64_t l = 0; l < k; l++) {
        int64_t ea = 2 * (i + l * m), eb = 2 * (l + j * k);
        double ar = ref_scalar(g->a, ea, g->target), ai = ref_scalar(g->a, ea + 1, g->target);
        double br = ref_scalar(g->b, eb, g->target), bi = ref_scalar(g->b, eb + 1, g->target);
        w->x[2 * l] = ar;
        w->y[2 * l] = part ? bi : br;
        w->x[2 * l + 1] = part ? ai : -ai;
        w->y[2 * l + 1] = part ? br : bi;
    }
}

#define REF_EXP_FIELD(bits) ((int)((bits) >> 52) & 0x7ff)
#define REF_FRAC_MASK ((UINT64_C(1) << 52) - 1)

/* x = sig·2^exp with sig an integer < 2^53 (x finite). */
static uint64_t ref_split(uint64_t bits, int *exp)
{
    int field = REF_EXP_FIELD(bits);
    uint64_t sig = bits & REF_FRAC_MASK;
    if (field != 0)
        sig |= UINT64_C(1) << 52;
    *exp = (field != 0 ? field : 1) - 1075;
    return sig;
}

/* The nonzero products x_l·y_l as exact MPFR numbers, in terms[] and (with
 * positive sign) abs_terms[]; returns their count, or −1 when an input is
 * NaN or ±Inf. Zero products are left out (Test 1 rows are all zeros): they
 * do not change the value, and an exact zero C comes out as +0. */
static int64_t ref_build_terms(struct ref_work *w)
{
    __extension__ typedef unsigned __int128 u128;
    int64_t n = 0;
    for (int64_t l = 0; l < w->k; l++) {
        uint64_t xb = mpb_f64_to_bits(w->x[l]), yb = mpb_f64_to_bits(w->y[l]);
        if (REF_EXP_FIELD(xb) == 0x7ff || REF_EXP_FIELD(yb) == 0x7ff)
            return -1;
        int ex, ey;
        uint64_t sx = ref_split(xb, &ex), sy = ref_split(yb, &ey);
        if (sx == 0 || sy == 0)
            continue;
        u128 prod = (u128)sx * sy; /* < 2^106: exact */
        uint64_t top = (uint64_t)(prod >> 64);
        int lz = top != 0 ? __builtin_clzll(top) : 64 + __builtin_clzll((uint64_t)prod);
        prod <<= lz;
        mp_limb_t *d = w->limbs + 2 * n;
        d[0] = (mp_limb_t)prod;
        d[1] = (mp_limb_t)(prod >> 64);
        /* value = prod·2^(ex+ey−lz) with prod in [2^127, 2^128), i.e.
         * MPFR's 0.d × 2^E with E = 128 + ex + ey − lz. */
        mpfr_exp_t e = 128 + ex + ey - lz;
        int kind = ((xb ^ yb) >> 63) ? -MPFR_REGULAR_KIND : MPFR_REGULAR_KIND;
        mpfr_custom_init_set(&w->terms[n], kind, e, REF_TERM_PREC, d);
        mpfr_custom_init_set(&w->abs_terms[n], MPFR_REGULAR_KIND, e, REF_TERM_PREC, d);
        w->ptrs[n] = &w->terms[n];
        w->abs_ptrs[n] = &w->abs_terms[n];
        n++;
    }
    return n;
}

/* NaN or ±Inf inputs: the value IEEE arithmetic gives whatever the order,
 * NaN when a product is NaN (NaN input, 0·Inf) or +Inf and −Inf meet,
 * else the infinity. Finite products cannot change it. */
static void ref_special(const struct ref_work *w, struct mpb_ref_value *v)
{
    bool nan = false, pos = false, neg = false;
    for (int64_t l = 0; l < w->k; l++) {
        if (isfinite(w->x[l]) && isfinite(w->y[l]))
            continue;
        double p = w->x[l] * w->y[l];
        nan |= isnan(p);
        pos |= p > 0;
        neg |= p < 0;
    }
    double c = nan || (pos && neg) ? NAN : pos ? INFINITY : -INFINITY;
    v->rounded = v->hi = c;
    v->lo = 0;
    v->absab = nan ? NAN : INFINITY;
    v->finite = false;
}

/* lo = RN(C − hi) from S = RN_128(C), t = sign(S − C) and the n terms in
 * w->ptrs. D = S − hi is exact in REF_WIDE_PREC bits: S and hi are
 * multiples of 2^(E_S−128) (hi's grid is coarser) and |D| ≤ ulp(hi)/2 ≤
 * 2^(E_S−52), or D = S when hi = 0. Y = C − hi = D − (S − C). When t = 0,
 * Y = D. Otherwise ref_round_format(D, t) is RN(Y) if, for every double
 * midpoint μ in D's binade or the one below (Y may lie there when D is a
 * power of two), hi + μ is a 128-bit number: then the argument of
 * ref_round_format applies to C, S shifted by hi. hi + μ lies between C and
 * S, below 2^E_S, so it is one when the spacing of μ, 2^(qe−1) with qe the
 * quantum of the lower binade, is a multiple of 2^(E_S−128). Otherwise
 * (|Y| below about 2^-74·|C|, e.g. C = 1 + 2^-1000) Y is summed again,
 * correctly rounded. */
static double ref_lo(struct ref_work *w, int64_t n, double hi, int t)
{
    mpfr_sub_d(w->wide, w->s, hi, MPFR_RNDN);
    if (t == 0 || (mpfr_regular_p(w->wide) &&
                   ref_quantum(mpfr_get_exp(w->wide) - 1, &ref_fp64) - 1 >=
                       mpfr_get_exp(w->s) - REF_SUM_PREC))
        return ref_round_format(w->wide, t, &ref_fp64, w->q);
    mpfr_set_d(w->neg_hi, -hi, MPFR_RNDN);
    w->ptrs[n] = w->neg_hi;
    int t2 = mpfr_sum(w->s53, w->ptrs, (unsigned long)n + 1, MPFR_RNDN);
    return ref_round_format(w->s53, t2, &ref_fp64, w->q);
}

static void ref_entry(const struct mpb_gemm *g, int64_t i, int64_t j, int part, struct ref_work *w,
                      struct mpb_ref_value *v)
{
    ref_gather(g, i, j, part, w);
    int64_t n = ref_build_terms(w);
    if (n < 0) {
        ref_special(w, v);
        return;
    }
    int t = mpfr_sum(w->s, w->ptrs, (unsigned long)n, MPFR_RNDN);
    v->hi = ref_round_format(w->s, t, &ref_fp64, w->q);
    v->rounded = g->target == MPB_TARGET_FP64 ? v->hi
                                              : ref_round_format(w->s, t, &ref_fp32, w->q);
    v->finite = isfinite(v->hi);
    v->lo = v->finite ? ref_lo(w, n, v->hi, t) : 0;
    /* Directed roundings compose: RU_double(RU_53(X)) = RU_double(X), and
     * mpfr_get_d rounds subnormals and overflow in the given direction. */
    mpfr_sum(w->abs_sum, w->abs_ptrs, (unsigned long)n, MPFR_RNDU);
    v->absab = mpfr_get_d(w->abs_sum, MPFR_RNDU);
}

struct ref_job {
    const struct mpb_gemm *g;
    const struct mpb_ref_entry *e;
    struct mpb_ref_value *out;
};

/* Entries [begin, end): contiguous chunks keep each thread on neighbouring
 * columns of B (entries are sorted by column). Every entry is computed on
 * its own, so the output does not depend on the thread count. */
static bool ref_run(void *ctx, int64_t begin, int64_t end)
{
    const struct ref_job *job = ctx;
    int parts = mpb_field_parts(job->g->field);
    struct ref_work w;
    if (!ref_work_init(&w, job->g->k * parts))
        return false;
    for (int64_t p = begin; p < end; p++)
        for (int part = 0; part < parts; part++)
            ref_entry(job->g, job->e[p].i, job->e[p].j, part, &w, &job->out[p * parts + part]);
    ref_work_free(&w);
    return true;
}

bool mpb_ref_mpfr(const struct mpb_gemm *g, const struct mpb_ref_entry *e, int64_t n, int threads,
                  struct mpb_ref_value *out)
{
    for (int64_t p = 0; p < n; p++)
        if (e[p].i < 0 || e[p].i >= g->m || e[p].j < 0 || e[p].j >= g->n)
            return false;
    struct ref_job job = {g, e, out};
    return mpb_ref_parallel(n, threads, &job, ref_run);
}
