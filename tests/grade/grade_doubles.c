#include "grade/grade_doubles.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"

/* c (ldc) = a (m×k, lda) · b (k×n, ldb), column-major, l order. */
static void naive(const double *a, int64_t lda, const double *b, int64_t ldb, double *c, int64_t ldc,
                  int64_t m, int64_t n, int64_t k)
{
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            double s = 0;
            for (int64_t l = 0; l < k; l++)
                s += a[i + l * lda] * b[l + j * ldb];
            c[i + j * ldc] = s;
        }
}

static enum mpb_status naive_host(const struct mpb_gemm *g, const double *params, struct mpb_scheme_info *info)
{
    (void)params, (void)info;
    naive(g->a, g->m, g->b, g->k, g->c, g->m, g->m, g->n, g->k);
    return MPB_STATUS_OK;
}

const struct mpb_scheme mpb_double_naive = {
    .name = "double_naive", .family = "test", .help = "naive fp64 GEMM (test double)",
    .target = MPB_TARGET_FP64, .version = 1, .run_host = naive_host,
};

/* ---- one-level Strassen ---- */

/* out (rows×cols, contiguous) = x + sign·y, blocks of leading dims ldx, ldy;
 * y NULL: out = x. */
static void combine(double *out, const double *x, int64_t ldx, const double *y, int64_t ldy, double sign,
                    int64_t rows, int64_t cols)
{
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++)
            out[i + j * rows] = x[i + j * ldx] + (y ? sign * y[i + j * ldy] : 0.0);
}

/* A zero-padded copy of x (rows×cols) in an R×Cc array. */
static double *padded(const double *x, int64_t rows, int64_t cols, int64_t R, int64_t Cc)
{
    double *p = calloc((size_t)(R * Cc), sizeof *p);
    if (p)
        for (int64_t j = 0; j < cols; j++)
            memcpy(p + j * R, x + j * rows, sizeof *p * (size_t)rows);
    return p;
}

static enum mpb_status strassen_host(const struct mpb_gemm *g, const double *params, struct mpb_scheme_info *info)
{
    (void)params, (void)info;
    int64_t M = g->m + (g->m & 1), N = g->n + (g->n & 1), K = g->k + (g->k & 1);
    int64_t h = M / 2, w = N / 2, q = K / 2;
    double *A = padded(g->a, g->m, g->k, M, K), *B = padded(g->b, g->k, g->n, K, N);
    double *S = malloc(sizeof *S * (size_t)(h * q)), *T = malloc(sizeof *T * (size_t)(q * w));
    double *P = malloc(sizeof *P * (size_t)(7 * h * w)), *C = malloc(sizeof *C * (size_t)(M * N));
    if (!A || !B || !S || !T || !P || !C) {
        free(A), free(B), free(S), free(T), free(P), free(C);
        snprintf(info->note, sizeof info->note, "out of host memory");
        return MPB_STATUS_ERROR;
    }
    const double *A11 = A, *A21 = A + h, *A12 = A + q * M, *A22 = A + h + q * M;
    const double *B11 = B, *B21 = B + q, *B12 = B + w * K, *B22 = B + q + w * K;
    /* Products M1..M7 (Higham eq. (23.8)); each is h×w, stored at P + t·h·w. */
    const struct {
        const double *x1, *x2, *y1, *y2;
        double sx, sy;
    } prod[7] = {
        {A11, A22, B11, B22, 1, 1}, {A21, A22, B11, NULL, 1, 0}, {A11, NULL, B12, B22, 0, -1},
        {A22, NULL, B21, B11, 0, -1}, {A11, A12, B22, NULL, 1, 0}, {A21, A11, B11, B12, -1, 1},
        {A12, A22, B21, B22, -1, 1},
    };
    for (int t = 0; t < 7; t++) {
        combine(S, prod[t].x1, M, prod[t].x2, M, prod[t].sx, h, q);
        combine(T, prod[t].y1, K, prod[t].y2, K, prod[t].sy, q, w);
        naive(S, h, T, q, P + t * h * w, h, h, w, q);
    }
    const double *m1 = P, *m2 = P + h * w, *m3 = P + 2 * h * w, *m4 = P + 3 * h * w;
    const double *m5 = P + 4 * h * w, *m6 = P + 5 * h * w, *m7 = P + 6 * h * w;
    for (int64_t j = 0; j < w; j++)
        for (int64_t i = 0; i < h; i++) {
            int64_t e = i + j * h;
            C[i + j * M] = m1[e] + m4[e] - m5[e] + m7[e];
            C[i + (j + w) * M] = m3[e] + m5[e];
            C[i + h + j * M] = m2[e] + m4[e];
            C[i + h + (j + w) * M] = m1[e] - m2[e] + m3[e] + m6[e];
        }
    for (int64_t j = 0; j < g->n; j++)
        memcpy((double *)g->c + j * g->m, C + j * M, sizeof *C * (size_t)g->m);
    free(A), free(B), free(S), free(T), free(P), free(C);
    return MPB_STATUS_OK;
}

