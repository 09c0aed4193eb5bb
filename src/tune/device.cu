/* A tune chain's GPU steps besides its GEMMs (device.h). */
#include "tune/device.h"

#include "cuda_check.h"

namespace {

constexpr int THREADS = 256;
/* A fixed grid, so that the reduction's order does not depend on the GPU. */
constexpr int SUM_BLOCKS = 1024;
constexpr int SUMS = 4; /* the members of mpb_tune_error_sums, in order */

__global__ void bias_kernel(float *out, const float *a, const float *bias, int64_t rows, int64_t count, bool relu)
{
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < count; e += (int64_t)gridDim.x * blockDim.x) {
        float v = a[e] + bias[e / rows];
        out[e] = relu && v < 0 ? 0.0f : v;
    }
}

/* Combine `have` with the sums at shared slot `other` (the tree's step). */
__device__ void combine(double *have, const double *other)
{
    have[0] += other[0];
    have[1] += other[1];
    have[2] = fmax(have[2], other[2]);
    have[3] += other[3];
}

/* The block's sums (`s` per thread) into out[0..SUMS) by a fixed tree in
 * shared memory. */
__device__ void block_total(const double *s, double *out)
{
    __shared__ double sh[THREADS][SUMS];
    for (int i = 0; i < SUMS; i++)
        sh[threadIdx.x][i] = s[i];
    for (int half = THREADS / 2; half > 0; half /= 2) {
        __syncthreads();
        if ((int)threadIdx.x < half)
            combine(sh[threadIdx.x], sh[threadIdx.x + half]);
    }
    __syncthreads();
    if (threadIdx.x < SUMS)
        out[threadIdx.x] = sh[0][threadIdx.x];
}

__global__ void __launch_bounds__(THREADS) sums_kernel(const float *x, const double *ref, int64_t count,
                                                      double (*partial)[SUMS])
{
    double s[SUMS] = {0, 0, 0, 0};
    for (int64_t e = (int64_t)blockIdx.x * THREADS + threadIdx.x; e < count; e += (int64_t)SUM_BLOCKS * THREADS) {
        double d = (double)x[e] - ref[e];
        if (!isfinite(d)) {
            s[3] += 1;
            continue;
        }
        s[0] += d * d;
        s[1] += ref[e] * ref[e];
        s[2] = fmax(s[2], fabs(d));
    }
    block_total(s, partial[blockIdx.x]);
}

/* One block: the partials of sums_kernel into total. */
__global__ void __launch_bounds__(THREADS) total_kernel(const double (*partial)[SUMS], double *total)
{
    double s[SUMS] = {0, 0, 0, 0};
    for (int b = threadIdx.x; b < SUM_BLOCKS; b += THREADS)
        combine(s, partial[b]);
    block_total(s, total);
}

} // namespace

enum mpb_status mpb_tune_device_bias(struct mpb_cuda_env *env, bool relu, float *out, const float *a,
                                     const float *bias, int64_t rows, int64_t cols)
{
    int64_t count = rows * cols, blocks = (count + THREADS - 1) / THREADS;
    if (count == 0)
        return MPB_STATUS_OK;
    bias_kernel<<<(unsigned)(blocks < 4096 ? blocks : 4096), THREADS, 0, mpb_stream(env)>>>(out, a, bias, rows, count,
                                                                                             relu);
    MPB_LAUNCH_CHECK(env);
    return MPB_STATUS_OK;
}

size_t mpb_tune_device_sums_scratch_bytes(void)
{
    return sizeof(double) * SUMS * (SUM_BLOCKS + 1);
}

enum mpb_status mpb_tune_device_error_sums(struct mpb_cuda_env *env, const float *x, const double *ref,
                                           int64_t count, void *scratch, struct mpb_tune_error_sums *out)
{
    double(*partial)[SUMS] = (double(*)[SUMS])scratch;
    double *total = (double *)scratch + SUMS * SUM_BLOCKS, host[SUMS];
    sums_kernel<<<SUM_BLOCKS, THREADS, 0, mpb_stream(env)>>>(x, ref, count, partial);
    MPB_LAUNCH_CHECK(env);
    total_kernel<<<1, THREADS, 0, mpb_stream(env)>>>(partial, total);
    MPB_LAUNCH_CHECK(env);
    enum mpb_status st = mpb_cuda_download(env, host, total, sizeof host);
    *out = (struct mpb_tune_error_sums){host[0], host[1], host[2], host[3]};
    return st;
}
