/* The yardsticks of the emulation schemes' efficiency: the rate of
 * one low-precision cuBLAS GEMM at each square size, measured the way
 * mpbench times a scheme (CUDA events, warm-ups, median of the reps). A
 * scheme built from P such GEMMs has efficiency P·t(one GEMM)/t(scheme), so
 * the emulation benchmarks quote these rates from the same session.
 *
 * Paths: INT8→INT32 with op(A) = T ("TN", the layout cuBLAS's IMMA kernels
 * prefer) and with op(A) = N, both whole and split into column blocks of B
 * (blocking the INT8 calls along n recovers the rate lost at 16384:
 * kernels/common/README.md); FP16→FP32 and BF16→FP32 (NN); TF32 (NN);
 * DGEMM (NN); and mpbench's own tensor-core engine (kernels/tc) with one plane pair of FP16,
 * BF16 and TF32 (`engine_*`: K-major operands, the layout its planes have),
 * measured against cuBLAS's FP16 GEMM in the same run.
 * Inputs are uniform random in each format (not zeros: a tensor core's
 * power draw, and so its clock under the power cap, depends on the bits).
 *
 * Each (path, n, blocks) is timed twice: `burst`, after 3 warm-up calls
 * (about 2 ms of INT8 work at 8192), and `sustained`, after at least
 * BENCH_SUSTAIN_MS of back-to-back calls, the state a scheme's GEMMs run
 * in (mpbench's warm-up and timed calls of one case are about 100 ms or more of
 * back-to-back work at n ≥ 8192). Under the power cap the first can run at
 * a clock the second does not hold.
 *
 * Usage: bench_lowp_gemm [N...]   (default 4096 8192 16384)
 * Output: one CSV line per (path, n, blocks, warm):
 * path,n,blocks,warm,ms_median,tops.
 *
 * bench_lowp_gemm --int8 [N...] is the INT8 comparison of
 * results/h200/int8-engine/: cuBLAS's `int8_tn` (whole, and in 2 and 4 column blocks) beside the engine's plain
 * INT8 GEMM (kernels/tc/tc_i8.h) on the same K-major operands, one product
 * per launch without and with the 2-CTA cluster (`engine_int8_c1`, `_c2`),
 * and 15 products of their own operands in one launch (Ozaki-II's products
 * at DGEMM accuracy) with INT32 C (`engine_int8_x15`) and with residues
 * (`engine_int8_x15_mod`, moduli 255, 253, ...), both one CTA per tile, and
 * the residues with the cluster (`_mod_c2`, the engine's default where m
 * spans two row tiles), tops counting every
 * product's 2n^3. Same output format; the plans are described on stderr.
 *
 * bench_lowp_gemm --stages [N...] is the pipeline-depth ablation
 * (results/h200/fp32-emulation/lowp-gemm-stages.csv; EGEMM-TC, Feng et al.,
 * PPoPP'21, Fig. 11 credits its scheduling with 1.14x):
 * the engine with FP16 planes, one pair (`engine_fp16`) and egemm's four
 * (`engine_fp16_egemm`: 2+2 planes, lo*lo, lo*hi, hi*lo, hi*hi), at every
 * depth from two stages to the deepest that fits, sustained only. Output:
 * path,n,pairs,stages,ms_median,tops, tops counting every pair's 2n^3. */
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tc/tc_engine.h"
#include "tc/tc_i8.h"

#define BENCH_REPS 10
#define BENCH_WARMUP 3
#define BENCH_SUSTAIN_MS 300.0f

static void die_rt(cudaError_t e, const char *call, int line)
{
    fprintf(stderr, "bench_lowp_gemm:%d: %s: %s\n", line, call, cudaGetErrorString(e));
    exit(3);
}
static void die_blas(cublasStatus_t s, const char *call, int line)
{
    fprintf(stderr, "bench_lowp_gemm:%d: %s: %s\n", line, call, cublasGetStatusString(s));
    exit(3);
}
#define RT(call)                                                                         \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess)                                                           \
            die_rt(e_, #call, __LINE__);                                                 \
    } while (0)
