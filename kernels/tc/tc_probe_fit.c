/* The probe's model fit and answers (tc_probe_fit.h). */
#include "tc/tc_probe_fit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mpb_arith.h"

const struct tc_mma_model *tc_candidates(int *n)
{
    static const int frac[] = {23, 24, 25, 26, 27, 28, 30, 40};
    static const int split[] = {1, 2, 4};
    enum { N_FRAC = 8, N_SPLIT = 3, COUNT = N_FRAC * N_SPLIT * 16 };
    static struct tc_mma_model all[COUNT];
    static int built;
    if (!built) {
        int c = 0;
        for (int f = 0; f < N_FRAC; f++)
            for (int s = 0; s < N_SPLIT; s++)
                for (int bits = 0; bits < 16; bits++)
                    all[c++] = (struct tc_mma_model){frac[f], split[s], !(bits & 1), (bits >> 1) & 1,
                                                     (bits >> 2) & 1, (bits >> 3) & 1};
        built = 1;
    }
    *n = COUNT;
    return all;
}

static bool same_result(float x, float y)
{
    if (isnan(x) && isnan(y))
        return true;
    return mpb_f32_to_bits(x) == mpb_f32_to_bits(y);
}

int tc_model_mismatches(const struct tc_mma_model *m, const struct tc_fbattery *b, const float *d, int *first)
{
    int bad = 0;
    *first = -1;
    for (int i = 0; i < b->n; i++) {
        if (b->t[i].raw)
            continue;
        float r = tc_mma_entry(m, b->fmt, b->t[i].c, b->t[i].a, b->t[i].b);
        if (!same_result(r, d[i])) {
            if (*first < 0)
                *first = i;
            bad++;
        }
    }
    return bad;
}

void tc_model_format(const struct tc_mma_model *m, char *buf, size_t len)
{
    snprintf(buf, len, "frac_bits=%d split=%d acc_in_sum=%d round=%s trunc=%s product_exp=%s", m->frac_bits,
             m->split, m->acc_in_sum, m->round_rn ? "rn" : "rz", m->trunc_floor ? "floor" : "zero",
             m->product_exp ? "product" : "sum");
}

void tc_fit(const struct tc_fbattery *b, const float *d, struct tc_fit *fit)
{
    int n, first;
    const struct tc_mma_model *c = tc_candidates(&n);
    memset(fit, 0, sizeof *fit);
    fit->mismatches = fit->runner_up_mismatches = b->n + 1;
    for (int i = 0; i < n; i++) {
        int bad = tc_model_mismatches(&c[i], b, d, &first);
        fit->exact_fits += bad == 0;
        if (bad < fit->mismatches) {
            if (fit->mismatches <= b->n) {
                fit->runner_up = fit->best;
                fit->runner_up_mismatches = fit->mismatches;
            }
            fit->best = c[i];
            fit->mismatches = bad;
        } else if (bad > fit->mismatches && bad < fit->runner_up_mismatches) {
            fit->runner_up = c[i];
            fit->runner_up_mismatches = bad;
        }
    }
}

/* "c = 0x1p+0; 0x1p-12*0x1.8p-12": a test's nonzero inputs. */
static void describe(const struct tc_ftest *t, enum tc_input fmt, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "c = %a", (double)t->c);
    int shown = 0;
    for (int l = 0; l < tc_input_k(fmt) && used < len; l++) {
        if (t->a[l] == 0.0f && t->b[l] == 0.0f)
            continue;
        if (shown++ == 3) {
            used += (size_t)snprintf(buf + used, len - used, " + ...");
            break;
        }
        used += (size_t)snprintf(buf + used, len - used, " + %a*%a", (double)t->a[l], (double)t->b[l]);
    }
}

static int find(const struct tc_fbattery *b, const char *prefix)
{
    for (int i = 0; i < b->n; i++)
        if (strncmp(b->t[i].name, prefix, strlen(prefix)) == 0)
            return i;
    return -1;
}

static int find_int8(const struct tc_ibattery *b, const char *name)
{
    for (int i = 0; i < b->n; i++)
        if (strcmp(b->t[i].name, name) == 0)
            return i;
    return -1;
}

static double exact_sum(const struct tc_ftest *t, enum tc_input fmt)
{
    double s = t->c;
    for (int l = 0; l < tc_input_k(fmt); l++)
        s += (double)t->a[l] * (double)t->b[l];
    return s;
}

/* Evidence against one alternative value of a parameter: the first test on
 * which the alternative model and the GPU part, or that no test does. */
