/* Ozaki scheme II arithmetic (kernels/ozaki2/ozaki2_arith.h) against exact
 * integer arithmetic (__int128 and GMP): the moduli, the residues, the CRT
 * constants and the reconstruction for every moduli count; the split of k
 * (common/crt_arith.h): the digit of an INT32 sum is that of its residue
 * modulo 2·m_t, folding chunk sums gives that residue, the chunk plan covers
 * k, and the host model gives the same bits however k is split. Fixed seed;
 * failures print the values. */
#include <gmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rng.h"
#include "ozaki2/ozaki2.h"

static int gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static int sym_mod(__int128 x, int m)
{
    int r = (int)(x % m);
    if (r < 0)
        r += m;
    return r > (m - 1) / 2 ? r - m : r;
}

static void test_moduli(void)
{
    for (int s = 0; s < MPB_CRT_TABLE_MODULI; s++) {
        int ms = mpb_crt_modulus(s);
        CHECK(ms <= 256 && ms > 128, "modulus %d = %d", s, ms);
        for (int t = s + 1; t < MPB_CRT_TABLE_MODULI; t++)
            CHECK(gcd(ms, mpb_crt_modulus(t)) == 1, "moduli %d and %d share a factor", ms,
                  mpb_crt_modulus(t));
        CHECK(mpb_crt_pow2_35_residue(s) == sym_mod((__int128)1 << 35, ms), "2^35 mod %d", ms);
        CHECK(mpb_crt_pow2_70_residue(s) == sym_mod((__int128)1 << 70, ms), "2^70 mod %d", ms);
    }
}

/* Residues of integers up to 2^104 in magnitude, both signs, every modulus. */
static void test_residues(void)
{
    for (int it = 0; it < 200000; it++) {
        int bits = 1 + (int)(rng_next() % 104);
        uint64_t hi = rng_next() & (bits > 52 ? ((1ull << (bits - 52)) - 1) : 0);
        uint64_t lo = rng_next() & ((1ull << (bits < 52 ? bits : 52)) - 1);
        /* a double: at most 53 significant bits, so round the integer to them */
        double x = ldexp((double)hi, 52) + (double)lo;
        if (rng_next() & 1)
            x = -x;
        if (fabs(x) >= 0x1p104)
            continue;
        x = trunc(x);
        __int128 xi = (__int128)ldexp(x, 0);
        int t = (int)(rng_next() % MPB_CRT_TABLE_MODULI), m = mpb_crt_modulus(t);
        struct mpb_crt_parts parts = mpb_crt_split_parts(x);
        __int128 back = (__int128)parts.hi * ((__int128)1 << 70) + (__int128)parts.mid * ((__int128)1 << 35) +
                        (__int128)(parts.lo_biased - MPB_CRT_MAGIC);
        CHECK(back == xi && fabs(parts.hi) <= 0x1p34 && fabs(parts.mid) <= 0x1p34 &&
                  fabs(parts.lo_biased - MPB_CRT_MAGIC) <= 0x1p34,
              "parts of %a: %a %a %a", x, parts.hi, parts.mid, parts.lo_biased);
        int r = mpb_crt_residue(&parts, t);
        int want = sym_mod(xi, m);
        CHECK(r == want, "residue(%a, %d) = %d, expected %d", x, m, r, want);
        CHECK(r >= -(m / 2) && r <= (m - 1) / 2, "residue %d outside the symmetric range of %d", r, m);
    }
}

/* For each count: random X with |X| < 2^L (L = tab.budget), small X and X
 * near ±2^L; GEMM outputs c_t ≡ X (mod m_t) anywhere in the int32 range.
 * Documented error: |res − X| ≤ 2^-53|res| + 2^(bitlen(M)−81). */
