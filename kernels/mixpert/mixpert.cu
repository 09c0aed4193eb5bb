/* CUDA backend of mixpert (mixpert.h): the packer kernels (A transposed to
 * K-major segment planes, B's planes, then each row's and column's scales),
 * one launch of the tensor-core engine's block-scaled INT8 path, with
 * fallback=on (when any group is beyond the safe range) the BF16x3 launch
 * on the engine's float path and the add of the two parts, and the FP32
 * recomputation of rows and columns that hold NaN or Inf. */
#include "mixpert/mixpert.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"

namespace {

constexpr int KT = 128; /* k per packer tile: a whole number of groups */

/* Device counters: [A, B] x MP_N_COUNTS, then the lengths of the lists of
 * rows and columns to recompute. */
enum { CNT_ROWS = 2 * MP_N_COUNTS, CNT_COLS, N_CNT };

struct mp_state {
    struct mp_recipe r;
    int64_t m, n, ld, groups, lda, ldb;
    int8_t *planes;            /* A's three planes (m*ld each), then B's (n*ld each) */
    float *scales;             /* groups x lda for A, then groups x ldb for B */
    int *exps;                 /* m row exponents, then n column exponents (negated) */
    int *ea;                   /* group exponents: groups x m, then groups x n */
    int *lists;                /* rows of A, then columns of B, to recompute */
    unsigned char *nonfinite;  /* m + n flags */
    unsigned long long *counts;
    struct tc_plan *plan;
    uint16_t *fb_planes;       /* fallback=on: A's three BF16 planes (m*fb_ld each), then B's */
    float *c_fb;               /* fallback=on: the BF16x3 part of C */
    struct tc_plan *fb_plan;
};

/* fallback=on: where the packers write the BF16x3 planes (planes == NULL: off). */
struct fb_out {
    uint16_t *planes;
    int64_t ld, offset;
};

__device__ void count_warp(unsigned long long *counter, unsigned v)
{
    unsigned s = __reduce_add_sync(0xFFFFFFFFu, v);
    if (threadIdx.x % 32 == 0 && s)
        atomicAdd(counter, (unsigned long long)s);
}

/* Largest and smallest nonzero finite magnitude over a group of lanes
 * (`width` lanes apart by xor: 1, 2, 4, ...). */
__device__ void reduce_lanes(uint32_t *mx, uint32_t *mn, int width)
{
    for (int off = 1; off < width; off *= 2) {
        uint32_t a = __shfl_xor_sync(0xFFFFFFFFu, *mx, off), b = __shfl_xor_sync(0xFFFFFFFFu, *mn, off);
        *mx = a > *mx ? a : *mx;
        *mn = b < *mn ? b : *mn;
    }
}

/* A (m x k, column-major) into K-major segment planes, a tile of 32 rows by
 * KT values of k per step, read along rows and written along k, both
 * coalesced. Group exponents go to ea[G*m + i]. */
__global__ void pack_a(const float *a, int64_t m, int64_t k, int kg, int tile_rows, int segs, int8_t *planes,
                       int64_t ld, int *ea, unsigned char *nonfinite, unsigned long long *unsafe, fb_out fb)
{
    __shared__ float tile[KT][33];
    __shared__ int exps[KT / 32][32];
    __shared__ bool fell[KT / 32][32]; /* group fell back to BF16x3 */
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t i0 = (int64_t)blockIdx.x * 32;
    const int n_g = KT / kg;
    unsigned n_unsafe = 0;
    for (int64_t l0 = (int64_t)blockIdx.y * KT; l0 < k; l0 += (int64_t)gridDim.y * KT) {
        __syncthreads();
        for (int r = ty; r < KT; r += 8) {
            const int64_t i = i0 + tx, l = l0 + r;
            tile[r][tx] = i < m && l < k ? a[l * m + i] : 0.0f;
        }
        __syncthreads();
        /* One warp per group: lane tx is row i0 + tx. */
        for (int gi = ty; gi < n_g; gi += 8) {
            uint32_t mx = 0, mn = 0xFFFFFFFFu;
            bool bad = false;
            for (int l = gi * kg; l < (gi + 1) * kg; l++) {
                const float y = tile[l][tx];
                const uint32_t b = mp_abs_bits_finite(y);
                mx = b > mx ? b : mx;
                mn = b && b < mn ? b : mn;
                bad |= !mp_is_finite(y);
            }
            reduce_lanes(&mx, &mn, tile_rows);
            const int e = mp_group_exp(mx);
            const bool beyond = mp_beyond_safe_range(mx, mn);
            exps[gi][tx] = e;
            fell[gi][tx] = fb.planes && beyond;
            const int64_t i = i0 + tx, G = l0 / kg + gi;
            const bool valid = i < m && G * kg < k;
            if (valid) {
                ea[G * m + i] = e;
                if (bad)
                    nonfinite[i] = 1;
            }
            n_unsafe += valid && tx % tile_rows == 0 && beyond;
        }
        __syncthreads();
        for (int r = ty; r < 32; r += 8) {
            const int64_t i = i0 + r;
            if (i >= m)
                continue;
            for (int l = 2 * tx; l < KT; l += 64) {
                if (l0 + l >= k)
                    break;
                const int e = exps[l / kg][r];
                const bool f = fell[l / kg][r]; /* l and l + 1 share a group: kg is even */
                const float y0 = tile[l][r], y1 = tile[l + 1][r];
                const int32_t n0 = mp_quantize(mp_int8_input(y0, f), e);
                const int32_t n1 = mp_quantize(mp_int8_input(y1, f), e);
                const bool both = l0 + l + 1 < k;
                for (int s = 0; s < segs; s++) {
                    int8_t *out = planes + (s * m + i) * ld + l0 + l;
                    if (both)
                        *(uint16_t *)out = (uint16_t)((uint8_t)mp_segment(n0, s) | (uint8_t)mp_segment(n1, s) << 8);
                    else
                        out[0] = mp_segment(n0, s);
                }
                if (fb.planes) {
                    uint16_t first[2][3], second[2][3];
                    mp_fb_halves(0, f, y0, first[0], second[0]);
                    mp_fb_halves(0, f, y1, first[1], second[1]);
                    for (int p = 0; p < 3; p++) {
                        uint16_t *out = fb.planes + (p * m + i) * fb.ld + l0 + l;
                        if (both) {
                            *(uint32_t *)out = first[0][p] | (uint32_t)first[1][p] << 16;
                            *(uint32_t *)(out + fb.offset) = second[0][p] | (uint32_t)second[1][p] << 16;
                        } else {
                            out[0] = first[0][p];
                            out[fb.offset] = second[0][p];
                        }
                    }
                }
            }
        }
    }
    count_warp(unsafe, n_unsafe);
}

/* B (k x n, column-major: K-major already): a block of 8 warps takes 8
 * columns (warp w, column j0 + w) by KT values of k, 4 per lane. */
__global__ void pack_b(const float *b, int64_t k, int64_t n, int kg, int tile_cols, int segs, int8_t *planes,
                       int64_t ld, int *eb, unsigned char *nonfinite, unsigned long long *unsafe, fb_out fb)
{
    __shared__ uint32_t wmax[8][32], wmin[8][32];
    const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int64_t j = (int64_t)blockIdx.x * 8 + w;
    const int lanes_per_group = kg / 4;
    unsigned n_unsafe = 0;
    for (int64_t l0 = (int64_t)blockIdx.y * KT; l0 < k; l0 += (int64_t)gridDim.y * KT) {
        float y[4];
        uint32_t mx = 0, mn = 0xFFFFFFFFu;
        bool bad = false;
        for (int t = 0; t < 4; t++) {
            const int64_t l = l0 + 4 * lane + t;
            y[t] = j < n && l < k ? b[j * k + l] : 0.0f;
            const uint32_t v = mp_abs_bits_finite(y[t]);
            mx = v > mx ? v : mx;
            mn = v && v < mn ? v : mn;
            bad |= !mp_is_finite(y[t]);
        }
        reduce_lanes(&mx, &mn, lanes_per_group);
        if (tile_cols > 1) { /* align=tile: the group spans the block's 8 columns */
            __syncthreads();
            wmax[w][lane] = mx;
            wmin[w][lane] = mn;
            __syncthreads();
            for (int o = 0; o < 8; o++) {
                mx = wmax[o][lane] > mx ? wmax[o][lane] : mx;
                mn = wmin[o][lane] < mn ? wmin[o][lane] : mn;
            }
        }
        const int e = mp_group_exp(mx);
        const bool beyond = mp_beyond_safe_range(mx, mn), f = fb.planes && beyond;
        const int64_t G = (l0 + 4 * lane) / kg, l = l0 + 4 * lane;
        const bool first = lane % lanes_per_group == 0;
        if (j < n && l < k) {
            if (first)
                eb[G * n + j] = e;
            if (bad)
                nonfinite[j] = 1;
            int32_t q[4];
            for (int t = 0; t < 4; t++)
                q[t] = mp_quantize(mp_int8_input(y[t], f), e);
            for (int s = 0; s < segs; s++) {
                int8_t *out = planes + (s * n + j) * ld + l;
                if (l + 3 < k) {
                    *(uint32_t *)out = (uint32_t)(uint8_t)mp_segment(q[0], s) | (uint32_t)(uint8_t)mp_segment(q[1], s) << 8 |
                                       (uint32_t)(uint8_t)mp_segment(q[2], s) << 16 |
                                       (uint32_t)(uint8_t)mp_segment(q[3], s) << 24;
                } else {
                    for (int t = 0; l + t < k; t++)
                        out[t] = mp_segment(q[t], s);
                }
            }
            if (fb.planes) {
                uint16_t all[4][3], fell_back[4][3];
                for (int t = 0; t < 4; t++)
                    mp_fb_halves(1, f, y[t], all[t], fell_back[t]);
                for (int p = 0; p < 3; p++) {
                    uint16_t *out = fb.planes + (p * n + j) * fb.ld + l;
                    if (l + 3 < k) {
                        *(uint2 *)out = make_uint2(all[0][p] | (uint32_t)all[1][p] << 16,
                                                   all[2][p] | (uint32_t)all[3][p] << 16);
                        *(uint2 *)(out + fb.offset) = make_uint2(fell_back[0][p] | (uint32_t)fell_back[1][p] << 16,
                                                                 fell_back[2][p] | (uint32_t)fell_back[3][p] << 16);
                    } else {
                        for (int t = 0; l + t < k; t++) {
                            out[t] = all[t][p];
                            out[fb.offset + t] = fell_back[t][p];
                        }
                    }
                }
            }
        }
        n_unsafe += j < n && l < k && first && (tile_cols == 1 || w == 0) && beyond;
    }
    count_warp(unsafe, n_unsafe);
}

/* Per row of A (column of B): its exponent (the largest group's), each
 * group's scale relative to it, and the list of vectors to recompute. */
__global__ void vector_scales(const int *ea, int64_t vecs, int64_t groups, float *scale, int64_t scale_ld,
                              int *vec_exp, const unsigned char *nonfinite, int *list, unsigned long long *counts,
                              unsigned long long *list_len)
{
    for (int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; v < vecs; v += (int64_t)gridDim.x * blockDim.x) {
        int top = MP_ZERO_GROUP;
        for (int64_t g = 0; g < groups; g++)
            top = max(top, ea[g * vecs + v]);
        if (top == MP_ZERO_GROUP)
            top = 0;
        vec_exp[v] = -top;
        unsigned under = 0;
        for (int64_t g = 0; g < groups; g++) {
            const int e = ea[g * vecs + v];
            scale[g * scale_ld + v] = e == MP_ZERO_GROUP ? 0.0f : mp_pow2(e - top);
            under += e != MP_ZERO_GROUP && e - top < -149;
        }
        if (under)
            atomicAdd(&counts[MP_COUNT_UNDERFLOW], (unsigned long long)under);
        if (nonfinite[v]) {
            atomicAdd(&counts[MP_COUNT_NONFINITE], 1ull);
            list[atomicAdd(list_len, 1ull)] = (int)v;
        }
    }
}

/* C(i, j) = a plain FP32 dot product, k in order, for every entry of the
 * listed rows and columns (none: the kernel returns at once). */
__global__ void recompute(const float *a, const float *b, float *c, int64_t m, int64_t n, int64_t k,
                          const int *rows, const int *cols, const unsigned long long *lens)
{
    const int64_t nr = (int64_t)lens[0], nc = (int64_t)lens[1], total = nr * n + nc * m;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (int64_t)gridDim.x * blockDim.x) {
        int64_t i, j;
        if (t < nr * n) {
            i = rows[t / n];
            j = t % n;
        } else {
            i = (t - nr * n) % m;
            j = cols[(t - nr * n) / m];
        }
        float acc = 0.0f;
        for (int64_t l = 0; l < k; l++)
            acc = fmaf(a[i + l * m], b[l + j * k], acc);
        c[j * m + i] = acc;
    }
}

