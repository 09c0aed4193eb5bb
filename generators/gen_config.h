/* The POD a fill reads: everything element (i, j) depends on. Passed by
 * value to the fill kernel; read by the same MPB_HD code on the host. */
#ifndef MPB_GEN_CONFIG_H
#define MPB_GEN_CONFIG_H

#include <stdint.h>
#include "gemm.h"
#include "param.h"
#include "gen_bij.h"

struct mpb_gen_files;

enum mpb_gen_kind {
    MPB_GEN_UNIFORM,
    MPB_GEN_RANDN,
    MPB_GEN_PHI,
    MPB_GEN_TEST1A,
    MPB_GEN_TEST1B,
    MPB_GEN_TEST2,
    MPB_GEN_TEST2R,
    MPB_GEN_TEST3,
    MPB_GEN_OUTER,
    MPB_GEN_INNER,
    MPB_GEN_EVIL,
    MPB_GEN_SPECIAL,
    MPB_GEN_SMALLIM,
    MPB_GEN_FILE, /* no element function: the operands come from files (file_gen.h) */
};

enum mpb_operand { MPB_OPERAND_A = 0, MPB_OPERAND_B = 1 };

struct mpb_gen_config {
    enum mpb_gen_kind kind;
    enum mpb_target target;
    enum mpb_field field; /* complex: two parts per element (gen_element.h) */
    int64_t m, n, k;
    uint64_t seed;
    double p[MPB_MAX_PARAMS]; /* resolved parameters, in the descriptor's spec order */
    /* Derived by mpb_gen_config_init (generators.c) from the fields above;
     * precomputed once on the host so that every element reads them. */
    int64_t ip[MPB_MAX_PARAMS];  /* p[] as integers (INT and CHOICE parameters) */
    struct mpb_gen_bij bij_rows; /* test1a/test1b: rows of A, domain m */
    struct mpb_gen_bij bij_cols; /* test1a/test1b: columns of B, domain n */
    struct mpb_gen_bij bij_exp;  /* test2r: exponent positions (k); test3: period positions (n0) */
    uint64_t pair_key;           /* test1b: key of the per-pair permutations of 0..k−1 */
    uint64_t inject_below;       /* special: inject where a 32-bit draw is below this */
    /* file: the operands read on the host (never read on the device: the
     * device fill uploads the host fill); NULL for every other kind */
    const struct mpb_gen_files *files;
};

#endif
