/* Element functions of every generator, host and device: element (r, c) of
 * A (m×k) or B (k×n) is a pure function of (config, operand, r, c), so any
 * thread can compute any element and a host fill reproduces a device fill
 * bit for bit. Values are computed in double and rounded once to the target
 * (mpb_gen_store); every scaling is by an exact power of two.
 *
 * Stream map. The PCG stream number names the role of a draw; the same
 * roles are used by every generator, so generators built on the N(0,1) base
 * share it (inner/outer/evil/test1a/test1b/test3/special equal randn times
 * a power of two, or zero, or a special value: tests use this).
 *   stream 0  A, per element e = r + c·m: draws [8e, 8e+8)
 *   stream 1  B, per element e = r + c·k: draws [8e, 8e+8)
 *             in both: draws 0–3 the N(0,1) base g (Box–Muller) or, for
 *             uniform, draws 0–1 the U(0,1) value; draws 4–5 phi's u;
 *             draw 4 evil's exponent; draws 4–7 special's injection
 *             (4: inject?, 5: category and sign, 6–7: subnormal payload)
 *   stream 2  per row i of A, draw i: outer's row exponent
 *   stream 3  per column j of B, draw j: outer's column exponent
 *   stream 4  per inner index l: inner's d_l (draw l); test2's x_l
 *             (draws 2l, 2l+1)
 *   stream 5  per test1b pair p, draw p: the split point s_p
 *   stream 6  keys of the bijections, drawn once in mpb_gen_config_init
 *             (key t: draws 2t, 2t+1): 0 rows of A, 1 columns of B,
 *             2 test1b per-pair permutations, 3 test2r/test3 shuffle
 *   (stream 7 is the reference's choice of entries, reference/ref_select.c)
 *   stream 8  A's imaginary parts, per element as stream 0
 *   stream 9  B's imaginary parts, per element as stream 1
 *   stream 10 test2's imaginary significands y_l (draws 2l, 2l+1)
 * Complex operands (cfg->field): the real part of an element is the real
 * generator's element, bit for bit; the imaginary part is the same element
 * function on the imaginary streams (8, 9, 10), so the two parts are
 * independent draws, while everything a generator draws per row, column,
 * inner index or key (streams 2–6) is shared: outer's row scale, inner's
 * d_l, test1's zeros and test3's structure apply to the complex entry as a
 * whole. smallim scales the imaginary part alone. */
#ifndef MPB_GEN_ELEMENT_H
#define MPB_GEN_ELEMENT_H

#include <stdint.h>
#include <string.h>
#include "mpb_arith.h"
#include "mpb_hd.h"
#include "gen_bij.h"
#include "gen_config.h"
#include "gen_math.h"
#include "pcg32.h"

enum mpb_gen_stream {
    MPB_STREAM_A = 0,
    MPB_STREAM_B = 1,
    MPB_STREAM_ROW_A = 2,
    MPB_STREAM_COL_B = 3,
    MPB_STREAM_INNER = 4,
    MPB_STREAM_PAIR = 5,
    MPB_STREAM_KEY = 6,
    MPB_STREAM_A_IM = 8,
    MPB_STREAM_B_IM = 9,
    MPB_STREAM_INNER_IM = 10,
};

enum mpb_gen_key { MPB_KEY_ROWS = 0, MPB_KEY_COLS, MPB_KEY_PAIRS, MPB_KEY_SHUFFLE };

#define MPB_GEN_DRAWS 8 /* draws reserved per element of A and B */

/* Positions in p[]/ip[]: the order of each spec table in generators.c. */
enum {
    MPB_GP_LO = 0, MPB_GP_HI = 1,                      /* uniform */
    MPB_GP_PHI = 0,                                    /* phi */
    MPB_GP_B = 0,                                      /* test2, test2r */
    MPB_GP_N0 = 0, MPB_GP_T3SPAN = 1, MPB_GP_HUGE = 2, /* test3 */
    MPB_GP_SPAN = 0,                                   /* outer, inner, evil, smallim */
    MPB_GP_RATE = 0, MPB_GP_KIND = 1,                  /* special */
};

