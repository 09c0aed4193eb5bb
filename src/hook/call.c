/* What every mode needs of a call (hook.h): whether its operands can be
 * read, and op(A), op(B) or C packed from host or device memory. Below
 * hook.c (the modes) and trace.c (the recording), which both use it. */
#define _GNU_SOURCE
#include "hook/hook.h"

#include <stdlib.h>
#include <string.h>

#include "hook/hook_cuda.h"

/* The rows and columns of a stored operand: what a valid call's leading
 * dimension must cover. */
static bool ld_ok(int64_t ld, bool row_major, int64_t rows, int64_t cols)
{
    int64_t need = row_major ? cols : rows;
    return ld >= (need > 1 ? need : 1);
}

bool mpb_hook_call_valid(const struct mpb_hook_call *c)
{
    bool ta = c->transa != 'N', tb = c->transb != 'N';
    return c->transa != '?' && c->transb != '?' && c->m >= 0 && c->n >= 0 && c->k >= 0 &&
           ld_ok(c->lda, c->row_major, ta ? c->k : c->m, ta ? c->m : c->k) &&
           ld_ok(c->ldb, c->row_major, tb ? c->n : c->k, tb ? c->k : c->n) && ld_ok(c->ldc, c->row_major, c->m, c->n);
}

/* op(X) packed from X stored at src with leading dimension ld. */
static void *pack_from(const struct mpb_hook_call *c, char which, const char *src, int64_t ld)
{
    bool trans = which == 'A' ? c->transa != 'N' : which == 'B' ? c->transb != 'N' : false;
    bool conj = c->field == MPB_FIELD_COMPLEX && (which == 'A' ? c->transa : which == 'B' ? c->transb : 'N') == 'C';
    int64_t rows = which == 'B' ? c->k : c->m, cols = which == 'A' ? c->k : c->n;
    size_t elem = mpb_elem_size(c->target, c->field);
    char *out = malloc(elem * (size_t)(rows > 0 && cols > 0 ? rows * cols : 1));
    if (!out)
        return NULL;
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            /* op(X)(i, j) is stored X(i, j), or X(j, i) when transposed */
            int64_t r = trans ? j : i, s = trans ? i : j;
            size_t at = c->row_major ? (size_t)(r * ld + s) : (size_t)(r + s * ld);
            char *to = out + elem * (size_t)(i + j * rows);
            memcpy(to, src + elem * at, elem);
            if (conj && c->target == MPB_TARGET_FP64)
                ((double *)to)[1] = -((double *)to)[1];
            else if (conj)
                ((float *)to)[1] = -((float *)to)[1];
        }
    return out;
}

void *mpb_hook_pack(const struct mpb_hook_call *c, char which)
{
    const void *src = which == 'A' ? c->a : which == 'B' ? c->b : c->c;
    int64_t ld = which == 'A' ? c->lda : which == 'B' ? c->ldb : c->ldc;
    if (!c->device)
        return pack_from(c, which, src, ld);
    int64_t rows;
    void *stored = mpb_hook_cuda_stored(c, which, &rows);
    void *out = stored ? pack_from(c, which, stored, rows) : NULL;
    free(stored);
    return out;
}
