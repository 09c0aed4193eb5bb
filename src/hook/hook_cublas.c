/* The cuBLAS entry points the hook interposes: cublas{D,S,Z,C}gemm_v2 and
 * cublasGemmEx in their FP64 and FP32 real and complex cases, recorded and
 * emulated like the host routines; the batched forms (pointer arrays,
 * strided, and the Ex ones in those cases) recorded as one row with their
 * batch count and always passed through. cublasGemmEx calls of other types
 * or compute types pass through untouched. The real routine is the one the
 * calling object binds to (mpb_hook_real_for): a program may load its own
 * libcublas, another major version than the hook's. */
#include <cublas_api.h>
#include <stdint.h>
#include <string.h>
#include "hook/hook.h"
#include "hook/hook_cuda.h"

#define MPB_EXPORT __attribute__((visibility("default")))
#define STR_(x) #x
#define STR(x) STR_(x)
/* The libcublas the hook itself was linked with: mpbench's own calls. */
#define OWN_CUBLAS "libcublas.so." STR(CUBLAS_VER_MAJOR)

typedef cublasStatus_t get_stream_fn(cublasHandle_t, cudaStream_t *);
typedef cublasStatus_t get_mode_fn(cublasHandle_t, cublasPointerMode_t *);

static void *real_for(const char *name, const void *caller, const void *self)
{
    void *p = mpb_hook_real_for(name, caller, self, OWN_CUBLAS);
    if (!p)
        mpb_hook_log_once(MPB_HOOK_LOG_NO_REAL, "%s: no libcublas exports it: such calls return "
                          "CUBLAS_STATUS_NOT_INITIALIZED", name);
    return p;
}

/* 'N', 'T', 'C'; '?' for what the hook does not record (CUBLAS_OP_CONJG). */
static char op_letter(cublasOperation_t t)
{
    return t == CUBLAS_OP_N ? 'N' : t == CUBLAS_OP_T ? 'T' : t == CUBLAS_OP_C ? 'C' : '?';
}

/* A scalar of type letter `type` (d, s, z, c) into *re, *im. */
static void scalar_value(char type, const unsigned char *v, double *re, double *im)
{
    float f[2];
    double d[2] = {0, 0};
    if (type == 'd' || type == 'z')
        memcpy(d, v, type == 'd' ? 8 : 16);
    else {
        memcpy(f, v, type == 's' ? 4 : 8);
        d[0] = f[0];
        d[1] = type == 'c' ? f[1] : 0;
    }
    *re = d[0];
    *im = d[1];
}

/* The call as the hook records it: its type, transposes, shape, stream and
 * scalars (read from the device in CUBLAS_POINTER_MODE_DEVICE). False: the
 * call passes through unrecorded (an operation the hook does not record, or
 * the caller's cuBLAS refused the handle: the call reports that itself). */
static bool describe(cublasHandle_t h, const void *caller, char type, cublasOperation_t ta, cublasOperation_t tb,
                     int m, int n, int k, const void *alpha, const void *beta, struct mpb_hook_call *call)
{
    get_stream_fn *get_stream = (get_stream_fn *)real_for("cublasGetStream_v2", caller, (const void *)describe);
    get_mode_fn *get_mode = (get_mode_fn *)real_for("cublasGetPointerMode_v2", caller, (const void *)describe);
    cudaStream_t stream = NULL;
    cublasPointerMode_t mode = CUBLAS_POINTER_MODE_HOST;
    if (op_letter(ta) == '?' || op_letter(tb) == '?' || !get_stream || !get_mode ||
        get_stream(h, &stream) != CUBLAS_STATUS_SUCCESS || get_mode(h, &mode) != CUBLAS_STATUS_SUCCESS)
        return false;
    size_t bytes = type == 'z' ? 16 : type == 'd' || type == 'c' ? 8 : 4;
    unsigned char al[16], be[16];
    if (mode == CUBLAS_POINTER_MODE_DEVICE) {
        if (!mpb_hook_cuda_read(al, alpha, bytes, stream) || !mpb_hook_cuda_read(be, beta, bytes, stream))
            return false;
    } else {
        memcpy(al, alpha, bytes);
        memcpy(be, beta, bytes);
    }
    *call = (struct mpb_hook_call){
        .target = type == 'd' || type == 'z' ? MPB_TARGET_FP64 : MPB_TARGET_FP32, .transa = op_letter(ta),
        .transb = op_letter(tb), .m = m, .n = n, .k = k,
        .field = type == 'z' || type == 'c' ? MPB_FIELD_COMPLEX : MPB_FIELD_REAL, .device = true,
        .stream = stream};
    scalar_value(type, al, &call->alpha, &call->alpha_im);
    scalar_value(type, be, &call->beta, &call->beta_im);
    return true;
}

