/* Device fills equal host fills bit for bit (every generator, both targets,
 * awkward and ~1000 sizes; whole operands and one part's blocks of a 2x3
 * block-cyclic grid), and a 16384² phi fill takes < 50 ms (CUDA
 * events; the bound comes from the design: 268M elements in milliseconds).
 * Exits 77 without a GPU. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block_cyclic.h"
#include "cuda_env.h"
#include "generators.h"

#define PHI_SIDE 16384
#define PHI_LIMIT_MS 50.0

static int failures = 0;

static bool make_config(struct mpb_gen_config *cfg, const struct mpb_generator *gen,
                        enum mpb_target t, int64_t m, int64_t n, int64_t k, uint64_t seed)
{
    double params[MPB_MAX_PARAMS];
    char why[256] = "";
    mpb_param_defaults(gen->params, gen->n_params, params);
    int rate = mpb_param_find(gen->params, gen->n_params, "rate");
    if (rate >= 0) /* make special inject often enough to be compared */
        params[rate] = 0.05;
    if (gen->resolve && !gen->resolve(params, t, m, n, k, why, sizeof why)) {
        printf("FAIL gen=%s m=%lld n=%lld k=%lld: defaults do not resolve: %s\n", gen->name,
               (long long)m, (long long)n, (long long)k, why);
        failures++;
        return false;
    }
    mpb_gen_config_init(cfg, gen, params, t, m, n, k, seed);
    return true;
}

/* Fill one operand (part `part` of a 2x3 grid with blocks of 64, or the
 * whole operand when part < 0) on both sides and compare the bytes. */
static enum mpb_status compare_operand(struct mpb_cuda_env *env, const struct mpb_gen_config *cfg,
                                       enum mpb_operand which, int part, const char *desc)
{
    int64_t rows = which == MPB_OPERAND_A ? cfg->m : cfg->k;
    int64_t cols = which == MPB_OPERAND_A ? cfg->k : cfg->n;
    struct mpb_block_cyclic d = {.rows = rows, .cols = cols, .mb = 64, .nb = 64, .nprow = 2, .npcol = 3,
                                 .prow = part % 2, .pcol = part / 2};
    if (part >= 0) {
        rows = mpb_bc_local_rows(&d);
        cols = mpb_bc_local_cols(&d);
    }
    size_t bytes = (size_t)(rows * cols) * mpb_target_size(cfg->target);
    void *host = malloc(bytes), *back = malloc(bytes), *dev = NULL;
    enum mpb_status st = mpb_cuda_alloc(env, &dev, bytes);
    if (st == MPB_STATUS_OK)
        st = mpb_cuda_memset(env, dev, 0xA5, bytes);
    if (st == MPB_STATUS_OK)
        st = part < 0 ? mpb_gen_fill_cuda(env, cfg, which, dev) : mpb_gen_fill_cuda_cyclic(env, cfg, which, &d, dev);
    if (st == MPB_STATUS_OK)
        st = mpb_cuda_download(env, back, dev, bytes);
    if (st == MPB_STATUS_OK)
        st = mpb_cuda_sync(env);
    if (st == MPB_STATUS_OK) {
        if (part < 0)
            mpb_gen_fill_host(cfg, which, host);
        else
            mpb_gen_fill_host_cyclic(cfg, which, &d, host);
        if (memcmp(host, back, bytes) != 0) {
            size_t first = 0;
            while (((const char *)host)[first] == ((const char *)back)[first])
                first++;
            printf("FAIL [%s] %s part %d: device fill differs from host fill (first at element %zu)\n",
                   desc, which == MPB_OPERAND_A ? "A" : "B", part,
                   first / mpb_target_size(cfg->target));
            failures++;
        }
    } else {
        printf("FAIL [%s]: %s\n", desc, mpb_cuda_last_error(env));
        failures++;
    }
    mpb_cuda_free(env, dev);
    free(host);
    free(back);
    return st;
}

/* Best of 3 after a warm-up: the bound is about what the kernel can do,
 * not about noise from a shared machine. */
