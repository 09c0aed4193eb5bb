/* Generator descriptors: parameter specs, resolve() for each case, and the
 * config the element functions (gen_element.h) read. The constructions and
 * the reasons for each limit are in gen_element.h and README "Generators";
 * Tests 1-3 are Demmel et al.'s ("How to grade the accuracy of an
 * implementation of the BLAS", 2024). */
#include "generators.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gen_element.h"

static const char *target_word(enum mpb_target t)
{
    return t == MPB_TARGET_FP32 ? "fp32" : "fp64";
}

/* Largest binary exponent of a finite value of the target. */
static int64_t target_emax(enum mpb_target t)
{
    return t == MPB_TARGET_FP32 ? 127 : 1023;
}

static int64_t ceil_log2(int64_t k)
{
    int64_t c = 0;
    while (c < 63 && (INT64_C(1) << c) < k)
        c++;
    return c;
}

/* An "auto" (NaN) parameter becomes `value`; an explicit one above `max`
 * is refused with the formula that bounds it. */
static bool resolve_capped(const char *gen, const char *name, double *p, int64_t value,
                           int64_t max, const char *rule, enum mpb_target target, int64_t k,
                           char *why, size_t why_len)
{
    if (max < 0) {
        snprintf(why, why_len, "%s: no %s fits %s with k=%lld (%s)", gen, name,
                 target_word(target), (long long)k, rule);
        return false;
    }
    if (isnan(*p)) {
        *p = (double)(value < max ? value : max);
        return true;
    }
    if (*p > (double)max) {
        snprintf(why, why_len, "%s: %s=%lld is too large for %s with k=%lld: at most %lld (%s)",
                 gen, name, (long long)*p, target_word(target), (long long)k, (long long)max,
                 rule);
        return false;
    }
    return true;
}

static const char *const special_kinds[] = {"all", "nan", "inf", "subnormal", "negzero", NULL};

/* ---- uniform ---- */

static const struct mpb_param_spec uniform_params[] = {
    [MPB_GP_LO] = {.name = "lo", .kind = MPB_PARAM_REAL, .def = "0", .lo = -1e300, .hi = 1e300,
                   .help = "lower end of the interval"},
    [MPB_GP_HI] = {.name = "hi", .kind = MPB_PARAM_REAL, .def = "1", .lo = -1e300, .hi = 1e300,
                   .help = "upper end of the interval"},
};

static bool uniform_validate(const double *p, char *why, size_t why_len)
{
    if (p[MPB_GP_HI] < p[MPB_GP_LO]) {
        char lo[32], hi[32];
        mpb_format_double(p[MPB_GP_LO], lo, sizeof lo);
        mpb_format_double(p[MPB_GP_HI], hi, sizeof hi);
        snprintf(why, why_len, "hi=%s is below lo=%s", hi, lo);
        return false;
    }
    return true;
}

static bool uniform_resolve(double *p, enum mpb_target target, int64_t m, int64_t n, int64_t k,
                            char *why, size_t why_len)
{
    (void)m, (void)n, (void)k;
    double lo = p[MPB_GP_LO], hi = p[MPB_GP_HI];
    char bad[96];
    if (!uniform_validate(p, bad, sizeof bad)) {
        snprintf(why, why_len, "uniform: %s", bad);
        return false;
    }
    if (target == MPB_TARGET_FP32 && (fabs(lo) > FLT_MAX || fabs(hi) > FLT_MAX)) {
        snprintf(why, why_len, "uniform: lo and hi must lie within ±%.9g for fp32", (double)FLT_MAX);
        return false;
    }
    return true;
}

static const struct mpb_generator gen_uniform = {
    .name = "uniform", .kind = MPB_GEN_UNIFORM,
    .help = "U(lo, hi), 53 random bits per value",
    .params = uniform_params, .n_params = 2, .resolve = uniform_resolve, .validate = uniform_validate,
};

/* ---- randn ---- */

static const struct mpb_generator gen_randn = {
    .name = "randn", .kind = MPB_GEN_RANDN,
    .help = "N(0, 1) (Box–Muller)",
};

/* ---- phi ---- */