/* cublasGemmEx's types: the type letter of an FP64 or FP32 case (A, B and
 * C of one type, computed in it), 0 for any other. */
static char ex_type(cudaDataType a, cudaDataType b, cudaDataType c, cublasComputeType_t ct)
{
    bool c64 = ct == CUBLAS_COMPUTE_64F || ct == CUBLAS_COMPUTE_64F_PEDANTIC;
    bool c32 = ct == CUBLAS_COMPUTE_32F || ct == CUBLAS_COMPUTE_32F_PEDANTIC;
    if (a != b || a != c)
        return 0;
    return a == CUDA_R_64F && c64 ? 'd' : a == CUDA_C_64F && c64 ? 'z' : a == CUDA_R_32F && c32 ? 's'
         : a == CUDA_C_32F && c32 ? 'c' : 0;
}

/* The shared tail of every entry point: the call described, then passed
 * through, recorded or emulated by the mode; `CALL` is the real call. */
#define INTERCEPT(NAME, TYPE, EXTRA, ...)                                                                      \
    const void *caller = __builtin_return_address(0);                                                      \
    NAME##_fn *real = (NAME##_fn *)real_for(#NAME, caller, (const void *)NAME);                            \
    if (!real)                                                                                             \
        return CUBLAS_STATUS_NOT_INITIALIZED;                                                              \
    struct mpb_hook_call call;                                                                             \
    char type_ = (TYPE);                                                                                   \
    if (!type_ || mpb_hook_bypass() || !describe(h, caller, type_, ta, tb, m, n, k, alpha, beta, &call))   \
        return real(__VA_ARGS__);                                                                          \
    EXTRA;                                                                                                 \
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;                                                         \
    struct NAME##_args x = {real, &status, {__VA_ARGS__}};                                                 \
    mpb_hook_gemm(&NAME##_routine, &call, &x);                                                             \
    return status;

/* The real routine's arguments, kept for the mode's pass through. */
#define ARGS(NAME, ...)                                                                                        \
    struct NAME##_params __VA_ARGS__;                                                                      \
    struct NAME##_args {                                                                                   \
        NAME##_fn *real;                                                                                   \
        cublasStatus_t *status;                                                                            \
        struct NAME##_params p;                                                                            \
    };

/* cublas{D,S,Z,C}gemm_v2 */
#define TYPED_GEMM(NAME, T, TYPE)                                                                              \
    typedef cublasStatus_t NAME##_fn(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,  \
                                     const T *, const T *, int, const T *, int, const T *, T *, int);       \
    ARGS(NAME, {                                                                                           \
        cublasHandle_t h;                                                                                  \
        cublasOperation_t ta, tb;                                                                          \
        int m, n, k;                                                                                       \
        const T *alpha, *a;                                                                                \
        int lda;                                                                                           \
        const T *b;                                                                                        \
        int ldb;                                                                                           \
        const T *beta;                                                                                     \
        T *c;                                                                                              \
        int ldc;                                                                                           \
    })                                                                                                     \
    static void NAME##_pass(const void *v)                                                                 \
    {                                                                                                      \
        const struct NAME##_args *x = v;                                                                   \
        const struct NAME##_params *p = &x->p;                                                             \
        *x->status = x->real(p->h, p->ta, p->tb, p->m, p->n, p->k, p->alpha, p->a, p->lda, p->b, p->ldb,   \
                             p->beta, p->c, p->ldc);                                                       \
    }                                                                                                      \
    static const struct mpb_hook_routine NAME##_routine = {#NAME, NAME##_pass, NULL};                     \
    MPB_EXPORT cublasStatus_t NAME(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,    \
                                   int n, int k, const T *alpha, const T *a, int lda, const T *b, int ldb, \
                                   const T *beta, T *c, int ldc)                                           \
    {                                                                                                      \
        INTERCEPT(NAME, TYPE,                                                                              \
                  (call.a = a, call.b = b, call.c = c, call.lda = lda, call.ldb = ldb, call.ldc = ldc), h, \
                  ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)                                    \
    }

