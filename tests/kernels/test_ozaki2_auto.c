/* Ozaki-II's moduli=auto (kernels/ozaki2/ozaki2_auto.c) on the host model,
 * against MPFR's exact C on every entry:
 *  - the bound is rigorous: with the chosen count N the error is at most
 *    bound·‖|A||B|‖_F plus the final rounding u‖C‖_F, and with N − 1 at
 *    most the reported bound of N − 1 likewise (same-sign data nearly
 *    attain it); moduli=auto gives bitwise what moduli=N gives, reports N in
 *    slices and settings, and says why in the note;
 *  - the error is at most the native GEMM's (dgemm, sgemm host models) on a
 *    battery of generators at small sizes, both modes, both targets;
 *  - benign data take fewer moduli than hard data: φ = 0.5 than φ = 4;
 *  - where no count meets the target (inner scaling: fixed point cannot)
 *    the note says so and N is the count of the least bound;
 *  - no entries (m = 0): the fewest moduli;
 *  - tol=T: the fewest moduli whose bound is within T (fewer than the
 *    native target's for T = 1e-8 in fp64, more or as many for a smaller
 *    T), the error within T·‖|A||B|‖_F, the note naming tol; tol without
 *    moduli=auto, and tol out of 0..1 or NaN, refused naming tol. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "elem.h"
#include "gen_host.h"
#include "generators.h"
#include "ozaki2/ozaki2.h"
#include "reference.h"
#include "schemes/registry.h"

struct opnds {
    int64_t m, n, k;
    enum mpb_target t;
    void *a, *b;
};

static struct opnds gen(const char *name, double param, enum mpb_target t, int64_t m, int64_t n, int64_t k,
                        uint64_t seed)
{
    size_t es = mpb_target_size(t);
    struct opnds o = {m, n, k, t, malloc(es * (size_t)(m * k) + 8), malloc(es * (size_t)(k * n) + 8)};
    gen_host_fill(name, param, t, m, n, k, seed, o.a, o.b);
    return o;
}

/* C (malloc'd) from scheme `name` with `moduli` (NAN: auto), `mode` and `tol`. */
static void *run_tol(const char *name, const struct opnds *o, double moduli, int mode, double tol,
                     struct mpb_scheme_info *info)
{
    const struct mpb_scheme *s = mpb_scheme_find(name);
    double params[MPB_MAX_PARAMS];
    mpb_param_defaults(s->params, s->n_params, params);
    if (s->family && strcmp(s->family, "ozaki2") == 0) {
        params[MPB_OZ2_MODULI] = moduli;
        params[MPB_OZ2_MODE] = mode;
        params[MPB_OZ2_TOL] = tol;
    }
    void *c = malloc(mpb_target_size(o->t) * (size_t)(o->m * o->n) + 8);
    struct mpb_gemm g = {.m = o->m, .n = o->n, .k = o->k, .target = o->t, .a = o->a, .b = o->b, .c = c};
    *info = (struct mpb_scheme_info){.slices = -1, .fallback = -1};
    CHECK(s->run_host(&g, params, info) == MPB_STATUS_OK, "%s: %s", name, info->note);
    return c;
}

static void *run(const char *name, const struct opnds *o, double moduli, int mode, struct mpb_scheme_info *info)
{
    return run_tol(name, o, moduli, mode, 0, info);
}

/* ‖Ĉ − C‖_F, ‖C‖_F and ‖|A||B|‖_F against the exact C. */
struct norms {
    double err, c, absab;
};

static struct norms norms(const struct opnds *o, const void *c)
{
    int64_t count = o->m * o->n;
    struct mpb_ref_entry *e = malloc(sizeof *e * (size_t)count + 1);
    struct mpb_ref_value *v = malloc(sizeof *v * (size_t)count + 1);
    for (int64_t p = 0; p < count; p++)
        e[p] = (struct mpb_ref_entry){.i = p % o->m, .j = p / o->m};
    struct mpb_gemm g = {.m = o->m, .n = o->n, .k = o->k, .target = o->t, .a = o->a, .b = o->b};
    CHECK(mpb_ref_mpfr(&g, e, count, 1, v), "MPFR reference");
    long double err = 0, cc = 0, ab = 0;
    for (int64_t p = 0; p < count; p++) {
        long double exact = (long double)v[p].hi + v[p].lo, d = (long double)elem_get(c, o->t, p) - exact;
        err += d * d;
        cc += exact * exact;
        ab += (long double)v[p].absab * v[p].absab;
    }
    free(e);
    free(v);
    return (struct norms){(double)sqrtl(err), (double)sqrtl(cc), (double)sqrtl(ab)};
}

static const char *scheme_of(enum mpb_target t)
{
    return t == MPB_TARGET_FP64 ? "ozaki2_int8" : "ozaki2_int8_sp";
}