/* c += c_fb: the INT8 and BF16x3 parts, one FP32 add per entry. */
__global__ void add_parts(float *c, const float *c_fb, int64_t count)
{
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < count; e += (int64_t)gridDim.x * blockDim.x)
        c[e] = c[e] + c_fb[e];
}

int grid_1d(int64_t work, int threads)
{
    int64_t blocks = (work + threads - 1) / threads;
    return (int)(blocks < 1 ? 1 : blocks > 132 * 8 ? 132 * 8 : blocks);
}

/* The packer's counters as [A, B] x MP_N_COUNTS (waits for the stream). */
enum mpb_status download_counts(struct mpb_cuda_env *env, const struct mp_state *s, int64_t counts[2][MP_N_COUNTS])
{
    unsigned long long c[N_CNT];
    enum mpb_status st = mpb_cuda_download(env, c, s->counts, sizeof c);
    for (int side = 0; side < 2; side++)
        for (int t = 0; t < MP_N_COUNTS; t++)
            counts[side][t] = (int64_t)c[side * MP_N_COUNTS + t];
    return st;
}

enum mpb_status mp_run(struct mpb_cuda_env *env, void *state, const struct mpb_gemm *g, struct mpb_phase_clock *clock)
{
    const struct mp_state *s = (const struct mp_state *)state;
    cudaStream_t st = mpb_stream(env);
    const float *a = (const float *)g->a, *b = (const float *)g->b;
    const int64_t m = g->m, n = g->n, k = g->k;
    MPB_CUDA_TRY(env, cudaMemsetAsync(s->counts, 0, N_CNT * sizeof *s->counts, st));
    MPB_CUDA_TRY(env, cudaMemsetAsync(s->nonfinite, 0, (size_t)(m + n), st));
    const int64_t kt = (k + KT - 1) / KT;
    const fb_out fa = {s->fb_planes, mp_fb_ld(k), mp_fb_offset(k)};
    const fb_out fbb = {s->fb_planes ? s->fb_planes + 3 * m * fa.ld : NULL, fa.ld, fa.offset};
    dim3 ga((unsigned)((m + 31) / 32), (unsigned)(kt < 65535 ? kt : 65535));
    pack_a<<<ga, dim3(32, 8), 0, st>>>(a, m, k, s->r.kgroup, mp_group_rows(&s->r, 0), s->r.a_segs, s->planes, s->ld,
                                        s->ea, s->nonfinite, s->counts + MP_COUNT_UNSAFE, fa);
    MPB_LAUNCH_CHECK(env);
    int8_t *pb = s->planes + 3 * m * s->ld;
    dim3 gb((unsigned)((n + 7) / 8), (unsigned)(kt < 65535 ? kt : 65535));
    pack_b<<<gb, 256, 0, st>>>(b, k, n, s->r.kgroup, mp_group_rows(&s->r, 1), s->r.b_segs, pb, s->ld,
                               s->ea + s->groups * m, s->nonfinite + m, s->counts + MP_N_COUNTS + MP_COUNT_UNSAFE,
                               fbb);
    MPB_LAUNCH_CHECK(env);
    vector_scales<<<grid_1d(m, 256), 256, 0, st>>>(s->ea, m, s->groups, s->scales, s->lda, s->exps, s->nonfinite,
                                                   s->lists, s->counts, s->counts + CNT_ROWS);
    MPB_LAUNCH_CHECK(env);
    vector_scales<<<grid_1d(n, 256), 256, 0, st>>>(s->ea + s->groups * m, n, s->groups, s->scales + s->groups * s->lda,
                                                   s->ldb, s->exps + m, s->nonfinite + m, s->lists + m,
                                                   s->counts + MP_N_COUNTS, s->counts + CNT_COLS);
    MPB_LAUNCH_CHECK(env);
    mpb_phase_mark(clock, MPB_PHASE_SPLIT);
    cudaError_t err = (cudaError_t)tc_plan_launch(s->plan, st);
    if (err != cudaSuccess)
        return mpb_cuda_fail_rt(env, err, "tc_plan_launch", __FILE__, __LINE__);
    if (s->r.fallback) { /* the BF16x3 part only when a group fell back: the counts decide */
        int64_t counts[2][MP_N_COUNTS];
        enum mpb_status got = download_counts(env, s, counts);
        if (got != MPB_STATUS_OK)
            return got;
        if (mp_fallback_runs(&s->r, counts)) {
            err = (cudaError_t)tc_plan_launch(s->fb_plan, st);
            if (err != cudaSuccess)
                return mpb_cuda_fail_rt(env, err, "tc_plan_launch (BF16x3 fallback)", __FILE__, __LINE__);
            add_parts<<<grid_1d(m * n, 256), 256, 0, st>>>((float *)g->c, s->c_fb, m * n);
            MPB_LAUNCH_CHECK(env);
        }
    }
    recompute<<<132 * 4, 256, 0, st>>>(a, b, (float *)g->c, m, n, k, s->lists, s->lists + m, s->counts + CNT_ROWS);
    MPB_LAUNCH_CHECK(env);
    mpb_phase_mark(clock, MPB_PHASE_GEMM);
    return MPB_STATUS_OK;
}

