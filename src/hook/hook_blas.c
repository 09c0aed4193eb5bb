/* The host BLAS entry points the hook interposes: dgemm_, sgemm_ (Fortran,
 * with gfortran's hidden string lengths, passed on as received) and
 * cblas_dgemm, cblas_sgemm (their enums as the ints cblas.h gives them). */
#include <stdint.h>
#include "hook/hook.h"

#define MPB_EXPORT __attribute__((visibility("default")))

/* cblas.h's values, so that no cblas.h is needed to build. */
enum { CBLAS_ROW_MAJOR = 101, CBLAS_NO_TRANS = 111, CBLAS_TRANS = 112 };

/* '?' for what neither the Fortran nor the cblas interface takes: the real
 * routine reports such a call, and the hook only passes it through. */
static char cblas_trans(int t)
{
    return t == CBLAS_NO_TRANS ? 'N' : t == CBLAS_TRANS ? 'T' : t == CBLAS_NO_TRANS + 2 ? 'C' : '?';
}

static char fortran_trans(char t)
{
    return t == 'N' || t == 'n' ? 'N' : t == 'T' || t == 't' ? 'T' : t == 'C' || t == 'c' ? 'C' : '?';
}

/* One Fortran routine (d: double, s: float) and one cblas routine per
 * type, written once for both as macros of the type. */
