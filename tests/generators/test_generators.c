/* Every generator's defining property at awkward sizes (1, 2, 7, 33, 128,
 * and 10:1 shapes), for both targets, from host fills:
 * determinism and seed sensitivity, the fill equals the element function,
 * and per generator the construction of gen_element.h / README "Generators"
 * (zero rows, disjoint supports, exact Test 2 diagonal, exponent ranges,
 * injection rates …). Generators built on the N(0,1) base are compared with
 * randn of the same seed (they share its stream: gen_element.h stream map).
 * A failure prints the case (generator, parameters, target, m n k, seed),
 * enough to rerun it with `mpbench run -g GEN -a ... --m .. --seed ..`. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_designated.h"
#include "gen_element.h"
#include "generators.h"

static int failures = 0, checks = 0;

struct gcase {
    const struct mpb_generator *gen;
    double params[MPB_MAX_PARAMS];
    struct mpb_gen_config cfg;
    void *a_raw, *b_raw;  /* target-typed fills */
    size_t a_bytes, b_bytes;
    double *a, *b;        /* the same, widened */
    char desc[256];
};

#define CHECK(c, cond, ...)                                                      \
    do {                                                                         \
        checks++;                                                                \
        if (!(cond)) {                                                           \
            printf("FAIL %s:%d [%s]: ", __FILE__, __LINE__, (c)->desc);          \
            printf(__VA_ARGS__);                                                 \
            printf("\n");                                                        \
            failures++;                                                          \
        }                                                                        \
    } while (0)

#define AT_A(c, i, l) ((c)->a[(i) + (int64_t)(l) * (c)->cfg.m])
#define AT_B(c, l, j) ((c)->b[(l) + (int64_t)(j) * (c)->cfg.k])

static const char *tname(enum mpb_target t)
{
    return t == MPB_TARGET_FP32 ? "fp32" : "fp64";
}

/* Parameters from the defaults and "k=v k=v" overrides, then resolve(). */
static bool set_params(struct gcase *c, const char *args, enum mpb_target t, int64_t m,
                       int64_t n, int64_t k, char *why, size_t why_len)
{
    const struct mpb_generator *g = c->gen;
    mpb_param_defaults(g->params, g->n_params, c->params);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", args);
    for (char *tok = buf, *next; *tok; tok = next) {
        next = tok + strcspn(tok, " ");
        if (*next)
            *next++ = '\0';
        char *eq = strchr(tok, '=');
        int i = -1;
        if (eq != NULL) {
            *eq = '\0';
            i = mpb_param_find(g->params, g->n_params, tok);
        }
        if (i < 0 || !mpb_param_parse(&g->params[i], eq + 1, &c->params[i], why, why_len)) {
            snprintf(why, why_len, "bad test argument '%.60s'", tok);
            return false;
        }
    }
    return g->resolve == NULL || g->resolve(c->params, t, m, n, k, why, why_len);
}

static void *fill(const struct gcase *c, enum mpb_operand which, size_t bytes, double **wide)
{
    size_t count = bytes / mpb_target_size(c->cfg.target);
    void *raw = malloc(bytes);
    *wide = malloc(count * sizeof(double));
    memset(raw, 0xA5, bytes);
    mpb_gen_fill_host(&c->cfg, which, raw);
    for (size_t i = 0; i < count; i++)
        (*wide)[i] = c->cfg.target == MPB_TARGET_FP32 ? (double)((float *)raw)[i]
                                                      : ((double *)raw)[i];
    return raw;
}

/* Build and fill a case; false (with a FAIL) when the parameters do not
 * resolve. */
static bool case_make(struct gcase *c, const char *name, const char *args, enum mpb_target t,
                      int64_t m, int64_t n, int64_t k, uint64_t seed)
{
    memset(c, 0, sizeof *c);
    c->gen = mpb_generator_find(name);
    snprintf(c->desc, sizeof c->desc, "gen=%s %s target=%s m=%lld n=%lld k=%lld seed=%llu",
             name, args, tname(t), (long long)m, (long long)n, (long long)k,
             (unsigned long long)seed);
    char why[256] = "";
    if (c->gen == NULL || !set_params(c, args, t, m, n, k, why, sizeof why)) {
        CHECK(c, false, "cannot set up the case: %s", c->gen ? why : "no such generator");
        return false;
    }
    mpb_gen_config_init(&c->cfg, c->gen, c->params, t, m, n, k, seed);
    c->a_bytes = (size_t)(m * k) * mpb_target_size(t);
    c->b_bytes = (size_t)(k * n) * mpb_target_size(t);
    c->a_raw = fill(c, MPB_OPERAND_A, c->a_bytes, &c->a);
    c->b_raw = fill(c, MPB_OPERAND_B, c->b_bytes, &c->b);
    return true;
}

static void case_free(struct gcase *c)
{
    free(c->a_raw);
    free(c->b_raw);
    free(c->a);
    free(c->b);
}

/* e with x == y·2^e exactly, or INT32_MIN when x is not such a multiple. */
static int pow2_ratio(double x, double y)
{
    if (y == 0.0 || !isfinite(x) || !isfinite(y))
        return INT32_MIN;
    int e = ilogb(x) - ilogb(y);
    return ldexp(y, e) == x ? e : INT32_MIN;
}