#define BLAS(call)                                                                       \
    do {                                                                                 \
        cublasStatus_t s_ = (call);                                                      \
        if (s_ != CUBLAS_STATUS_SUCCESS)                                                 \
            die_blas(s_, #call, __LINE__);                                               \
    } while (0)

enum bench_path {
    PATH_INT8_TN, PATH_INT8_NN, PATH_FP16, PATH_BF16, PATH_TF32, PATH_DGEMM,
    PATH_ENGINE_FP16, PATH_ENGINE_BF16, PATH_ENGINE_TF32,
    PATH_ENGINE_INT8_C1, PATH_ENGINE_INT8_C2, PATH_ENGINE_INT8_X15, PATH_ENGINE_INT8_X15_MOD,
    PATH_ENGINE_INT8_X15_MOD_C2
};
static const char *const path_names[] = {"int8_tn", "int8_nn", "fp16", "bf16", "tf32", "dgemm",
                                         "engine_fp16", "engine_bf16", "engine_tf32",
                                         "engine_int8_c1", "engine_int8_c2", "engine_int8_x15",
                                         "engine_int8_x15_mod", "engine_int8_x15_mod_c2"};

#define BENCH_I8_BATCH 15

struct bench {
    cublasHandle_t handle;
    void *a, *b, *c;
    struct tc_plan *plan;       /* the engine paths' launch, made for the current n */
    struct tc_i8_plan *i8_plan; /* the INT8 engine paths' launch */
    void *i8_a, *i8_b, *i8_c;   /* ... on operands and outputs of their own */
};

static int i8_products(enum bench_path path)
{
    return path == PATH_ENGINE_INT8_X15 || path == PATH_ENGINE_INT8_X15_MOD || path == PATH_ENGINE_INT8_X15_MOD_C2
               ? BENCH_I8_BATCH
               : 1;
}

/* One call of `path` on n×n operands, B and C split into `blocks` column blocks. */
static void bench_call(const struct bench *x, enum bench_path path, int n, int blocks)
{
    int nb = n / blocks;
    for (int j = 0; j < blocks; j++) {
        size_t off = (size_t)j * nb * n; /* column offset into B and C, in elements */
        switch (path) {
        case PATH_INT8_TN:
        case PATH_INT8_NN: {
            const int one = 1, zero = 0;
            cublasOperation_t op = path == PATH_INT8_TN ? CUBLAS_OP_T : CUBLAS_OP_N;
            BLAS(cublasGemmEx(x->handle, op, CUBLAS_OP_N, n, nb, n, &one, x->a, CUDA_R_8I, n,
                              (const char *)x->b + off, CUDA_R_8I, n, &zero,
                              (int *)x->c + off, CUDA_R_32I, n, CUBLAS_COMPUTE_32I,
                              CUBLAS_GEMM_DEFAULT));
            break;
        }
        case PATH_FP16:
        case PATH_BF16:
        case PATH_TF32: {
            const float one = 1, zero = 0;
            cudaDataType t = path == PATH_FP16 ? CUDA_R_16F : path == PATH_BF16 ? CUDA_R_16BF : CUDA_R_32F;
            size_t bytes = path == PATH_TF32 ? 4 : 2;
            cublasComputeType_t ct = path == PATH_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
            BLAS(cublasGemmEx(x->handle, CUBLAS_OP_N, CUBLAS_OP_N, n, nb, n, &one, x->a, t, n,
                              (const char *)x->b + off * bytes, t, n, &zero, (float *)x->c + off,
                              CUDA_R_32F, n, ct, CUBLAS_GEMM_DEFAULT));
            break;
        }
        case PATH_DGEMM: {
            const double one = 1, zero = 0;
            BLAS(cublasDgemm(x->handle, CUBLAS_OP_N, CUBLAS_OP_N, n, nb, n, &one,
                             (const double *)x->a, n, (const double *)x->b + off, n, &zero,
                             (double *)x->c + off, n));
            break;
        }
        case PATH_ENGINE_FP16:
        case PATH_ENGINE_BF16:
        case PATH_ENGINE_TF32:
            RT((cudaError_t)tc_plan_launch(x->plan, 0));
            break;
        case PATH_ENGINE_INT8_C1:
        case PATH_ENGINE_INT8_C2:
        case PATH_ENGINE_INT8_X15:
        case PATH_ENGINE_INT8_X15_MOD:
        case PATH_ENGINE_INT8_X15_MOD_C2:
            RT((cudaError_t)tc_i8_plan_launch(x->i8_plan, 0));
            break;
        }
    }
}

/* A uniform value in [-1, 1) from the element index (splitmix64 finaliser,
 * Steele, Lea & Flood, OOPSLA 2014). */
__device__ static double bench_uniform(size_t i, unsigned salt)
{
    unsigned long long z = i * 0x9E3779B97F4A7C15ull + salt;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-52 - 1.0;
}

__global__ static void bench_fill(void *p, size_t count, enum bench_path path, unsigned salt)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x) {
        double u = bench_uniform(i, salt);
        switch (path) {
        case PATH_INT8_TN:
        case PATH_INT8_NN:
        case PATH_ENGINE_INT8_C1:
        case PATH_ENGINE_INT8_C2:
        case PATH_ENGINE_INT8_X15:
        case PATH_ENGINE_INT8_X15_MOD:
        case PATH_ENGINE_INT8_X15_MOD_C2: ((signed char *)p)[i] = (signed char)(u * 127.0); break;
        case PATH_FP16: ((__half *)p)[i] = __double2half(u); break;
        case PATH_BF16: ((__nv_bfloat16 *)p)[i] = __double2bfloat16(u); break;
        case PATH_TF32:
        case PATH_ENGINE_TF32: ((float *)p)[i] = (float)u; break;
        case PATH_ENGINE_FP16: ((__half *)p)[i] = __double2half(u); break;
        case PATH_ENGINE_BF16: ((__nv_bfloat16 *)p)[i] = __double2bfloat16(u); break;
        case PATH_DGEMM: ((double *)p)[i] = u; break;
        }
    }
}