#define FORTRAN_GEMM(NAME, T, TARGET)                                                                               \
    typedef void NAME##_fn(const char *, const char *, const int *, const int *, const int *, const T *, const T *, \
                           const int *, const T *, const int *, const T *, T *, const int *, size_t, size_t);       \
    struct NAME##_args {                                                                                            \
        NAME##_fn *real;                                                                                            \
        const char *ta, *tb;                                                                                        \
        const int *m, *n, *k;                                                                                       \
        const T *alpha, *a;                                                                                         \
        const int *lda;                                                                                             \
        const T *b;                                                                                                 \
        const int *ldb;                                                                                             \
        const T *beta;                                                                                              \
        T *c;                                                                                                       \
        const int *ldc;                                                                                             \
        size_t la, lb;                                                                                              \
    };                                                                                                              \
    MPB_EXPORT void NAME(const char *ta, const char *tb, const int *m, const int *n, const int *k, const T *alpha,  \
                         const T *a, const int *lda, const T *b, const int *ldb, const T *beta, T *c,               \
                         const int *ldc, size_t la, size_t lb);                                                     \
    static void *volatile NAME##_slot;                                                                              \
    static NAME##_fn *NAME##_real(void)                                                                             \
    {                                                                                                               \
        return (NAME##_fn *)mpb_hook_real(#NAME, &NAME##_slot, (const void *)NAME);                                 \
    }                                                                                                               \
    static void NAME##_pass(const void *p)                                                                          \
    {                                                                                                               \
        const struct NAME##_args *x = p;                                                                            \
        x->real(x->ta, x->tb, x->m, x->n, x->k, x->alpha, x->a, x->lda, x->b, x->ldb, x->beta, x->c, x->ldc, x->la, \
                x->lb);                                                                                             \
    }                                                                                                               \
    static void NAME##_product(int64_t m, int64_t n, int64_t k, const void *a, const void *b, void *p)              \
    {                                                                                                               \
        int im = (int)m, in = (int)n, ik = (int)k;                                                                  \
        T one = 1, zero = 0;                                                                                        \
        NAME##_real()("N", "N", &im, &in, &ik, &one, a, &im, b, &ik, &zero, p, &im, 1, 1);                          \
    }                                                                                                               \
    static const struct mpb_hook_routine NAME##_routine = {#NAME, NAME##_pass, NAME##_product};                    \
    void NAME(const char *ta, const char *tb, const int *m, const int *n, const int *k, const T *alpha, const T *a, \
              const int *lda, const T *b, const int *ldb, const T *beta, T *c, const int *ldc, size_t la,          \
              size_t lb)                                                                                            \
    {                                                                                                               \
        NAME##_fn *real = NAME##_real();                                                                            \
        if (real && mpb_hook_bypass()) {                                                                            \
            real(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, la, lb);                                     \
            return;                                                                                                 \
        }                                                                                                           \
        struct mpb_hook_call call = {                                                                               \
            .target = TARGET, .transa = fortran_trans(*ta), .transb = fortran_trans(*tb), .m = *m, .n = *n, .k = *k, .alpha = *alpha,             \
            .beta = *beta, .a = a, .b = b, .c = c, .lda = *lda, .ldb = *ldb, .ldc = *ldc};                          \
        if (!real) {                                                                                                \
            mpb_hook_no_real(#NAME, &call);                                                                         \
            return;                                                                                                 \
        }                                                                                                           \
        struct NAME##_args args = {real, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, la, lb};             \
        mpb_hook_gemm(&NAME##_routine, &call, &args);                                                               \
    }

#define CBLAS_GEMM(NAME, T, TARGET)                                                                                 \
    typedef void NAME##_fn(int, int, int, int, int, int, T, const T *, int, const T *, int, T, T *, int);           \
    struct NAME##_args {                                                                                            \
        NAME##_fn *real;                                                                                            \
        int order, ta, tb, m, n, k;                                                                                 \
        T alpha;                                                                                                    \
        const T *a;                                                                                                 \
        int lda;                                                                                                    \
        const T *b;                                                                                                 \
        int ldb;                                                                                                    \
        T beta;                                                                                                     \
        T *c;                                                                                                       \
        int ldc;                                                                                                    \
    };                                                                                                              \
    MPB_EXPORT void NAME(int order, int ta, int tb, int m, int n, int k, T alpha, const T *a, int lda, const T *b,  \
                         int ldb, T beta, T *c, int ldc);                                                           \
    static void *volatile NAME##_slot;                                                                              \
    static NAME##_fn *NAME##_real(void)                                                                             \
    {                                                                                                               \
        return (NAME##_fn *)mpb_hook_real(#NAME, &NAME##_slot, (const void *)NAME);                                 \
    }                                                                                                               \
    static void NAME##_pass(const void *p)                                                                          \
    {                                                                                                               \
        const struct NAME##_args *x = p;                                                                            \
        x->real(x->order, x->ta, x->tb, x->m, x->n, x->k, x->alpha, x->a, x->lda, x->b, x->ldb, x->beta, x->c,      \
                x->ldc);                                                                                            \
    }                                                                                                               \
    static void NAME##_product(int64_t m, int64_t n, int64_t k, const void *a, const void *b, void *p)              \
    {                                                                                                               \
        NAME##_real()(102, CBLAS_NO_TRANS, CBLAS_NO_TRANS, (int)m, (int)n, (int)k, 1, a, (int)m, b, (int)k, 0, p,   \
                      (int)m);                                                                                      \
    }                                                                                                               \
    static const struct mpb_hook_routine NAME##_routine = {#NAME, NAME##_pass, NAME##_product};                    \
    void NAME(int order, int ta, int tb, int m, int n, int k, T alpha, const T *a, int lda, const T *b, int ldb,    \
              T beta, T *c, int ldc)                                                                                \
    {                                                                                                               \
        NAME##_fn *real = NAME##_real();                                                                            \
        if (real && mpb_hook_bypass()) {                                                                            \
            real(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                                      \
            return;                                                                                                 \
        }                                                                                                           \
        struct mpb_hook_call call = {                                                                               \
            .target = TARGET, .row_major = order == CBLAS_ROW_MAJOR, .transa = cblas_trans(ta),                     \
            .transb = cblas_trans(tb), .m = m, .n = n, .k = k, .alpha = alpha, .beta = beta, .a = a, .b = b,        \
            .c = c, .lda = lda, .ldb = ldb, .ldc = ldc};                                                            \
        if (!real) {                                                                                                \
            mpb_hook_no_real(#NAME, &call);                                                                         \
            return;                                                                                                 \
        }                                                                                                           \
        struct NAME##_args args = {real, order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc};              \
        mpb_hook_gemm(&NAME##_routine, &call, &args);                                                               \
    }

FORTRAN_GEMM(dgemm_, double, MPB_TARGET_FP64)
FORTRAN_GEMM(sgemm_, float, MPB_TARGET_FP32)
CBLAS_GEMM(cblas_dgemm, double, MPB_TARGET_FP64)
CBLAS_GEMM(cblas_sgemm, float, MPB_TARGET_FP32)
