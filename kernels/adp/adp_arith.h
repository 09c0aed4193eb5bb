/* Arithmetic of the `adp` scheme (Automatic Dynamic Precision; Schwarz et
 * al., NVIDIA, SCA/HPCAsia 2026), shared by the CUDA kernels (adp.cu) and
 * the host model (adp_host.c) through MPB_HD, so that both take the same
 * decision and produce the same bits.
 *
 * The scheme is Ozaki scheme I on INT8 with:
 *   - per-row (A) / per-column (B) power-of-two scaling, 2^E;
 *   - the unsigned slice encoding (paper §3): the fixed-point value
 *     N = RNE(x·2^(W−E)), W = 8s − 1, written as s base-256 digits in
 *     [−128, 127]; sub-leading digits carry 8 value bits because a u8 digit
 *     ≥ 128 is stored as digit − 256 with +1 carried into the next higher
 *     digit (two's complement remap), the leading digit carries the sign;
 *   - ESC, the Exponent Span Capacity (paper §4), estimated over blocks of
 *     length `block` along k, deciding W = bits = 53 + ESC;
 *   - guardrails and a speed heuristic (paper §5) that fall back to native
 *     DGEMM.
 * Slice pairs (p, q) with p + q = d share the weight 2^(E_i+E_j−14−8d); one
 * INT8 GEMM per diagonal d (slices concatenated along k) gives their exact
 * integer sum, and the diagonals are accumulated in FP64 double-word
 * (TwoSum) in the order d = 0, 1, …, s−1, rounded once at the end. A
 * diagonal whose pairs exceed one INT32 GEMM's ADP_MAX_TERMS takes several
 * GEMMs; above ADP_MAX_TERMS one pair alone takes several, over chunks of
 * k (adp_diagonal_gemm). */
#ifndef MPB_ADP_ARITH_H
#define MPB_ADP_ARITH_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#include "mpb_arith.h"
#include "mpb_hd.h"
#include "common/crt_arith.h"

/* The most slices any setting can ask for: bits ≤ 255 → s ≤ 32. */
#define ADP_MAX_SLICES 32
/* Exponent of a zero entry: −∞ for the ESC. Two of them sum to −32768, which
 * still fits the 16-bit halves the GPU's max-plus kernel works in. */
#define ADP_EXP_NONE (-16384)
/* Start value of a block minimum (above any exponent). */
#define ADP_EXP_TOP 16383
/* INT8×INT8 products are at most 128² = 2^14 in magnitude: an INT32
 * accumulator is exact for up to (2^31 − 1)/2^14 nonzero terms. */
#define ADP_MAX_TERMS MPB_CRT_MAX_K

/* Why a call ran what it ran (the `note` of a row). */
enum adp_reason {
    ADP_EMULATED = 0,
    ADP_NATIVE_SPECIAL,   /* NaN, Inf or subnormal in A or B */
    ADP_NATIVE_BITS,      /* 53 + ESC exceeds max_bits (or fixed_bits) */
    ADP_NATIVE_SPEED,     /* decision=auto: native DGEMM predicted faster */
    ADP_NATIVE_SHAPE,     /* decision=auto: native faster even at the fewest bits
                             any data could need; scan and ESC skipped */
    ADP_NATIVE_LD,        /* the slice engine was needed, but its INT8 GEMMs' leading
                             dimension (slices·k) exceeds cuBLAS's int */
    ADP_NATIVE_MEMORY,    /* decision=auto: the emulated path's working set exceeds
                             ADP_AUTO_WORKSPACE_BYTES; scan and ESC skipped */
};

/* The knobs, as the kernels and the host model need them. */
struct adp_config {
    int max_bits;   /* 7..255 */
    int fixed_bits; /* 0 = dynamic */
    int fallback;   /* 1 = on */
    int auto_mode;  /* 1 = decision=auto, 0 = eager */
    int block;      /* ESC coarsening along k */
    int crt;        /* 1 = engine=crt: the CRT engine where its moduli suffice */
    int gemm_engine; /* 1 = gemm=engine: the CRT products on the tensor-core engine (same sums) */
    int slices_unfit; /* 1 when the slice engine cannot run (adp_slices_fit) */
    int64_t m, n, k;
};

