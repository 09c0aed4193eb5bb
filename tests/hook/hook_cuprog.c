/* A cuBLAS program of the kind the hook serves: it calls every routine the
 * hook intercepts (cublas{D,S,Z,C}gemm_v2, cublasGemmEx in its four cases
 * and once in a case the hook leaves alone, a device-pointer-mode call, and
 * the batched forms) on deterministic operands and prints every result bit
 * (%a), so that a run under the hook can be compared byte for byte with one
 * without. `hook_cuprog DIR` also writes into DIR what the trace must hold
 * for calls 0..7: op(A), op(B) and C on input as .npy, from the program's own
 * copies of its device buffers (test_hook_cuda.sh compares the files).
 * Exits 77 without a device. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "npy_write.h"

#define CK(call)                                                                                  \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) {                                                                  \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)
#define CB(call)                                                                                  \
    do {                                                                                          \
        cublasStatus_t s_ = (call);                                                               \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                        \
            fprintf(stderr, "%s:%d: %s: status %d\n", __FILE__, __LINE__, #call, (int)s_);        \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

/* Values with every bit of a double's mantissa in use, from a counter. */
static double value(uint64_t i)
{
    uint64_t x = i * 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return ((double)(x >> 11) / 9007199254740992.0 - 0.5) * 4;
}

/* A device matrix of `count` elements of `type` (d, s, z, c), filled. */
static void *dmat(char type, int64_t count, uint64_t seed)
{
    int parts = type == 'z' || type == 'c' ? 2 : 1;
    size_t part = type == 'd' || type == 'z' ? 8 : 4;
    char *h = malloc(part * (size_t)(parts * count));
    for (int64_t i = 0; i < parts * count; i++) {
        double v = value(seed * 1000003u + (uint64_t)i);
        float f = (float)v;
        memcpy(h + part * (size_t)i, part == 8 ? (void *)&v : (void *)&f, part);
    }
    void *d;
    CK(cudaMalloc(&d, part * (size_t)(parts * count)));
    CK(cudaMemcpy(d, h, part * (size_t)(parts * count), cudaMemcpyHostToDevice));
    free(h);
    return d;
}

static size_t elem_of(char type)
{
    return type == 'z' ? 16 : type == 'd' || type == 'c' ? 8 : 4;
}

/* The program's stream (non-blocking: cudaMemcpy does not wait for it). */
static cudaStream_t stream;

/* C (ldc×n) printed as one line of %a values, once the stream is done. */
static void print_c(const char *what, char type, const void *c, int64_t ldc, int64_t n)
{
    CK(cudaStreamSynchronize(stream));
    size_t elem = elem_of(type), part = type == 'd' || type == 'z' ? 8 : 4;
    int64_t count = ldc * n * (int64_t)(elem / part);
    char *h = malloc(elem * (size_t)(ldc * n));
    CK(cudaMemcpy(h, c, elem * (size_t)(ldc * n), cudaMemcpyDeviceToHost));
    printf("%s", what);
    for (int64_t i = 0; i < count; i++)
        printf(" %a", part == 8 ? ((double *)h)[i] : (double)((float *)h)[i]);
    printf("\n");
    free(h);
}

/* op(X) of a device matrix (ld rows), packed rows×cols column-major, into
 * DIR/c<call>_<which>.npy: what the hook's trace must hold. */
static void expect(const char *dir, int call, char which, char type, const void *x, char op, int64_t rows,
                   int64_t cols, int64_t ld)
{
    size_t elem = elem_of(type);
    int64_t sc = op == 'N' ? cols : rows;
    char *stored = malloc(elem * (size_t)(ld * sc)), *p = malloc(elem * (size_t)(rows * cols));
    CK(cudaMemcpy(stored, x, elem * (size_t)(ld * sc), cudaMemcpyDeviceToHost));
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            int64_t r = op == 'N' ? i : j, s = op == 'N' ? j : i;
            char *to = p + elem * (size_t)(i + j * rows);
            memcpy(to, stored + elem * (size_t)(r + s * ld), elem);
            if (op == 'C' && type == 'z')
                ((double *)to)[1] = -((double *)to)[1];
            if (op == 'C' && type == 'c')
                ((float *)to)[1] = -((float *)to)[1];
        }
    char path[4096];
    snprintf(path, sizeof path, "%s/c%06d_%c.npy", dir, call, which);
    const char *descr = type == 'd' ? "<f8" : type == 's' ? "<f4" : type == 'z' ? "<c16" : "<c8";
    if (!mpb_npy_write(path, descr, p, rows, cols)) {
        perror(path);
        exit(1);
    }
    free(stored);
    free(p);
}

