/* The plain host GEMM, C = A·B column-major (lda = m, ldb = k, ldc = m),
 * each entry an fma chain in l order (host_gemm.c): the host model of
 * native dgemm and sgemm, of the low-precision schemes on rounded inputs,
 * and of adp's native fallback. Threaded over columns; the bits do not
 * depend on the thread count. */
#ifndef MPB_HOST_GEMM_H
#define MPB_HOST_GEMM_H

#include <stdint.h>

void mpb_host_gemm_f64(const double *a, const double *b, double *c, int64_t m, int64_t n,
                       int64_t k);
void mpb_host_gemm_f32(const float *a, const float *b, float *c, int64_t m, int64_t n,
                       int64_t k);

#endif