/* What one call decided (device memory on the GPU, read back in report()). */
struct adp_decision {
    int esc;     /* ESC of the product (0 when every row of A or column of B is zero) */
    int bits;    /* W: fixed-point bits per row/column (0 when native) */
    int slices;  /* s = (W + 1)/8 of the slice engine (0 when native or CRT) */
    int moduli;  /* N of the CRT engine (0 when native or slices) */
    int native;  /* 1 when native DGEMM ran */
    int reason;  /* enum adp_reason */
    int64_t special; /* NaN, Inf and subnormal entries the scan found in A and B */
    int sampled; /* 1: esc covers the first ADP_ESC_SAMPLE_ROWS rows of A only, whose
                    decision was already native (adp_decide) */
};

MPB_HD int adp_imax(int a, int b)
{
    return a > b ? a : b;
}

MPB_HD int adp_imin(int a, int b)
{
    return a < b ? a : b;
}

/* 1 for NaN, ±Inf and subnormals: the guardrail's fallback cases (paper §5.1
 * names NaN and Inf; subnormals too, after a counterexample with them found
 * in a Lean formalisation). */
MPB_HD int adp_is_special(double x)
{
    uint64_t u = mpb_f64_to_bits(x) & 0x7FFFFFFFFFFFFFFFull;
    int field = (int)(u >> 52);
    return field == 0x7FF || (field == 0 && u != 0);
}

/* floor(log2 |x|) from the bit pattern of |x| (the exponent the ESC adds);
 * ADP_EXP_NONE for zero. Subnormals give −1023 and NaN/Inf 1024: they are
 * guarded against before the ESC matters. */
MPB_HD int adp_exponent_of_bits(uint64_t abs_bits)
{
    if (abs_bits == 0)
        return ADP_EXP_NONE;
    return (int)(abs_bits >> 52) - 1023;
}

MPB_HD int adp_exponent(double x)
{
    return adp_exponent_of_bits(mpb_f64_to_bits(x) & 0x7FFFFFFFFFFFFFFFull);
}

/* ---- ESC (paper §4) ---------------------------------------------------- */

/* Block summary: the largest and the smallest exponent of the block. A zero
 * counts as −∞ in the minimum. The paper's proof that the coarse estimate
 * never exceeds the largest product exponent uses Min(yb) ≤ e(y_j) at the
 * position j of Max(xb); with zeros left out of the minimum that fails
 * (x = [1, 2^-60], y = [0, 1] in one block would estimate 2^0 for a largest
 * product of 2^-60), so they are kept in as −∞. */
MPB_HD void adp_block_add(int *max_e, int *min_e, double x)
{
    int e = adp_exponent(x);
    *max_e = adp_imax(*max_e, e);
    *min_e = adp_imin(*min_e, e);
}

/* One block's lower estimate of the largest product exponent of a dot
 * product: max(Max(xb) + Min(yb), Min(xb) + Max(yb)) (paper §4). */
MPB_HD int adp_block_estimate(int max_x, int min_x, int max_y, int min_y)
{
    return adp_imax(max_x + min_y, min_x + max_y);
}

/* ESC of one dot product from e(max|x|), e(max|y|) and the (estimated)
 * largest product exponent z: e(max|x|) + e(max|y|) − z + 1, the +1 covering
 * the product of two significands reaching 4 (paper §4). 0 (no constraint)
 * when x or y is all zero: the entry is then exactly 0 whatever the slices. */
MPB_HD int adp_esc_of(int ex, int ey, int z)
{
    if (ex == ADP_EXP_NONE || ey == ADP_EXP_NONE)
        return 0;
    return ex + ey - z + 1;
}

/* ---- decision (paper §5) ------------------------------------------------ */

/* W = 8s − 1 fixed-point bits in s slices (leading digit 7 bits + sign,
 * 8 bits each after it, by the unsigned encoding). */
MPB_HD int adp_slices_for_bits(int bits)
{
    return (bits + 8) / 8;
}

/* ---- the CRT engine's moduli count (adp_crt_arith.h has the engine) -- */