/* ---- checks for every generator ---- */

/* Same seed: same bits; another seed: other bits; the fill is the element
 * function stored once (fp32: rounded once, NaN canonical). */
static void check_common(const struct gcase *c)
{
    struct gcase again, other;
    const struct mpb_gen_config *f = &c->cfg;
    char args[128] = "";
    mpb_param_format_all(c->gen->params, c->gen->n_params, c->params, args, sizeof args);
    if (!case_make(&again, c->gen->name, args, f->target, f->m, f->n, f->k, f->seed))
        return;
    CHECK(c, memcmp(again.a_raw, c->a_raw, c->a_bytes) == 0 &&
                 memcmp(again.b_raw, c->b_raw, c->b_bytes) == 0,
          "two fills with the same seed differ");
    case_free(&again);
    if (case_make(&other, c->gen->name, args, f->target, f->m, f->n, f->k, f->seed + 1)) {
        CHECK(c, memcmp(other.a_raw, c->a_raw, c->a_bytes) != 0, "seed+1 gives the same A");
        CHECK(c, memcmp(other.b_raw, c->b_raw, c->b_bytes) != 0, "seed+1 gives the same B");
        case_free(&other);
    }
    for (int op = 0; op < 2; op++) {
        int64_t rows = mpb_gen_rows(f, (enum mpb_operand)op), cols = mpb_gen_cols(f, (enum mpb_operand)op);
        const void *raw = op == 0 ? c->a_raw : c->b_raw;
        for (int64_t j = 0; j < cols; j++)
            for (int64_t i = 0; i < rows; i++) {
                double v = mpb_gen_element(f, (enum mpb_operand)op, i, j);
                uint64_t want = 0, got = 0;
                if (f->target == MPB_TARGET_FP32) {
                    float w = (float)v;
                    uint32_t wb, gb;
                    memcpy(&wb, &w, 4);
                    memcpy(&gb, (const float *)raw + i + j * rows, 4);
                    want = isnan(v) ? 0x7fc00000u : wb;
                    got = gb;
                } else {
                    memcpy(&want, &v, 8);
                    memcpy(&got, (const double *)raw + i + j * rows, 8);
                }
                if (want != got) {
                    CHECK(c, false, "%s(%lld,%lld) is not the element function's value stored once",
                          op ? "B" : "A", (long long)i, (long long)j);
                    return;
                }
            }
    }
}

/* ---- per generator ---- */

static void check_uniform(enum mpb_target t, int64_t m, int64_t n, int64_t k)
{
    struct gcase c;
    if (!case_make(&c, "uniform", "lo=-3 hi=5", t, m, n, k, 11))
        return;
    double sum = 0;
    int64_t count = m * k, bad = 0;
    for (int64_t i = 0; i < count; i++) {
        bad += !(c.a[i] >= -3 && c.a[i] <= 5);
        sum += c.a[i];
    }
    CHECK(&c, bad == 0, "%lld entries of A outside [-3, 5]", (long long)bad);
    if (count >= 10000) /* mean 1, sd 8/sqrt(12 count): 5 sigma */
        CHECK(&c, fabs(sum / count - 1) < 5 * 8 / sqrt(12.0 * count), "mean of A %g, expected 1",
              sum / count);
    case_free(&c);
}

static void check_randn(enum mpb_target t, int64_t m, int64_t n, int64_t k)
{
    struct gcase c;
    if (!case_make(&c, "randn", "", t, m, n, k, 12))
        return;
    int64_t count = k * n;
    double s1 = 0, s2 = 0;
    for (int64_t i = 0; i < count; i++) {
        s1 += c.b[i];
        s2 += c.b[i] * c.b[i];
    }
    double mean = s1 / count, var = s2 / count - mean * mean;
    if (count >= 10000) {
        CHECK(&c, fabs(mean) < 5 / sqrt((double)count), "mean of B %g, expected 0", mean);
        CHECK(&c, fabs(var - 1) < 6 * sqrt(2.0 / count), "variance of B %g, expected 1", var);
    }
    case_free(&c);
}

/* phi = (u − 0.5)·exp(φ·g) with g the randn value of the same seed and
 * u − 0.5 the phi=0 value; the spread of log|v| grows with φ. */
static void check_phi(enum mpb_target t, int64_t m, int64_t n, int64_t k)
{
    const double phis[] = {0, 0.5, 1, 2, 4};
    struct gcase base, g, c;
    if (!case_make(&base, "phi", "phi=0", t, m, n, k, 13))
        return;
    if (!case_make(&g, "randn", "", t, m, n, k, 13)) {
        case_free(&base);
        return;
    }
    double prev_var = -1;
    for (int p = 0; p < 5; p++) {
        char args[32];
        snprintf(args, sizeof args, "phi=%g", phis[p]);
        if (!case_make(&c, "phi", args, t, m, n, k, 13))
            continue;
        double s1 = 0, s2 = 0, worst = 0;
        int64_t count = m * k, nz = 0;
        for (int64_t i = 0; i < count; i++) {
            double want = base.a[i] * exp(phis[p] * g.a[i]); /* fp64: g.a is g unrounded */
            if (t == MPB_TARGET_FP64 && want != 0)
                worst = fmax(worst, fabs(c.a[i] - want) / fabs(want));
            if (c.a[i] != 0) {
                double lg = log(fabs(c.a[i]));
                s1 += lg;
                s2 += lg * lg;
                nz++;
            }
        }
        CHECK(&c, worst < 1e-13, "phi value differs from (u-0.5)*exp(phi*g) by %g relative", worst);
        if (p == 0)
            for (int64_t i = 0; i < count; i++)
                CHECK(&c, fabs(c.a[i]) <= 0.5, "phi=0 entry %g outside [-0.5, 0.5]", c.a[i]);
        double var = nz ? s2 / nz - (s1 / nz) * (s1 / nz) : 0;
        if (count >= 10000)
            CHECK(&c, var > prev_var, "spread var(log|a|) = %g did not grow from %g", var, prev_var);
        prev_var = var;
        case_free(&c);
    }
    case_free(&base);
    case_free(&g);
}