enum mpb_special_kind {
    MPB_SPECIAL_ALL = 0,
    MPB_SPECIAL_NAN,
    MPB_SPECIAL_INF,
    MPB_SPECIAL_SUBNORMAL,
    MPB_SPECIAL_NEGZERO,
};

/* U[0,1) with 53 random bits from two draws. */
MPB_HD double mpb_gen_u53(struct mpb_pcg32 *g)
{
    uint64_t a = mpb_pcg32_next(g) >> 5;
    uint64_t b = mpb_pcg32_next(g) >> 6;
    return (double)((a << 26) | b) * 0x1p-53;
}

/* N(0,1) from four draws: Box–Muller (Box & Muller 1958), cosine branch,
 * u1 in (0, 1] so that the logarithm is finite. */
MPB_HD double mpb_gen_randn(struct mpb_pcg32 *g)
{
    double u1 = 1.0 - mpb_gen_u53(g);
    double u2 = mpb_gen_u53(g);
    double s, c;
    mpb_gm_sincos2pi(u2, &s, &c);
    return sqrt(-2.0 * mpb_gm_log(u1)) * c;
}

/* Integer uniform in [lo, hi] from one draw (multiply-shift, Lemire 2019
 * without the rejection step: the bias is below 2^-32·(hi−lo+1)). */
MPB_HD int64_t mpb_gen_uint_range(uint32_t draw, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(((uint64_t)draw * (uint64_t)(hi - lo + 1)) >> 32);
}

/* −h + round(2h·t/(count−1)) in integers, ties up: the evenly spread
 * exponents of Test 2 (spread(0) = −h, spread(count−1) = h; −h when
 * count = 1). */
MPB_HD int64_t mpb_gen_spread(int64_t t, int64_t count, int64_t h)
{
    if (count < 2)
        return -h;
    return -h + (4 * h * t + (count - 1)) / (2 * (count - 1));
}

MPB_HD double mpb_gen_to_target(const struct mpb_gen_config *cfg, double x)
{
    return cfg->target == MPB_TARGET_FP32 ? (double)(float)x : x;
}

MPB_HD int64_t mpb_gen_rows(const struct mpb_gen_config *cfg, enum mpb_operand which)
{
    return which == MPB_OPERAND_A ? cfg->m : cfg->k;
}

MPB_HD int64_t mpb_gen_cols(const struct mpb_gen_config *cfg, enum mpb_operand which)
{
    return which == MPB_OPERAND_A ? cfg->k : cfg->n;
}

/* The generator positioned at the first draw of part `part` (0 real, 1
 * imaginary) of element (r, c). */
MPB_HD struct mpb_pcg32 mpb_gen_elem_rng(const struct mpb_gen_config *cfg,
                                         enum mpb_operand which, int64_t r, int64_t c, int part)
{
    uint64_t e = (uint64_t)r + (uint64_t)c * (uint64_t)mpb_gen_rows(cfg, which);
    uint64_t stream = which == MPB_OPERAND_A ? (part ? MPB_STREAM_A_IM : MPB_STREAM_A)
                                             : (part ? MPB_STREAM_B_IM : MPB_STREAM_B);
    return mpb_pcg32_at(cfg->seed, stream, e * MPB_GEN_DRAWS);
}

MPB_HD uint32_t mpb_gen_draw(const struct mpb_gen_config *cfg, uint64_t stream, uint64_t draw)
{
    struct mpb_pcg32 g = mpb_pcg32_at(cfg->seed, stream, draw);
    return mpb_pcg32_next(&g);
}

/* Test 2's x_l = X·2^-52 (fp64) or X·2^-23 (fp32), X = 2^52 + 52 random
 * bits (2^23 + 23 bits): U(1,2) with a full random significand; part 1:
 * the imaginary part's y_l, the same from its own stream. */
MPB_HD uint64_t mpb_gen_test2_sig_part(const struct mpb_gen_config *cfg, int64_t l, int part)
{
    struct mpb_pcg32 g = mpb_pcg32_at(cfg->seed, part ? MPB_STREAM_INNER_IM : MPB_STREAM_INNER,
                                      2 * (uint64_t)l);
    uint64_t a = mpb_pcg32_next(&g);
    uint64_t b = mpb_pcg32_next(&g);
    if (cfg->target == MPB_TARGET_FP32)
        return (1ULL << 23) | (a >> 9);
    return (1ULL << 52) | (a << 20) | (b >> 12);
}

