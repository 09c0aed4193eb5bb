/* The 2-D block-cyclic distribution of ScaLAPACK and cuBLASMp: an R×C
 * matrix cut into mb×nb blocks, block (I, J) on process (I mod nprow,
 * J mod npcol) of an nprow×npcol grid, the first block on process (0, 0)
 * (rsrc = csrc = 0). A process stores its blocks column-major in one local
 * array of numroc(R) rows and numroc(C) columns, blocks in order (the
 * ScaLAPACK Users' Guide §4.3.1; cuBLASMp's cublasMpNumroc is the same
 * formula). Shared by the generators' fills of one process's blocks, the
 * distributed schemes and the host's gather of C. */
#ifndef MPB_BLOCK_CYCLIC_H
#define MPB_BLOCK_CYCLIC_H

#include <stdint.h>
#include "mpb_hd.h"

/* One process's view of one distributed matrix. */
struct mpb_block_cyclic {
    int64_t rows, cols;  /* the global matrix */
    int64_t mb, nb;      /* block rows, block columns (≥ 1) */
    int nprow, npcol;    /* the process grid */
    int prow, pcol;      /* this process */
};

/* Rows (or columns) of `n` that process `p` of `nprocs` holds with blocks
 * of `nb` (ScaLAPACK's NUMROC with isrcproc = 0). */
MPB_HD int64_t mpb_numroc(int64_t n, int64_t nb, int p, int nprocs)
{
    int64_t blocks = n / nb;                 /* whole blocks */
    int64_t count = blocks / nprocs * nb;    /* every process's share of whole rounds */
    int64_t extra = blocks % nprocs;         /* whole blocks of the last round */
    if (p < extra)
        count += nb;
    else if (p == extra)
        count += n % nb;                     /* the partial last block */
    return count;
}

MPB_HD int64_t mpb_bc_local_rows(const struct mpb_block_cyclic *d)
{
    return mpb_numroc(d->rows, d->mb, d->prow, d->nprow);
}

MPB_HD int64_t mpb_bc_local_cols(const struct mpb_block_cyclic *d)
{
    return mpb_numroc(d->cols, d->nb, d->pcol, d->npcol);
}

/* The global index of local index `l` of process `p` (blocks of `nb`). */
MPB_HD int64_t mpb_bc_global(int64_t l, int64_t nb, int p, int nprocs)
{
    return (l / nb * nprocs + p) * nb + l % nb;
}

MPB_HD int64_t mpb_bc_global_row(const struct mpb_block_cyclic *d, int64_t local_row)
{
    return mpb_bc_global(local_row, d->mb, d->prow, d->nprow);
}

MPB_HD int64_t mpb_bc_global_col(const struct mpb_block_cyclic *d, int64_t local_col)
{
    return mpb_bc_global(local_col, d->nb, d->pcol, d->npcol);
}

#endif
