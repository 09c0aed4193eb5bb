/* Host model of mp_dgemm's part: the part's rows of A and columns of B
 * taken from the whole operands (which every part's blocks filled, so a
 * wrong or missing block changes C), then the fma chain of dgemm's host
 * model (host_gemm.c) on them. Each entry of C is the same l-ordered chain
 * as in a one-process dgemm host run, whatever the grid: the bits are
 * dgemm's (tests/test_multi.sh). */
#include "cublasmp/cublasmp.h"

#include <stdio.h>
#include <stdlib.h>

#include "block_cyclic.h"
#include "common/host_gemm.h"

enum mpb_status mpb_mp_dgemm_host(const struct mpb_multi_part *part, const double *params,
                                  struct mpb_scheme_info *info)
{
    (void)params;
    const struct mpb_block_cyclic *c = &part->c;
    int64_t rows = mpb_bc_local_rows(c), cols = mpb_bc_local_cols(c), k = part->k;
    const double *whole_a = part->whole_a, *whole_b = part->whole_b;
    double *a_rows = malloc(sizeof *a_rows * (size_t)(rows * k + 1));
    double *b_cols = malloc(sizeof *b_cols * (size_t)(k * cols + 1));
    if (!a_rows || !b_cols) {
        free(a_rows);
        free(b_cols);
        snprintf(info->note, sizeof info->note, "out of host memory for a part's rows and columns");
        return MPB_STATUS_ERROR;
    }
    for (int64_t l = 0; l < k; l++)
        for (int64_t r = 0; r < rows; r++)
            a_rows[r + l * rows] = whole_a[mpb_bc_global_row(c, r) + l * part->m];
    for (int64_t j = 0; j < cols; j++)
        for (int64_t l = 0; l < k; l++)
            b_cols[l + j * k] = whole_b[l + mpb_bc_global_col(c, j) * k];
    mpb_host_gemm_f64(a_rows, b_cols, part->lc, rows, cols, k);
    free(a_rows);
    free(b_cols);
    return MPB_STATUS_OK;
}
