/* `mpbench grade --devices`: the battery spread over several GPUs of a node.
 *
 * The unit of work is one (configuration, shape) pair: mpb_grade_run over
 * that one shape, every seed (Test 2's b sweep is per shape), which gives
 * a partial verdict. The parent (cmd_grade.c) starts one worker per GPU
 * through the worker pool (worker_pool.h): `grade` with its own options
 * plus the hidden `--worker ORDINAL,RUN_ID`; units go out largest
 * (m n k times seeds) first. A worker's reply is whether its GPU failed for
 * good, the partial verdict (the struct's bytes: the same binary on both
 * sides) and the unit's cases as CSV records. The parent takes the units in
 * (configuration, shape) order as they complete: their rows to the cases
 * CSV, their verdicts merged (mpb_verdict_merge), so that rows, verdicts
 * and table are those of a one-process run. A worker that dies costs the
 * unit it held: its configuration counts the battery's cases of that shape
 * as errors, with a warning naming the GPU. */
#ifndef MPB_GRADE_DEVICES_H
#define MPB_GRADE_DEVICES_H

#include <stdbool.h>
#include <stdio.h>

#include "record/csv.h"
#include "grade/grade.h"

struct mpb_grade_devices {
    const struct mpb_grade_config *cfgs;
    int n_cfgs;
    const struct mpb_grade_shape *shapes;
    int n_shapes;
    int seeds;
    int argc;
    char **argv;                     /* grade's own arguments, to start the workers with */
    const char *run_id;
    const int *devices;              /* --devices: the ordinals, or every GPU when devices_all */
    int n_devices;
    bool devices_all;
    struct mpb_csv *cases_csv;       /* NULL: no --cases-csv */
    const char *cases_path;
    bool show_progress;
    struct mpb_verdict *verdicts;    /* out: one per configuration, settled */
    /* Configuration `cfg`'s verdict is settled (called in configuration order);
     * false when its output failed (the run goes on, exit 3). */
    bool (*on_config)(void *ctx, int cfg);
    void *ctx;
    struct mpb_device_info *gpus;    /* out: the workers' GPUs (MPB_MAX_DEVICES entries) */
    int n_gpus;                      /* out */
    bool io_failed;                  /* out: the cases CSV or on_config failed */
};

/* Grade every configuration over the workers. Returns MPB_EXIT_OK, or the
 * exit code of a failure before any unit ran (no such GPU, no memory). */
int mpb_grade_devices_run(struct mpb_grade_devices *d);

/* A unit's partial verdict when it did not come back, or could not run:
 * the battery's cases of `cfg` at `shape` count as errors, `why` in the
 * warnings. */
void mpb_grade_unit_lost(struct mpb_verdict *v, const struct mpb_grade_config *cfg,
                         const struct mpb_grade_shape *shape, int seeds, const char *why);

/* Worker side: unit `unit`'s reply. */
bool mpb_grade_send_unit(FILE *f, int unit, bool sticky, const struct mpb_verdict *v, const char *records,
                         size_t records_len);

#endif