void mp_teardown(struct mpb_cuda_env *env, void *state)
{
    struct mp_state *s = (struct mp_state *)state;
    if (!s)
        return;
    tc_plan_destroy(s->plan);
    tc_plan_destroy(s->fb_plan);
    mpb_cuda_free(env, s->fb_planes);
    mpb_cuda_free(env, s->c_fb);
    mpb_cuda_free(env, s->planes);
    mpb_cuda_free(env, s->scales);
    mpb_cuda_free(env, s->exps);
    mpb_cuda_free(env, s->ea);
    mpb_cuda_free(env, s->lists);
    mpb_cuda_free(env, s->nonfinite);
    mpb_cuda_free(env, s->counts);
    free(s);
}

enum mpb_status mp_setup(struct mpb_cuda_env *env, const struct mpb_gemm *g, const double *params, void **state)
{
    *state = NULL;
    struct mp_state *s = (struct mp_state *)calloc(1, sizeof *s);
    if (!s)
        return mpb_cuda_fail(env, "out of host memory for the scheme state", __FILE__, __LINE__);
    mp_recipe_of(params, &s->r);
    const int64_t m = g->m, n = g->n;
    s->m = m;
    s->n = n;
    s->ld = tc_plane_ld(TC_IN_S8, g->k);
    s->groups = tc_s8_groups(g->k, s->r.kgroup);
    s->lda = mp_scale_ld(m);
    s->ldb = mp_scale_ld(n);
    enum mpb_status st = mpb_cuda_alloc(env, (void **)&s->planes, (size_t)(3 * (m + n) * s->ld));
    if (st == MPB_STATUS_OK)
        st = mpb_cuda_alloc(env, (void **)&s->scales, sizeof(float) * (size_t)(s->groups * (s->lda + s->ldb)));
    if (st == MPB_STATUS_OK)
        st = mpb_cuda_alloc(env, (void **)&s->exps, sizeof(int) * (size_t)(m + n));
    if (st == MPB_STATUS_OK)
        st = mpb_cuda_alloc(env, (void **)&s->ea, sizeof(int) * (size_t)(s->groups * (m + n)));
    if (st == MPB_STATUS_OK)
        st = mpb_cuda_alloc(env, (void **)&s->lists, sizeof(int) * (size_t)(m + n));
    if (st == MPB_STATUS_OK)
        st = mpb_cuda_alloc(env, (void **)&s->nonfinite, (size_t)(m + n));
    if (st == MPB_STATUS_OK)
        st = mpb_cuda_alloc(env, (void **)&s->counts, N_CNT * sizeof *s->counts);
    const size_t fb_bytes = sizeof(uint16_t) * (size_t)(3 * (m + n) * mp_fb_ld(g->k));
    if (st == MPB_STATUS_OK && s->r.fallback) /* zeroed once: the packers never write the padding */
        st = mpb_cuda_alloc(env, (void **)&s->fb_planes, fb_bytes);
    if (st == MPB_STATUS_OK && s->r.fallback)
        st = mpb_cuda_memset(env, s->fb_planes, 0, fb_bytes);
    if (st == MPB_STATUS_OK && s->r.fallback)
        st = mpb_cuda_alloc(env, (void **)&s->c_fb, sizeof(float) * (size_t)(m * n));
    if (st != MPB_STATUS_OK) {
        mp_teardown(env, s);
        return st;
    }
    struct tc_s8_args args;
    mp_s8_args(&s->r, g, s->planes, s->planes + 3 * m * s->ld, s->scales, s->exps, &args);
    char why[256];
    cudaError_t err = (cudaError_t)tc_s8_plan_create(&args, &s->plan, why, sizeof why);
    if (err == cudaSuccess && s->r.fallback) {
        struct tc_gemm_args fargs;
        mp_fb_args(g, s->fb_planes, s->fb_planes + 3 * m * mp_fb_ld(g->k), s->c_fb, &fargs);
        err = (cudaError_t)tc_plan_create(&fargs, &s->fb_plan, why, sizeof why);
    }
    if (err != cudaSuccess) {
        mp_teardown(env, s);
        return mpb_cuda_fail(env, why, __FILE__, __LINE__);
    }
    *state = s;
    return MPB_STATUS_OK;
}

enum mpb_status mp_report(struct mpb_cuda_env *env, void *state, struct mpb_scheme_info *info)
{
    const struct mp_state *s = (const struct mp_state *)state;
    int64_t counts[2][MP_N_COUNTS];
    enum mpb_status st = download_counts(env, s, counts);
    if (st != MPB_STATUS_OK)
        return st;
    info->slices = s->r.n_pairs;
    info->fallback = mp_fallback_runs(&s->r, counts);
    char recipe[128], engine[96];
    mp_describe(&s->r, recipe, sizeof recipe);
    tc_plan_describe(s->plan, engine, sizeof engine);
    snprintf(info->settings, sizeof info->settings, "%s %s", recipe, engine);
    const int ra = mp_group_rows(&s->r, 0), rb = mp_group_rows(&s->r, 1);
    mp_note(&s->r, counts, (s->m + ra - 1) / ra * s->groups, (s->n + rb - 1) / rb * s->groups, info->note, sizeof info->note);
    return MPB_STATUS_OK;
}

} // namespace

extern "C" const struct mpb_scheme_cuda mpb_mixpert_cuda = {mp_setup, mp_run, mp_report, mp_teardown};