static void test_crt(void)
{
    mpz_t x, bigm, r, diff, lim;
    mpz_inits(x, bigm, r, diff, lim, NULL);
    gmp_randstate_t gs;
    gmp_randinit_default(gs);
    gmp_randseed_ui(gs, 12345);
    for (int n = MPB_OZ2_MIN_MODULI; n <= MPB_OZ2_MAX_MODULI; n++) {
        struct mpb_oz2_crt tab;
        CHECK(mpb_oz2_crt_init(n, &tab), "crt_init(%d)", n);
        mpz_set_ui(bigm, 1);
        for (int t = 0; t < n; t++)
            mpz_mul_ui(bigm, bigm, (unsigned long)mpb_crt_modulus(t));
        /* the budget: 2^L < M/2 with the margin the quotient needs */
        mpz_set_ui(lim, 1);
        mpz_mul_2exp(lim, lim, (mp_bitcnt_t)tab.budget + 1);
        mpz_mul_ui(lim, lim, 1000);
        mpz_t half;
        mpz_init(half);
        mpz_mul_ui(half, bigm, 989);
        CHECK(mpz_cmp(lim, half) <= 0, "n=%d: 2^(L+1) > 0.989·M (L=%d)", n, tab.budget);
        mpz_clear(half);
        int slack_exp = (int)mpz_sizeinbase(bigm, 2) - 81;
        for (int it = 0; it < 3000; it++) {
            int kind = it % 3;
            if (kind == 0)
                mpz_urandomb(x, gs, (mp_bitcnt_t)tab.budget);
            else if (kind == 1)
                mpz_urandomb(x, gs, 1 + (mp_bitcnt_t)(rng_next() % (tab.budget < 60 ? tab.budget : 60)));
            else {
                mpz_set_ui(x, 1);
                mpz_mul_2exp(x, x, (mp_bitcnt_t)tab.budget);
                mpz_sub_ui(x, x, 1 + rng_next() % 1000);
            }
            if (rng_next() & 1)
                mpz_neg(x, x);
            int32_t c[MPB_OZ2_MAX_MODULI];
            for (int t = 0; t < n; t++) {
                int m = mpb_crt_modulus(t);
                long res = (long)mpz_fdiv_ui(x, (unsigned long)m);
                int64_t wrap = (int64_t)(rng_next() % (2 * (INT32_MAX / m) - 2)) - (INT32_MAX / m - 1);
                c[t] = (int32_t)(res + wrap * m);
            }
            int shift = (int)(rng_next() % 200) - 100;
            double got = mpb_oz2_reconstruct(c, 1, &tab, shift);
            double unscaled = ldexp(got, shift);
            mpz_set_d(r, unscaled); /* exact: |X| ≥ 2^53 makes it an integer; below, compare in double */
            double err;
            if (fabs(unscaled) >= 0x1p53) {
                mpz_sub(diff, r, x);
                err = mpz_get_d(diff);
            } else {
                err = unscaled - mpz_get_d(x);
            }
            double tol = ldexp(fabs(unscaled), -53) + ldexp(1.0, slack_exp > 0 ? slack_exp : 0);
            CHECK(fabs(err) <= tol, "n=%d X=%s: reconstructed %a, error %g > %g", n,
                  mpz_get_str(NULL, 10, x), unscaled, err, tol);
        }
    }
    gmp_randclear(gs);
    mpz_clears(x, bigm, r, diff, lim, NULL);
}

/* The claims of mpb_crt_reduce: mpb_crt_digit(c) = mpb_crt_digit(c mod 2m_t)
 * for every int32 c (random, the ends of the range, every tie of m = 256),
 * and mpb_crt_fold(a, b) = (a + b) mod 2m_t in [0, 2m_t). */
static void test_fold(void)
{
    struct mpb_oz2_crt tab;
    CHECK(mpb_oz2_crt_init(MPB_OZ2_MAX_MODULI, &tab), "crt_init");
    for (int it = 0; it < 400000; it++) {
        int t = it % MPB_OZ2_MAX_MODULI, m2 = 2 * mpb_crt_modulus(t);
        int32_t c, d;
        switch (it % 5) {
        case 0: c = INT32_MIN + (int32_t)(rng_next() % 1024); break;
        case 1: c = INT32_MAX - (int32_t)(rng_next() % 1024); break;
        case 2: c = (int32_t)(128 + 256 * (int64_t)(rng_next() % 16000000) - 256 * 8000000); break;
        default: c = (int32_t)rng_next(); break;
        }
        d = (int32_t)rng_next();
        int32_t r = mpb_crt_reduce(c, t);
        CHECK(r >= 0 && r < m2 && ((int64_t)c - r) % m2 == 0, "reduce(%d, %d) = %d", c, m2 / 2, r);
        double w = mpb_crt_digit(c, t, tab.y[t], tab.y_over_m[t]);
        double wr = mpb_crt_digit(r, t, tab.y[t], tab.y_over_m[t]);
        CHECK(w == wr, "digit(%d) = %g but digit(%d) = %g, modulus %d", c, w, r, wr, m2 / 2);
        int32_t f = mpb_crt_fold(c, d, t);
        CHECK(f == mpb_crt_reduce((int64_t)c + d, t), "fold(%d, %d) = %d, modulus %d", c, d, f, m2 / 2);
    }
}

/* The chunk plan: count·len covers kp, the last chunk is not empty, no
 * chunk is longer than `most`, len is aligned. */