static void contrast(const struct tc_fbattery *b, const float *d, const struct tc_mma_model *alt,
                     const char *alt_name, char *buf, size_t len)
{
    int first;
    int bad = tc_model_mismatches(alt, b, d, &first);
    if (bad == 0) {
        snprintf(buf, len, "%s: not separated by this battery", alt_name);
        return;
    }
    char in[200];
    describe(&b->t[first], b->fmt, in, sizeof in);
    float r = tc_mma_entry(alt, b->fmt, b->t[first].c, b->t[first].a, b->t[first].b);
    snprintf(buf, len, "%s would give %a, the GPU %a on \"%s\" (%s); it misses %d of %d tests", alt_name, (double)r,
             (double)d[first], b->t[first].name, in, bad, b->n);
}

static struct tc_answer *next(struct tc_answer *out, int *n, int max, const char *q)
{
    if (*n >= max)
        return NULL;
    struct tc_answer *a = &out[(*n)++];
    memset(a, 0, sizeof *a);
    a->question = q;
    return a;
}

/* A direct observation: test `prefix`'s GPU result against its exact value. */
static void observe(const struct tc_fbattery *b, const float *d, const char *prefix, struct tc_answer *a,
                    const char *if_exact, const char *if_not)
{
    int i = find(b, prefix);
    if (i < 0) {
        snprintf(a->answer, sizeof a->answer, "not tested for this input format");
        return;
    }
    double ex = exact_sum(&b->t[i], b->fmt);
    bool same = (double)d[i] == ex || (isnan(d[i]) && isnan(ex));
    char in[200];
    describe(&b->t[i], b->fmt, in, sizeof in);
    snprintf(a->answer, sizeof a->answer, "%s", same ? if_exact : if_not);
    snprintf(a->evidence, sizeof a->evidence, "\"%s\" (%s): exact %a, GPU %a (bits %08x)", b->t[i].name, in, ex,
             (double)d[i], (unsigned)mpb_f32_to_bits(d[i]));
}

int tc_answers(const struct tc_fbattery *b, const float *d, const struct tc_fit *fit, struct tc_answer *out,
               int max)
{
    const struct tc_mma_model *m = &fit->best;
    struct tc_mma_model alt;
    char tmp[400];
    int n = 0;
    struct tc_answer *a;

    if ((a = next(out, &n, max, "model"))) {
        tc_model_format(m, a->answer, sizeof a->answer);
        char ru[160];
        tc_model_format(&fit->runner_up, ru, sizeof ru);
        snprintf(a->evidence, sizeof a->evidence,
                 "%d of %d tests differ (%d of the candidates fit every test); the next best, %s, misses %d",
                 fit->mismatches, b->n, fit->exact_fits, ru, fit->runner_up_mismatches);
    }
    if ((a = next(out, &n, max, "products exact")))
        observe(b, d, "product exact", a, "yes: a product needing twice the input bits comes back whole",
                "no: the product was rounded");
    if ((a = next(out, &n, max, "final rounding"))) {
        snprintf(a->answer, sizeof a->answer, "%s", m->round_rn ? "to nearest even" : "toward zero (truncation)");
        alt = *m;
        alt.round_rn = !m->round_rn;
        contrast(b, d, &alt, m->round_rn ? "toward zero" : "to nearest", a->evidence, sizeof a->evidence);
    }
    if ((a = next(out, &n, max, "bits kept when aligned"))) {
        snprintf(a->answer, sizeof a->answer, "%d below the largest addend's leading bit, cut %s", m->frac_bits,
                 m->trunc_floor ? "toward -inf" : "toward zero");
        alt = *m;
        alt.frac_bits = m->frac_bits - 1;
        contrast(b, d, &alt, "one bit fewer", a->evidence, sizeof a->evidence);
        alt.frac_bits = m->frac_bits + 1;
        contrast(b, d, &alt, "one bit more", tmp, sizeof tmp);
        snprintf(a->evidence + strlen(a->evidence), sizeof a->evidence - strlen(a->evidence), "; %s", tmp);
    }
    if ((a = next(out, &n, max, "aligned to"))) {
        snprintf(a->answer, sizeof a->answer, "%s",
                 m->acc_in_sum ? "the largest of c and the products: c is one of the aligned addends"
                               : "the largest product; c is added after their sum is rounded");
        alt = *m;
        alt.acc_in_sum = !m->acc_in_sum;
        contrast(b, d, &alt, m->acc_in_sum ? "c added after" : "c aligned with the products", a->evidence,
                 sizeof a->evidence);
    }
    if ((a = next(out, &n, max, "normalisation inside an instruction"))) {
        if (m->split == 1)
            snprintf(a->answer, sizeof a->answer, "none: the %d products and c are one fused sum, so no order",
                     tc_input_k(b->fmt));
        else
            snprintf(a->answer, sizeof a->answer, "after every %d products (rounded, then carried on)",
                     tc_input_k(b->fmt) / m->split);
        alt = *m;
        alt.split = m->split == 1 ? 2 : 1;
        snprintf(tmp, sizeof tmp, "%d fused sums", alt.split);
        contrast(b, d, &alt, tmp, a->evidence, sizeof a->evidence);
    }
    if ((a = next(out, &n, max, "addend exponent"))) {
        snprintf(a->answer, sizeof a->answer, "%s",
                 m->product_exp ? "the exact product's own exponent"
                                : "e(a) + e(b): a product's significand (in [1, 4)) is cut on its inputs' grid");
        alt = *m;
        alt.product_exp = !m->product_exp;
        contrast(b, d, &alt, m->product_exp ? "e(a) + e(b)" : "the product's own exponent", a->evidence,
                 sizeof a->evidence);
    }
    if ((a = next(out, &n, max, "subnormal inputs")))
        observe(b, d, "subnormal input", a, "kept (not flushed)", "flushed or rounded");
    if ((a = next(out, &n, max, "subnormal results"))) {
        if (b->fmt == TC_IN_FP16)
            observe(b, d, "subnormal c, no products", a,
                    "a subnormal c is kept (FP16 products cannot reach FP32's subnormal range)", "a subnormal c is flushed");
        else
            observe(b, d, "subnormal output", a, "kept (not flushed)", "flushed or rounded");
    }
    if ((a = next(out, &n, max, "overflow"))) {
        observe(b, d, "overflow", a, "", "");
        int i = find(b, "overflow");
        snprintf(a->answer, sizeof a->answer, "%s",
                 i < 0 ? "not reachable with these inputs (FP16 products stay below 2^32)"
                 : isinf(d[i]) ? "+-Inf, although the rounding is toward zero (IEEE would clamp to FLT_MAX)"
                               : "clamped to a finite value");
    }
    if ((a = next(out, &n, max, "special values"))) {
        observe(b, d, "special: inf * 0", a, "", "");
        int i = find(b, "special: inf * 0");
        snprintf(a->answer, sizeof a->answer, "IEEE on the exact sum (Inf*0 and Inf-Inf give NaN); a NaN has bits %08x",
                 i < 0 ? 0u : (unsigned)mpb_f32_to_bits(d[i]));
    }
    if ((a = next(out, &n, max, "signed zero"))) {
        observe(b, d, "zero: c = -0, no products", a, "", "");
        int i = find(b, "zero: c = -0, no products");
        snprintf(a->answer, sizeof a->answer, "%s",
                 i >= 0 && signbit(d[i]) ? "c = -0 with zero products stays -0" : "c = -0 with zero products gives +0");
    }
    if (b->fmt == TC_IN_TF32 && (a = next(out, &n, max, "TF32 operand bits")))
        observe(b, d, "tf32 operand", a, "the low 13 bits are rounded", "the low 13 bits are dropped (truncation)");
    return n;
}

