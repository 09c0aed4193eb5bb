/* One process's blocks (block_cyclic.h): numroc shares every row out once,
 * the local-to-global map is a bijection onto the matrix, and the fill of
 * each part's blocks holds the whole fill's bits at their global places
 * (every generator, fp64, awkward shapes and grids). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block_cyclic.h"
#include "check.h"
#include "generators.h"

/* Every index 0..n-1 is some process's local index exactly once. */
static void check_map(int64_t n, int64_t nb, int nprocs)
{
    unsigned char *seen = calloc((size_t)n + 1, 1);
    int64_t total = 0;
    for (int p = 0; p < nprocs; p++) {
        int64_t count = mpb_numroc(n, nb, p, nprocs);
        total += count;
        for (int64_t l = 0; l < count; l++) {
            int64_t g = mpb_bc_global(l, nb, p, nprocs);
            CHECK(g >= 0 && g < n, "n=%lld nb=%lld P=%d: process %d local %lld maps to %lld", (long long)n,
                  (long long)nb, nprocs, p, (long long)l, (long long)g);
            if (g >= 0 && g < n)
                seen[g]++;
            CHECK(mpb_bc_global(l, nb, p, nprocs) / nb % nprocs == p, "block of %lld not on process %d",
                  (long long)g, p);
        }
    }
    CHECK(total == n, "n=%lld nb=%lld P=%d: numroc sums to %lld", (long long)n, (long long)nb, nprocs,
          (long long)total);
    for (int64_t g = 0; g < n; g++)
        CHECK(seen[g] == 1, "n=%lld nb=%lld P=%d: index %lld held %d times", (long long)n, (long long)nb,
              nprocs, (long long)g, seen[g]);
    free(seen);
}

/* Each part's fill against the whole fill of one operand. */
static void check_fill(const struct mpb_gen_config *cfg, enum mpb_operand which, int64_t block, int nprow,
                       int npcol, const char *gen)
{
    int64_t rows = which == MPB_OPERAND_A ? cfg->m : cfg->k, cols = which == MPB_OPERAND_A ? cfg->k : cfg->n;
    double *whole = malloc(sizeof *whole * (size_t)(rows * cols + 1));
    double *local = malloc(sizeof *local * (size_t)(rows * cols + 1));
    mpb_gen_fill_host(cfg, which, whole);
    for (int pr = 0; pr < nprow; pr++)
        for (int pc = 0; pc < npcol; pc++) {
            struct mpb_block_cyclic d = {.rows = rows, .cols = cols, .mb = block, .nb = block,
                                         .nprow = nprow, .npcol = npcol, .prow = pr, .pcol = pc};
            int64_t lr = mpb_bc_local_rows(&d), lc = mpb_bc_local_cols(&d);
            mpb_gen_fill_host_cyclic(cfg, which, &d, local);
            int bad = 0;
            for (int64_t c = 0; c < lc; c++)
                for (int64_t r = 0; r < lr; r++) {
                    double want = whole[mpb_bc_global_row(&d, r) + mpb_bc_global_col(&d, c) * rows];
                    bad += memcmp(&want, &local[r + c * lr], sizeof want) != 0;
                }
            CHECK(bad == 0, "%s %c %lldx%lld block %lld grid %dx%d part (%d,%d): %d entries differ", gen,
                  which == MPB_OPERAND_A ? 'A' : 'B', (long long)rows, (long long)cols, (long long)block,
                  nprow, npcol, pr, pc, bad);
        }
    free(whole);
    free(local);
}

int main(void)
{
    const int64_t sizes[] = {1, 7, 33, 127, 128, 1000};
    const int64_t blocks[] = {1, 5, 16, 64, 2000};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (size_t j = 0; j < sizeof blocks / sizeof *blocks; j++)
            for (int p = 1; p <= 7; p++)
                check_map(sizes[i], blocks[j], p);

    const int64_t shapes[][3] = {{1, 1, 1}, {33, 7, 127}, {100, 130, 65}};
    const int grids[][3] = {{1, 1, 1}, {2, 3, 5}, {3, 2, 16}, {1, 4, 1}};
    for (int g = 0; g < mpb_n_generators; g++) {
        const struct mpb_generator *gen = mpb_generators[g];
        if (gen->from_files)
            continue; /* no element function: its operands are files (tests/test_file_gen.sh) */
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
            double params[MPB_MAX_PARAMS];
            char why[256];
            int64_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
            mpb_param_defaults(gen->params, gen->n_params, params);
            if (gen->resolve && !gen->resolve(params, MPB_TARGET_FP64, m, n, k, why, sizeof why))
                continue; /* a shape this generator cannot make */
            struct mpb_gen_config cfg;
            mpb_gen_config_init(&cfg, gen, params, MPB_TARGET_FP64, m, n, k, 5);
            for (size_t q = 0; q < sizeof grids / sizeof *grids; q++) {
                check_fill(&cfg, MPB_OPERAND_A, grids[q][2], grids[q][0], grids[q][1], gen->name);
                check_fill(&cfg, MPB_OPERAND_B, grids[q][2], grids[q][0], grids[q][1], gen->name);
            }
        }
    }
    return check_report("test_gen_cyclic");
}
