/* The double-double reference of a complex product as two real ones (each
 * part of C_ij is a real dot product of length 2k):
 *     Re C = [Ar, −Ai]·[Br; Bi],    Im C = [Ai, Ar]·[Br; Bi],
 * the 2k real products that mpb_ref_mpfr sums for each part, so that the dd
 * values, their |A||B| and their check against MPFR are per part as the
 * exact reference's (reference.h). The operands are copied (negation is
 * exact for every value). */
#ifndef MPB_REF_DD_COMPLEX_H
#define MPB_REF_DD_COMPLEX_H

#include <stdbool.h>
#include "reference.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The real problems of complex g (host operands): `part_a[0]` = [Ar, −Ai]
 * and `part_a[1]` = [Ai, Ar] (m × 2k), `b` = [Br; Bi] (2k × n), all
 * column-major in g's target type, malloc'ed; `real` the shape (m, n, 2k,
 * g's target, real field) with its a, b and c left NULL. False when out of
 * memory (nothing left allocated). */
bool mpb_ref_dd_complex_parts(const struct mpb_gemm *g, void *part_a[2], void **b, struct mpb_gemm *real);

#ifdef __cplusplus
}
#endif

#endif
