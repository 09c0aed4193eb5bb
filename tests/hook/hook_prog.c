/* A program of the kind the hook serves: it calls the system BLAS's dgemm_,
 * sgemm_, cblas_dgemm and cblas_sgemm (from the main thread, then from four
 * threads at once) on deterministic operands and prints every result bit
 * (%a), so that a run under the hook can be compared byte for byte with one
 * without. `hook_prog DIR` also writes into DIR, as .npy, what the hook's
 * trace must hold for the first four calls: op(A), op(B) and C on input,
 * computed here by plain loops (test_hook.sh compares the files). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "npy_write.h"

/* The system BLAS's interfaces, declared here (Debian's cblas header is
 * cblas-netlib.h; the enums are cblas.h's values). */
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
            const int *, const double *, const int *, const double *, double *, const int *, size_t, size_t);
void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *, const float *,
            const int *, const float *, const int *, const float *, float *, const int *, size_t, size_t);
void cblas_dgemm(int, int, int, int, int, int, double, const double *, int, const double *, int, double, double *,
                 int);
void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
enum { ROW = 101, COL = 102, NO = 111, TR = 112 };

#define N_THREADS 4
#define THREAD_CALLS 20

/* Values with every bit of a double's mantissa in use, from a counter. */
static double value(uint64_t i)
{
    uint64_t x = i * 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return ((double)(x >> 11) / 9007199254740992.0 - 0.5) * 4;
}

static double *dmat(int64_t count, uint64_t seed)
{
    double *p = malloc(sizeof *p * (size_t)count);
    for (int64_t i = 0; i < count; i++)
        p[i] = value(seed * 1000003u + (uint64_t)i);
    return p;
}

static float *smat(int64_t count, uint64_t seed)
{
    float *p = malloc(sizeof *p * (size_t)count);
    for (int64_t i = 0; i < count; i++)
        p[i] = (float)value(seed * 1000003u + (uint64_t)i);
    return p;
}

static void print_d(const char *what, const double *c, int64_t count)
{
    printf("%s", what);
    for (int64_t i = 0; i < count; i++)
        printf(" %a", c[i]);
    printf("\n");
}

static void print_s(const char *what, const float *c, int64_t count)
{
    printf("%s", what);
    for (int64_t i = 0; i < count; i++)
        printf(" %a", (double)c[i]);
    printf("\n");
}

/* op(X) (rows×cols) of X stored with leading dimension ld, column-major
 * or row-major, as a packed column-major array of `size`-byte elements. */
static void *op(const void *x, int size, int row_major, int trans, int64_t rows, int64_t cols, int64_t ld)
{
    char *out = malloc((size_t)(size * rows * cols));
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            int64_t r = trans ? j : i, s = trans ? i : j;
            memcpy(out + size * (i + j * rows), (const char *)x + size * (row_major ? r * ld + s : r + s * ld),
                   (size_t)size);
        }
    return out;
}

static void expect(const char *dir, int call, char which, const void *x, int size, int row_major, int trans,
                   int64_t rows, int64_t cols, int64_t ld)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/c%06d_%c.npy", dir, call, which);
    void *p = op(x, size, row_major, trans, rows, cols, ld);
    if (!mpb_npy_write(path, size == 8 ? "<f8" : "<f4", p, rows, cols)) {
        fprintf(stderr, "hook_prog: cannot write %s\n", path);
        exit(1);
    }
    free(p);
}

struct job {
    int id;
    double *c;
};