/* cublas{D,S,Z,C}gemmBatched: arrays of device pointers, only counted. */
#define TYPED_BATCHED(NAME, T, TYPE)                                                                           \
    typedef cublasStatus_t NAME##_fn(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,  \
                                     const T *, const T *const *, int, const T *const *, int, const T *,   \
                                     T *const *, int, int);                                                \
    ARGS(NAME, {                                                                                           \
        cublasHandle_t h;                                                                                  \
        cublasOperation_t ta, tb;                                                                          \
        int m, n, k;                                                                                       \
        const T *alpha;                                                                                    \
        const T *const *a;                                                                                 \
        int lda;                                                                                           \
        const T *const *b;                                                                                 \
        int ldb;                                                                                           \
        const T *beta;                                                                                     \
        T *const *c;                                                                                       \
        int ldc, batch;                                                                                    \
    })                                                                                                     \
    static void NAME##_pass(const void *v)                                                                 \
    {                                                                                                      \
        const struct NAME##_args *x = v;                                                                   \
        const struct NAME##_params *p = &x->p;                                                             \
        *x->status = x->real(p->h, p->ta, p->tb, p->m, p->n, p->k, p->alpha, p->a, p->lda, p->b, p->ldb,   \
                             p->beta, p->c, p->ldc, p->batch);                                             \
    }                                                                                                      \
    static const struct mpb_hook_routine NAME##_routine = {#NAME, NAME##_pass, NULL};                     \
    MPB_EXPORT cublasStatus_t NAME(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,    \
                                   int n, int k, const T *alpha, const T *const a[], int lda,              \
                                   const T *const b[], int ldb, const T *beta, T *const c[], int ldc,      \
                                   int batch)                                                              \
    {                                                                                                      \
        INTERCEPT(NAME, TYPE,                                                                              \
                  (call.batched = true, call.batch = batch, call.lda = lda, call.ldb = ldb,                \
                   call.ldc = ldc),                                                                        \
                  h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, batch)                          \
    }

/* cublas{D,S,Z,C}gemmStridedBatched: only counted. */
#define TYPED_STRIDED(NAME, T, TYPE)                                                                           \
    typedef cublasStatus_t NAME##_fn(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,  \
                                     const T *, const T *, int, long long, const T *, int, long long,      \
                                     const T *, T *, int, long long, int);                                 \
    ARGS(NAME, {                                                                                           \
        cublasHandle_t h;                                                                                  \
        cublasOperation_t ta, tb;                                                                          \
        int m, n, k;                                                                                       \
        const T *alpha, *a;                                                                                \
        int lda;                                                                                           \
        long long sa;                                                                                      \
        const T *b;                                                                                        \
        int ldb;                                                                                           \
        long long sb;                                                                                      \
        const T *beta;                                                                                     \
        T *c;                                                                                              \
        int ldc;                                                                                           \
        long long sc;                                                                                      \
        int batch;                                                                                         \
    })                                                                                                     \
    static void NAME##_pass(const void *v)                                                                 \
    {                                                                                                      \
        const struct NAME##_args *x = v;                                                                   \
        const struct NAME##_params *p = &x->p;                                                             \
        *x->status = x->real(p->h, p->ta, p->tb, p->m, p->n, p->k, p->alpha, p->a, p->lda, p->sa, p->b,    \
                             p->ldb, p->sb, p->beta, p->c, p->ldc, p->sc, p->batch);                       \
    }                                                                                                      \
    static const struct mpb_hook_routine NAME##_routine = {#NAME, NAME##_pass, NULL};                     \
    MPB_EXPORT cublasStatus_t NAME(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,    \
                                   int n, int k, const T *alpha, const T *a, int lda, long long sa,        \
                                   const T *b, int ldb, long long sb, const T *beta, T *c, int ldc,        \
                                   long long sc, int batch)                                                \
    {                                                                                                      \
        INTERCEPT(NAME, TYPE,                                                                              \
                  (call.batched = true, call.batch = batch, call.lda = lda, call.ldb = ldb,                \
                   call.ldc = ldc),                                                                        \
                  h, ta, tb, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc, batch)              \
    }