MPB_HD uint64_t mpb_gen_test2_sig(const struct mpb_gen_config *cfg, int64_t l)
{
    return mpb_gen_test2_sig_part(cfg, l, 0);
}

MPB_HD int mpb_gen_test2_frac_bits(const struct mpb_gen_config *cfg)
{
    return cfg->target == MPB_TARGET_FP32 ? 23 : 52;
}

/* Exponent j of position l: Test 2's evenly spread list, read through the
 * keyed shuffle for test2r. */
MPB_HD int64_t mpb_gen_test2_exp(const struct mpb_gen_config *cfg, int64_t l)
{
    int64_t t = cfg->kind == MPB_GEN_TEST2R ? (int64_t)mpb_bij_apply(&cfg->bij_exp, (uint64_t)l) : l;
    return mpb_gen_spread(t, cfg->k, cfg->ip[MPB_GP_B]);
}

/* test1b split point s_p of pair p: in [1, k−1] so that both parts of the
 * support are non-empty when k ≥ 2; in {0, 1} when k = 1. */
MPB_HD int64_t mpb_gen_test1b_split(const struct mpb_gen_config *cfg, int64_t p)
{
    uint32_t d = mpb_gen_draw(cfg, MPB_STREAM_PAIR, (uint64_t)p);
    return cfg->k >= 2 ? mpb_gen_uint_range(d, 1, cfg->k - 1) : (int64_t)(d >> 31);
}

/* Is A(r, l) (operand A) or B(l, c) (operand B) in the zeroed part of
 * test1b pair p? A keeps the entries whose position in the pair's
 * permutation of 0..k−1 is ≥ s_p, B the others: disjoint supports. */
MPB_HD int mpb_gen_test1b_zero(const struct mpb_gen_config *cfg, enum mpb_operand which,
                               int64_t p, int64_t l)
{
    struct mpb_gen_bij perm = mpb_bij_make((uint64_t)cfg->k, mpb_mix64(cfg->pair_key + (uint64_t)p));
    int first = (int64_t)mpb_bij_apply(&perm, (uint64_t)l) < mpb_gen_test1b_split(cfg, p);
    return which == MPB_OPERAND_A ? first : !first;
}

/* Test 3 (Strassen float vs fixed; from an outline, the details chosen here).
 * Construction: A(i,l) = g·2^{s(l)}, B(l,j) = g'·2^{−s(l)}, g, g' ~ N(0,1),
 * s(l) = e_{π(l mod n0)} with e_t the evenly spread list of Test 2 over
 * [−span, span] (t < n0) and π a keyed shuffle of 0..n0−1; then row m−1 of
 * A and column n−1 of B are multiplied by 2^huge. All exact.
 * Why: Strassen's additions (A11 + A22, …) and, recursively, its leaf
 * blocks only ever combine entries whose indices agree modulo the leaf
 * size. With n = n0·2^L the scale 2^{s(l)} is the same for every entry a
 * floating-point Strassen adds together, so it commutes with every rounding
 * and the computed C is that of the unscaled N(0,1) problem; and a leaf
 * row at position i mod n0 only feeds C rows at the same position, so the
 * huge row m−1 (position n0−1) never touches rows 0..n0−2 — same for
 * columns. The leading (n0−1)×(n0−1) block of a floating-point Strassen is
 * therefore as accurate as unscaled Strassen (≤ 10·n·u). A fixed-point
 * code shares one exponent per row (lost: the entries 2^{2·span} below the
 * row's largest), per column of A / row of B (the huge row sets it), or
 * per block/matrix (both): the small entries lose their bits and the block
 * error reaches ≥ √u. The test is only meaningful for m, n, k multiples
 * of n0·2^L, with m, n ≥ n0 (gen_designated.h gives the block). */