static const struct mpb_param_spec phi_params[] = {
    [MPB_GP_PHI] = {.name = "phi", .kind = MPB_PARAM_REAL, .def = "0.5", .lo = 0, .hi = 20,
                    .help = "exponent spread: (u-0.5)*exp(phi*g); 0.5 is the usual default, "
                            "larger phi widens the range of magnitudes"},
};

/* |g| ≤ sqrt(−2 ln 2^-53) < 8.6 (Box–Muller with u1 ≥ 2^-53), and
 * exp(10·8.6) < 2^125 keeps every fp32 value finite. */
static bool phi_resolve(double *p, enum mpb_target target, int64_t m, int64_t n, int64_t k,
                        char *why, size_t why_len)
{
    (void)m, (void)n, (void)k;
    if (target == MPB_TARGET_FP32 && p[MPB_GP_PHI] > 10) {
        snprintf(why, why_len, "phi: phi=%g overflows fp32 (exp(phi*8.6) must stay below 2^128): "
                 "at most 10", p[MPB_GP_PHI]);
        return false;
    }
    return true;
}

static const struct mpb_generator gen_phi = {
    .name = "phi", .kind = MPB_GEN_PHI,
    .help = "(u-0.5)*exp(phi*g), u~U(0,1), g~N(0,1): the Mukunoki/ozIMMU/GEMMul8 test matrices",
    .params = phi_params, .n_params = 1, .resolve = phi_resolve,
};

/* ---- Demmel Test 1 ---- */

static const struct mpb_generator gen_test1a = {
    .name = "test1a", .kind = MPB_GEN_TEST1A,
    .help = "Demmel test 1a: N(0,1) with floor(m/4) random rows of A and floor(n/4) columns of B "
            "zero; those rows/columns of C must be exactly 0",
};

static const struct mpb_generator gen_test1b = {
    .name = "test1b", .kind = MPB_GEN_TEST1B,
    .help = "Demmel test 1b: N(0,1); min(m,n)/2 paired rows of A and columns of B with disjoint "
            "supports, so those entries of C are exactly 0",
};

/* ---- Demmel Test 2 ---- */

static const struct mpb_param_spec test2_params[] = {
    [MPB_GP_B] = {.name = "b", .kind = MPB_PARAM_INT, .def = "auto", .lo = 0, .hi = 510,
                  .allow_auto = true,
                  .help = "exponent range: entries span 2^-b..2^b*[1,2); auto = b_max = "
                          "510-ceil(log2 k) (fp64), 62-ceil(log2 k) (fp32)"},
};

/* b_max = ⌊log2 √Ω⌋ − ⌈log2 k⌉ − 1 (Test 2, README "Generators"): off-diagonal
 * entries of C reach k·4·2^{2b} and must stay below the overflow threshold Ω. */
static bool test2_resolve_named(const char *gen, double *p, enum mpb_target target, int64_t k,
                                char *why, size_t why_len)
{
    int64_t bmax = (target == MPB_TARGET_FP32 ? 62 : 510) - ceil_log2(k);
    if (bmax < 0)
        bmax = 0;
    return resolve_capped(gen, "b", &p[MPB_GP_B], bmax, bmax,
                          target == MPB_TARGET_FP32 ? "b_max = 62 - ceil(log2 k)"
                                                    : "b_max = 510 - ceil(log2 k)",
                          target, k, why, why_len);
}

static bool test2_resolve(double *p, enum mpb_target target, int64_t m, int64_t n, int64_t k,
                          char *why, size_t why_len)
{
    (void)m, (void)n;
    return test2_resolve_named("test2", p, target, k, why, why_len);
}

static bool test2r_resolve(double *p, enum mpb_target target, int64_t m, int64_t n, int64_t k,
                           char *why, size_t why_len)
{
    (void)m, (void)n;
    return test2_resolve_named("test2r", p, target, k, why, why_len);
}

static const struct mpb_generator gen_test2 = {
    .name = "test2", .kind = MPB_GEN_TEST2,
    .help = "Demmel test 2: A(r,c)=x_{(r+c)%k}*2^{j}, B(r,c)=x_{(r+c)%k}*2^{-j}, x~U(1,2), "
            "j spread evenly over [-b,b]; C_rr = sum x^2 exactly",
    .params = test2_params, .n_params = 1, .resolve = test2_resolve,
};