static double unit(enum mpb_target t)
{
    return t == MPB_TARGET_FP64 ? 0x1p-53 : 0x1p-24;
}

/* The chosen count's bound and the one below it, against the errors. */
static void check_rigour(const char *gname, double param, enum mpb_target t, int mode, int64_t m, int64_t n,
                         int64_t k, double *worst)
{
    struct opnds o = gen(gname, param, t, m, n, k, 7);
    struct mpb_gemm g = {.m = m, .n = n, .k = k, .target = t, .a = o.a, .b = o.b};
    struct mpb_oz2_auto c;
    CHECK(mpb_oz2_auto_host(&g, mode == MPB_OZ2_ACCURATE, 0, &c), "auto_host");
    struct mpb_scheme_info ia, in;
    void *ca = run(scheme_of(t), &o, NAN, mode, &ia), *cn = run(scheme_of(t), &o, c.moduli, mode, &in);
    char what[160];
    snprintf(what, sizeof what, "%s(%g) %lldx%lldx%lld %s %s", gname, param, (long long)m, (long long)n,
             (long long)k, scheme_of(t), mode ? "accurate" : "fast");
    char want[32];
    snprintf(want, sizeof want, "moduli=%d ", c.moduli);
    CHECK(memcmp(ca, cn, mpb_target_size(t) * (size_t)(m * n)) == 0 && ia.slices == c.moduli &&
              strncmp(ia.settings, want, strlen(want)) == 0 && strncmp(ia.note, "auto: ", 6) == 0,
          "%s: moduli=auto is not moduli=%d (slices %d, settings [%s], note [%s])", what, c.moduli, ia.slices,
          ia.settings, ia.note);
    struct norms x = norms(&o, cn);
    double slack = unit(t) * x.c * 1.001;
    CHECK(x.err <= c.bound * x.absab + slack, "%s: %d moduli, error %.3g > bound %.3g·%.3g + rounding", what,
          c.moduli, x.err, c.bound, x.absab);
    if (x.absab > 0)
        *worst = fmax(*worst, (x.err - unit(t) * x.c) / (c.bound * x.absab));
    if (!isnan(c.fewer)) {
        struct mpb_scheme_info i1;
        void *c1 = run(scheme_of(t), &o, c.moduli - 1, mode, &i1);
        struct norms y = norms(&o, c1);
        CHECK(y.err <= c.fewer * y.absab + slack, "%s: %d moduli, error %.3g > bound %.3g·%.3g + rounding", what,
              c.moduli - 1, y.err, c.fewer, y.absab);
        *worst = fmax(*worst, (y.err - unit(t) * y.c) / (c.fewer * y.absab));
        free(c1);
    }
    free(ca), free(cn), free(o.a), free(o.b);
}

/* err_fro_rel of auto against the native GEMM's on the same operands. */
static void check_vs_native(const char *gname, double param, enum mpb_target t, int mode, int64_t size,
                            uint64_t seed, double *worst)
{
    struct opnds o = gen(gname, param, t, size, size, size, seed);
    struct mpb_scheme_info ia, in;
    void *ca = run(scheme_of(t), &o, NAN, mode, &ia);
    void *cn = run(t == MPB_TARGET_FP64 ? "dgemm" : "sgemm", &o, NAN, mode, &in);
    struct norms xa = norms(&o, ca), xn = norms(&o, cn);
    CHECK(xa.err <= xn.err, "%s(%g) %lld seed %llu %s %s: auto (%d moduli) error %.3g > native %.3g", gname, param,
          (long long)size, (unsigned long long)seed, scheme_of(t), mode ? "accurate" : "fast", ia.slices, xa.err,
          xn.err);
    if (xn.err > 0)
        *worst = fmax(*worst, xa.err / xn.err);
    free(ca), free(cn), free(o.a), free(o.b);
}

static int chosen(const char *gname, double param, enum mpb_target t, int64_t m, int64_t n, int64_t k,
                  uint64_t seed, struct mpb_oz2_auto *c)
{
    struct opnds o = gen(gname, param, t, m, n, k, seed);
    struct mpb_gemm g = {.m = m, .n = n, .k = k, .target = t, .a = o.a, .b = o.b};
    CHECK(mpb_oz2_auto_host(&g, false, 0, c), "auto_host");
    free(o.a), free(o.b);
    return c->moduli;
}

/* tol=T on uniform 64³: fewer moduli than native's target, bitwise
 * moduli=N, the note naming tol, the error within the bound and so within
 * T·‖|A||B|‖_F (plus the final rounding). */
