/* One array written as NPY version 1.0 (numpy.load reads it): the writer
 * beside npy_read.c's parser, shared by `run --dump` and the BLAS hook's
 * recorded operands. */
#ifndef MPB_NPY_WRITE_H
#define MPB_NPY_WRITE_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* `descr` is "<f8", "<f4", "<c16", "<c8" or "<i8"; a column-major
 * rows×cols array (fortran_order True), or a vector when cols is 0. False
 * (errno set) when the file cannot be written. */
bool mpb_npy_write(const char *path, const char *descr, const void *data, int64_t rows, int64_t cols);

#ifdef __cplusplus
}
#endif

#endif