static const struct mpb_generator gen_test2r = {
    .name = "test2r", .kind = MPB_GEN_TEST2R,
    .help = "Demmel test 2 with the exponent list shuffled (defeats k-blocked scaling)",
    .params = test2_params, .n_params = 1, .resolve = test2r_resolve,
};

/* ---- Demmel Test 3 ---- */

static const struct mpb_param_spec test3_params[] = {
    [MPB_GP_N0] = {.name = "n0", .kind = MPB_PARAM_INT, .def = "16", .lo = 2, .hi = 65536,
                   .help = "Strassen cutover: the inner scale exponents repeat with this period"},
    [MPB_GP_T3SPAN] = {.name = "span", .kind = MPB_PARAM_INT, .def = "auto", .lo = 0, .hi = 1000,
                       .allow_auto = true,
                       .help = "inner scale exponents spread over [-span,span]; auto = 32 (fp64), "
                               "12 (fp32)"},
    [MPB_GP_HUGE] = {.name = "huge", .kind = MPB_PARAM_INT, .def = "auto", .lo = 0, .hi = 1000,
                     .allow_auto = true,
                     .help = "last row of A and last column of B scaled by 2^huge; auto = 200 "
                             "(fp64), 40 (fp32)"},
};

/* Entries g·2^{±span} stay normal for |g| ≥ 2^-30 (span ≤ emax − 30); the
 * huge row reaches 2^{huge+span+3} and C(m−1, n−1) reaches k·2^{2·huge+7}. */
static bool test3_resolve(double *p, enum mpb_target target, int64_t m, int64_t n, int64_t k,
                          char *why, size_t why_len)
{
    (void)m, (void)n;
    int64_t emax = target_emax(target), fp32 = target == MPB_TARGET_FP32;
    if (!resolve_capped("test3", "span", &p[MPB_GP_T3SPAN], fp32 ? 12 : 32, emax - 30,
                        "span <= emax - 30", target, k, why, why_len))
        return false;
    int64_t span = (int64_t)p[MPB_GP_T3SPAN];
    int64_t by_c = (emax - 8 - ceil_log2(k)) / 2, by_entry = emax - 4 - span;
    return resolve_capped("test3", "huge", &p[MPB_GP_HUGE], fp32 ? 40 : 200,
                          by_c < by_entry ? by_c : by_entry,
                          "2*huge + ceil(log2 k) + 8 <= emax and huge + span + 4 <= emax", target,
                          k, why, why_len);
}

static const struct mpb_generator gen_test3 = {
    .name = "test3", .kind = MPB_GEN_TEST3,
    .help = "Demmel test 3 (Strassen float vs fixed): A*D, D^-1*B with D = 2^{s_(l mod n0)} "
            "shuffled, last row of A and last column of B times 2^huge; compare the leading "
            "(n0-1)x(n0-1) block",
    .params = test3_params, .n_params = 3, .resolve = test3_resolve,
};

/* ---- power-of-two scalings ---- */

static const struct mpb_param_spec outer_params[] = {
    [MPB_GP_SPAN] = {.name = "span", .kind = MPB_PARAM_INT, .def = "auto", .lo = 0, .hi = 1000,
                     .allow_auto = true,
                     .help = "row/column exponents uniform in [-span,span]; auto = 200 (fp64), "
                             "40 (fp32)"},
};

static const struct mpb_param_spec inner_params[] = {
    [MPB_GP_SPAN] = {.name = "span", .kind = MPB_PARAM_INT, .def = "auto", .lo = 0, .hi = 1000,
                     .allow_auto = true,
                     .help = "inner exponents d_l uniform in [-span,span]; auto = 200 (fp64), "
                             "40 (fp32)"},
};

static const struct mpb_param_spec evil_params[] = {
    [MPB_GP_SPAN] = {.name = "span", .kind = MPB_PARAM_INT, .def = "auto", .lo = 0, .hi = 1000,
                     .allow_auto = true,
                     .help = "per-element exponents uniform in [-span,span]; auto = 30 (fp64), "
                             "14 (fp32)"},
};

/* |g| < 2^3.1, so a sum of k products of two scaled entries stays below
 * 2^{2·span + ⌈log2 k⌉ + 7}: C cannot overflow when
 * 2·span + ⌈log2 k⌉ + 8 ≤ emax. fp32's auto 40 leaves room for k ≤ 2^39
 * and keeps the smallest products (2^-80·g·g') normal for |g·g'| ≥ 2^-46. */