static bool time_phi(struct mpb_cuda_env *env, double *best_ms)
{
    struct mpb_gen_config cfg;
    if (!make_config(&cfg, mpb_generator_find("phi"), MPB_TARGET_FP64, PHI_SIDE, PHI_SIDE,
                     PHI_SIDE, 1))
        return false;
    size_t bytes = (size_t)PHI_SIDE * PHI_SIDE * sizeof(double);
    void *dev = NULL;
    cudaEvent_t start, stop;
    cudaStream_t stream = (cudaStream_t)mpb_cuda_stream(env);
    if (mpb_cuda_alloc(env, &dev, bytes) != MPB_STATUS_OK)
        return false;
    bool ok = cudaEventCreate(&start) == cudaSuccess && cudaEventCreate(&stop) == cudaSuccess;
    ok = ok && mpb_gen_fill_cuda(env, &cfg, MPB_OPERAND_A, dev) == MPB_STATUS_OK;
    *best_ms = 1e30;
    for (int rep = 0; ok && rep < 3; rep++) {
        float ms = 0;
        ok = cudaEventRecord(start, stream) == cudaSuccess &&
             mpb_gen_fill_cuda(env, &cfg, MPB_OPERAND_A, dev) == MPB_STATUS_OK &&
             cudaEventRecord(stop, stream) == cudaSuccess &&
             cudaEventSynchronize(stop) == cudaSuccess &&
             cudaEventElapsedTime(&ms, start, stop) == cudaSuccess;
        if (ms < *best_ms)
            *best_ms = ms;
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    mpb_cuda_free(env, dev);
    return ok;
}

int main(void)
{
    char why[256] = "";
    struct mpb_cuda_env *env = mpb_cuda_open(0, why, sizeof why);
    if (env == NULL) {
        printf("skip: no CUDA device (%s)\n", why);
        return 77;
    }
    const int64_t shapes[][3] = {{1, 1, 1}, {7, 7, 7}, {33, 330, 33}, {1000, 1023, 1025},
                                 {1025, 1000, 1023}};
    const enum mpb_target targets[] = {MPB_TARGET_FP64, MPB_TARGET_FP32};
    for (int ti = 0; ti < 2; ti++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int g = 0; g < mpb_n_generators; g++) {
                const struct mpb_generator *gen = mpb_generators[g];
                if (gen->from_files)
                    continue; /* its device fill uploads the host fill */
                struct mpb_gen_config cfg;
                int64_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
                char desc[160];
                snprintf(desc, sizeof desc, "gen=%s target=%s m=%lld n=%lld k=%lld seed=3",
                         gen->name, targets[ti] == MPB_TARGET_FP32 ? "fp32" : "fp64",
                         (long long)m, (long long)n, (long long)k);
                if (!make_config(&cfg, gen, targets[ti], m, n, k, 3))
                    continue;
                /* the whole operands; one part's blocks at the large shapes */
                for (int part = -1; part < (m >= 1000 ? 6 : 0); part++)
                    if (compare_operand(env, &cfg, MPB_OPERAND_A, part, desc) != MPB_STATUS_OK ||
                        compare_operand(env, &cfg, MPB_OPERAND_B, part, desc) != MPB_STATUS_OK)
                        goto done;
            }
    double ms;
    if (!time_phi(env, &ms)) {
        printf("FAIL phi %dx%d timing run: %s\n", PHI_SIDE, PHI_SIDE, mpb_cuda_last_error(env));
        failures++;
    } else {
        printf("phi fp64 %dx%d fill: %.2f ms (%.0f GB/s written)\n", PHI_SIDE, PHI_SIDE, ms,
               (double)PHI_SIDE * PHI_SIDE * 8 / (ms * 1e6));
        if (ms > PHI_LIMIT_MS) {
            printf("FAIL phi fill %.2f ms > %.0f ms\n", ms, PHI_LIMIT_MS);
            failures++;
        }
    }
done:
    mpb_cuda_close(env);
    printf(failures ? "test_gen_device: %d failure(s)\n" : "test_gen_device: ok\n", failures);
    return failures ? 1 : 0;
}