static int cmp_float(const void *p, const void *q)
{
    float a = *(const float *)p, b = *(const float *)q;
    return (a > b) - (a < b);
}

/* Median of BENCH_REPS timed calls, after BENCH_WARMUP calls (burst) or
 * after calls for at least BENCH_SUSTAIN_MS (sustained). */
static double bench_median_ms(const struct bench *x, enum bench_path path, int n, int blocks,
                              bool sustained)
{
    cudaEvent_t t0, t1;
    RT(cudaEventCreate(&t0));
    RT(cudaEventCreate(&t1));
    RT(cudaEventRecord(t0, 0));
    float warm_ms = 0;
    for (int w = 0; w < BENCH_WARMUP || (sustained && warm_ms < BENCH_SUSTAIN_MS); w++) {
        bench_call(x, path, n, blocks);
        if (sustained && w % 8 == 7) { /* the queue stays full between checks */
            RT(cudaEventRecord(t1, 0));
            RT(cudaEventSynchronize(t1));
            RT(cudaEventElapsedTime(&warm_ms, t0, t1));
        }
    }
    float ms[BENCH_REPS];
    for (int r = 0; r < BENCH_REPS; r++) {
        RT(cudaEventRecord(t0, 0));
        bench_call(x, path, n, blocks);
        RT(cudaEventRecord(t1, 0));
        RT(cudaEventSynchronize(t1));
        RT(cudaEventElapsedTime(&ms[r], t0, t1));
    }
    RT(cudaEventDestroy(t0));
    RT(cudaEventDestroy(t1));
    qsort(ms, BENCH_REPS, sizeof ms[0], cmp_float);
    return 0.5 * ((double)ms[BENCH_REPS / 2 - 1] + (double)ms[BENCH_REPS / 2]);
}

/* The engine's launch on x's buffers: A and B n x n, K-major, with
 * `planes` planes each (plane p at p*n*n elements) and the pairs given,
 * at most max_stages deep (0: as deep as fits); false (said) when the
 * engine cannot run here. */
static bool make_plan(struct bench *x, enum bench_path path, int n, int planes, int n_pairs,
                      const struct tc_pair *pairs, int max_stages)
{
    struct tc_gemm_args g = {};
    g.m = g.n = g.k = n;
    g.n_a_planes = g.n_b_planes = planes;
    g.n_pairs = n_pairs;
    g.accum = TC_ACCUM_TC;
    g.c = (float *)x->c;
    g.ldc = n;
    g.max_stages = max_stages;
    g.fmt = path == PATH_ENGINE_FP16 ? TC_IN_FP16 : path == PATH_ENGINE_BF16 ? TC_IN_BF16 : TC_IN_TF32;
    g.ld = tc_plane_ld(g.fmt, n);
    const size_t plane_bytes = (size_t)n * g.ld * tc_plane_elem_bytes(g.fmt);
    for (int p = 0; p < planes; p++) {
        g.a_planes[p] = (const char *)x->a + p * plane_bytes;
        g.b_planes[p] = (const char *)x->b + p * plane_bytes;
    }
    for (int q = 0; q < n_pairs; q++)
        g.pairs[q] = pairs[q];
    char why[256];
    if (tc_plan_create(&g, &x->plan, why, sizeof why) != 0) {
        fprintf(stderr, "bench_lowp_gemm: %s skipped: %s\n", path_names[path], why);
        return false;
    }
    return true;
}

/* The INT8 engine's launch for `path` at n: its products' operands filled
 * here (uniform in -127..127), K-major n x n each, C INT32 or residues.
 * false (said) when the engine cannot run here. */