static bool outer_resolve(double *p, enum mpb_target target, int64_t m, int64_t n, int64_t k,
                          char *why, size_t why_len)
{
    (void)m, (void)n;
    return resolve_capped("outer", "span", &p[MPB_GP_SPAN],
                          target == MPB_TARGET_FP32 ? 40 : 200,
                          (target_emax(target) - 8 - ceil_log2(k)) / 2,
                          "2*span + ceil(log2 k) + 8 <= emax", target, k, why, why_len);
}

/* Products are unscaled; the entries g·2^{±span} stay normal for
 * |g| ≥ 2^-30 when span ≤ emax − 30. */
static bool inner_resolve(double *p, enum mpb_target target, int64_t m, int64_t n, int64_t k,
                          char *why, size_t why_len)
{
    (void)m, (void)n;
    return resolve_capped("inner", "span", &p[MPB_GP_SPAN],
                          target == MPB_TARGET_FP32 ? 40 : 200, target_emax(target) - 30,
                          "span <= emax - 30", target, k, why, why_len);
}

/* fp32's 14 keeps the fp64 default's ratio to the significand (30/53 ≈ 14/24),
 * and the same no-overflow rule as outer bounds it. */
static bool evil_resolve(double *p, enum mpb_target target, int64_t m, int64_t n, int64_t k,
                         char *why, size_t why_len)
{
    (void)m, (void)n;
    return resolve_capped("evil", "span", &p[MPB_GP_SPAN], target == MPB_TARGET_FP32 ? 14 : 30,
                          (target_emax(target) - 8 - ceil_log2(k)) / 2,
                          "2*span + ceil(log2 k) + 8 <= emax", target, k, why, why_len);
}

static const struct mpb_generator gen_outer = {
    .name = "outer", .kind = MPB_GEN_OUTER,
    .help = "N(0,1) with row i of A scaled by 2^{e_i} and column j of B by 2^{f_j} "
            "(separates grade B from C)",
    .params = outer_params, .n_params = 1, .resolve = outer_resolve,
};

static const struct mpb_generator gen_inner = {
    .name = "inner", .kind = MPB_GEN_INNER,
    .help = "A*D and D^-1*B, D = diag(2^{d_l}), A, B ~ N(0,1): a conventional GEMM's C is "
            "bitwise that of randn",
    .params = inner_params, .n_params = 1, .resolve = inner_resolve,
};

static const struct mpb_generator gen_evil = {
    .name = "evil", .kind = MPB_GEN_EVIL,
    .help = "N(0,1) times 2^{e_ij} per element, e_ij uniform in [-span,span]",
    .params = evil_params, .n_params = 1, .resolve = evil_resolve,
};

/* ---- special values ---- */

static const struct mpb_param_spec special_params[] = {
    [MPB_GP_RATE] = {.name = "rate", .kind = MPB_PARAM_REAL, .def = "1e-3", .lo = 0, .hi = 1,
                     .help = "fraction of the entries of A and of B replaced by a special value"},
    [MPB_GP_KIND] = {.name = "kind", .kind = MPB_PARAM_CHOICE, .def = "all",
                     .choices = special_kinds,
                     .help = "which special values: all (each of the four equally often), nan, "
                             "inf (both signs), subnormal (both signs), negzero"},
};

static const struct mpb_generator gen_special = {
    .name = "special", .kind = MPB_GEN_SPECIAL,
    .help = "N(0,1) with NaN, +-Inf, subnormals and -0 injected at a rate into A and B",
    .params = special_params, .n_params = 2,
};

/* ---- complex: small imaginary parts ---- */

static const struct mpb_param_spec smallim_params[] = {
    [MPB_GP_SPAN] = {.name = "span", .kind = MPB_PARAM_INT, .def = "24", .lo = 0, .hi = 40,
                     .help = "the imaginary parts are N(0,1)*2^-span"},
};

/* The scaling stays exact: a nonzero Box–Muller g is above 2^-81 (its
 * radius is ≥ 2^-26, its cosine at a multiple of 2^-53 turns ≥ 2^-55), so
 * g·2^-40 is a normal fp32 number. */
