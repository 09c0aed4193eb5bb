/* mpbench tune's GPU steps (src/tune/device.h) against the host's: the
 * bias (+ ReLU) epilogue bit for bit (NaN payloads aside), and the error check's sums giving
 * the host's errors (the maximum exactly, the sums to rounding: the GPU
 * adds in another order), NaN and Inf included. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TEST_RNG_SEED 0x7475AE5EDEF1CEull
#include "check.h"
#include "cuda_open.h"
#include "rng.h"
#include "tune/device.h"
#include "tune/problem.h"

static double uniform(void)
{
    return (double)(rng_next() >> 11) * 0x1p-53 * 2 - 1;
}

/* Device copies of host arrays, or abort: a test has no use for a partial setup. */
static void *to_device(struct mpb_cuda_env *env, const void *host, size_t bytes)
{
    void *dev = NULL;
    if (mpb_cuda_alloc(env, &dev, bytes ? bytes : 1) != MPB_STATUS_OK ||
        mpb_cuda_upload(env, dev, host, bytes) != MPB_STATUS_OK) {
        fprintf(stderr, "staging %zu bytes: %s\n", bytes, mpb_cuda_last_error(env));
        exit(1);
    }
    return dev;
}

static void check_bias(struct mpb_cuda_env *env, int64_t rows, int64_t cols, bool relu)
{
    int64_t count = rows * cols;
    float *a = malloc(sizeof *a * (size_t)count), *bias = malloc(sizeof *bias * (size_t)cols);
    float *want = malloc(sizeof *want * (size_t)count), *got = malloc(sizeof *got * (size_t)count);
    for (int64_t i = 0; i < count; i++)
        a[i] = (float)uniform();
    for (int64_t j = 0; j < cols; j++)
        bias[j] = (float)(0.5 * uniform());
    /* the awkward values: a NaN and a negative zero (-0 + -0), kept through
     * ReLU as the host keeps them, and a sum that rounds */
    a[0] = NAN;
    if (count > 1) {
        a[count - 1] = -0.0f;
        bias[cols - 1] = -0.0f;
    }
    if (count > 2) {
        a[1] = 1.0f + 0x1p-23f;
        bias[1 / rows] = 0x1p-25f;
    }
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            float v = a[i + j * rows] + bias[j];
            want[i + j * rows] = relu && v < 0 ? 0.0f : v;
        }
    float *da = to_device(env, a, sizeof *a * (size_t)count), *db = to_device(env, bias, sizeof *bias * (size_t)cols);
    float *dout = to_device(env, a, sizeof *a * (size_t)count);
    CHECK(mpb_tune_device_bias(env, relu, dout, da, db, rows, cols) == MPB_STATUS_OK, "%s",
          mpb_cuda_last_error(env));
    CHECK(mpb_cuda_download(env, got, dout, sizeof *got * (size_t)count) == MPB_STATUS_OK, "%s",
          mpb_cuda_last_error(env));
    int64_t differ = -1; /* the first entry whose bits differ (a NaN is a NaN whatever its payload) */
    for (int64_t i = 0; i < count && differ < 0; i++)
        if (memcmp(&got[i], &want[i], sizeof *got) && !(isnan(got[i]) && isnan(want[i])))
            differ = i;
    CHECK(differ < 0, "bias%s %lldx%lld: entry %lld is %a on the GPU, %a on the host", relu ? "+relu" : "",
          (long long)rows, (long long)cols, (long long)differ, differ < 0 ? 0.0 : (double)got[differ],
          differ < 0 ? 0.0 : (double)want[differ]);
    mpb_cuda_free(env, da);
    mpb_cuda_free(env, db);
    mpb_cuda_free(env, dout);
    free(a);
    free(bias);
    free(want);
    free(got);
}

/* x = ref rounded to float, plus noise of relative size `noise`; with
 * `poison` (0 none, 1 a NaN in x, 2 an Inf in ref) at one entry. */
static void check_sums(struct mpb_cuda_env *env, void *scratch, int64_t count, double noise, int poison)
{
    float *x = malloc(sizeof *x * (size_t)(count ? count : 1));
    double *ref = malloc(sizeof *ref * (size_t)(count ? count : 1));
    for (int64_t i = 0; i < count; i++) {
        ref[i] = uniform() * 100;
        x[i] = (float)(ref[i] * (1 + noise * uniform()));
    }
    if (poison == 1)
        x[count / 2] = NAN;
    if (poison == 2)
        ref[count - 1] = INFINITY;
    float *dx = to_device(env, x, sizeof *x * (size_t)count);
    double *dref = to_device(env, ref, sizeof *ref * (size_t)count);
    struct mpb_tune_error_sums s;
    CHECK(mpb_tune_device_error_sums(env, dx, dref, count, scratch, &s) == MPB_STATUS_OK, "%s",
          mpb_cuda_last_error(env));
    for (int metric = 0; metric < 2; metric++) {
        double host = mpb_tune_error((enum mpb_tune_metric)metric, x, ref, count);
        double gpu = mpb_tune_error_of_sums((enum mpb_tune_metric)metric, &s);
        bool same = metric == MPB_TUNE_ABS || isinf(host) || host == 0 ? gpu == host
                                                                        : fabs(gpu - host) <= 1e-12 * host;
        CHECK(same, "count %lld noise %g poison %d %s: GPU %.17g, host %.17g", (long long)count, noise, poison,
              mpb_tune_metric_names[metric], gpu, host);
    }
    CHECK(poison ? s.nonfinite == 1 : s.nonfinite == 0, "count %lld poison %d: %g non-finite", (long long)count,
          poison, s.nonfinite);
    mpb_cuda_free(env, dx);
    mpb_cuda_free(env, dref);
    free(x);
    free(ref);
}

int main(void)
{
    struct mpb_cuda_env *env = test_cuda_open_or_skip();
    const int64_t shapes[][2] = {{1, 1}, {7, 1}, {1, 33}, {33, 7}, {127, 129}, {1024, 1031}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        for (int relu = 0; relu < 2; relu++)
            check_bias(env, shapes[i][0], shapes[i][1], relu);
    void *scratch = NULL;
    if (mpb_cuda_alloc(env, &scratch, mpb_tune_device_sums_scratch_bytes()) != MPB_STATUS_OK) {
        fprintf(stderr, "%s\n", mpb_cuda_last_error(env));
        return 1;
    }
    check_sums(env, scratch, 0, 1e-3, 0);
    /* counts below, at and above one pass of the fixed grid (1024 x 256) */
    const int64_t counts[] = {1, 7, 33, 1000, 262144, 262145, 3 * 1048576 + 17};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        check_sums(env, scratch, counts[i], 1e-3, 0);
        check_sums(env, scratch, counts[i], 0, 0); /* x is ref rounded: the error of rounding alone */
        check_sums(env, scratch, counts[i], 1e-6, 1);
        check_sums(env, scratch, counts[i], 1e-6, 2);
    }
    mpb_cuda_free(env, scratch);
    mpb_cuda_close(env);
    return check_report("test_tune_device_cuda");
}