#define ADP_CRT_MAX_MODULI MPB_CRT_TABLE_MODULI

/* L(N) = floor(log2(m_1···m_N) − 1 − 1/64) for N = 2 … 25: |X| < 2^L keeps
 * X/M at least 0.005 from ±1/2, the margin the quotient in adp_crt_finish
 * needs (mpb_crt_budget, Ozaki-II's rule too). adp_crt_table.c computes
 * them with GMP and tests/kernels/test_adp_crt.c checks this switch against
 * it; a switch so that the decision kernel needs no table. */
MPB_HD int adp_crt_budget(int n)
{
    switch (n) {
    case 2: return 14;
    case 3: return 22;
    case 4: return 30;
    case 5: return 38;
    case 6: return 46;
    case 7: return 54;
    case 8: return 62;
    case 9: return 70;
    case 10: return 78;
    case 11: return 86;
    case 12: return 93;
    case 13: return 101;
    case 14: return 109;
    case 15: return 116;
    case 16: return 124;
    case 17: return 131;
    case 18: return 139;
    case 19: return 146;
    case 20: return 154;
    case 21: return 161;
    case 22: return 169;
    case 23: return 176;
    case 24: return 183;
    case 25: return 190;
    default: return 0;
    }
}

/* The fewest moduli with k·2^(2W) ≤ 2^L(N); 0 when even all of them are too
 * few (the slice engine then runs). */
MPB_HD int adp_crt_moduli(int bits, int64_t k)
{
    int need = 2 * bits + mpb_ceil_log2(k);
    for (int n = 2; n <= ADP_CRT_MAX_MODULI; n++)
        if (adp_crt_budget(n) >= need)
            return n;
    return 0;
}

/* ---- decision=auto's prediction (paper §5) ---------------------------- */

/* decision=auto's time model (paper §5: "emulate when the predicted emulation
 * time is below native time"), its rates measured on an H200 SXM, CUDA 13.0,
 * cuBLAS 13.1.0, m = n = k; other shapes use the row of the nearest size:
 *   size    INT8 products (TOP/s)   DGEMM (TFLOP/s)
 *   4096    1150                    59.5
 *   8192    1290                    56.0
 *   16384   1330                    52.8
 * INT8: sustained rates of one product after 300 ms of calls
 * (results/h200/int8-engine/lowp-int8-engine.csv: cuBLAS and the engine at
 * 4096, the engine's cluster form at 8192, cuBLAS's column blocks at 16384,
 * the forms gemm=auto picks); DGEMM: cuBLAS, median of 10 after 3 warm-ups.
 * Memory passes are charged at 4.0 TB/s (the 4.8 TB/s datasheet HBM3e
 * bandwidth derated to what streaming kernels reach), the ESC's block
 * max-plus products at 8e12 per second (fitted to the guardrails times in
 * results/h200/fp64-emulation/fp64-emulation.csv: 1.46 ms at 8192, 8.96 ms
 * at 16384). tests/kernels/test_adp_arith.c checks the model against the
 * measured times it was fitted to. */
#define ADP_BYTES_PER_S 4.0e12
#define ADP_ESC_OPS_PER_S 8.0e12

/* The row of the table for a product of mnk multiply-adds: the nearest
 * size by (mnk)^(1/3), compared as cubes so that host and device agree
 * exactly (no cbrt). */
MPB_HD void adp_rates(double mnk, double *int8_ops, double *dgemm_flops)
{
    if (mnk < 6144.0 * 6144.0 * 6144.0) {
        *int8_ops = 1150e12;
        *dgemm_flops = 59.5e12;
    } else if (mnk < 12288.0 * 12288.0 * 12288.0) {
        *int8_ops = 1290e12;
        *dgemm_flops = 56.0e12;
    } else {
        *int8_ops = 1330e12;
        *dgemm_flops = 52.8e12;
    }
}

MPB_HD double adp_native_seconds(int64_t m, int64_t n, int64_t k)
{
    double r8, r64, mnk = (double)m * (double)n * (double)k;
    adp_rates(mnk, &r8, &r64);
    return 2.0 * mnk / r64;
}

