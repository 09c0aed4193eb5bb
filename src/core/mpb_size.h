/* Byte counts that cannot overflow. Products and sums saturate at SIZE_MAX,
 * which no allocation can satisfy, so a case whose sizes exceed size_t is
 * refused like one too large for the machine instead of wrapping to a small
 * malloc that the fill then overruns. Written without compiler builtins so
 * that C and CUDA code share it. */
#ifndef MPB_SIZE_H
#define MPB_SIZE_H

#include <stddef.h>
#include <stdint.h>

static inline size_t mpb_size_mul(size_t a, size_t b)
{
    return a != 0 && b > SIZE_MAX / a ? SIZE_MAX : a * b;
}

static inline size_t mpb_size_add(size_t a, size_t b)
{
    return b > SIZE_MAX - a ? SIZE_MAX : a + b;
}

static inline size_t mpb_size_mul3(size_t a, size_t b, size_t c)
{
    return mpb_size_mul(mpb_size_mul(a, b), c);
}

/* A count held in an int64_t (a dimension or a product of two): negative
 * counts nothing. */
static inline size_t mpb_size_count(int64_t v)
{
    return v < 0 ? 0 : (uint64_t)v > SIZE_MAX ? SIZE_MAX : (size_t)v;
}

/* rows·cols elements of `elem` bytes (a matrix, a stack of planes). */
static inline size_t mpb_size_matrix(int64_t rows, int64_t cols, size_t elem)
{
    return mpb_size_mul3(mpb_size_count(rows), mpb_size_count(cols), elem);
}

#endif