TYPED_GEMM(cublasDgemm_v2, double, 'd')
TYPED_GEMM(cublasSgemm_v2, float, 's')
TYPED_GEMM(cublasZgemm_v2, cuDoubleComplex, 'z')
TYPED_GEMM(cublasCgemm_v2, cuComplex, 'c')
TYPED_BATCHED(cublasDgemmBatched, double, 'd')
TYPED_BATCHED(cublasSgemmBatched, float, 's')
TYPED_BATCHED(cublasZgemmBatched, cuDoubleComplex, 'z')
TYPED_BATCHED(cublasCgemmBatched, cuComplex, 'c')
TYPED_STRIDED(cublasDgemmStridedBatched, double, 'd')
TYPED_STRIDED(cublasSgemmStridedBatched, float, 's')
TYPED_STRIDED(cublasZgemmStridedBatched, cuDoubleComplex, 'z')
TYPED_STRIDED(cublasCgemmStridedBatched, cuComplex, 'c')

/* cublasGemmEx */
typedef cublasStatus_t cublasGemmEx_fn(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                       const void *, const void *, cudaDataType, int, const void *, cudaDataType,
                                       int, const void *, void *, cudaDataType, int, cublasComputeType_t,
                                       cublasGemmAlgo_t);
ARGS(cublasGemmEx, {
    cublasHandle_t h;
    cublasOperation_t ta, tb;
    int m, n, k;
    const void *alpha, *a;
    cudaDataType at;
    int lda;
    const void *b;
    cudaDataType bt;
    int ldb;
    const void *beta;
    void *c;
    cudaDataType ct;
    int ldc;
    cublasComputeType_t compute;
    cublasGemmAlgo_t algo;
})
static void cublasGemmEx_pass(const void *v)
{
    const struct cublasGemmEx_args *x = v;
    const struct cublasGemmEx_params *p = &x->p;
    *x->status = x->real(p->h, p->ta, p->tb, p->m, p->n, p->k, p->alpha, p->a, p->at, p->lda, p->b, p->bt, p->ldb,
                         p->beta, p->c, p->ct, p->ldc, p->compute, p->algo);
}
static const struct mpb_hook_routine cublasGemmEx_routine = {"cublasGemmEx", cublasGemmEx_pass, NULL};
MPB_EXPORT cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                       int k, const void *alpha, const void *a, cudaDataType at, int lda,
                                       const void *b, cudaDataType bt, int ldb, const void *beta, void *c,
                                       cudaDataType ct, int ldc, cublasComputeType_t compute, cublasGemmAlgo_t algo)
{
    INTERCEPT(cublasGemmEx, ex_type(at, bt, ct, compute),
              (call.a = a, call.b = b, call.c = c, call.lda = lda, call.ldb = ldb, call.ldc = ldc), h, ta, tb, m,
              n, k, alpha, a, at, lda, b, bt, ldb, beta, c, ct, ldc, compute, algo)
}

/* cublasGemmBatchedEx: only counted. */
typedef cublasStatus_t cublasGemmBatchedEx_fn(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                              const void *, const void *const *, cudaDataType, int,
                                              const void *const *, cudaDataType, int, const void *, void *const *,
                                              cudaDataType, int, int, cublasComputeType_t, cublasGemmAlgo_t);