/* Exactly floor(m/4) rows of A and floor(n/4) columns of B are zero, they
 * are the ones gen_designated.h lists, and every other entry is randn's. */
static void check_test1a(enum mpb_target t, int64_t m, int64_t n, int64_t k)
{
    struct gcase c, r;
    if (!case_make(&c, "test1a", "", t, m, n, k, 14))
        return;
    if (!case_make(&r, "randn", "", t, m, n, k, 14)) {
        case_free(&c);
        return;
    }
    int64_t *rows = malloc((size_t)(m / 4 + 1) * sizeof *rows);
    int64_t *cols = malloc((size_t)(n / 4 + 1) * sizeof *cols);
    int64_t nr = mpb_test1a_zero_rows(&c.cfg, rows), nc = mpb_test1a_zero_cols(&c.cfg, cols);
    CHECK(&c, nr == m / 4 && nc == n / 4, "listed %lld zero rows, %lld zero cols", (long long)nr,
          (long long)nc);
    int64_t zero_rows = 0, listed = 0, other_bad = 0;
    for (int64_t i = 0; i < m; i++) {
        int zero = 1;
        for (int64_t l = 0; l < k; l++)
            zero &= AT_A(&c, i, l) == 0.0;
        zero_rows += zero;
        listed += zero && listed < nr && rows[listed] == i;
        for (int64_t l = 0; l < k && !zero; l++)
            other_bad += memcmp(&AT_A(&c, i, l), &AT_A(&r, i, l), sizeof(double)) != 0;
    }
    CHECK(&c, zero_rows == m / 4 && listed == nr, "%lld zero rows of A (%lld as listed), want %lld",
          (long long)zero_rows, (long long)listed, (long long)(m / 4));
    CHECK(&c, other_bad == 0, "%lld entries of non-zero rows differ from randn", (long long)other_bad);
    int64_t zero_cols = 0;
    listed = 0;
    for (int64_t j = 0; j < n; j++) {
        int zero = 1;
        for (int64_t l = 0; l < k; l++)
            zero &= AT_B(&c, l, j) == 0.0;
        zero_cols += zero;
        listed += zero && listed < nc && cols[listed] == j;
    }
    CHECK(&c, zero_cols == n / 4 && listed == nc, "%lld zero columns of B (%lld as listed), want %lld",
          (long long)zero_cols, (long long)listed, (long long)(n / 4));
    if (m >= 128) { /* the choice is random: another seed picks other rows */
        struct mpb_gen_config other;
        mpb_gen_config_init(&other, c.gen, c.params, t, m, n, k, 15);
        int64_t *rows2 = malloc((size_t)(m / 4) * sizeof *rows2);
        mpb_test1a_zero_rows(&other, rows2);
        CHECK(&c, memcmp(rows, rows2, (size_t)(m / 4) * sizeof *rows) != 0,
              "seeds 14 and 15 zero the same rows");
        free(rows2);
    }
    free(rows);
    free(cols);
    case_free(&c);
    case_free(&r);
}

static bool all_distinct(const int64_t *v, int64_t count)
{
    for (int64_t i = 0; i < count; i++)
        for (int64_t j = i + 1; j < count; j++)
            if (v[i] == v[j])
                return false;
    return true;
}

/* The listed pairs have complementary supports: A(i_p, l)·B(l, j_p) = 0 for
 * every l, so C(i_p, j_p) = 0 exactly; the other rows/columns are randn's. */