static bool make_i8_plan(struct bench *x, enum bench_path path, int n)
{
    const int gemms = i8_products(path),
              residues = path == PATH_ENGINE_INT8_X15_MOD || path == PATH_ENGINE_INT8_X15_MOD_C2;
    const size_t plane = (size_t)n * n;
    RT(cudaMalloc(&x->i8_a, plane * gemms));
    RT(cudaMalloc(&x->i8_b, plane * gemms));
    RT(cudaMalloc(&x->i8_c, plane * gemms * (residues ? 1 : 4)));
    bench_fill<<<1024, 256>>>(x->i8_a, plane * gemms, path, 1u);
    bench_fill<<<1024, 256>>>(x->i8_b, plane * gemms, path, 2u);
    RT(cudaGetLastError());
    struct tc_i8_args g = {};
    g.m = g.n = g.k = g.ld = g.ldc = n;
    g.n_gemms = gemms;
    g.cluster = path == PATH_ENGINE_INT8_C2 || path == PATH_ENGINE_INT8_X15_MOD_C2 ? 2 : 1;
    for (int t = 0; t < gemms; t++) {
        g.gemms[t].a = (const int8_t *)x->i8_a + t * plane;
        g.gemms[t].b = (const int8_t *)x->i8_b + t * plane;
        g.gemms[t].c = (char *)x->i8_c + t * plane * (residues ? 1 : 4);
        g.gemms[t].mod = residues ? 255 - 2 * t : 0; /* odd: any p works for the timing */
    }
    char why[256];
    if (tc_i8_plan_create(&g, &x->i8_plan, why, sizeof why) != 0) {
        fprintf(stderr, "bench_lowp_gemm: %s skipped: %s\n", path_names[path], why);
        return false;
    }
    tc_i8_plan_describe(x->i8_plan, why, sizeof why);
    fprintf(stderr, "bench_lowp_gemm: %s n=%d: %s\n", path_names[path], n, why);
    return true;
}

static void free_i8(struct bench *x)
{
    tc_i8_plan_destroy(x->i8_plan);
    x->i8_plan = NULL;
    RT(cudaFree(x->i8_a));
    RT(cudaFree(x->i8_b));
    RT(cudaFree(x->i8_c));
    x->i8_a = x->i8_b = x->i8_c = NULL;
}

/* --int8: cuBLAS's int8_tn and the INT8 engine's paths, burst and sustained. */
static void bench_int8(struct bench *x, const int *sizes, int n_sizes)
{
    printf("path,n,blocks,warm,ms_median,tops\n");
    static const enum bench_path paths[] = {PATH_INT8_TN, PATH_ENGINE_INT8_C1, PATH_ENGINE_INT8_C2,
                                            PATH_ENGINE_INT8_X15, PATH_ENGINE_INT8_X15_MOD,
                                            PATH_ENGINE_INT8_X15_MOD_C2};
    for (int i = 0; i < n_sizes; i++) {
        const int n = sizes[i];
        for (size_t q = 0; q < sizeof paths / sizeof *paths; q++) {
            const enum bench_path p = paths[q];
            if (p == PATH_INT8_TN) {
                bench_fill<<<1024, 256>>>(x->a, (size_t)n * n, p, 1u);
                bench_fill<<<1024, 256>>>(x->b, (size_t)n * n, p, 2u);
                RT(cudaGetLastError());
            } else if (!make_i8_plan(x, p, n)) {
                continue;
            }
            const double flops = 2.0 * n * (double)n * n * i8_products(p);
            for (int blocks = 1; blocks <= (p == PATH_INT8_TN ? 4 : 1); blocks *= 2)
                for (int sustained = 0; sustained <= 1; sustained++) {
                    double ms = bench_median_ms(x, p, n, blocks, sustained);
                    printf("%s,%d,%d,%s,%.4f,%.1f\n", path_names[p], n, blocks, sustained ? "sustained" : "burst", ms,
                           flops / ms * 1e-9);
                    fflush(stdout);
                }
            if (p != PATH_INT8_TN)
                free_i8(x);
        }
    }
}

static const struct tc_pair one_pair[] = {{0, 0}};
static const struct tc_pair egemm_pairs[] = {{1, 1}, {1, 0}, {0, 1}, {0, 0}};