/* Test 3's inner scale exponent of index l (period n0, shuffled). */
MPB_HD int64_t mpb_gen_test3_exp(const struct mpb_gen_config *cfg, int64_t l)
{
    int64_t n0 = cfg->ip[MPB_GP_N0];
    int64_t t = (int64_t)mpb_bij_apply(&cfg->bij_exp, (uint64_t)(l % n0));
    return mpb_gen_spread(t, n0, cfg->ip[MPB_GP_T3SPAN]);
}

/* A special value for special's draws 5–7 (category/sign, payload). */
MPB_HD double mpb_gen_special_value(const struct mpb_gen_config *cfg, struct mpb_pcg32 *g)
{
    uint32_t d5 = mpb_pcg32_next(g);
    uint64_t d6 = mpb_pcg32_next(g);
    uint64_t d7 = mpb_pcg32_next(g);
    int kind = (int)cfg->ip[MPB_GP_KIND];
    if (kind == MPB_SPECIAL_ALL)
        kind = MPB_SPECIAL_NAN + (int)((d5 >> 1) % 4u);
    uint64_t sign = d5 & 1u;
    switch (kind) {
    case MPB_SPECIAL_NAN:
        return mpb_bits_to_f64(0x7ff8000000000000ULL);
    case MPB_SPECIAL_INF:
        return mpb_bits_to_f64((sign << 63) | 0x7ff0000000000000ULL);
    case MPB_SPECIAL_SUBNORMAL:
        if (cfg->target == MPB_TARGET_FP32) {
            uint32_t fb = (uint32_t)(sign << 31) | (uint32_t)(d6 >> 9 ? d6 >> 9 : 1);
            return (double)mpb_bits_to_f32(fb);
        } else {
            uint64_t mant = (d6 << 20) | (d7 >> 12);
            return mpb_bits_to_f64((sign << 63) | (mant ? mant : 1));
        }
    default:
        return -0.0;
    }
}

/* The generators built on the N(0,1) base g (draws 0–3 of the element,
 * already read from `g`): g rounded to the target, then zeroed (test1a,
 * test1b), replaced (special) or scaled by an exact power of two. */
MPB_HD double mpb_gen_from_base(const struct mpb_gen_config *cfg, enum mpb_operand which,
                                int64_t r, int64_t c, int part, double base, struct mpb_pcg32 *g)
{
    const int is_a = which == MPB_OPERAND_A;
    int64_t e = 0, span = cfg->ip[MPB_GP_SPAN];
    switch (cfg->kind) {
    case MPB_GEN_TEST1A:
        if (is_a ? (int64_t)mpb_bij_apply(&cfg->bij_rows, (uint64_t)r) < cfg->m / 4
                 : (int64_t)mpb_bij_apply(&cfg->bij_cols, (uint64_t)c) < cfg->n / 4)
            return 0.0;
        break;
    case MPB_GEN_TEST1B: {
        int64_t pairs = (cfg->m < cfg->n ? cfg->m : cfg->n) / 2;
        int64_t p = (int64_t)(is_a ? mpb_bij_apply(&cfg->bij_rows, (uint64_t)r)
                                   : mpb_bij_apply(&cfg->bij_cols, (uint64_t)c));
        if (p < pairs && mpb_gen_test1b_zero(cfg, which, p, is_a ? c : r))
            return 0.0;
        break;
    }
    case MPB_GEN_TEST3: {
        int64_t s = mpb_gen_test3_exp(cfg, is_a ? c : r);
        int huge = is_a ? r == cfg->m - 1 : c == cfg->n - 1;
        e = (is_a ? s : -s) + (huge ? cfg->ip[MPB_GP_HUGE] : 0);
        break;
    }
    case MPB_GEN_OUTER:
        e = mpb_gen_uint_range(is_a ? mpb_gen_draw(cfg, MPB_STREAM_ROW_A, (uint64_t)r)
                                    : mpb_gen_draw(cfg, MPB_STREAM_COL_B, (uint64_t)c),
                               -span, span);
        break;
    case MPB_GEN_INNER:
        e = mpb_gen_uint_range(mpb_gen_draw(cfg, MPB_STREAM_INNER, (uint64_t)(is_a ? c : r)),
                               -span, span);
        e = is_a ? e : -e;
        break;
    case MPB_GEN_EVIL:
        e = mpb_gen_uint_range(mpb_pcg32_next(g), -span, span);
        break;
    case MPB_GEN_SPECIAL:
        if (mpb_pcg32_next(g) < cfg->inject_below)
            return mpb_gen_special_value(cfg, g);
        break;
    case MPB_GEN_SMALLIM:
        e = part ? -span : 0;
        break;
    default: /* randn */
        break;
    }
    return mpb_gm_scale2(mpb_gen_to_target(cfg, base), (int)e);
}