/* The guardrails (paper §5.1), which every emulated call runs first: the
 * scan reads A and B once (8 B per input element), the ESC does one
 * max-plus per output entry and k-block. */
MPB_HD double adp_guard_seconds(const struct adp_config *c)
{
    double inputs = (double)c->m * (double)c->k + (double)c->k * (double)c->n;
    double blocks = (double)((c->k + c->block - 1) / c->block);
    return 8.0 * inputs / ADP_BYTES_PER_S + (double)c->m * (double)c->n * blocks / ADP_ESC_OPS_PER_S;
}

/* Predicted seconds after the guardrails with s slices: s(s+1)/2 INT8
 * GEMMs of 2mnk operations, slicing (8 B read + s B written per input
 * element) and s accumulation passes (≈ 36 B per output entry). */
MPB_HD double adp_slices_seconds(int s, int64_t m, int64_t n, int64_t k)
{
    double r8, r64, mnk = (double)m * (double)n * (double)k;
    adp_rates(mnk, &r8, &r64);
    double inputs = (double)m * (double)k + (double)k * (double)n;
    double bytes = inputs * (8.0 + s) + 36.0 * s * (double)m * (double)n;
    return 0.5 * s * (s + 1) * 2.0 * mnk / r8 + bytes / ADP_BYTES_PER_S;
}

/* The same for the CRT engine with N moduli: N INT8 GEMMs, the residues
 * (8 B read + N B written per input element) and the reconstruction (N
 * INT32 planes read, C written: 4N + 8 B per output entry). */
MPB_HD double adp_crt_seconds(int moduli, int64_t m, int64_t n, int64_t k)
{
    double r8, r64, mnk = (double)m * (double)n * (double)k;
    adp_rates(mnk, &r8, &r64);
    double inputs = (double)m * (double)k + (double)k * (double)n;
    double bytes = inputs * (8.0 + moduli) + (4.0 * moduli + 8.0) * (double)m * (double)n;
    return moduli * 2.0 * mnk / r8 + bytes / ADP_BYTES_PER_S;
}

/* Predicted seconds after the guardrails for W bits: the CRT engine where
 * it runs (engine=crt and its moduli suffice), else the slice engine. */
MPB_HD double adp_bits_seconds(const struct adp_config *c, int bits)
{
    int moduli = c->crt ? adp_crt_moduli(bits, c->k) : 0;
    if (moduli)
        return adp_crt_seconds(moduli, c->m, c->n, c->k);
    return adp_slices_seconds(adp_slices_for_bits(bits), c->m, c->n, c->k);
}

/* "Emulate when the predicted emulation time is below native time", once
 * the guardrails have run: their cost is spent either way. */
MPB_HD int adp_emulation_pays(const struct adp_config *c, int bits)
{
    return adp_bits_seconds(c, bits) < adp_native_seconds(c->m, c->n, c->k);
}

/* The fewest bits any data can need: dynamic bits are at least 53 + 1
 * (ESC ≥ 1 for any nonzero product), fixed bits are what they are. */
MPB_HD int adp_min_bits(const struct adp_config *c)
{
    return c->fixed_bits ? c->fixed_bits : 54;
}

/* decision=auto where the guardrails plus even the fewest bits lose to
 * native DGEMM: native whatever the data, so the host decides before any
 * kernel runs and the guardrails' cost is not paid. */
MPB_HD int adp_native_by_shape(const struct adp_config *c)
{
    return c->fallback && c->auto_mode &&
           adp_guard_seconds(c) + adp_bits_seconds(c, adp_min_bits(c)) >=
               adp_native_seconds(c->m, c->n, c->k);
}

/* The ESC is computed over the first ADP_ESC_SAMPLE_ROWS rows of A (one ESC
 * tile of the GPU) before the others: a lower bound of the whole ESC. Where
 * adp_decide on it is native already, it stands, and the other rows are not
 * computed (the guardrails then cost the scan and ADP_ESC_SAMPLE_ROWS/m of
 * the ESC): every native reason holds at any larger ESC. Special values do
 * not depend on it; the bits 53 + ESC only grow with it, so they stay past
 * max_bits, and adp_bits_seconds grows with the bits (more moduli; past the
 * CRT engine's reach the slice engine's s(s+1)/2 products, or its unfit
 * leading dimension), so auto's prediction stays native. */