ARGS(cublasGemmBatchedEx, {
    cublasHandle_t h;
    cublasOperation_t ta, tb;
    int m, n, k;
    const void *alpha;
    const void *const *a;
    cudaDataType at;
    int lda;
    const void *const *b;
    cudaDataType bt;
    int ldb;
    const void *beta;
    void *const *c;
    cudaDataType ct;
    int ldc, batch;
    cublasComputeType_t compute;
    cublasGemmAlgo_t algo;
})
static void cublasGemmBatchedEx_pass(const void *v)
{
    const struct cublasGemmBatchedEx_args *x = v;
    const struct cublasGemmBatchedEx_params *p = &x->p;
    *x->status = x->real(p->h, p->ta, p->tb, p->m, p->n, p->k, p->alpha, p->a, p->at, p->lda, p->b, p->bt, p->ldb,
                         p->beta, p->c, p->ct, p->ldc, p->batch, p->compute, p->algo);
}
static const struct mpb_hook_routine cublasGemmBatchedEx_routine = {"cublasGemmBatchedEx", cublasGemmBatchedEx_pass,
                                                                    NULL};
MPB_EXPORT cublasStatus_t cublasGemmBatchedEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                                              int n, int k, const void *alpha, const void *const a[],
                                              cudaDataType at, int lda, const void *const b[], cudaDataType bt,
                                              int ldb, const void *beta, void *const c[], cudaDataType ct, int ldc,
                                              int batch, cublasComputeType_t compute, cublasGemmAlgo_t algo)
{
    INTERCEPT(cublasGemmBatchedEx, ex_type(at, bt, ct, compute),
              (call.batched = true, call.batch = batch, call.lda = lda, call.ldb = ldb, call.ldc = ldc), h, ta, tb,
              m, n, k, alpha, a, at, lda, b, bt, ldb, beta, c, ct, ldc, batch, compute, algo)
}

/* cublasGemmStridedBatchedEx: only counted. */
typedef cublasStatus_t cublasGemmStridedBatchedEx_fn(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                                     int, const void *, const void *, cudaDataType, int, long long,
                                                     const void *, cudaDataType, int, long long, const void *,
                                                     void *, cudaDataType, int, long long, int, cublasComputeType_t,
                                                     cublasGemmAlgo_t);
ARGS(cublasGemmStridedBatchedEx, {
    cublasHandle_t h;
    cublasOperation_t ta, tb;
    int m, n, k;
    const void *alpha, *a;
    cudaDataType at;
    int lda;
    long long sa;
    const void *b;
    cudaDataType bt;
    int ldb;
    long long sb;
    const void *beta;
    void *c;
    cudaDataType ct;
    int ldc;
    long long sc;
    int batch;
    cublasComputeType_t compute;
    cublasGemmAlgo_t algo;
})
static void cublasGemmStridedBatchedEx_pass(const void *v)
{
    const struct cublasGemmStridedBatchedEx_args *x = v;
    const struct cublasGemmStridedBatchedEx_params *p = &x->p;
    *x->status = x->real(p->h, p->ta, p->tb, p->m, p->n, p->k, p->alpha, p->a, p->at, p->lda, p->sa, p->b, p->bt,
                         p->ldb, p->sb, p->beta, p->c, p->ct, p->ldc, p->sc, p->batch, p->compute, p->algo);
}
static const struct mpb_hook_routine cublasGemmStridedBatchedEx_routine = {"cublasGemmStridedBatchedEx",
                                                                           cublasGemmStridedBatchedEx_pass, NULL};
MPB_EXPORT cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                                     int m, int n, int k, const void *alpha, const void *a,
                                                     cudaDataType at, int lda, long long sa, const void *b,
                                                     cudaDataType bt, int ldb, long long sb, const void *beta,
                                                     void *c, cudaDataType ct, int ldc, long long sc, int batch,
                                                     cublasComputeType_t compute, cublasGemmAlgo_t algo)
{
    INTERCEPT(cublasGemmStridedBatchedEx, ex_type(at, bt, ct, compute),
              (call.batched = true, call.batch = batch, call.lda = lda, call.ldb = ldb, call.ldc = ldc), h, ta, tb,
              m, n, k, alpha, a, at, lda, sa, b, bt, ldb, sb, beta, c, ct, ldc, sc, batch, compute, algo)
}
