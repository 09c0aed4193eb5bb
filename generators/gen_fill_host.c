/* Host fill: the same element function as the device kernel (gen_fill.cu),
 * so both produce the same bits; the file generator's operands copied. */
#include "generators.h"

#include "block_cyclic.h"
#include "file_gen.h"
#include "gen_element.h"

void mpb_gen_fill_host(const struct mpb_gen_config *cfg, enum mpb_operand which, void *dst)
{
    if (cfg->kind == MPB_GEN_FILE) {
        mpb_gen_files_fill(cfg->files, which, cfg->target, dst);
        return;
    }
    int64_t rows = mpb_gen_rows(cfg, which), cols = mpb_gen_cols(cfg, which);
    for (int64_t c = 0; c < cols; c++)
        for (int64_t r = 0; r < rows; r++)
            mpb_gen_fill_element(cfg, which, dst, r + c * rows, r, c);
}

void mpb_gen_fill_host_cyclic(const struct mpb_gen_config *cfg, enum mpb_operand which,
                              const struct mpb_block_cyclic *d, void *dst)
{
    int64_t rows = mpb_bc_local_rows(d), cols = mpb_bc_local_cols(d);
    for (int64_t c = 0; c < cols; c++) {
        int64_t gc = mpb_bc_global_col(d, c);
        for (int64_t r = 0; r < rows; r++)
            mpb_gen_fill_element(cfg, which, dst, r + c * rows, mpb_bc_global_row(d, r), gc);
    }
}
