/* A chain at one seed as a tuning problem (strategy.h): its inputs, its
 * FP64 reference (the same chain with every GEMM a dgemm and every
 * elementwise step in double, on the same FP32 inputs), and its FP32 runs
 * under levels, whose op outputs are kept so that a run reuses every
 * output its configuration leaves unchanged. */
#ifndef MPB_TUNE_PROBLEM_H
#define MPB_TUNE_PROBLEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tune/chain.h"
#include "tune/device.h"
#include "tune/level.h"

/* The error of an output against its reference (moTuner §4.2): E_gamma
 * = ||X - X_ref||_F / ||X_ref||_F (the reference's norm, as MixPert's
 * Eq. 10), or E_delta = max |X - X_ref|. A non-finite entry errs +Inf. */
enum mpb_tune_metric { MPB_TUNE_FRO_REL, MPB_TUNE_ABS };
extern const char *const mpb_tune_metric_names[]; /* "fro_rel", "abs" */
double mpb_tune_error(enum mpb_tune_metric metric, const float *x, const double *ref, int64_t count);
/* The same from the sums (on the GPU they are reduced there). */
double mpb_tune_error_of_sums(enum mpb_tune_metric metric, const struct mpb_tune_error_sums *s);

struct mpb_tune_chain_run {
    const struct mpb_tune_chain *chain;
    const struct mpb_tune_level *levels; /* the problem's levels, by index */
    const struct mpb_tune_exec *exec;
    enum mpb_tune_metric metric;
    float *run[MPB_TUNE_MAX_BUFFERS];   /* the FP32 chain (inputs included) */
    double *ref[MPB_TUNE_MAX_BUFFERS];  /* the FP64 chain */
    const struct mpb_tune_level *cached[MPB_TUNE_MAX_OPS]; /* what each op's output was made with */
    /* Each op alone: its inputs as the FP64 chain has them, rounded to FP32,
     * and dgemm's product of those (made when first asked for). */
    float *alone_a[MPB_TUNE_MAX_OPS], *alone_b[MPB_TUNE_MAX_OPS], *alone_c;
    double *alone_ref[MPB_TUNE_MAX_OPS];
    /* On the GPU the FP32 chain stays there from open to close: each
     * buffer's and alone operand's device copy (all NULL on the host
     * backend), run[] and alone_c their host mirrors, downloaded only when
     * a host step (the factorisation's) or the refined solve reads one that
     * the GPU rewrote (stale). The error check runs there too, against
     * device copies of the references it reads (made at its first check). */
    void *dev[MPB_TUNE_MAX_BUFFERS], *alone_dev_a[MPB_TUNE_MAX_OPS], *alone_dev_b[MPB_TUNE_MAX_OPS], *alone_dev_c;
    bool stale[MPB_TUNE_MAX_BUFFERS];
    void *ref_dev[MPB_TUNE_MAX_BUFFERS], *alone_ref_dev[MPB_TUNE_MAX_OPS], *sums_scratch;
    double *column; /* the factorisation steps' sums: a column of the largest buffer */
};

/* The memory a tuning of chain c under `levels` takes at most, decided
 * before anything is allocated (as the runner's mpb_case_memory): bytes of
 * host and (on_device) device memory for the two chain runs a tuning holds
 * open (the tuning seed's and the validation's), each op's operands alone,
 * the reference's staging and the largest workspace of a level, dgemm or
 * sgemm at any op's shape; saturating at SIZE_MAX. */
void mpb_tune_chain_memory(const struct mpb_tune_chain *c, const struct mpb_tune_level *levels, int n_levels,
                           bool on_device, size_t *host, size_t *device);

/* Inputs from `seed` and the FP64 reference; false with why. */
bool mpb_tune_chain_run_open(struct mpb_tune_chain_run *r, const struct mpb_tune_chain *chain,
                             const struct mpb_tune_level *levels, const struct mpb_tune_exec *exec,
                             enum mpb_tune_metric metric, uint64_t seed, char *why, size_t why_len);
void mpb_tune_chain_run_close(struct mpb_tune_chain_run *r);

/* strategy.h's evaluate and standalone, ctx a struct mpb_tune_chain_run. */
bool mpb_tune_chain_run_evaluate(void *ctx, const int *levels, int last, double *op_err, double *out_err,
                                 int *gemms, char *why, size_t why_len);
bool mpb_tune_chain_run_standalone(void *ctx, int op, int level, double *err, char *why, size_t why_len);

/* The whole chain with op i under per_op[i], every GEMM timed: the sum of
 * the GEMMs' times in *ms (elementwise steps untimed) and the output's
 * error in *err. */
bool mpb_tune_chain_run_time(struct mpb_tune_chain_run *r, const struct mpb_tune_level *const *per_op, double *ms,
                             double *err, char *why, size_t why_len);

/* HPL-AI's check: the solve passes when its backward error is below this
 * times n ε (ε = 2⁻⁵³); refinement stops there or after MPB_TUNE_IR_MAX steps. */
#define MPB_TUNE_IR_SCALED_LIMIT 16
#define MPB_TUNE_IR_MAX 50

struct mpb_tune_refinement {
    int iterations;           /* refinement steps after the first solve */
    double backward_err;      /* ‖b - A x‖∞ / (‖A‖∞ ‖x‖∞ + ‖b‖∞) at the end */
    double tolerance;         /* MPB_TUNE_IR_SCALED_LIMIT n ε */
    double fp64_backward_err; /* the FP64 chain's factor's solve, unrefined */
};

/* For a factorisation chain (chain->factor.blocks > 0), after a run of the
 * whole chain: A x = b solved with its factor, refined in FP64 (HPL-AI:
 * x += (L Lᵀ)⁻¹ (b - A x), the residual in double), and the FP64 chain's
 * solve as the yardstick. */
bool mpb_tune_chain_run_refine(struct mpb_tune_chain_run *r, struct mpb_tune_refinement *out, char *why,
                               size_t why_len);

/* Op `op` alone under `level`, timed (the measured cost model). */
bool mpb_tune_chain_run_profile(struct mpb_tune_chain_run *r, const struct mpb_tune_level *level, int op,
                                double *ms, char *why, size_t why_len);

#endif
