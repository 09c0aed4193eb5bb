/* One entry of a complex GEMM in floating point, shared by the host models
 * of zgemm/cgemm (4M) and zgemm3m/cgemm3m (3M) (native_complex_host.c).
 * Operands interleaved (real part first), column-major, lda = m, ldb = k.
 *
 * 4M: each part an fma chain in l order, as the real dgemm host model:
 *   Re ← fma(ar, br, Re); Re ← fma(−ai, bi, Re)
 *   Im ← fma(ar, bi, Im); Im ← fma(ai, br, Im)
 * 3M (Karatsuba, Higham SIMAX 13(3) 1992): three real products as fma
 * chains, T1 = Ar·Br, T2 = Ai·Bi, T3 = fl(Ar+Ai)·fl(Br+Bi), then
 * Re = fl(T1 − T2), Im = fl(fl(T3 − T1) − T2).
 * Written with fma() and no contraction (the project's rule), so the
 * order above is the order computed. */
#ifndef MPB_NATIVE_COMPLEX_ARITH_H
#define MPB_NATIVE_COMPLEX_ARITH_H

#include <math.h>
#include <stdint.h>
#include "mpb_hd.h"

#define MPB_COMPLEX_ENTRY(T, FMA, SUFFIX)                                                       \
    MPB_HD void mpb_c4m_entry_##SUFFIX(const T *a, const T *b, int64_t m, int64_t k, int64_t i, \
                                       int64_t j, T *re, T *im)                                 \
    {                                                                                           \
        T r = 0, s = 0;                                                                         \
        for (int64_t l = 0; l < k; l++) {                                                       \
            const T *x = a + 2 * (i + l * m), *y = b + 2 * (l + j * k);                         \
            r = FMA(x[0], y[0], r);                                                             \
            r = FMA(-x[1], y[1], r);                                                            \
            s = FMA(x[0], y[1], s);                                                             \
            s = FMA(x[1], y[0], s);                                                             \
        }                                                                                       \
        *re = r;                                                                                \
        *im = s;                                                                                \
    }                                                                                           \
    MPB_HD void mpb_c3m_entry_##SUFFIX(const T *a, const T *b, int64_t m, int64_t k, int64_t i, \
                                       int64_t j, T *re, T *im)                                 \
    {                                                                                           \
        T t1 = 0, t2 = 0, t3 = 0;                                                               \
        for (int64_t l = 0; l < k; l++) {                                                       \
            const T *x = a + 2 * (i + l * m), *y = b + 2 * (l + j * k);                         \
            T xs = x[0] + x[1], ys = y[0] + y[1];                                               \
            t1 = FMA(x[0], y[0], t1);                                                           \
            t2 = FMA(x[1], y[1], t2);                                                           \
            t3 = FMA(xs, ys, t3);                                                               \
        }                                                                                       \
        *re = t1 - t2;                                                                          \
        *im = (t3 - t1) - t2;                                                                   \
    }

MPB_COMPLEX_ENTRY(double, fma, f64)
MPB_COMPLEX_ENTRY(float, fmaf, f32)

#undef MPB_COMPLEX_ENTRY

#endif