static void check_tol_run(enum mpb_target t, int mode, double tol)
{
    struct opnds o = gen("uniform", NAN, t, 64, 64, 64, 7);
    struct mpb_gemm g = {.m = 64, .n = 64, .k = 64, .target = t, .a = o.a, .b = o.b};
    struct mpb_oz2_auto native, c;
    bool accurate = mode == MPB_OZ2_ACCURATE;
    CHECK(mpb_oz2_auto_host(&g, accurate, 0, &native) && mpb_oz2_auto_host(&g, accurate, tol, &c), "auto_host");
    char what[96], want[48];
    snprintf(what, sizeof what, "%s %s tol=%g", scheme_of(t), accurate ? "accurate" : "fast", tol);
    CHECK(c.met && c.user && c.target == tol && c.moduli < native.moduli,
          "%s: %d moduli (met %d), native's target %d", what, c.moduli, c.met, native.moduli);
    struct mpb_scheme_info ia, in;
    void *ca = run_tol(scheme_of(t), &o, NAN, mode, tol, &ia);
    void *cn = run(scheme_of(t), &o, c.moduli, mode, &in);
    struct norms x = norms(&o, ca);
    CHECK(memcmp(ca, cn, mpb_target_size(t) * 64 * 64) == 0 && ia.slices == c.moduli,
          "%s is not moduli=%d (slices %d)", what, c.moduli, ia.slices);
    snprintf(want, sizeof want, " <= tol %.2g (", tol);
    CHECK(strstr(ia.note, want) != NULL, "%s: note [%s]", what, ia.note);
    double rounding = unit(t) * x.c * 1.001;
    CHECK(c.bound <= tol && x.err <= c.bound * x.absab + rounding && x.err <= tol * x.absab + rounding,
          "%s, %d moduli: error %.3g, bound %.3g, ||(|A||B|)||_F %.3g", what, c.moduli, x.err, c.bound, x.absab);
    printf("uniform 64^3 %s: %d moduli (error %.3g relative to ||(|A||B|)||_F), native's target %d\n", what,
           c.moduli, x.err / x.absab, native.moduli);
    free(ca), free(cn), free(o.a), free(o.b);
}

/* tol=: check_tol_run, the counts monotone in tol, the least bound's count
 * where none meets it, and the refusals. */
static void check_tol(void)
{
    check_tol_run(MPB_TARGET_FP64, MPB_OZ2_FAST, 1e-8);
    check_tol_run(MPB_TARGET_FP64, MPB_OZ2_ACCURATE, 1e-8);
    check_tol_run(MPB_TARGET_FP32, MPB_OZ2_FAST, 1e-4);
    struct opnds o = gen("uniform", NAN, MPB_TARGET_FP64, 64, 64, 64, 7);
    struct mpb_gemm g = {.m = 64, .n = 64, .k = 64, .target = MPB_TARGET_FP64, .a = o.a, .b = o.b};
    struct mpb_oz2_auto c;
    static const double tols[] = {1e-2, 1e-5, 1e-8, 1e-11, 1e-14, 1e-17, 1e-30};
    int last = 0;
    for (size_t i = 0; i < sizeof tols / sizeof tols[0]; i++) {
        CHECK(mpb_oz2_auto_host(&g, false, tols[i], &c), "auto_host");
        CHECK(c.moduli >= last, "tol=%g takes %d moduli, a larger tol %d", tols[i], c.moduli, last);
        CHECK(c.met == (c.bound <= tols[i]), "tol=%g: met %d, bound %.3g", tols[i], c.met, c.bound);
        last = c.moduli;
    }
    /* 1e-30 is beyond any count: the least bound's, and the note says > tol */
    char note[256];
    mpb_oz2_auto_note(&c, note, sizeof note);
    CHECK(!c.met && c.moduli == MPB_OZ2_MAX_MODULI && strstr(note, "the least error bound") &&
              strstr(note, "> tol 1e-30"),
          "tol=1e-30: met %d, %d moduli, note [%s]", c.met, c.moduli, note);

    /* refused: tol with a fixed count, tol negative, NaN, infinite */
    const struct mpb_scheme *s = mpb_scheme_find("ozaki2_int8");
    double params[MPB_MAX_PARAMS];
    char why[256];
    static const double bad[][2] = {{15, 1e-8}, {NAN, -1}, {NAN, NAN}, {NAN, INFINITY}};
    static const char *const needle[] = {"tol=1e-08 needs moduli=auto (moduli=15", "tol=-1:", "tol=nan:", "tol=inf:"};
    for (int i = 0; i < 4; i++) {
        mpb_param_defaults(s->params, s->n_params, params);
        params[MPB_OZ2_MODULI] = bad[i][0];
        params[MPB_OZ2_TOL] = bad[i][1];
        why[0] = '\0';
        CHECK(!s->check(params, &g, NULL, why, sizeof why) && strstr(why, needle[i]),
              "moduli=%g tol=%g: check says [%s]", bad[i][0], bad[i][1], why);
        struct mpb_scheme_info ib = {0};
        double *cb = malloc(sizeof(double) * 64 * 64);
        g.c = cb;
        CHECK(s->run_host(&g, params, &ib) == MPB_STATUS_NOT_SUPPORTED && strstr(ib.note, needle[i]),
              "moduli=%g tol=%g: the host model says [%s]", bad[i][0], bad[i][1], ib.note);
        free(cb);
    }
    int p = mpb_param_find(s->params, s->n_params, "tol");
    double v;
    CHECK(p == MPB_OZ2_TOL && mpb_param_parse(&s->params[p], "1e-8", &v, why, sizeof why) && v == 1e-8 &&
              !mpb_param_parse(&s->params[p], "-1", &v, why, sizeof why) &&
              !mpb_param_parse(&s->params[p], "nan", &v, why, sizeof why) &&
              !mpb_param_parse(&s->params[p], "inf", &v, why, sizeof why),
          "tol's parameter spec");
    free(o.a), free(o.b);
}

