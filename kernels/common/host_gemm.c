/* The host GEMM of the native host models and of adp's native fallback.
 *
 * C = A·B column-major (lda = m, ldb = k, ldc = m). Each entry is accumulated
 * in l order with one rounding per step, c ← fl(a_il·b_lj + c) (fma), the
 * classic recursive inner product of Higham (2002) §3.1. The loops run j
 * (columns of C), then l, then i, so that the inner loop walks a column of A
 * and a column of C with unit stride; the l order of every entry is kept.
 * Columns are independent, so they are shared out among threads without
 * changing a bit of the result. */
#include "common/host_gemm.h"

#include <math.h>
#include <pthread.h>
#include <unistd.h>

/* An FMA-enabled clone of the column kernels, picked at load time where the
 * CPU has FMA: the compiler then inlines fma()/fmaf() and vectorises the i
 * loop. Both clones round identically (fma is correctly rounded by C11
 * 7.12.13.1); only the speed differs. */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__linux__)
#define MPB_FMA_CLONES __attribute__((target_clones("fma", "default")))
#else
#define MPB_FMA_CLONES
#endif

/* Above this many multiply-adds, columns are shared out among threads. */
#define MPB_HOST_GEMM_SERIAL_WORK (1 << 21)
#define MPB_HOST_GEMM_MAX_THREADS 64

MPB_FMA_CLONES
static void cols_f64(const void *va, const void *vb, void *vc, int64_t m, int64_t k, int64_t j0,
                     int64_t j1)
{
    const double *a = va, *b = vb;
    double *c = vc;
    for (int64_t j = j0; j < j1; j++) {
        double *cj = c + j * m;
        for (int64_t i = 0; i < m; i++)
            cj[i] = 0.0;
        for (int64_t l = 0; l < k; l++) {
            const double *al = a + l * m;
            double blj = b[l + j * k];
            for (int64_t i = 0; i < m; i++)
                cj[i] = fma(al[i], blj, cj[i]);
        }
    }
}

MPB_FMA_CLONES
static void cols_f32(const void *va, const void *vb, void *vc, int64_t m, int64_t k, int64_t j0,
                     int64_t j1)
{
    const float *a = va, *b = vb;
    float *c = vc;
    for (int64_t j = j0; j < j1; j++) {
        float *cj = c + j * m;
        for (int64_t i = 0; i < m; i++)
            cj[i] = 0.0f;
        for (int64_t l = 0; l < k; l++) {
            const float *al = a + l * m;
            float blj = b[l + j * k];
            for (int64_t i = 0; i < m; i++)
                cj[i] = fmaf(al[i], blj, cj[i]);
        }
    }
}

typedef void (*mpb_cols_fn)(const void *a, const void *b, void *c, int64_t m, int64_t k, int64_t j0,
                            int64_t j1);

struct mpb_cols_job {
    mpb_cols_fn fn;
    const void *a, *b;
    void *c;
    int64_t m, k, j0, j1;
};

static void *cols_job_run(void *arg)
{
    const struct mpb_cols_job *job = arg;
    job->fn(job->a, job->b, job->c, job->m, job->k, job->j0, job->j1);
    return NULL;
}

static int thread_count(int64_t m, int64_t n, int64_t k)
{
    if ((double)m * (double)n * (double)k <= MPB_HOST_GEMM_SERIAL_WORK)
        return 1;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int64_t t = cpus < 1 ? 1 : cpus;
    if (t > MPB_HOST_GEMM_MAX_THREADS)
        t = MPB_HOST_GEMM_MAX_THREADS;
    return (int)(t < n ? t : n);
}

/* Runs fn over all n columns; a thread that cannot be started has its columns
 * computed by the caller, so the result never depends on threading. */
static void gemm_cols(mpb_cols_fn fn, const void *a, const void *b, void *c, int64_t m, int64_t n,
                      int64_t k)
{
    int nt = thread_count(m, n, k);
    struct mpb_cols_job jobs[MPB_HOST_GEMM_MAX_THREADS];
    pthread_t tids[MPB_HOST_GEMM_MAX_THREADS];
    int started[MPB_HOST_GEMM_MAX_THREADS] = {0};
    for (int t = 0; t < nt; t++)
        jobs[t] = (struct mpb_cols_job){fn, a, b, c, m, k, n * t / nt, n * (t + 1) / nt};
    for (int t = 1; t < nt; t++)
        started[t] = pthread_create(&tids[t], NULL, cols_job_run, &jobs[t]) == 0;
    cols_job_run(&jobs[0]);
    for (int t = 1; t < nt; t++) {
        if (started[t])
            pthread_join(tids[t], NULL);
        else
            cols_job_run(&jobs[t]);
    }
}

void mpb_host_gemm_f64(const double *a, const double *b, double *c, int64_t m, int64_t n,
                       int64_t k)
{
    gemm_cols(cols_f64, a, b, c, m, n, k);
}

void mpb_host_gemm_f32(const float *a, const float *b, float *c, int64_t m, int64_t n,
                       int64_t k)
{
    gemm_cols(cols_f32, a, b, c, m, n, k);
}