static void *thread_calls(void *arg)
{
    struct job *j = arg;
    int n = 6;
    double *a = dmat(36, 100 + (uint64_t)j->id), *b = dmat(36, 200 + (uint64_t)j->id), one = 1, beta = 0.25;
    j->c = dmat(36, 300 + (uint64_t)j->id);
    for (int i = 0; i < THREAD_CALLS; i++)
        dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &beta, j->c, &n, 1, 1);
    free(a);
    free(b);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : NULL;
    /* 0: dgemm_ N,T 7x5x3, lda 9, ldb 6, ldc 8, beta 0.5 */
    int m = 7, n = 5, k = 3, lda = 9, ldb = 6, ldc = 8;
    double alpha = 1.5, beta = 0.5;
    double *a0 = dmat(lda * k, 1), *b0 = dmat(ldb * k, 2), *c0 = dmat(ldc * n, 3);
    if (dir) {
        expect(dir, 0, 'A', a0, 8, 0, 0, m, k, lda);
        expect(dir, 0, 'B', b0, 8, 0, 1, k, n, ldb);
        expect(dir, 0, 'C', c0, 8, 0, 0, m, n, ldc);
    }
    dgemm_("N", "T", &m, &n, &k, &alpha, a0, &lda, b0, &ldb, &beta, c0, &ldc, 1, 1);
    print_d("call0", c0, ldc * n);
    /* 1: sgemm_ T,N 4x6x9, beta 0 (C not read, not saved) */
    int m1 = 4, n1 = 6, k1 = 9;
    float fa = -2, fb = 0;
    float *a1 = smat(k1 * m1, 4), *b1 = smat(k1 * n1, 5), *c1 = smat(m1 * n1, 6);
    if (dir) {
        expect(dir, 1, 'A', a1, 4, 0, 1, m1, k1, k1);
        expect(dir, 1, 'B', b1, 4, 0, 0, k1, n1, k1);
    }
    sgemm_("t", "n", &m1, &n1, &k1, &fa, a1, &k1, b1, &k1, &fb, c1, &m1, 1, 1);
    print_s("call1", c1, m1 * n1);
    /* 2: cblas_dgemm row-major T,N 5x4x6, lda 7, ldb 4, ldc 4, beta 2 */
    double *a2 = dmat(6 * 7, 7), *b2 = dmat(6 * 4, 8), *c2 = dmat(5 * 4, 9);
    if (dir) {
        expect(dir, 2, 'A', a2, 8, 1, 1, 5, 6, 7);
        expect(dir, 2, 'B', b2, 8, 1, 0, 6, 4, 4);
        expect(dir, 2, 'C', c2, 8, 1, 0, 5, 4, 4);
    }
    cblas_dgemm(ROW, TR, NO, 5, 4, 6, 0.75, a2, 7, b2, 4, 2, c2, 4);
    print_d("call2", c2, 20);
    /* 3: cblas_sgemm column-major N,T 3x3x8, beta 1 */
    float *a3 = smat(3 * 8, 10), *b3 = smat(3 * 8, 11), *c3 = smat(9, 12);
    if (dir) {
        expect(dir, 3, 'A', a3, 4, 0, 0, 3, 8, 3);
        expect(dir, 3, 'B', b3, 4, 0, 1, 8, 3, 3);
        expect(dir, 3, 'C', c3, 4, 0, 0, 3, 3, 3);
    }
    cblas_sgemm(COL, NO, TR, 3, 3, 8, 1, a3, 3, b3, 3, 1, c3, 3);
    print_s("call3", c3, 9);
    /* 4: call 0's class again: no operands saved */
    dgemm_("N", "T", &m, &n, &k, &alpha, a0, &lda, b0, &ldb, &beta, c0, &ldc, 1, 1);
    print_d("call4", c0, ldc * n);
    /* 5..: four threads at once, one class */
    pthread_t t[N_THREADS];
    struct job jobs[N_THREADS];
    for (int i = 0; i < N_THREADS; i++) {
        jobs[i].id = i;
        pthread_create(&t[i], NULL, thread_calls, &jobs[i]);
    }
    for (int i = 0; i < N_THREADS; i++) {
        pthread_join(t[i], NULL);
        char what[32];
        snprintf(what, sizeof what, "thread%d", i);
        print_d(what, jobs[i].c, 36);
        free(jobs[i].c);
    }
    free(a0), free(b0), free(c0), free(a1), free(b1), free(c1), free(a2), free(b2), free(c2);
    free(a3), free(b3), free(c3);
    return 0;
}
