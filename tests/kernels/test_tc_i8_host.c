/* The plain INT8 GEMM's arithmetic (kernels/tc/tc_i8_arith.h), host model
 * (tc_i8_host) and planner checks (tc_i8_supported), no GPU needed; the
 * first two against references written differently:
 *   tc_i8_mod against 64-bit '%' for every modulus 2..255 on the int32 edges,
 *     multiples of the modulus and their neighbours, and a sweep of 2^18
 *     values spread over all 2^32;
 *   tc_i8_entry / tc_i8_host against 64-bit sums reduced modulo 2^32, on
 *     random values and on -128 and 127 everywhere with k past 2^31 / 128^2
 *     (the sums wrap, as the tensor cores' INT32 accumulator does), both
 *     epilogues, entries outside C (ldc > m) left alone;
 * and tc_i8_supported refusing, with a reason, what the kernel cannot run. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rng.h"
#include "tc/tc_engine_host.h"

#define MAX_REPORTS 20

static int reports;

static uint8_t ref_mod(int32_t c, int p)
{
    int64_t r = (int64_t)c % p;
    return (uint8_t)(r < 0 ? r + p : r);
}

static void check_mod(int32_t c, int p, struct tc_i8_modp k)
{
    uint8_t got = tc_i8_mod(c, k), want = ref_mod(c, p);
    if (got != want && reports++ < MAX_REPORTS)
        CHECK(got == want, "tc_i8_mod(%ld, %d) = %u, want %u", (long)c, p, got, want);
    else if (got != want)
        check_failures++;
}

static void test_mod(void)
{
    static const int32_t edges[] = {INT32_MIN, INT32_MIN + 1, -65537, -65536, -65535, -256, -255, -1,
                                    0,         1,             255,    256,    65535,  65536, 65537, INT32_MAX - 1,
                                    INT32_MAX};
    for (int p = TC_I8_MOD_MIN; p <= TC_I8_MOD_MAX; p++) {
        const struct tc_i8_modp k = tc_i8_modp_of(p);
        for (size_t e = 0; e < sizeof edges / sizeof *edges; e++)
            check_mod(edges[e], p, k);
        /* multiples of p near 0, ±2^16, ±2^24, ±2^31 and their neighbours */
        static const int64_t centres[] = {0, 65536, -65536, 1 << 24, -(1 << 24), INT32_MAX, INT32_MIN};
        for (size_t ci = 0; ci < sizeof centres / sizeof *centres; ci++) {
            int64_t base = centres[ci] / p * p;
            for (int64_t q = -3; q <= 3; q++)
                for (int d = -1; d <= 1; d++) {
                    int64_t c = base + q * p + d;
                    if (c >= INT32_MIN && c <= INT32_MAX)
                        check_mod((int32_t)c, p, k);
                }
        }
        for (uint32_t i = 0; i < (1u << 18); i++)
            check_mod((int32_t)(i * 16411u + (uint32_t)p * 2654435761u), p, k);
    }
}

/* A batch of `gemms` products m x n x k with values from `pick`, checked
 * against 64-bit sums: INT32 C for even g, residues modulo mods[g] for odd. */
static void test_host(int64_t m, int64_t n, int64_t k, int gemms, int (*pick)(int g, bool is_a))
{
    static const int mods[] = {255, 2, 251, 128, 3, 173};
    const int64_t ld = (k + 15) / 16 * 16, ldc = (m + 15) / 16 * 16 + 16;
    struct tc_i8_args g = {.m = m, .n = n, .k = k, .ld = ld, .ldc = ldc, .n_gemms = gemms};
    int8_t *a[TC_I8_MAX_GEMMS], *b[TC_I8_MAX_GEMMS];
    unsigned char *c[TC_I8_MAX_GEMMS];
    for (int t = 0; t < gemms; t++) {
        a[t] = calloc((size_t)(m * ld), 1);
        b[t] = calloc((size_t)(n * ld), 1);
        c[t] = malloc((size_t)(n * ldc) * sizeof(int32_t));
        CHECK(a[t] && b[t] && c[t], "out of memory");
        if (!a[t] || !b[t] || !c[t])
            return;
        for (int64_t i = 0; i < m; i++)
            for (int64_t l = 0; l < k; l++)
                a[t][i * ld + l] = (int8_t)pick(t, true);
        for (int64_t j = 0; j < n; j++)
            for (int64_t l = 0; l < k; l++)
                b[t][j * ld + l] = (int8_t)pick(t, false);
        memset(c[t], 0xA5, (size_t)(n * ldc) * sizeof(int32_t));
        g.gemms[t] = (struct tc_i8_gemm){.a = a[t], .b = b[t], .c = c[t], .mod = t % 2 ? mods[t / 2 % 6] : 0};
    }
    tc_i8_host(&g);
    int64_t bad = 0, touched = 0;
    for (int t = 0; t < gemms; t++)
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < ldc; i++) {
                const bool is_mod = g.gemms[t].mod != 0;
                uint32_t got;
                if (is_mod)
                    got = c[t][j * ldc + i];
                else
                    memcpy(&got, c[t] + 4 * (j * ldc + i), 4);
                if (i >= m) { /* padding rows: untouched */
                    touched += got != (is_mod ? 0xA5u : 0xA5A5A5A5u);
                    continue;
                }
                int64_t s = 0;
                for (int64_t l = 0; l < k; l++)
                    s += (int64_t)a[t][i * ld + l] * b[t][j * ld + l];
                const int32_t wrapped = (int32_t)(uint32_t)(uint64_t)s;
                const uint32_t want = is_mod ? ref_mod(wrapped, g.gemms[t].mod) : (uint32_t)wrapped;
                bad += got != want;
                if (got != want && reports++ < MAX_REPORTS)
                    CHECK(got == want, "%lldx%lldx%lld product %d (mod %d) at (%lld, %lld): %u, want %u",
                          (long long)m, (long long)n, (long long)k, t, g.gemms[t].mod, (long long)i,
                          (long long)j, got, want);
            }
    CHECK(touched == 0, "%lldx%lldx%lld: %lld entries past m written", (long long)m, (long long)n, (long long)k,
          (long long)touched);
    if (bad > MAX_REPORTS)
        check_failures++;
    for (int t = 0; t < gemms; t++) {
        free(a[t]);
        free(b[t]);
        free(c[t]);
    }
}