static void check_test1b(enum mpb_target t, int64_t m, int64_t n, int64_t k)
{
    struct gcase c, r;
    if (!case_make(&c, "test1b", "", t, m, n, k, 16))
        return;
    if (!case_make(&r, "randn", "", t, m, n, k, 16)) {
        case_free(&c);
        return;
    }
    int64_t want = (m < n ? m : n) / 2;
    int64_t *rows = malloc((size_t)(want + 1) * sizeof *rows), *cols = malloc((size_t)(want + 1) * sizeof *cols);
    int64_t pairs = mpb_test1b_pairs(&c.cfg, rows, cols);
    CHECK(&c, pairs == want, "%lld pairs, want %lld", (long long)pairs, (long long)want);
    CHECK(&c, all_distinct(rows, pairs) && all_distinct(cols, pairs), "pair rows or columns repeat");
    int64_t first_split = -1, splits_vary = 0;
    for (int64_t p = 0; p < pairs; p++) {
        double dot = 0;
        int64_t za = 0, zb = 0;
        for (int64_t l = 0; l < k; l++) {
            dot += AT_A(&c, rows[p], l) * AT_B(&c, l, cols[p]);
            za += AT_A(&c, rows[p], l) == 0.0;
            zb += AT_B(&c, l, cols[p]) == 0.0;
        }
        CHECK(&c, dot == 0.0 && za + zb == k, "pair %lld (C(%lld,%lld)): dot %g, %lld+%lld zeros of k",
              (long long)p, (long long)rows[p], (long long)cols[p], dot, (long long)za, (long long)zb);
        if (k >= 2)
            CHECK(&c, za >= 1 && zb >= 1, "pair %lld: a part of the split is empty", (long long)p);
        splits_vary |= first_split >= 0 && za != first_split;
        first_split = za;
    }
    if (k >= 33 && pairs >= 8)
        CHECK(&c, splits_vary, "every pair has the same split point");
    int64_t zeros = 0, differ = 0;
    for (int64_t i = 0; i < m * k; i++) {
        zeros += c.a[i] == 0.0;
        differ += c.a[i] != 0.0 && c.a[i] != r.a[i];
    }
    for (int64_t i = 0; i < k * n; i++) {
        zeros += c.b[i] == 0.0;
        differ += c.b[i] != 0.0 && c.b[i] != r.b[i];
    }
    CHECK(&c, zeros == pairs * k && differ == 0,
          "%lld zeros (want %lld: only in pair rows/cols), %lld non-zero entries differ from randn",
          (long long)zeros, (long long)(pairs * k), (long long)differ);
    free(rows);
    free(cols);
    case_free(&c);
    case_free(&r);
}

/* Exponent of position l in test2: −b + round(2b·l/(k−1)), ties up,
 * written differently from gen_element.h (quotient and remainder). */
static int64_t expected_j(int64_t l, int64_t k, int64_t b)
{
    if (k < 2)
        return -b;
    int64_t q = 2 * b * l / (k - 1), rem = 2 * b * l % (k - 1);
    return -b + q + (2 * rem >= k - 1);
}

/* limb[d..] += v, 32-bit limbs held in 64-bit words. */
static void add_at(uint64_t limb[6], int d, uint64_t v)
{
    for (; v != 0 && d < 6; d++) {
        uint64_t s = limb[d] + (v & 0xffffffffu);
        limb[d] = s & 0xffffffffu;
        v = (v >> 32) + (s >> 32);
    }
}

/* Σ_l A(r,l)·B(l,r) exactly from the filled matrices: each product is an
 * integer significand product times 2^(ea+eb−2p); 32-bit limbs, not the
 * generator's 64-bit words. Returns false when the exponents do not cancel. */