#define ADP_ESC_SAMPLE_ROWS 128

/* The decision rule. Special values always go native (the emulation has no
 * encoding for them); fallback=off keeps every other case emulated, with
 * min(53 + ESC, max_bits) bits or fixed_bits, unless the slice engine is
 * needed and cannot run (adp_slices_fit; k above 2^31/slices). decision=auto
 * predicts the time of the engine that would run (adp_bits_seconds).
 * `special` counts the NaN, Inf and subnormal entries of A and B. */
MPB_HD struct adp_decision adp_decide(const struct adp_config *c, int64_t special, int esc)
{
    struct adp_decision d = {esc, 0, 0, 0, 1, ADP_NATIVE_SPECIAL, special, 0};
    if (special)
        return d;
    int needed = 53 + esc;
    int bits = c->fixed_bits ? c->fixed_bits : adp_imin(needed, c->max_bits);
    if (c->fallback && needed > (c->fixed_bits ? c->fixed_bits : c->max_bits)) {
        d.reason = ADP_NATIVE_BITS;
        return d;
    }
    int s = adp_slices_for_bits(bits);
    if (c->fallback && c->auto_mode && !adp_emulation_pays(c, bits)) {
        d.reason = ADP_NATIVE_SPEED;
        return d;
    }
    d.bits = bits;
    d.moduli = c->crt ? adp_crt_moduli(bits, c->k) : 0;
    if (!d.moduli && c->slices_unfit) {
        d.bits = 0;
        d.reason = ADP_NATIVE_LD;
        return d;
    }
    d.slices = d.moduli ? 0 : s;
    d.native = 0;
    d.reason = ADP_EMULATED;
    return d;
}

/* ---- slicing (paper §3) ------------------------------------------------- */

/* Scale exponent E of a row (column) from the bits of its max |x|: every
 * |x|·2^−E ≤ 127/128, so that the leading digit plus the carry of the
 * unsigned encoding stays ≤ 127. E = e + 1, or e + 2 when the significand of
 * max |x| exceeds 2·127/128 = 1 + 63/64 (fraction bits above 0xFC000…).
 * ADP_EXP_NONE for an all-zero row. */
MPB_HD int adp_scale_exponent(uint64_t max_abs_bits)
{
    int e = adp_exponent_of_bits(max_abs_bits);
    if (e == ADP_EXP_NONE)
        return e;
    uint64_t frac = max_abs_bits & 0x000FFFFFFFFFFFFFull;
    return e + 1 + (frac > 0x000FC00000000000ull);
}

/* Digits of x: N = RNE(|x|·2^(W−E))·sign(x), W = 8s − 1, as s balanced
 * base-256 digits d_0 … d_{s−1} in [−128, 127] with
 * x̂ = 2^E · Σ_p d_p·2^(−7−8p). The magnitude's digits come first, exactly
 * (scaling by powers of two, floor and the fractional part of a non-negative
 * double are exact; the last digit is rounded to nearest even, and may be
 * 256); then the remap from the lowest digit up: a digit ≥ 128 becomes
 * digit − 256 with +1 carried up (paper §3, Fig. 1), for negative x the
 * mirror image. Since |x|·2^−E ≤ 127/128, d_0 ∈ [−128, 127]. Writes
 * digits[p·stride]. */
MPB_HD void adp_slice(double x, int E, int s, int8_t *digits, int64_t stride)
{
    int mag[ADP_MAX_SLICES];
    double t = E == ADP_EXP_NONE ? 0.0 : ldexp(fabs(x), -E);
    double v = t * 128.0;
    for (int p = 0; p < s - 1; p++) {
        double f = floor(v);
        mag[p] = (int)f;
        v = (v - f) * 256.0;
    }
    mag[s - 1] = (int)rint(v);
    int sign = x < 0 ? -1 : 1, carry = 0;
    for (int p = s - 1; p >= 1; p--) {
        int w = sign * mag[p] + carry;
        carry = w > 127 ? 1 : w < -128 ? -1 : 0;
        digits[p * stride] = (int8_t)(w - 256 * carry);
    }
    digits[0] = (int8_t)(sign * mag[0] + carry);
}