static int pick_random(int g, bool is_a)
{
    (void)g;
    (void)is_a;
    return (int)(rng_next() % 256) - 128;
}

/* -128 everywhere but 127 in B of products 2, 3: sums of k·2^14 and
 * −k·127·128, both beyond ±2^31 for k > 2^31 / (127·128) ≈ 132104. */
static int pick_extreme(int g, bool is_a)
{
    return !is_a && g / 2 % 2 == 1 ? 127 : -128;
}

static void expect_refused(const struct tc_i8_args *g, const char *what, const char *needle)
{
    char why[256] = "";
    const int ok = tc_i8_supported(g, why, sizeof why);
    CHECK(!ok && strstr(why, needle), "%s: supported=%d, why '%s' (want it to name '%s')", what, ok, why, needle);
}

static void test_supported(void)
{
    static int8_t x[64];
    int32_t c[64];
    struct tc_i8_args good = {.m = 7, .n = 5, .k = 33, .ld = 48, .ldc = 16, .n_gemms = 2};
    good.gemms[0] = (struct tc_i8_gemm){.a = x, .b = x, .c = c};
    good.gemms[1] = (struct tc_i8_gemm){.a = x, .b = x, .c = c, .mod = 255};
    char why[256] = "";
    CHECK(tc_i8_supported(&good, why, sizeof why), "a good batch refused: %s", why);
    struct tc_i8_args g = good;
    g.ld = 40;
    expect_refused(&g, "ld not a multiple of 16", "ld=40");
    g = good;
    g.ld = 32;
    expect_refused(&g, "ld below k", "ld=32");
    g = good;
    g.ldc = 8;
    expect_refused(&g, "ldc of residues not a multiple of 16", "ldc=8");
    g = good;
    g.n_gemms = 1;
    g.ldc = 4;
    expect_refused(&g, "ldc below m", "ldc=4");
    g = good;
    g.gemms[1].mod = 1;
    expect_refused(&g, "mod 1", "mod=1");
    g.gemms[1].mod = 256;
    expect_refused(&g, "mod 256", "mod=256");
    g = good;
    g.n_gemms = 0;
    expect_refused(&g, "no products", "products");
    g.n_gemms = TC_I8_MAX_GEMMS + 1;
    expect_refused(&g, "too many products", "products");
    g = good;
    g.gemms[1].b = NULL;
    expect_refused(&g, "a NULL operand", "product 1");
    g = good;
    g.cluster = 3;
    expect_refused(&g, "cluster 3", "cluster");
    g = good;
    g.max_stages = 1;
    expect_refused(&g, "one stage", "max_stages");
    g = good;
    g.k = 0;
    expect_refused(&g, "k = 0", "m, n, k");
}

int main(void)
{
    test_supported();
    test_mod();
    test_host(7, 5, 33, 4, pick_random);
    test_host(1, 1, 1, 2, pick_random);
    test_host(33, 17, 200, 6, pick_random);
    test_host(3, 2, 132200, 4, pick_extreme);
    /* the wrapped sum itself: (−128)² · 131073 mod 2^32, as an int32 */
    int8_t x[16] = {-128};
    struct tc_i8_args one = {.m = 1, .n = 1, .k = 1, .ld = 16, .ldc = 16, .n_gemms = 1};
    one.gemms[0] = (struct tc_i8_gemm){.a = x, .b = x};
    int32_t c = 0;
    for (int r = 0; r < 131073; r++)
        c = tc_i8_mac(c, x[0], x[0]);
    CHECK(c == -2147467264, "(-128)^2 summed 131073 times: %ld, want -2147467264", (long)c);
    CHECK(tc_i8_entry(&one, 0, 0, 0) == 16384, "one product: %ld", (long)tc_i8_entry(&one, 0, 0, 0));
    return check_report("test_tc_i8_host");
}