int tc_int8_answers(const struct tc_ibattery *b, const int32_t *d, struct tc_answer *out, int max)
{
    int n = 0, exact_ok = 0, exact_n = 0, wraps = 0, saturates = 0, over_n = 0, first_bad = -1;
    for (int i = 0; i < b->n; i++) {
        int64_t ex = b->t[i].c;
        for (int l = 0; l < 32; l++)
            ex += (int64_t)b->t[i].a[l] * b->t[i].b[l];
        if (ex >= INT32_MIN && ex <= INT32_MAX) {
            exact_n++;
            exact_ok += d[i] == (int32_t)ex;
            if (d[i] != (int32_t)ex && first_bad < 0)
                first_bad = i;
        } else {
            over_n++;
            wraps += d[i] == (int32_t)(uint32_t)(uint64_t)ex;
            saturates += d[i] == (ex > 0 ? INT32_MAX : INT32_MIN);
        }
    }
    struct tc_answer *a;
    if ((a = next(out, &n, max, "products and sums exact"))) {
        snprintf(a->answer, sizeof a->answer, "%s", exact_ok == exact_n ? "yes (INT32)" : "no");
        snprintf(a->evidence, sizeof a->evidence, "%d of %d tests whose exact sum fits INT32 come back exact%s%s",
                 exact_ok, exact_n, first_bad >= 0 ? "; first difference: " : "",
                 first_bad >= 0 ? b->t[first_bad].name : "");
    }
    if ((a = next(out, &n, max, "overflow"))) {
        snprintf(a->answer, sizeof a->answer, "%s",
                 wraps == over_n ? "wraps modulo 2^32 (two's complement)"
                 : saturates == over_n ? "saturates at INT32_MIN/MAX" : "neither wraps nor saturates");
        int i = find_int8(b, "overflow: (2^31 - 1) + 1*1");
        snprintf(a->evidence, sizeof a->evidence, "%d of %d overflowing tests wrap, %d saturate; \"%s\" gives %d",
                 wraps, over_n, saturates, i >= 0 ? b->t[i].name : "-", i >= 0 ? d[i] : 0);
    }
    return n;
}