const struct mpb_scheme mpb_double_strassen = {
    .name = "double_strassen", .family = "test", .help = "one-level Strassen in fp64 (test double)",
    .target = MPB_TARGET_FP64, .version = 1, .run_host = strassen_host,
};

/* ---- W-bit fixed point ---- */

static const struct mpb_param_spec fixed_params[] = {
    {.name = "w", .kind = MPB_PARAM_INT, .def = "53", .lo = 24, .hi = 200,
     .help = "bits of each row/column integer"},
};

/* x rounded to nearest on the grid of W-bit integers times 2^(e−W+1),
 * where |x| < 2^e: x·2^s is exact (a power-of-two scaling), its nearest
 * integer has at most 53 significant bits, so the result is a double and
 * the whole rounding is exact arithmetic (no subnormal grid for the
 * battery's exponent ranges). */
static double quantize(double x, int e, int W)
{
    int s = W - 1 - e;
    return ldexp(nearbyint(ldexp(x, s)), -s);
}

static bool all_finite(const double *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return false;
    return true;
}

static enum mpb_status fixed_host(const struct mpb_gemm *g, const double *params, struct mpb_scheme_info *info)
{
    int W = (int)params[0];
    const double *a = g->a, *b = g->b;
    if (!all_finite(a, g->m * g->k) || !all_finite(b, g->k * g->n)) {
        naive(a, g->m, b, g->k, g->c, g->m, g->m, g->n, g->k);
        info->fallback = 1;
        return MPB_STATUS_OK;
    }
    info->fallback = 0;
    double *qa = malloc(sizeof *qa * (size_t)(g->m * g->k)), *qb = malloc(sizeof *qb * (size_t)(g->k * g->n));
    struct mpb_ref_entry *e = malloc(sizeof *e * (size_t)(g->m * g->n));
    struct mpb_ref_value *v = malloc(sizeof *v * (size_t)(g->m * g->n));
    bool ok = qa && qb && e && v;
    for (int64_t i = 0; ok && i < g->m; i++) {
        double mx = 0;
        int ex;
        for (int64_t l = 0; l < g->k; l++)
            mx = fmax(mx, fabs(a[i + l * g->m]));
        frexp(mx, &ex); /* mx < 2^ex */
        for (int64_t l = 0; l < g->k; l++)
            qa[i + l * g->m] = quantize(a[i + l * g->m], ex, W);
    }
    for (int64_t j = 0; ok && j < g->n; j++) {
        double mx = 0;
        int ex;
        for (int64_t l = 0; l < g->k; l++)
            mx = fmax(mx, fabs(b[l + j * g->k]));
        frexp(mx, &ex);
        for (int64_t l = 0; l < g->k; l++)
            qb[l + j * g->k] = quantize(b[l + j * g->k], ex, W);
    }
    /* The exact dot products of the integers, rounded once: the correctly
     * rounded product of the quantized matrices (reference.h). */
    for (int64_t j = 0; ok && j < g->n; j++)
        for (int64_t i = 0; i < g->m; i++)
            e[i + j * g->m] = (struct mpb_ref_entry){i, j};
    struct mpb_gemm qg = *g;
    qg.a = qa;
    qg.b = qb;
    ok = ok && mpb_ref_mpfr(&qg, e, g->m * g->n, 0, v);
    for (int64_t p = 0; ok && p < g->m * g->n; p++)
        ((double *)g->c)[p] = v[p].rounded;
    free(qa), free(qb), free(e), free(v);
    if (!ok)
        snprintf(info->note, sizeof info->note, "out of host memory");
    return ok ? MPB_STATUS_OK : MPB_STATUS_ERROR;
}

const struct mpb_scheme mpb_double_fixed = {
    .name = "double_fixed", .family = "test", .help = "W-bit fixed-point GEMM (test double)",
    .target = MPB_TARGET_FP64, .version = 1, .params = fixed_params, .n_params = 1,
    .run_host = fixed_host,
};

void mpb_double_case(struct mpb_case *c, const char *text, const char *gen, int64_t k)
{
    memset(c, 0, sizeof *c);
    c->scheme = &mpb_double_naive; /* a real scheme: the verdict reads its field */
    c->gen = mpb_generator_find(gen);
    mpb_param_defaults(c->gen->params, c->gen->n_params, c->gp);
    c->m = c->n = c->k = k;
    c->seed = 1;
    snprintf(c->text, sizeof c->text, "%s", text);
}
