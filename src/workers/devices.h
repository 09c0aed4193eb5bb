/* `mpbench run --devices`: one sweep over several GPUs of a node.
 *
 * The run (the parent) expands the plan, opens the CSV and its sidecar as
 * a one-GPU run does, and starts one worker per GPU (worker_pool.h): `run`
 * with the plan's own options plus the hidden `--worker ORDINAL,RUN_ID`.
 * The unit of work is one case, handed out by its index, longest (m n k)
 * first; a worker's reply is its status, whether the GPU failed for good,
 * its summary line and its CSV record. The parent writes each row to the
 * CSV as it comes, and at the end sorts the file into expansion order. A
 * worker that dies costs the case it held, which gets an `error` row
 * naming the GPU; a sticky CUDA error ends only that worker. */
#ifndef MPB_DEVICES_H
#define MPB_DEVICES_H

#include <stdbool.h>
#include <stdio.h>

#include "record/case_row.h"
#include "record/csv.h"
#include "record/meta.h"
#include "case/plan.h"
#include "record/summary.h"
#include "workers/worker_pool.h"

struct mpb_devices_run {
    const struct mpb_plan *plan;
    const struct mpb_case *cases;
    int n_cases;
    int argc;
    char **argv;                    /* the run's own arguments, to start the workers with */
    const char *run_id;
    struct mpb_csv *csv;
    struct mpb_run_meta *meta;      /* counts; dev and devices set from the workers */
    struct mpb_summary *summary;
    const struct mpb_row_context *ctx; /* for the rows of cases a dead worker held */
    bool show_progress;
};

/* The sweep over the plan's --devices: meta's counts and devices filled,
 * *io_failed when the CSV could not be written. Returns MPB_EXIT_OK, or the
 * exit code of a failure before any case ran (no such GPU). `devices`
 * (MPB_MAX_DEVICES entries) receives the workers' GPUs. */
int mpb_devices_sweep(struct mpb_devices_run *r, struct mpb_device_info *devices, bool *io_failed);

/* The cases of this shard that the CSV lacks: their positions in `cases`
 * in order into `todo` (NULL: only count them); m's this-shard and
 * already-in-CSV counts go up. Returns how many. */
int mpb_sweep_pending(const struct mpb_plan *plan, const struct mpb_case *cases, int n_cases,
                      const struct mpb_csv *csv, struct mpb_run_meta *m, int *todo);

/* Worker side: a case's reply. */
bool mpb_worker_send_row(FILE *f, int index, int status, bool sticky, const char *summary, const char *record,
                         size_t record_len);

#endif