static bool exact_diag(const struct gcase *c, int64_t r, int prec, uint64_t words[3])
{
    uint64_t limb[6] = {0};
    for (int64_t l = 0; l < c->cfg.k; l++) {
        int ea, eb;
        double fa = frexp(AT_A(c, r, l), &ea), fb = frexp(AT_B(c, l, r), &eb);
        if (ea + eb != 2)
            return false;
        uint64_t ma = (uint64_t)ldexp(fa, prec), mb = (uint64_t)ldexp(fb, prec);
        uint64_t a0 = ma & 0xffffffffu, a1 = ma >> 32, b0 = mb & 0xffffffffu, b1 = mb >> 32;
        add_at(limb, 0, a0 * b0);
        add_at(limb, 1, a0 * b1);
        add_at(limb, 1, a1 * b0);
        add_at(limb, 2, a1 * b1);
    }
    for (int w = 0; w < 3; w++)
        words[w] = limb[2 * w] | limb[2 * w + 1] << 32;
    return true;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Rows of A are cyclic shifts of x·2^j with j the evenly spread list (test2)
 * or a shuffle of it (test2r, `shuffled`); B holds x·2^-j; the diagonal is
 * exactly the helper's Σ x². Returns row 0's exponents in `js`. */
static void check_test2_case(const struct gcase *c, int64_t b, bool shuffled, int64_t *js)
{
    int64_t m = c->cfg.m, n = c->cfg.n, k = c->cfg.k;
    int prec = c->cfg.target == MPB_TARGET_FP32 ? 24 : 53;
    int64_t lo = INT64_MAX, hi = INT64_MIN, bad_shift = 0, odd = 0;
    for (int64_t l = 0; l < k; l++) {
        js[l] = ilogb(AT_A(c, 0, l));
        lo = js[l] < lo ? js[l] : lo;
        hi = js[l] > hi ? js[l] : hi;
        odd |= (uint64_t)ldexp(frexp(AT_A(c, 0, l), &(int){0}), prec) & 1u;
        if (!shuffled)
            CHECK(c, js[l] == expected_j(l, k, b), "exponent of A(0,%lld) is %lld, want %lld",
                  (long long)l, (long long)js[l], (long long)expected_j(l, k, b));
    }
    CHECK(c, lo == -b && hi == (k >= 2 ? b : -b), "row 0 of A spans 2^%lld..2^%lld, want 2^-%lld..2^%lld",
          (long long)lo, (long long)hi, (long long)b, (long long)b);
    if (k >= 33)
        CHECK(c, odd, "no x has its last significand bit set: not full-width random fractions");
    for (int64_t i = 0; i < m; i++)
        for (int64_t l = 0; l < k; l++)
            bad_shift += AT_A(c, i, l) != AT_A(c, 0, (i + l) % k);
    for (int64_t j = 0; j < n; j++)
        for (int64_t l = 0; l < k; l++) {
            int ea, eb;
            double a0 = AT_A(c, 0, (l + j) % k), bl = AT_B(c, l, j);
            bad_shift += frexp(a0, &ea) != frexp(bl, &eb) || ea + eb != 2;
        }
    CHECK(c, bad_shift == 0, "%lld entries break A(r,c)=y_(r+c)%%k, B(r,c)=z_(r+c)%%k", (long long)bad_shift);
    struct mpb_gen_exact want;
    mpb_test2_diag_exact(&c->cfg, &want);
    CHECK(c, want.exp2 == 2 - 2 * prec, "helper exponent %d, want %d", want.exp2, 2 - 2 * prec);
    for (int64_t r = 0; r < (m < n ? m : n); r++) {
        uint64_t got[3];
        bool ok = exact_diag(c, r, prec, got);
        CHECK(c, ok && memcmp(got, want.w, sizeof got) == 0, "C(%lld,%lld) from A and B != helper",
              (long long)r, (long long)r);
    }
    double dhi, dlo;
    mpb_gen_exact_to_dd(&want, &dhi, &dlo);
    long double approx = ldexpl((long double)want.w[0] + ldexpl((long double)want.w[1], 64), want.exp2);
    CHECK(c, fabsl(dhi - approx) <= ldexpl(approx, -52) && fabs(dlo) <= ldexp(fabs(dhi), -52),
          "double-double (%a, %a) is not the rounded sum %La", dhi, dlo, approx);
}

/* At k = 2^23 the sum of squares passes 2^128: the helper's carries into
 * its top word, against the 32-bit limb sum of the same significands. */
static void check_test2_diag_large(void)
{
    const int64_t k = INT64_C(1) << 23;
    struct gcase c = {.gen = mpb_generator_find("test2")};
    snprintf(c.desc, sizeof c.desc, "gen=test2 b=0 target=fp64 m=1 n=1 k=%lld seed=21", (long long)k);
    char why[256] = "";
    if (!set_params(&c, "b=0", MPB_TARGET_FP64, 1, 1, k, why, sizeof why)) {
        CHECK(&c, false, "cannot set up the case: %s", why);
        return;
    }
    mpb_gen_config_init(&c.cfg, c.gen, c.params, MPB_TARGET_FP64, 1, 1, k, 21);
    uint64_t limb[6] = {0}, words[3];
    for (int64_t l = 0; l < k; l++) {
        uint64_t x = mpb_gen_test2_sig(&c.cfg, l), x0 = x & 0xffffffffu, x1 = x >> 32;
        add_at(limb, 0, x0 * x0);
        add_at(limb, 1, 2 * x0 * x1); /* < 2^54: no overflow */
        add_at(limb, 2, x1 * x1);
    }
    for (int w = 0; w < 3; w++)
        words[w] = limb[2 * w] | limb[2 * w + 1] << 32;
    struct mpb_gen_exact sum;
    mpb_test2_diag_exact(&c.cfg, &sum);
    CHECK(&c, words[2] != 0 && memcmp(words, sum.w, sizeof words) == 0,
          "helper (%llx %llx %llx) != limb sum (%llx %llx %llx)", (unsigned long long)sum.w[2],
          (unsigned long long)sum.w[1], (unsigned long long)sum.w[0], (unsigned long long)words[2],
          (unsigned long long)words[1], (unsigned long long)words[0]);
}

static void check_test2(enum mpb_target t, int64_t m, int64_t n, int64_t k)
{
    const char *bs[] = {"b=auto", "b=0", "b=1", "b=5"};
    for (int v = 0; v < 4; v++) {
        struct gcase c, r;
        if (!case_make(&c, "test2", bs[v], t, m, n, k, 17))
            continue;
        int64_t b = c.cfg.ip[MPB_GP_B];
        int64_t *js = malloc((size_t)k * sizeof *js), *jr = malloc((size_t)k * sizeof *jr);
        check_test2_case(&c, b, false, js);
        if (case_make(&r, "test2r", bs[v], t, m, n, k, 17)) {
            check_test2_case(&r, b, true, jr);
            int64_t same_sig = 0, moved = 0;
            for (int64_t l = 0; l < k; l++) {
                int e1, e2;
                same_sig += frexp(AT_A(&c, 0, l), &e1) == frexp(AT_A(&r, 0, l), &e2);
                moved += js[l] != jr[l];
            }
            qsort(js, (size_t)k, sizeof *js, cmp_i64);
            qsort(jr, (size_t)k, sizeof *jr, cmp_i64);
            CHECK(&r, same_sig == k, "significands differ from test2's at %lld positions", (long long)(k - same_sig));
            CHECK(&r, memcmp(js, jr, (size_t)k * sizeof *js) == 0,
                  "exponents are not a permutation of test2's");
            if (k >= 16 && b >= 5)
                CHECK(&r, moved > 0, "exponent list is not shuffled");
            case_free(&r);
        }
        free(js);
        free(jr);
        case_free(&c);
    }
}

/* test3 = randn·2^{s(l)} (A) and randn·2^{−s(l)} (B), s periodic with period
 * n0 and a shuffle of the evenly spread list over [−span, span], times
 * 2^huge on row m−1 of A and column n−1 of B. */
static void check_test3(enum mpb_target t, int64_t m, int64_t n, int64_t k, const char *args)
{
    struct gcase c, r;
    if (!case_make(&c, "test3", args, t, m, n, k, 18))
        return;
    if (!case_make(&r, "randn", "", t, m, n, k, 18)) {
        case_free(&c);
        return;
    }
    int64_t n0 = c.cfg.ip[MPB_GP_N0], span = c.cfg.ip[MPB_GP_T3SPAN], huge = c.cfg.ip[MPB_GP_HUGE];
    int64_t *s = malloc((size_t)k * sizeof *s), bad = 0;
    for (int64_t l = 0; l < k; l++) /* from a row of A that is not the huge one, if any */
        s[l] = m >= 2 ? pow2_ratio(AT_A(&c, 0, l), AT_A(&r, 0, l))
                      : pow2_ratio(AT_A(&c, 0, l), AT_A(&r, 0, l)) - huge;
    for (int64_t l = 0; l < k; l++) {
        bad += s[l] != s[l % n0];
        for (int64_t i = 0; i < m; i++)
            bad += pow2_ratio(AT_A(&c, i, l), AT_A(&r, i, l)) != s[l] + (i == m - 1 ? huge : 0);
        for (int64_t j = 0; j < n; j++)
            bad += pow2_ratio(AT_B(&c, l, j), AT_B(&r, l, j)) != -s[l] + (j == n - 1 ? huge : 0);
    }
    CHECK(&c, bad == 0, "%lld entries are not randn*2^(+-s(l mod n0) [+huge])", (long long)bad);
    if (k >= n0) {
        int64_t *want = malloc((size_t)n0 * sizeof *want);
        for (int64_t q = 0; q < n0; q++)
            want[q] = expected_j(q, n0, span);
        qsort(want, (size_t)n0, sizeof *want, cmp_i64);
        qsort(s, (size_t)n0, sizeof *s, cmp_i64);
        CHECK(&c, memcmp(want, s, (size_t)n0 * sizeof *s) == 0,
              "one period of scales is not a permutation of the spread list over [-%lld, %lld]",
              (long long)span, (long long)span);
        free(want);
    }
    int64_t br, bc;
    mpb_test3_block(&c.cfg, &br, &bc);
    CHECK(&c, br == (n0 - 1 < m - 1 ? n0 - 1 : m - 1) && bc == (n0 - 1 < n - 1 ? n0 - 1 : n - 1),
          "leading block %lldx%lld", (long long)br, (long long)bc);
    free(s);
    case_free(&c);
    case_free(&r);
}

/* Power-of-two exponents of gen against randn: per row of A and column of
 * B (outer), per inner index (inner: +d in A, −d in B, products equal
 * randn's), or per element (evil); always within [−span, span], and
 * reaching both halves of the range when there are enough draws. */
static void check_scaled(const char *name, enum mpb_target t, int64_t m, int64_t n, int64_t k)
{
    struct gcase c, r;
    if (!case_make(&c, name, "", t, m, n, k, 19))
        return;
    if (!case_make(&r, "randn", "", t, m, n, k, 19)) {
        case_free(&c);
        return;
    }
    int64_t span = c.cfg.ip[MPB_GP_SPAN], lo = INT64_MAX, hi = INT64_MIN, bad = 0, varies = 0;
    bool outer = strcmp(name, "outer") == 0, inner = strcmp(name, "inner") == 0;
    for (int64_t l = 0; l < k; l++)
        for (int64_t i = 0; i < m; i++) {
            int64_t e = pow2_ratio(AT_A(&c, i, l), AT_A(&r, i, l));
            bad += e < -span || e > span;
            bad += outer && e != pow2_ratio(AT_A(&c, i, 0), AT_A(&r, i, 0));
            bad += inner && e != pow2_ratio(AT_A(&c, 0, l), AT_A(&r, 0, l));
            varies += l > 0 && e != pow2_ratio(AT_A(&c, i, 0), AT_A(&r, i, 0));
            lo = e < lo ? e : lo;
            hi = e > hi ? e : hi;
        }
    for (int64_t j = 0; j < n; j++)
        for (int64_t l = 0; l < k; l++) {
            int64_t e = pow2_ratio(AT_B(&c, l, j), AT_B(&r, l, j));
            bad += e < -span || e > span;
            bad += outer && e != pow2_ratio(AT_B(&c, 0, j), AT_B(&r, 0, j));
            bad += inner && e != -pow2_ratio(AT_A(&c, 0, l), AT_A(&r, 0, l));
        }
    CHECK(&c, bad == 0, "%lld entries break the scaling pattern or leave [-%lld, %lld]",
          (long long)bad, (long long)span, (long long)span);
    int64_t draws = outer ? m : inner ? k : m * k;
    if (draws >= 128)
        CHECK(&c, lo <= -span / 2 && hi >= span / 2, "exponents of A only span [%lld, %lld] of +-%lld",
              (long long)lo, (long long)hi, (long long)span);
    if (strcmp(name, "evil") == 0 && k >= 7)
        CHECK(&c, varies > 0, "exponents are constant along rows: not per element");
    if (inner) { /* products, hence any conventional C, are randn's bit for bit */
        int64_t differ = 0;
        for (int64_t j = 0; j < n; j++)
            for (int64_t l = 0; l < k; l++)
                for (int64_t i = 0; i < m; i++)
                    differ += AT_A(&c, i, l) * AT_B(&c, l, j) != AT_A(&r, i, l) * AT_B(&r, l, j);
        CHECK(&c, differ == 0, "%lld products A(i,l)B(l,j) differ from randn's", (long long)differ);
    }
    case_free(&c);
    case_free(&r);
}

enum { CLS_BASE, CLS_NAN, CLS_PINF, CLS_NINF, CLS_SUB, CLS_NEGZERO, CLS_COUNT };

static int classify(double v, enum mpb_target t)
{
    if (isnan(v))
        return CLS_NAN;
    if (isinf(v))
        return v > 0 ? CLS_PINF : CLS_NINF;
    if (v == 0.0 && signbit(v))
        return CLS_NEGZERO;
    double tiny = t == MPB_TARGET_FP32 ? FLT_MIN : DBL_MIN;
    return v != 0.0 && fabs(v) < tiny ? CLS_SUB : CLS_BASE;
}

/* Injected values of each category at about the rate (5 sigma, binomial)
 * in A and in B; every other entry is randn's. */
static void check_special_kind(enum mpb_target t, int64_t m, int64_t n, int64_t k, const char *kind,
                               double rate, const double share[CLS_COUNT])
{
    struct gcase c, r;
    char args[64];
    snprintf(args, sizeof args, "rate=%g kind=%s", rate, kind);
    if (!case_make(&c, "special", args, t, m, n, k, 20))
        return;
    if (!case_make(&r, "randn", "", t, m, n, k, 20)) {
        case_free(&c);
        return;
    }
    for (int op = 0; op < 2; op++) {
        const double *v = op ? c.b : c.a, *base = op ? r.b : r.a;
        int64_t count = op ? k * n : m * k, cls[CLS_COUNT] = {0}, differ = 0;
        for (int64_t i = 0; i < count; i++) {
            int x = classify(v[i], t);
            cls[x]++;
            differ += x == CLS_BASE && v[i] != base[i];
        }
        CHECK(&c, differ == 0, "%s: %lld non-special entries differ from randn", op ? "B" : "A",
              (long long)differ);
        for (int x = 1; x < CLS_COUNT; x++) {
            double p = rate * share[x], mean = count * p, sd = sqrt(count * p * (1 - p));
            CHECK(&c, fabs(cls[x] - mean) <= 5 * sd + 1e-9,
                  "%s: category %d injected %lld times, expected %.1f +- %.1f", op ? "B" : "A", x,
                  (long long)cls[x], mean, 5 * sd);
        }
    }
    case_free(&c);
    case_free(&r);
}

static void check_special(enum mpb_target t, int64_t m, int64_t n, int64_t k)
{
    /* Shares of NaN, +Inf, −Inf, subnormal, −0 among the injected values. */
    const double all[CLS_COUNT] = {0, 0.25, 0.125, 0.125, 0.25, 0.25};
    const double nan_[CLS_COUNT] = {0, 1, 0, 0, 0, 0};
    const double inf[CLS_COUNT] = {0, 0, 0.5, 0.5, 0, 0};
    const double sub[CLS_COUNT] = {0, 0, 0, 0, 1, 0};
    const double negz[CLS_COUNT] = {0, 0, 0, 0, 0, 1};
    check_special_kind(t, m, n, k, "all", 0.05, all);
    check_special_kind(t, m, n, k, "nan", 0.05, nan_);
    check_special_kind(t, m, n, k, "inf", 0.05, inf);
    check_special_kind(t, m, n, k, "subnormal", 0.05, sub);
    check_special_kind(t, m, n, k, "negzero", 0.05, negz);
    check_special_kind(t, m, n, k, "all", 0, all);
    check_special_kind(t, m, n, k, "nan", 1, nan_);
}

/* ---- resolve() and the table ---- */

/* resolve refuses (with a message naming the parameter) or accepts. */
static void check_resolve_case(const char *name, const char *args, enum mpb_target t, int64_t k,
                               bool accept, const char *named)
{
    struct gcase c = {.gen = mpb_generator_find(name)};
    snprintf(c.desc, sizeof c.desc, "resolve gen=%s %s target=%s k=%lld", name, args, tname(t),
             (long long)k);
    char why[256] = "";
    bool ok = c.gen != NULL && set_params(&c, args, t, k, k, k, why, sizeof why);
    CHECK(&c, ok == accept, "resolve %s (%s)", ok ? "accepted" : "refused", why);
    if (!accept && named)
        CHECK(&c, strstr(why, named) != NULL, "reason '%s' does not name '%s'", why, named);
}

static void check_resolve(void)
{
    check_resolve_case("test2", "b=503", MPB_TARGET_FP64, 128, true, NULL);
    check_resolve_case("test2", "b=504", MPB_TARGET_FP64, 128, false, "b=504");
    check_resolve_case("test2", "b=56", MPB_TARGET_FP32, 128, false, "b=56");
    check_resolve_case("test2r", "b=100", MPB_TARGET_FP32, 1, false, "b=100");
    check_resolve_case("test2", "b=62", MPB_TARGET_FP32, 1, true, NULL);
    check_resolve_case("outer", "span=57", MPB_TARGET_FP32, 128, false, "span=57");
    check_resolve_case("outer", "span=56", MPB_TARGET_FP32, 128, true, NULL);
    check_resolve_case("inner", "span=98", MPB_TARGET_FP32, 128, false, "span");
    check_resolve_case("evil", "span=600", MPB_TARGET_FP64, 128, false, "span");
    check_resolve_case("test3", "huge=100", MPB_TARGET_FP32, 128, false, "huge");
    check_resolve_case("test3", "span=98", MPB_TARGET_FP32, 128, false, "span");
    check_resolve_case("phi", "phi=15", MPB_TARGET_FP32, 128, false, "phi=15");
    check_resolve_case("phi", "phi=15", MPB_TARGET_FP64, 128, true, NULL);
    check_resolve_case("uniform", "lo=2 hi=1", MPB_TARGET_FP64, 128, false, "hi");
    check_resolve_case("uniform", "lo=0 hi=1e300", MPB_TARGET_FP32, 128, false, "fp32");
    /* auto becomes b_max = 510 − ⌈log2 k⌉ / 62 − ⌈log2 k⌉. */
    const struct { enum mpb_target t; int64_t k, b; } autos[] = {
        {MPB_TARGET_FP64, 1, 510}, {MPB_TARGET_FP64, 1000, 500}, {MPB_TARGET_FP64, 1024, 500},
        {MPB_TARGET_FP64, 1025, 499}, {MPB_TARGET_FP32, 128, 55}, {MPB_TARGET_FP32, 2, 61},
    };
    for (size_t i = 0; i < sizeof autos / sizeof autos[0]; i++) {
        struct gcase c = {.gen = mpb_generator_find("test2")};
        snprintf(c.desc, sizeof c.desc, "resolve gen=test2 b=auto target=%s k=%lld",
                 tname(autos[i].t), (long long)autos[i].k);
        char why[256] = "";
        bool ok = set_params(&c, "", autos[i].t, 1, 1, autos[i].k, why, sizeof why);
        CHECK(&c, ok && c.params[MPB_GP_B] == (double)autos[i].b, "auto b = %g, want %lld (%s)",
              c.params[MPB_GP_B], (long long)autos[i].b, why);
    }
}

/* Names are unique and found; every parameter has a name, help and a
 * default that parses ("auto" only where allowed). */
static void check_table(void)
{
    struct gcase c = {.desc = "generator table"};
    CHECK(&c, mpb_n_generators == 14, "%d generators, want 14", mpb_n_generators);
    CHECK(&c, mpb_generator_find("nope") == NULL, "unknown name found");
    for (int g = 0; g < mpb_n_generators; g++) {
        const struct mpb_generator *gen = mpb_generators[g];
        CHECK(&c, mpb_generator_find(gen->name) == gen, "%s not found by name", gen->name);
        CHECK(&c, gen->help && *gen->help, "%s has no help", gen->name);
        double v[MPB_MAX_PARAMS];
        mpb_param_defaults(gen->params, gen->n_params, v);
        for (int i = 0; i < gen->n_params; i++) {
            const struct mpb_param_spec *p = &gen->params[i];
            CHECK(&c, p->name && p->help && p->def, "%s parameter %d incomplete", gen->name, i);
            CHECK(&c, !isnan(v[i]) || p->allow_auto, "%s.%s default '%s' does not parse", gen->name,
                  p->name, p->def);
        }
    }
}

int main(void)
{
    const int64_t shapes[][3] = {{1, 1, 1},    {2, 2, 2},     {7, 7, 7},     {33, 33, 33},
                                 {128, 128, 128}, {330, 33, 33}, {33, 330, 33}, {33, 33, 330}};
    const enum mpb_target targets[] = {MPB_TARGET_FP64, MPB_TARGET_FP32};
    check_table();
    check_resolve();
    check_test2_diag_large();
    for (int ti = 0; ti < 2; ti++) {
        enum mpb_target t = targets[ti];
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            int64_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
            for (int g = 0; g < mpb_n_generators; g++) {
                struct gcase c;
                if (mpb_generators[g]->from_files)
                    continue; /* no element function (tests/test_file_gen.sh) */
                if (case_make(&c, mpb_generators[g]->name, "", t, m, n, k, 1)) {
                    check_common(&c);
                    case_free(&c);
                }
            }
            check_uniform(t, m, n, k);
            check_randn(t, m, n, k);
            check_phi(t, m, n, k);
            check_test1a(t, m, n, k);
            check_test1b(t, m, n, k);
            check_test2(t, m, n, k);
            check_test3(t, m, n, k, "");
            check_test3(t, m, n, k, "n0=4");
            check_scaled("outer", t, m, n, k);
            check_scaled("inner", t, m, n, k);
            check_scaled("evil", t, m, n, k);
            if (m * k >= 10000)
                check_special(t, m, n, k);
        }
    }
    if (failures)
        printf("test_generators: %d failure(s) in %d checks\n", failures, checks);
    else
        printf("test_generators: ok, %d checks\n", checks);
    return failures ? 1 : 0;
}
