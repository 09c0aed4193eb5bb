/* Device code shared by the split kernels of Ozaki scheme II
 * (kernels/ozaki2/ozaki2.cu) and of adp's CRT engine (kernels/adp/adp.cu):
 * 8 integer-valued doubles to their int8 residues modulo each of the first
 * n moduli. */
#ifndef MPB_CRT_RESIDUES_CUH
#define MPB_CRT_RESIDUES_CUH

#include "common/crt_arith.h"

/* Elements per split thread: 8 int8 values are one 8-byte store, so a warp
 * writes whole 32-byte sectors (one byte per thread wrote 32 bytes per store
 * instruction). */
#define MPB_CRT_SPLIT_VEC 8

__device__ static inline unsigned mpb_crt_pack4(int8_t a, int8_t b, int8_t c, int8_t d)
{
    return (unsigned)(uint8_t)a | (unsigned)(uint8_t)b << 8 | (unsigned)(uint8_t)c << 16 |
           (unsigned)(uint8_t)d << 24;
}

/* Residues of x[0..7] (integers below 2^104 in magnitude) for moduli
 * t < n_moduli ≤ MAX, plane t at out + t·stride; unrolled over MAX so that
 * each modulus is a compile-time constant (mpb_crt_residue's division by it
 * becomes a multiplication). */
template <int MAX>
__device__ static inline void mpb_crt_write_residues8(const double *x, int n_moduli, int8_t *out,
                                                      size_t stride)
{
    struct mpb_crt_parts p[MPB_CRT_SPLIT_VEC];
    for (int v = 0; v < MPB_CRT_SPLIT_VEC; v++)
        p[v] = mpb_crt_split_parts(x[v]);
#pragma unroll
    for (int t = 0; t < MAX; t++) {
        if (t >= n_moduli)
            break;
        int8_t r[MPB_CRT_SPLIT_VEC];
        for (int v = 0; v < MPB_CRT_SPLIT_VEC; v++)
            r[v] = mpb_crt_residue(&p[v], t);
        *(uint2 *)(out + (size_t)t * stride) = make_uint2(mpb_crt_pack4(r[0], r[1], r[2], r[3]),
                                                          mpb_crt_pack4(r[4], r[5], r[6], r[7]));
    }
}

#endif