/* E5's pipeline depth: one pair and egemm's four at every depth that fits. */
static void bench_stages(struct bench *x, const int *sizes, int n_sizes)
{
    printf("path,n,pairs,stages,ms_median,tops\n");
    for (int i = 0; i < n_sizes; i++) {
        const int n = sizes[i];
        for (int egemm = 0; egemm <= 1; egemm++) {
            const int planes = egemm ? 2 : 1, n_pairs = egemm ? 4 : 1;
            bench_fill<<<1024, 256>>>(x->a, (size_t)planes * n * n, PATH_ENGINE_FP16, 1u);
            bench_fill<<<1024, 256>>>(x->b, (size_t)planes * n * n, PATH_ENGINE_FP16, 2u);
            RT(cudaGetLastError());
            for (int depth = 2;; depth++) {
                if (!make_plan(x, PATH_ENGINE_FP16, n, planes, n_pairs, egemm ? egemm_pairs : one_pair, depth))
                    break;
                const int stages = tc_plan_stages(x->plan);
                if (stages == depth) {
                    double ms = bench_median_ms(x, PATH_ENGINE_FP16, n, 1, true);
                    printf("%s,%d,%d,%d,%.4f,%.1f\n", egemm ? "engine_fp16_egemm" : "engine_fp16", n, n_pairs,
                           stages, ms, n_pairs * 2.0 * n * (double)n * n / ms * 1e-9);
                    fflush(stdout);
                }
                tc_plan_destroy(x->plan);
                x->plan = NULL;
                if (stages < depth) /* the deepest that fits was the previous one */
                    break;
            }
        }
    }
}

int main(int argc, char **argv)
{
    int sizes[16], n_sizes = 0;
    const bool stages_mode = argc > 1 && strcmp(argv[1], "--stages") == 0;
    const bool int8_mode = argc > 1 && strcmp(argv[1], "--int8") == 0;
    for (int i = 1 + (stages_mode || int8_mode); i < argc && n_sizes < 16; i++) {
        char *end;
        long v = strtol(argv[i], &end, 10);
        if (*end || v < 256 || v > 32768 || v % 256) {
            fprintf(stderr, "bench_lowp_gemm: size '%s': want a multiple of 256 in 256..32768\n",
                    argv[i]);
            return 2;
        }
        sizes[n_sizes++] = (int)v;
    }
    if (!n_sizes) {
        sizes[0] = 4096, sizes[1] = 8192, sizes[2] = 16384;
        n_sizes = 3;
    }
    int count;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        fprintf(stderr, "bench_lowp_gemm: no CUDA device\n");
        return 77;
    }
    int nmax = 0;
    for (int i = 0; i < n_sizes; i++)
        nmax = sizes[i] > nmax ? sizes[i] : nmax;
    struct bench x = {};
    size_t bytes = (size_t)nmax * nmax * sizeof(double);
    RT(cudaMalloc(&x.a, bytes));
    RT(cudaMalloc(&x.b, bytes));
    RT(cudaMalloc(&x.c, bytes));
    BLAS(cublasCreate(&x.handle));
    if (stages_mode)
        bench_stages(&x, sizes, n_sizes);
    else if (int8_mode)
        bench_int8(&x, sizes, n_sizes);
    else
        printf("path,n,blocks,warm,ms_median,tops\n");
    for (int i = 0; i < n_sizes && !stages_mode && !int8_mode; i++) {
        int n = sizes[i];
        double flops = 2.0 * n * (double)n * n;
        for (int p = PATH_INT8_TN; p <= PATH_ENGINE_TF32; p++) {
            size_t count = (size_t)n * n;
            bench_fill<<<1024, 256>>>(x.a, count, (enum bench_path)p, 1u);
            bench_fill<<<1024, 256>>>(x.b, count, (enum bench_path)p, 2u);
            RT(cudaGetLastError());
            if (p >= PATH_ENGINE_FP16 && !make_plan(&x, (enum bench_path)p, n, 1, 1, one_pair, 0))
                continue;
            bool is_int8 = p == PATH_INT8_TN || p == PATH_INT8_NN;
            for (int blocks = 1; blocks <= (is_int8 ? 4 : 1); blocks *= 2)
                for (int sustained = 0; sustained <= 1; sustained++) {
                    double ms = bench_median_ms(&x, (enum bench_path)p, n, blocks, sustained);
                    printf("%s,%d,%d,%s,%.4f,%.1f\n", path_names[p], n, blocks,
                           sustained ? "sustained" : "burst", ms, flops / ms * 1e-9);
                    fflush(stdout);
                }
            tc_plan_destroy(x.plan);
            x.plan = NULL;
        }
    }
    BLAS(cublasDestroy(x.handle));
    RT(cudaFree(x.a));
    RT(cudaFree(x.b));
    RT(cudaFree(x.c));
    return 0;
}