/* ---- accumulation ------------------------------------------------------- */

/* ---- the INT8 GEMMs of a diagonal -------------------------------------- */

/* k padded to a multiple of 16: the slices' (residues') stride along k. */
MPB_HD int64_t adp_padded_k(int64_t k)
{
    return (k + 15) / 16 * 16;
}

/* How the INT8 GEMMs cut the work when one INT32 GEMM may sum at most
 * `most` terms (ADP_MAX_TERMS; tests pass less): diagonal d's pairs side by
 * side along k, `pairs` = most/k of them per GEMM; when k > most
 * (pairs = 0), each pair alone over `chunks` chunks of k of `len` terms
 * (the last takes the rest of the padded k; mpb_crt_chunks/_chunk_len,
 * aligned to 16 with most = ADP_MAX_TERMS: chunks of ≤ MPB_CRT_CHUNK_K). */
struct adp_gemm_plan {
    int pairs;
    int64_t chunks, len;
};

MPB_HD struct adp_gemm_plan adp_gemm_plan_for(int64_t k, int64_t most)
{
    struct adp_gemm_plan p;
    int64_t kp = adp_padded_k(k);
    p.pairs = (int)(k <= most ? most / k : 0);
    int64_t chunk_most = most == ADP_MAX_TERMS ? MPB_CRT_CHUNK_K : most;
    p.chunks = p.pairs ? 1 : mpb_crt_chunks(kp, chunk_most);
    p.len = p.pairs ? kp : mpb_crt_chunk_len(kp, chunk_most, most == ADP_MAX_TERMS ? 16 : 1);
    return p;
}

/* The INT8 GEMMs of diagonal d (pairs p + q = d, p = 0 … d). */
MPB_HD int adp_diagonal_gemms(const struct adp_gemm_plan *p, int d)
{
    return p->pairs ? (d + p->pairs) / p->pairs : (int)((d + 1) * p->chunks);
}

/* GEMM number g of diagonal d: pairs p0 … p1 (A's digits; B's are d − p)
 * over chunk c of k (always 0 when pairs are side by side: all of k).
 * Pairs in order, and a pair's chunks in order. */
MPB_HD void adp_diagonal_gemm(const struct adp_gemm_plan *p, int d, int g, int *p0, int *p1,
                              int64_t *c)
{
    if (p->pairs) {
        *p0 = g * p->pairs;
        *p1 = adp_imin(d, *p0 + p->pairs - 1);
        *c = 0;
    } else {
        *p0 = *p1 = (int)(g / p->chunks);
        *c = g % p->chunks;
    }
}

/* The slice engine on the GPU: its INT8 GEMMs take the leading dimension
 * s_max·kp (all slices of a row side by side) as an int. */
MPB_HD int adp_slices_fit(int smax, int64_t k)
{
    return (int64_t)smax * adp_padded_k(k) <= 2147483647;
}

/* The weight of diagonal d (p + q = d) relative to 2^(E_i + E_j). */
MPB_HD double adp_diagonal_term(int32_t sum, int d)
{
    return ldexp((double)sum, -14 - 8 * d);
}

/* hi + lo += term, error-free in hi (TwoSum, Knuth TAOCP vol. 2 §4.2.2),
 * the rounding error collected in lo. */
MPB_HD void adp_acc_add(double *hi, double *lo, double term)
{
    double s = *hi + term;
    double bp = s - *hi;
    double err = (*hi - (s - bp)) + (term - bp);
    *hi = s;
    *lo += err;
}

/* The entry: hi + lo rounded once, scaled by 2^(E_i + E_j). */
MPB_HD double adp_acc_final(double hi, double lo, int ea, int eb)
{
    if (ea == ADP_EXP_NONE || eb == ADP_EXP_NONE)
        return 0.0;
    return ldexp(hi + lo, ea + eb);
}

#endif
