/* `mpbench gate`: compare a candidate results CSV with a baseline, case by
 * case (joined on case_id), for driver and library upgrades (README
 * "Gating a driver upgrade"). */
#ifndef MPB_GATE_H
#define MPB_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include "record/csv.h"

/* One results CSV, as mpbench writes it (gate_load.c, gate_row.c). */
struct mpb_gate_file {
    const char *path;
    struct mpb_row *rows;         /* data rows, file order; one per case_id */
    int n_rows;
    const struct mpb_row **by_id; /* the same, sorted by case_id */
};

/* False with a reason (exit 3) naming the file, and the line and column
 * where there is one, when it cannot be read or is not what mpbench
 * writes: a header that is not one schema_version's exact column list, a
 * row of another schema_version, a cell a verdict reads that is not in the
 * writer's grammar (a nan or negative error, a grade other than A, B, C,
 * F, m = 0...) or that contradicts the rest of its row (a grade its ρ do
 * not give, errors without a reference...), a case_id twice, a line end
 * other than LF, a truncated last record. */
bool mpb_gate_load(struct mpb_gate_file *f, const char *path, char *why, size_t why_len);
void mpb_gate_free(struct mpb_gate_file *f);

/* A cell's text; "" when empty, or when `row` is NULL. */
const char *mpb_gate_cell(const struct mpb_row *row, enum mpb_col col);

/* A version column over the rows: its value, NULL when every cell is
 * empty, "mixed" when two non-empty cells differ. */
const char *mpb_gate_version(const struct mpb_gate_file *f, enum mpb_col col);

enum mpb_gate_acc {
    MPB_GATE_ACC_SAME,         /* identical out_hash (or the same failed status) */
    MPB_GATE_ACC_CHANGED,      /* other bits, errors and grade within tolerance */
    MPB_GATE_ACC_WORSE,        /* an error grew past it, the grade dropped, or status left ok */
    MPB_GATE_ACC_MISSING,      /* case only in the baseline */
    MPB_GATE_ACC_NEW,          /* case only in the candidate */
    MPB_GATE_ACC_INCOMPARABLE, /* scheme_version, gpu_name or impl differ, or checked
                                  on both sides but graded on one only */
    MPB_GATE_ACC_COUNT
};

enum mpb_gate_perf {
    MPB_GATE_PERF_NONE, /* "-": not two cuda rows with status ok */
    MPB_GATE_PERF_SAME,
    MPB_GATE_PERF_FAST,
    MPB_GATE_PERF_SLOW,
    MPB_GATE_PERF_AMBIGUOUS, /* fewer than 3 reps, or no time, on a side */
    MPB_GATE_PERF_COUNT
};

struct mpb_gate_tol {
    double perf_pct;   /* --perf-tol: time ratio band, percent */
    double min_ms;     /* --min-ms: shorter calls get no speed verdict */
    double err_factor; /* --err-tol: allowed growth of each error column */
    bool pair_params;  /* --pair-params: join MISSING with NEW rows that differ in params only */
};

#define MPB_GATE_PERF_MIN_REPS 3

/* Error floors: a baseline error below a thousandth of a rounding counts
 * as that much, so 0 → 1e-30 is not a regression. The err_* columns are
 * relative errors (floor 2^-10·u, u = 2^-53 fp64 or 2^-24 fp32 from the
 * target column); the ρ columns are already in units of u (floor 2^-10). */
#define MPB_GATE_FLOOR_LOG2 (-10)

struct mpb_gate_pair {
    const struct mpb_row *base, *cand; /* NULL for NEW, MISSING */
    enum mpb_gate_acc acc;
    enum mpb_gate_perf perf;
    double time_ratio; /* candidate / baseline median time; NaN without both */
    double worst_err;  /* max candidate / max(baseline, floor) over the error
                          columns compared; +Inf when one lost its value; NaN
                          when none was compared */
    char why[256];     /* what decided a non-SAME verdict, for people */
    bool paired;       /* joined by --pair-params: the same case but for params */
    bool added_defaults; /* joined as the same case with parameters added at their defaults */
};

struct mpb_gate_result {
    struct mpb_gate_pair *pairs; /* baseline order, then NEW rows in candidate order */
    int n_pairs;
    int n_compared; /* pairs with both sides: a gate that compared none fails */
    /* MISSING rows with a NEW row the same case but for scheme parameters
     * (paired with --pair-params, else a hint), and the first such two. */
    int n_param_pairs;
    const struct mpb_row *param_pair_base, *param_pair_cand;
    int acc_count[MPB_GATE_ACC_COUNT];
    int perf_count[MPB_GATE_PERF_COUNT];
};

bool mpb_gate_compare(const struct mpb_gate_file *base, const struct mpb_gate_file *cand,
                      const struct mpb_gate_tol *tol, struct mpb_gate_result *res);
void mpb_gate_result_free(struct mpb_gate_result *res);

/* Whether the gate fails: any WORSE, SLOW, MISSING or INCOMPARABLE, or no
 * case_id in both files (nothing compared). */
bool mpb_gate_failed(const struct mpb_gate_result *res);

/* What a gate can fail on, one verdict each: accuracy (WORSE), speed
 * (SLOW), missing (MISSING), incomparable (INCOMPARABLE), nothing compared. */
enum mpb_gate_category {
    MPB_GATE_FAILS_ACCURACY,
    MPB_GATE_FAILS_SPEED,
    MPB_GATE_FAILS_MISSING,
    MPB_GATE_FAILS_INCOMPARABLE,
    MPB_GATE_FAILS_NOTHING_COMPARED,
    MPB_GATE_CATEGORY_COUNT
};
bool mpb_gate_category_failed(const struct mpb_gate_result *res, enum mpb_gate_category c);
const char *mpb_gate_category_name(enum mpb_gate_category c);
/* "accuracy (4 WORSE), speed (1 SLOW), ...": the categories that failed. */
void mpb_gate_fail_categories(const struct mpb_gate_result *res, char *buf, size_t len);

const char *mpb_gate_acc_name(enum mpb_gate_acc a);
const char *mpb_gate_perf_name(enum mpb_gate_perf p);

#endif
