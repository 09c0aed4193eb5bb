/* Host side shared by the engine's plans (tc_launch.h). */
#include "tc/tc_launch.h"

#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <stdio.h>

namespace {

PFN_cuTensorMapEncodeTiled_v12000 encode_fn(char *why, size_t why_len)
{
    static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
    if (!fn) {
        void *sym = nullptr;
        cudaDriverEntryPointQueryResult q;
        cudaError_t err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &sym, 12000,
                                                           cudaEnableDefault, &q);
        if (err != cudaSuccess || q != cudaDriverEntryPointSuccess || !sym) {
            snprintf(why, why_len, "cuTensorMapEncodeTiled not available from the driver (%s)",
                     cudaGetErrorString(err));
            return nullptr;
        }
        fn = (PFN_cuTensorMapEncodeTiled_v12000)sym;
    }
    return fn;
}

} // namespace

bool tc_encode_map(CUtensorMap *map, CUtensorMapDataType type, int elem_bytes, const void *base, int64_t cols,
                   int64_t rows, int64_t stride_elems, int box_cols, int box_rows, CUtensorMapSwizzle swizzle,
                   const char *what, char *why, size_t why_len)
{
    PFN_cuTensorMapEncodeTiled_v12000 encode = encode_fn(why, why_len);
    if (!encode)
        return false;
    cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
    cuuint64_t strides[1] = {(cuuint64_t)(stride_elems * elem_bytes)};
    cuuint32_t box[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows};
    cuuint32_t unit[2] = {1, 1};
    CUresult r = encode(map, type, 2, (void *)base, dims, strides, box, unit, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        snprintf(why, why_len, "cuTensorMapEncodeTiled(%s): CUresult %d (must be 16-byte aligned)", what, (int)r);
        return false;
    }
    return true;
}

int tc_sm_count(char *why, size_t why_len)
{
    int dev = 0, sms = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (err != cudaSuccess) {
        snprintf(why, why_len, "cudaDeviceGetAttribute(multiprocessor count): %s", cudaGetErrorString(err));
        return 0;
    }
    return sms;
}