static const struct mpb_generator gen_smallim = {
    .name = "smallim", .kind = MPB_GEN_SMALLIM,
    .help = "complex only: real parts N(0,1), imaginary parts N(0,1)*2^-span: the imaginary part "
            "of C is 2^-span of |A||B|, so a 3M (Karatsuba) product's error, set by the real parts, "
            "fails its componentwise bound while 4M meets it",
    .params = smallim_params, .n_params = 1, .complex_only = true,
};

/* ---- matrices from files ---- */

static const struct mpb_generator gen_file = {
    .name = "file", .kind = MPB_GEN_FILE,
    .help = "A and B (and a C, checked only) from files: -a a=PATH -a b=PATH [-a c=PATH], each .npy "
            "(float64, float32, complex128, complex64; C or Fortran order) or Matrix Market 'array' "
            "(real, complex; general); the shape is the files'; -a a_sha256=HEX (b_, c_) refuses a file "
            "whose SHA-256 does not begin with HEX; -a trace=PATH -a call=N label a hook trace's call (mpbench "
            "replay) (README \"Grading your own matrices\")",
    .from_files = true,
};

/* Order of `mpbench list generators`. */
const struct mpb_generator *const mpb_generators[] = {
    &gen_uniform, &gen_randn, &gen_phi, &gen_test1a, &gen_test1b, &gen_test2, &gen_test2r,
    &gen_test3, &gen_outer, &gen_inner, &gen_evil, &gen_special, &gen_smallim, &gen_file,
};
const int mpb_n_generators = (int)(sizeof mpb_generators / sizeof mpb_generators[0]);

const struct mpb_generator *mpb_generator_find(const char *name)
{
    for (int i = 0; i < mpb_n_generators; i++)
        if (strcmp(mpb_generators[i]->name, name) == 0)
            return mpb_generators[i];
    return NULL;
}

/* Key t of the bijections: draws 2t and 2t+1 of the key stream. */
static uint64_t gen_key(uint64_t seed, int t)
{
    struct mpb_pcg32 g = mpb_pcg32_at(seed, MPB_STREAM_KEY, 2 * (uint64_t)t);
    uint64_t hi = mpb_pcg32_next(&g);
    return (hi << 32) | mpb_pcg32_next(&g);
}

void mpb_gen_config_init(struct mpb_gen_config *cfg, const struct mpb_generator *gen,
                         const double *params, enum mpb_target target,
                         int64_t m, int64_t n, int64_t k, uint64_t seed)
{
    mpb_gen_config_init_field(cfg, gen, params, target, MPB_FIELD_REAL, m, n, k, seed);
}

void mpb_gen_config_init_field(struct mpb_gen_config *cfg, const struct mpb_generator *gen,
                               const double *params, enum mpb_target target, enum mpb_field field,
                               int64_t m, int64_t n, int64_t k, uint64_t seed)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->kind = gen->kind;
    cfg->target = target;
    cfg->field = field;
    cfg->m = m;
    cfg->n = n;
    cfg->k = k;
    cfg->seed = seed;
    for (int i = 0; i < gen->n_params; i++) {
        cfg->p[i] = params[i];
        cfg->ip[i] = fabs(params[i]) < 0x1p62 ? (int64_t)params[i] : 0; /* INT/CHOICE fit */
    }
    cfg->bij_rows = mpb_bij_make((uint64_t)(m > 0 ? m : 1), gen_key(seed, MPB_KEY_ROWS));
    cfg->bij_cols = mpb_bij_make((uint64_t)(n > 0 ? n : 1), gen_key(seed, MPB_KEY_COLS));
    cfg->pair_key = gen_key(seed, MPB_KEY_PAIRS);
    int64_t shuffled = gen->kind == MPB_GEN_TEST3 ? cfg->ip[MPB_GP_N0] : k;
    cfg->bij_exp = mpb_bij_make((uint64_t)(shuffled > 0 ? shuffled : 1),
                                gen_key(seed, MPB_KEY_SHUFFLE));
    if (gen->kind == MPB_GEN_SPECIAL)
        cfg->inject_below = (uint64_t)(cfg->p[MPB_GP_RATE] * 4294967296.0);
}
