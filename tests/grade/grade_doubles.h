/* Test doubles for the grader: schemes whose grade and classes are known
 * from their construction (compiled into test_grade only, never into
 * mpbench). Host models only, fp64 target. */
#ifndef MPB_GRADE_DOUBLES_H
#define MPB_GRADE_DOUBLES_H

#include "case/plan.h"
#include "schemes/registry.h"

/* c ← c + a·b in l order, one rounding per operation: a conventional
 * floating-point GEMM (grade A, Test 1 conventional, Test 2 float). */
extern const struct mpb_scheme mpb_double_naive;

/* One level of Strassen's recursion (Strassen 1969; Higham §23.2.2) over
 * naive products of the half-size blocks, odd sizes padded with zeros: its
 * error is bounded normwise only (grade C, Test 1 Strassen-like). */
extern const struct mpb_scheme mpb_double_strassen;

/* A fixed-point product with a W-bit budget (parameter w): each row of A
 * and column of B scaled by a power of two to W-bit integers (rounded to
 * nearest), exact integer dot products, one rounding at the end. Test 2
 * finds it fixed; it loses A once the exponent span 2b exceeds W − 53.
 * Non-finite inputs fall back to the naive product, as emulations do. */
extern const struct mpb_scheme mpb_double_fixed;

/* A stand-in case for hand-made observations: the naive scheme, generator
 * `gen` at its defaults, k x k x k, seed 1, `text` as its case string. */
void mpb_double_case(struct mpb_case *c, const char *text, const char *gen, int64_t k);

#endif
