/* Matrix generators: descriptors (generators.c) and fills on host and device.
 * Element (i, j) of A or B is a pure function of (config, operand, i, j):
 * PCG32 with jump-ahead (pcg32.h) and deterministic arithmetic (gen_math.h),
 * so a device fill and a host fill give the same bits.
 * Constructions: README "Generators" and gen_element.h. */
#ifndef MPB_GENERATORS_H
#define MPB_GENERATORS_H

#include <stdbool.h>
#include <stdint.h>
#include "gemm.h"
#include "param.h"
#include "status.h"
#include "gen_config.h"

#ifdef __cplusplus
extern "C" {
#endif

struct mpb_generator {
    const char *name;
    enum mpb_gen_kind kind;
    const char *help;
    const struct mpb_param_spec *params;
    int n_params;
    /* Replace "auto" (NaN) parameters by their value for this case and check
     * the values against the target and shape; false with a reason when the
     * case cannot be generated (becomes a not_supported row). May be NULL. */
    bool (*resolve)(double *params, enum mpb_target target, int64_t m, int64_t n, int64_t k,
                    char *why, size_t why_len);
    /* Values that no target or shape can make (uniform's lo > hi): false
     * with a reason naming them, and the command line refuses them before
     * any case (a usage error). May be NULL. */
    bool (*validate)(const double *params, char *why, size_t why_len);
    bool complex_only; /* meaningless for real operands: a real case is not_supported */
    /* The operands come from files (-a a=PATH -a b=PATH, file_gen.h), not
     * from an element function: no params; the shape is the files'. */
    bool from_files;
};

extern const struct mpb_generator *const mpb_generators[];
extern const int mpb_n_generators;
const struct mpb_generator *mpb_generator_find(const char *name);

/* Build the POD config the element functions read (params already resolved):
 * real operands, or complex ones with mpb_gen_config_init_field. */
void mpb_gen_config_init(struct mpb_gen_config *cfg, const struct mpb_generator *gen,
                         const double *params, enum mpb_target target,
                         int64_t m, int64_t n, int64_t k, uint64_t seed);
void mpb_gen_config_init_field(struct mpb_gen_config *cfg, const struct mpb_generator *gen,
                               const double *params, enum mpb_target target, enum mpb_field field,
                               int64_t m, int64_t n, int64_t k, uint64_t seed);

/* Fill A (m×k) or B (k×n), column-major, elements of cfg->target's type
 * (two per complex element, interleaved). */
void mpb_gen_fill_host(const struct mpb_gen_config *cfg, enum mpb_operand which, void *dst);

struct mpb_cuda_env;
enum mpb_status mpb_gen_fill_cuda(struct mpb_cuda_env *env, const struct mpb_gen_config *cfg,
                                  enum mpb_operand which, void *dst);

/* Fill one process's blocks of A or B under the block-cyclic layout `d`
 * (block_cyclic.h; d->rows and d->cols are the operand's shape): the local
 * array, column-major with mpb_bc_local_rows(d) rows, holds the elements of
 * the whole-matrix fill at their global positions, bit for bit, so a
 * distributed GEMM sees the operands of a one-GPU run. */
struct mpb_block_cyclic;
void mpb_gen_fill_host_cyclic(const struct mpb_gen_config *cfg, enum mpb_operand which,
                              const struct mpb_block_cyclic *d, void *dst);
enum mpb_status mpb_gen_fill_cuda_cyclic(struct mpb_cuda_env *env, const struct mpb_gen_config *cfg,
                                         enum mpb_operand which, const struct mpb_block_cyclic *d,
                                         void *dst);

#ifdef __cplusplus
}
#endif

#endif