static void test_chunk_plan(void)
{
    static const int64_t kps[] = {32, 131040, 131072, 262144, 1 << 20, 3 * 131040 + 32, (int64_t)1 << 31};
    static const int64_t mosts[] = {MPB_CRT_CHUNK_K, 4096, 32 * 37, 32};
    for (size_t i = 0; i < sizeof kps / sizeof kps[0]; i++)
        for (size_t q = 0; q < sizeof mosts / sizeof mosts[0]; q++) {
            int64_t kp = kps[i], most = mosts[q];
            int64_t c = mpb_crt_chunks(kp, most), len = mpb_crt_chunk_len(kp, most, 32);
            CHECK(len <= most && len % 32 == 0 && c * len >= kp && (c - 1) * len < kp,
                  "kp %lld, most %lld: %lld chunks of %lld", (long long)kp, (long long)most,
                  (long long)c, (long long)len);
        }
    CHECK(mpb_oz2_chunk_most(MPB_OZ2_MAX_K) == mpb_oz2_padded_k(MPB_OZ2_MAX_K) &&
              mpb_crt_chunks(mpb_oz2_padded_k(MPB_OZ2_MAX_K), mpb_oz2_chunk_most(MPB_OZ2_MAX_K)) == 1,
          "k = MPB_OZ2_MAX_K must not be split");
    CHECK(mpb_oz2_chunk_most(MPB_OZ2_MAX_K + 1) == MPB_CRT_CHUNK_K, "k above the limit must be split");
}

/* The host model split into chunks of 1, 3, 7, 32 terms equals the host
 * model without a split, bit for bit: inputs with exponents spread over
 * ±30 binades, both modes, both targets, awkward shapes. */
static void test_host_chunked(void)
{
    enum { MAXM = 5, MAXN = 4, MAXK = 300 };
    static double a[MAXM * MAXK], b[MAXK * MAXN], c0[MAXM * MAXN], c1[MAXM * MAXN];
    static float af[MAXM * MAXK], bf[MAXK * MAXN];
    static const int64_t chunks[] = {1, 3, 7, 32};
    for (int it = 0; it < 40; it++) {
        int64_t m = 1 + (int64_t)(rng_next() % MAXM), n = 1 + (int64_t)(rng_next() % MAXN);
        int64_t k = 1 + (int64_t)(rng_next() % MAXK);
        for (int64_t p = 0; p < m * k; p++)
            af[p] = (float)(a[p] = ldexp((double)(int64_t)(rng_next() >> 11) * 0x1p-53 - 0.5,
                                         (int)(rng_next() % 61) - 30));
        for (int64_t p = 0; p < k * n; p++)
            bf[p] = (float)(b[p] = ldexp((double)(int64_t)(rng_next() >> 11) * 0x1p-53 - 0.5,
                                         (int)(rng_next() % 61) - 30));
        bool fp32 = it % 2;
        double params[MPB_OZ2_N_PARAMS] = {[MPB_OZ2_MODULI] = fp32 ? 8 : 15,
                                           [MPB_OZ2_MODE] = it % 4 < 2 ? MPB_OZ2_FAST : MPB_OZ2_ACCURATE};
        struct mpb_gemm g = {.m = m, .n = n, .k = k, .target = fp32 ? MPB_TARGET_FP32 : MPB_TARGET_FP64,
                             .a = fp32 ? (const void *)af : a, .b = fp32 ? (const void *)bf : b, .c = c0};
        struct mpb_scheme_info info;
        CHECK(mpb_ozaki2_host(&g, params, &info) == MPB_STATUS_OK, "host model failed: %s", info.note);
        size_t bytes = (size_t)(m * n) * (fp32 ? sizeof(float) : sizeof(double));
        for (size_t q = 0; q < sizeof chunks / sizeof chunks[0]; q++) {
            g.c = c1;
            CHECK(mpb_ozaki2_host_chunked(&g, params, &info, chunks[q]) == MPB_STATUS_OK, "chunked host model failed");
            CHECK(memcmp(c0, c1, bytes) == 0, "%lldx%lldx%lld %s %s, chunks of %lld: output differs from one sum",
                  (long long)m, (long long)n, (long long)k, fp32 ? "fp32" : "fp64",
                  params[MPB_OZ2_MODE] == MPB_OZ2_FAST ? "fast" : "accurate", (long long)chunks[q]);
            g.c = c0;
        }
    }
}

int main(void)
{
    test_moduli();
    test_residues();
    test_crt();
    test_fold();
    test_chunk_plan();
    test_host_chunked();
    return check_report("test_ozaki2");
}
