#include "ref_dd_complex.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Part `part` (0 real, 1 imaginary) of `count` consecutive complex values at
 * src into dst, negated when asked; es the size of a part (double or float). */
static void copy_part(void *dst, const void *src, int64_t count, int part, bool negate, size_t es)
{
    const unsigned char *s = (const unsigned char *)src + (size_t)part * es;
    unsigned char *d = dst;
    for (int64_t i = 0; i < count; i++, s += 2 * es, d += es) {
        if (!negate) {
            memcpy(d, s, es);
        } else if (es == sizeof(double)) {
            double x;
            memcpy(&x, s, es);
            x = -x;
            memcpy(d, &x, es);
        } else {
            float x;
            memcpy(&x, s, es);
            x = -x;
            memcpy(d, &x, es);
        }
    }
}

bool mpb_ref_dd_complex_parts(const struct mpb_gemm *g, void *part_a[2], void **b, struct mpb_gemm *real)
{
    const size_t es = mpb_target_size(g->target);
    const int64_t m = g->m, n = g->n, k = g->k;
    part_a[0] = malloc(es * (size_t)(m * 2 * k) + 1);
    part_a[1] = malloc(es * (size_t)(m * 2 * k) + 1);
    *b = malloc(es * (size_t)(2 * k * n) + 1);
    if (!part_a[0] || !part_a[1] || !*b) {
        free(part_a[0]);
        free(part_a[1]);
        free(*b);
        part_a[0] = part_a[1] = *b = NULL;
        return false;
    }
    const unsigned char *a = g->a, *bb = g->b;
    for (int64_t l = 0; l < k; l++) {
        const unsigned char *col = a + 2 * es * (size_t)(l * m);
        unsigned char *re = (unsigned char *)part_a[0], *im = (unsigned char *)part_a[1];
        copy_part(re + es * (size_t)(l * m), col, m, 0, false, es);
        copy_part(re + es * (size_t)((k + l) * m), col, m, 1, true, es);
        copy_part(im + es * (size_t)(l * m), col, m, 1, false, es);
        copy_part(im + es * (size_t)((k + l) * m), col, m, 0, false, es);
    }
    for (int64_t j = 0; j < n; j++) {
        const unsigned char *col = bb + 2 * es * (size_t)(j * k);
        unsigned char *out = (unsigned char *)*b + es * (size_t)(j * 2 * k);
        copy_part(out, col, k, 0, false, es);
        copy_part(out + es * (size_t)k, col, k, 1, false, es);
    }
    *real = (struct mpb_gemm){.m = m, .n = n, .k = 2 * k, .target = g->target, .field = MPB_FIELD_REAL};
    return true;
}
