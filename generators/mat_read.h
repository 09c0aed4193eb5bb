/* A dense matrix read from a file's bytes: .npy (npy_read.c) or Matrix
 * Market `array` (mm_read.c). Either parser refuses what it cannot read
 * exactly, saying what is wrong and where (a byte offset, or a line), and
 * never allocates more than the file's bytes can fill. */
#ifndef MPB_MAT_READ_H
#define MPB_MAT_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "gemm.h"

struct mpb_mat {
    int64_t rows, cols;          /* each 1..2^31 */
    enum mpb_field field;
    enum mpb_target precision;   /* the file's: fp32 for float32/complex64, else fp64 */
    const char *dtype;           /* "float64", "float32", "complex128", "complex64"; Matrix Market: "real", "complex" */
    double *v;                   /* rows·cols entries, column-major, parts interleaved (real first) */
    int64_t not_fp32;            /* the first scalar of v that float cannot hold exactly; -1: none */
};

/* The first bytes of each format, for telling them apart. */
#define MPB_NPY_MAGIC "\x93NUMPY"
#define MPB_MM_BANNER "%%MatrixMarket"

/* .npy, format 1.0, 2.0 or 3.0, little-endian float64, float32, complex128
 * or complex64, C or Fortran order, 2-D, every value finite. `why` (no file
 * name) starts with "byte N: ". */
bool mpb_npy_parse(const uint8_t *buf, size_t len, struct mpb_mat *out, char *why, size_t why_len);

/* Matrix Market `matrix array real|complex general`, every value finite;
 * `why` starts with "line N: ". */
bool mpb_mm_parse(const uint8_t *buf, size_t len, struct mpb_mat *out, char *why, size_t why_len);

/* Set m->not_fp32 from m->v (after a parser filled it). */
void mpb_mat_find_not_fp32(struct mpb_mat *m);

void mpb_mat_free(struct mpb_mat *m);

#endif