static cublasOperation_t op_of(char t)
{
    return t == 'N' ? CUBLAS_OP_N : t == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C;
}

/* One non-batched call's shape, scalars and type. */
struct shape {
    char type, ta, tb;
    int m, n, k, lda, ldb, ldc;
    double alpha[2], beta[2];
};

static const struct shape shapes[8] = {
    {'d', 'N', 'T', 7, 5, 3, 9, 6, 8, {1.5, 0}, {0.5, 0}},
    {'s', 'T', 'N', 4, 6, 9, 9, 9, 4, {-2, 0}, {0, 0}},
    {'z', 'C', 'N', 5, 4, 6, 7, 6, 5, {0.75, 0.25}, {2, -1}},
    {'c', 'N', 'C', 3, 3, 8, 3, 3, 3, {1, 0}, {1, 0}},
    {'d', 'T', 'T', 6, 5, 4, 4, 5, 6, {1, 0}, {0, 0}}, /* cublasGemmEx from here */
    {'s', 'N', 'N', 5, 6, 7, 5, 7, 5, {0.5, 0}, {1, 0}},
    {'z', 'N', 'T', 4, 4, 5, 4, 4, 4, {1, -1}, {0, 0}},
    {'c', 'T', 'C', 6, 3, 4, 4, 3, 6, {-1, 0.5}, {0.5, 0.5}},
};

/* The scalar of type `type` from re, im, in `out` (16 bytes). */
static void scalar(char type, const double v[2], void *out)
{
    if (type == 'd' || type == 'z')
        memcpy(out, v, type == 'd' ? 8 : 16);
    else {
        float f[2] = {(float)v[0], (float)v[1]};
        memcpy(out, f, type == 's' ? 4 : 8);
    }
}

static cudaDataType data_type(char t)
{
    return t == 'd' ? CUDA_R_64F : t == 's' ? CUDA_R_32F : t == 'z' ? CUDA_C_64F : CUDA_C_32F;
}

static void call_shape(cublasHandle_t h, int index, const struct shape *s, const char *dir)
{
    int ca = s->ta == 'N' ? s->k : s->m, cb = s->tb == 'N' ? s->n : s->k;
    void *a = dmat(s->type, (int64_t)s->lda * ca, 3 * (uint64_t)index + 1);
    void *b = dmat(s->type, (int64_t)s->ldb * cb, 3 * (uint64_t)index + 2);
    void *c = dmat(s->type, (int64_t)s->ldc * s->n, 3 * (uint64_t)index + 3);
    unsigned char al[16], be[16];
    scalar(s->type, s->alpha, al);
    scalar(s->type, s->beta, be);
    if (dir) {
        expect(dir, index, 'A', s->type, a, s->ta, s->m, s->k, s->lda);
        expect(dir, index, 'B', s->type, b, s->tb, s->k, s->n, s->ldb);
        if (s->beta[0] != 0 || s->beta[1] != 0)
            expect(dir, index, 'C', s->type, c, 'N', s->m, s->n, s->ldc);
    }
    cublasOperation_t ta = op_of(s->ta), tb = op_of(s->tb);
    if (index >= 4) {
        cublasComputeType_t ct = s->type == 'd' || s->type == 'z' ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
        cudaDataType dt = data_type(s->type);
        CB(cublasGemmEx(h, ta, tb, s->m, s->n, s->k, al, a, dt, s->lda, b, dt, s->ldb, be, c, dt, s->ldc, ct,
                        CUBLAS_GEMM_DEFAULT));
    } else if (s->type == 'd')
        CB(cublasDgemm(h, ta, tb, s->m, s->n, s->k, (double *)al, a, s->lda, b, s->ldb, (double *)be, c, s->ldc));
    else if (s->type == 's')
        CB(cublasSgemm(h, ta, tb, s->m, s->n, s->k, (float *)al, a, s->lda, b, s->ldb, (float *)be, c, s->ldc));
    else if (s->type == 'z')
        CB(cublasZgemm(h, ta, tb, s->m, s->n, s->k, (cuDoubleComplex *)al, a, s->lda, b, s->ldb,
                       (cuDoubleComplex *)be, c, s->ldc));
    else
        CB(cublasCgemm(h, ta, tb, s->m, s->n, s->k, (cuComplex *)al, a, s->lda, b, s->ldb, (cuComplex *)be, c,
                       s->ldc));
    char what[32];
    snprintf(what, sizeof what, "call%d", index);
    print_c(what, s->type, c, s->ldc, s->n);
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
}

