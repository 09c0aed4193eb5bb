/* CUDA side of a complex scheme made of a real one (complex_embed.h): one
 * call embeds A and B (two copy kernels, counted in the split phase, whose
 * first mark is the real scheme's), runs the real scheme on the embedded
 * operands, and interleaves its 2m×n result into C (counted in the
 * accumulate phase). */
#include "common/complex_embed.h"

#include <stdlib.h>

#include "cuda_check.h"
#include "cuda_env.h"

struct embed_state {
    const struct mpb_embed_real *real;
    void *inner;               /* the real scheme's state */
    struct mpb_gemm rg;        /* the real problem on ae, be, ce */
    void *ae, *be, *ce;
};

static const unsigned embed_threads = 256;

static unsigned embed_blocks(int64_t count)
{
    int64_t b = (count + embed_threads - 1) / embed_threads;
    return (unsigned)(b < 1 ? 1 : (b > 65535 * 16 ? 65535 * 16 : b));
}

/* One thread per complex A(i, l), grid-stride: its four places in Ae. */
template <typename T>
static __global__ void embed_a(const T *a, int64_t m, int64_t k, T *ae)
{
    for (int64_t x = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; x < m * k; x += (int64_t)gridDim.x * blockDim.x) {
        int64_t i = x % m, l = x / m;
        T re = a[2 * x], im = a[2 * x + 1];
        ae[mpb_embed_a_at(m, k, i, l, 0, 0)] = re;
        ae[mpb_embed_a_at(m, k, i, l, 1, 0)] = im;
        ae[mpb_embed_a_at(m, k, i, l, 0, 1)] = -im;
        ae[mpb_embed_a_at(m, k, i, l, 1, 1)] = re;
    }
}

template <typename T>
static __global__ void embed_b(const T *b, int64_t k, int64_t n, T *be)
{
    for (int64_t x = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; x < k * n; x += (int64_t)gridDim.x * blockDim.x) {
        int64_t l = x % k, j = x / k;
        be[mpb_embed_b_at(k, l, j, 0)] = b[2 * x];
        be[mpb_embed_b_at(k, l, j, 1)] = b[2 * x + 1];
    }
}

template <typename T>
static __global__ void interleave_c(const T *ce, int64_t m, int64_t n, T *c)
{
    for (int64_t x = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; x < m * n; x += (int64_t)gridDim.x * blockDim.x) {
        int64_t i = x % m, j = x / m;
        c[2 * x] = ce[mpb_embed_c_at(m, i, j, 0)];
        c[2 * x + 1] = ce[mpb_embed_c_at(m, i, j, 1)];
    }
}

template <typename T>
static enum mpb_status embed_operands(struct mpb_cuda_env *env, const struct mpb_gemm *g, struct embed_state *s)
{
    cudaStream_t st = (cudaStream_t)mpb_cuda_stream(env);
    if (g->m * g->k > 0) {
        embed_a<T><<<embed_blocks(g->m * g->k), embed_threads, 0, st>>>((const T *)g->a, g->m, g->k, (T *)s->ae);
        MPB_LAUNCH_CHECK(env);
    }
    if (g->k * g->n > 0) {
        embed_b<T><<<embed_blocks(g->k * g->n), embed_threads, 0, st>>>((const T *)g->b, g->k, g->n, (T *)s->be);
        MPB_LAUNCH_CHECK(env);
    }
    return MPB_STATUS_OK;
}

template <typename T>
static enum mpb_status interleave_result(struct mpb_cuda_env *env, const struct mpb_gemm *g, struct embed_state *s)
{
    if (g->m * g->n == 0)
        return MPB_STATUS_OK;
    cudaStream_t st = (cudaStream_t)mpb_cuda_stream(env);
    interleave_c<T><<<embed_blocks(g->m * g->n), embed_threads, 0, st>>>((const T *)s->ce, g->m, g->n, (T *)g->c);
    MPB_LAUNCH_CHECK(env);
    return MPB_STATUS_OK;
}

extern "C" void mpb_embed_teardown(struct mpb_cuda_env *env, void *state)
{
    struct embed_state *s = (struct embed_state *)state;
    if (!s)
        return;
    if (s->inner)
        s->real->cuda->teardown(env, s->inner);
    mpb_cuda_free(env, s->ae);
    mpb_cuda_free(env, s->be);
    mpb_cuda_free(env, s->ce);
    free(s);
}

/* The embedded operands are filled before the real scheme's setup too:
 * a real setup may read them (scheme.h's state_reusable). */
extern "C" enum mpb_status mpb_embed_setup(const struct mpb_embed_real *real, struct mpb_cuda_env *env,
                                           const struct mpb_gemm *g, const double *params, void **state)
{
    *state = NULL;
    struct embed_state *s = (struct embed_state *)calloc(1, sizeof *s);
    if (!s)
        return mpb_cuda_fail(env, "out of host memory for the scheme state", __FILE__, __LINE__);
    s->real = real;
    s->rg = mpb_embed_real_gemm(g);
    size_t es = mpb_target_size(g->target);
    enum mpb_status st = mpb_cuda_alloc(env, &s->ae, es * (size_t)(s->rg.m * s->rg.k) + 16);
    if (st == MPB_STATUS_OK)
        st = mpb_cuda_alloc(env, &s->be, es * (size_t)(s->rg.k * s->rg.n) + 16);
    if (st == MPB_STATUS_OK)
        st = mpb_cuda_alloc(env, &s->ce, es * (size_t)(s->rg.m * s->rg.n) + 16);
    if (st == MPB_STATUS_OK) {
        s->rg.a = s->ae;
        s->rg.b = s->be;
        s->rg.c = s->ce;
        st = g->target == MPB_TARGET_FP64 ? embed_operands<double>(env, g, s) : embed_operands<float>(env, g, s);
    }
    if (st == MPB_STATUS_OK)
        st = real->cuda->setup(env, &s->rg, params, &s->inner);
    if (st != MPB_STATUS_OK) {
        mpb_embed_teardown(env, s);
        return st;
    }
    *state = s;
    return MPB_STATUS_OK;
}

extern "C" enum mpb_status mpb_embed_run(struct mpb_cuda_env *env, void *state, const struct mpb_gemm *g,
                                         struct mpb_phase_clock *clock)
{
    struct embed_state *s = (struct embed_state *)state;
    bool f64 = g->target == MPB_TARGET_FP64;
    enum mpb_status st = f64 ? embed_operands<double>(env, g, s) : embed_operands<float>(env, g, s);
    if (st == MPB_STATUS_OK)
        st = s->real->cuda->run(env, s->inner, &s->rg, clock);
    if (st == MPB_STATUS_OK)
        st = f64 ? interleave_result<double>(env, g, s) : interleave_result<float>(env, g, s);
    mpb_phase_mark(clock, MPB_PHASE_ACCUM);
    return st;
}

extern "C" enum mpb_status mpb_embed_report(struct mpb_cuda_env *env, void *state, struct mpb_scheme_info *info)
{
    struct embed_state *s = (struct embed_state *)state;
    return s->real->cuda->report(env, s->inner, info);
}