/* Part `part` (0 real, 1 imaginary) of A(r, c) or B(r, c) as a double
 * exactly representable in the target (NaN excepted: mpb_gen_store writes
 * the target's quiet NaN). */
MPB_HD double mpb_gen_element_part(const struct mpb_gen_config *cfg, enum mpb_operand which,
                                   int64_t r, int64_t c, int part)
{
    if (cfg->kind == MPB_GEN_TEST2 || cfg->kind == MPB_GEN_TEST2R) {
        int64_t l = (r % cfg->k + c % cfg->k) % cfg->k;
        double x = (double)mpb_gen_test2_sig_part(cfg, l, part) * mpb_gm_pow2(-mpb_gen_test2_frac_bits(cfg));
        int64_t j = mpb_gen_test2_exp(cfg, l);
        return mpb_gm_scale2(x, (int)(which == MPB_OPERAND_A ? j : -j));
    }
    struct mpb_pcg32 g = mpb_gen_elem_rng(cfg, which, r, c, part);
    if (cfg->kind == MPB_GEN_UNIFORM) {
        double lo = cfg->p[MPB_GP_LO], hi = cfg->p[MPB_GP_HI];
        return mpb_gen_to_target(cfg, lo + (hi - lo) * mpb_gen_u53(&g));
    }
    double base = mpb_gen_randn(&g);
    if (cfg->kind == MPB_GEN_PHI)
        return mpb_gen_to_target(cfg, (mpb_gen_u53(&g) - 0.5) * mpb_gm_exp(cfg->p[MPB_GP_PHI] * base));
    return mpb_gen_from_base(cfg, which, r, c, part, base, &g);
}

/* A(r, c) or B(r, c) of a real operand; the real part of a complex one. */
MPB_HD double mpb_gen_element(const struct mpb_gen_config *cfg, enum mpb_operand which,
                              int64_t r, int64_t c)
{
    return mpb_gen_element_part(cfg, which, r, c, 0);
}

/* Store x into element `idx` of a target-typed array: the one rounding to
 * fp32 (exact for every generator except phi and uniform), and a fixed
 * quiet NaN because double→float NaN conversion differs between x86 and
 * the GPU (payload kept vs canonical). */
MPB_HD void mpb_gen_store(const struct mpb_gen_config *cfg, void *dst, int64_t idx, double x)
{
    if (cfg->target == MPB_TARGET_FP64) {
        ((double *)dst)[idx] = x;
    } else if (x != x) {
        const uint32_t qnan = 0x7fc00000u;
        memcpy((float *)dst + idx, &qnan, sizeof qnan);
    } else {
        ((float *)dst)[idx] = (float)x;
    }
}

/* Store part `part` of element `idx` (complex operands interleave the
 * parts, as cuDoubleComplex and cuComplex do). */
MPB_HD void mpb_gen_store_part(const struct mpb_gen_config *cfg, void *dst, int64_t idx, int part,
                               double x)
{
    mpb_gen_store(cfg, dst, cfg->field == MPB_FIELD_COMPLEX ? 2 * idx + part : idx, x);
}

/* Every part of element (r, c) into element `idx` of dst. */
MPB_HD void mpb_gen_fill_element(const struct mpb_gen_config *cfg, enum mpb_operand which,
                                 void *dst, int64_t idx, int64_t r, int64_t c)
{
    int parts = cfg->field == MPB_FIELD_COMPLEX ? 2 : 1; /* mpb_field_parts, callable on the device */
    for (int part = 0; part < parts; part++)
        mpb_gen_store_part(cfg, dst, idx, part, mpb_gen_element_part(cfg, which, r, c, part));
}

#endif