/* Calls 8 on: dgemm with alpha and beta in device memory; a TF32 GemmEx
 * (not recorded); then the batched forms, one row each. */
static void call_rest(cublasHandle_t h)
{
    const int m = 4, n = 3, k = 5, batch = 3;
    double *a = dmat('d', (int64_t)m * k * batch, 41), *b = dmat('d', (int64_t)k * n * batch, 42);
    double *c = dmat('d', (int64_t)m * n * batch, 43), *scal = dmat('d', 2, 44);
    float *sa = dmat('s', (int64_t)m * k * batch, 45), *sb = dmat('s', (int64_t)k * n * batch, 46);
    float *sc = dmat('s', (int64_t)m * n * batch, 47);
    cuDoubleComplex *za = dmat('z', (int64_t)m * k * batch, 48), *zb = dmat('z', (int64_t)k * n * batch, 49);
    cuDoubleComplex *zc = dmat('z', (int64_t)m * n * batch, 50);
    cuComplex *ca = dmat('c', (int64_t)m * k * batch, 51), *cb = dmat('c', (int64_t)k * n * batch, 52);
    cuComplex *cc = dmat('c', (int64_t)m * n * batch, 53);
    const double one = 1, half = 0.5;
    const float sone = 1, shalf = 0.5;
    const cuDoubleComplex zone = {1, 0}, zhalf = {0.5, 0};
    const cuComplex cone = {1, 0}, chalf = {0.5, 0};

    /* 8: device pointer mode (scal[0] alpha, scal[1] beta, printed) */
    print_c("scal", 'd', scal, 2, 1);
    CB(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    CB(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, scal, a, m, b, k, scal + 1, c, m));
    CB(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    print_c("call8", 'd', c, m, n);
    /* not recorded: FP32 operands computed in TF32 */
    CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &sone, sa, CUDA_R_32F, m, sb, CUDA_R_32F, k, &shalf, sc,
                    CUDA_R_32F, m, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
    print_c("tf32", 's', sc, m, n);

    /* pointer arrays, on the device */
    void *hp[9 * 3], **dp;
    void *bases[12] = {a, b, c, sa, sb, sc, za, zb, zc, ca, cb, cc};
    size_t sizes[4] = {8, 4, 16, 8};
    void **arrays[4];
    CK(cudaMalloc((void **)&dp, sizeof(void *) * 36));
    for (int t = 0; t < 4; t++) {
        for (int i = 0; i < batch; i++) {
            hp[3 * i + 0] = (char *)bases[3 * t] + sizes[t] * (size_t)(i * m * k);
            hp[3 * i + 1] = (char *)bases[3 * t + 1] + sizes[t] * (size_t)(i * k * n);
            hp[3 * i + 2] = (char *)bases[3 * t + 2] + sizes[t] * (size_t)(i * m * n);
        }
        /* A pointers, then B, then C, each `batch` long */
        void *ordered[9];
        for (int i = 0; i < batch; i++)
            for (int w = 0; w < 3; w++)
                ordered[w * batch + i] = hp[3 * i + w];
        CK(cudaMemcpy(dp + 9 * t, ordered, sizeof ordered, cudaMemcpyHostToDevice));
        arrays[t] = dp + 9 * t;
    }
    /* 9..12: pointer arrays */
    CB(cublasDgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, (const double *const *)arrays[0], m,
                          (const double *const *)arrays[0] + batch, k, &half, (double *const *)arrays[0] + 2 * batch,
                          m, batch));
    CB(cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &sone, (const float *const *)arrays[1], m,
                          (const float *const *)arrays[1] + batch, k, &shalf, (float *const *)arrays[1] + 2 * batch,
                          m, batch));
    CB(cublasZgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &zone, (const cuDoubleComplex *const *)arrays[2], m,
                          (const cuDoubleComplex *const *)arrays[2] + batch, k, &zhalf,
                          (cuDoubleComplex *const *)arrays[2] + 2 * batch, m, batch));
    CB(cublasCgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &cone, (const cuComplex *const *)arrays[3], m,
                          (const cuComplex *const *)arrays[3] + batch, k, &chalf,
                          (cuComplex *const *)arrays[3] + 2 * batch, m, batch));
    /* 13..16: strided */
    CB(cublasDgemmStridedBatched(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &one, a, k, (long long)m * k, b, k,
                                 (long long)k * n, &half, c, m, (long long)m * n, batch));
    CB(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &sone, sa, m, (long long)m * k, sb, k,
                                 (long long)k * n, &shalf, sc, m, (long long)m * n, batch));
    CB(cublasZgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &zone, za, m, (long long)m * k, zb, k,
                                 (long long)k * n, &zhalf, zc, m, (long long)m * n, batch));
    CB(cublasCgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &cone, ca, m, (long long)m * k, cb, k,
                                 (long long)k * n, &chalf, cc, m, (long long)m * n, batch));
    /* 17, 18: the Ex forms, FP64 and FP32 */
    CB(cublasGemmBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, (const void *const *)arrays[0], CUDA_R_64F, m,
                           (const void *const *)arrays[0] + batch, CUDA_R_64F, k, &half,
                           (void *const *)arrays[0] + 2 * batch, CUDA_R_64F, m, batch, CUBLAS_COMPUTE_64F,
                           CUBLAS_GEMM_DEFAULT));
    CB(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &sone, sa, CUDA_R_32F, m, (long long)m * k,
                                  sb, CUDA_R_32F, k, (long long)k * n, &shalf, sc, CUDA_R_32F, m, (long long)m * n,
                                  batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    /* not recorded: TF32 again, batched */
    CB(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &sone, sa, CUDA_R_32F, m, (long long)m * k,
                                  sb, CUDA_R_32F, k, (long long)k * n, &shalf, sc, CUDA_R_32F, m, (long long)m * n,
                                  batch, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
    print_c("batched_d", 'd', c, m, n * batch);
    print_c("batched_s", 's', sc, m, n * batch);
    print_c("batched_z", 'z', zc, m, n * batch);
    print_c("batched_c", 'c', cc, m, n * batch);
    void *all[] = {a, b, c, scal, sa, sb, sc, za, zb, zc, ca, cb, cc, dp};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        CK(cudaFree(all[i]));
}

int main(int argc, char **argv)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("hook_cuprog: no CUDA device: skipped\n");
        return 77;
    }
    const char *dir = argc > 1 ? argv[1] : NULL;
    cublasHandle_t h;
    CB(cublasCreate(&h));
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CB(cublasSetStream(h, stream)); /* the hook must use the call's stream */
    for (int i = 0; i < 8; i++)
        call_shape(h, i, &shapes[i], dir);
    call_rest(h);
    CB(cublasDestroy(h));
    CK(cudaStreamDestroy(stream));
    return 0;
}