int main(void)
{
    check_tol();
    static const struct {
        const char *name;
        double param;
    } benign[] = {{"uniform", NAN}, {"randn", NAN}, {"phi", 0.5}, {"phi", 1},    {"phi", 2},
                  {"outer", NAN},   {"evil", NAN},  {"test1a", NAN}, {"test1b", NAN}};
    static const int64_t shapes[][3] = {{1, 1, 1}, {7, 5, 3}, {33, 20, 64}, {2, 9, 300}};
    static const enum mpb_target targets[] = {MPB_TARGET_FP64, MPB_TARGET_FP32};
    static const int64_t sizes[] = {33, 64, 100};
    double rig = 0, nat = 0;
    for (int ti = 0; ti < 2; ti++)
        for (int mode = MPB_OZ2_FAST; mode <= MPB_OZ2_ACCURATE; mode++) {
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
                check_rigour("uniform", NAN, targets[ti], mode, shapes[s][0], shapes[s][1], shapes[s][2], &rig);
                check_rigour("phi", 4, targets[ti], mode, shapes[s][0], shapes[s][1], shapes[s][2], &rig);
            }
            for (size_t gi = 0; gi < sizeof benign / sizeof benign[0]; gi++)
                for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
                    for (uint64_t seed = 1; seed <= 2; seed++)
                        check_vs_native(benign[gi].name, benign[gi].param, targets[ti], mode, sizes[si], seed,
                                        &nat);
        }
    printf("error / bound: at most %.3g; auto's error / native's: at most %.3g\n", rig, nat);

    /* benign against hard: fp64 strictly per seed, fp32 at least as many and more in all */
    for (int ti = 0; ti < 2; ti++) {
        int easy_sum = 0, hard_sum = 0;
        for (uint64_t seed = 1; seed <= 3; seed++) {
            struct mpb_oz2_auto ce, ch;
            int easy = chosen("phi", 0.5, targets[ti], 16, 16, 2048, seed, &ce);
            int hard = chosen("phi", 4, targets[ti], 16, 16, 2048, seed, &ch);
            CHECK(ce.met && ch.met && (ti == 0 ? hard > easy : hard >= easy),
                  "%s seed %llu: phi=0.5 takes %d moduli, phi=4 %d", scheme_of(targets[ti]),
                  (unsigned long long)seed, easy, hard);
            printf("%s 16x16x2048 seed %llu: phi=0.5 %d moduli, phi=4 %d\n", scheme_of(targets[ti]),
                   (unsigned long long)seed, easy, hard);
            easy_sum += easy, hard_sum += hard;
        }
        CHECK(hard_sum > easy_sum, "%s: phi=4 takes no more moduli than phi=0.5", scheme_of(targets[ti]));
        /* inner scaling: unattainable, the least bound's count */
        struct mpb_oz2_auto ci;
        chosen("inner", NAN, targets[ti], 16, 16, 64, 1, &ci);
        CHECK(!ci.met && ci.moduli == MPB_OZ2_MAX_MODULI, "%s inner: met %d with %d moduli",
              scheme_of(targets[ti]), ci.met, ci.moduli);
        struct opnds o = gen("randn", NAN, targets[ti], 0, 3, 5, 1);
        struct mpb_scheme_info ie;
        free(run(scheme_of(targets[ti]), &o, NAN, MPB_OZ2_FAST, &ie));
        CHECK(ie.slices == MPB_OZ2_MIN_MODULI, "m = 0: %d moduli", ie.slices);
        free(o.a), free(o.b);
    }
    return check_report("test_ozaki2_auto");
}
