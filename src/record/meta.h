/* The <csv>.meta.json sidecar: argv, host, GPU properties and clocks,
 * library versions and build flags of each run that wrote the CSV. */
#ifndef MPB_META_H
#define MPB_META_H

#include <stdbool.h>
#include <stdio.h>
#include "cuda_env.h"
#include "case/plan.h"

struct mpb_run_meta {
    const char *run_id;
    int argc;
    char **argv;
    const struct mpb_plan *plan;
    enum mpb_impl impl;
    int warmup, reps;                  /* as used (the backend's defaults resolved) */
    const struct mpb_device_info *dev; /* NULL on host; run --devices: the first GPU */
    const struct mpb_device_info *devices; /* run --devices: every GPU's (n_devices) */
    int n_devices;
    char started_utc[32], finished_utc[32];
    int cases_total, cases_this_shard, cases_resumed, cases_run;
    int status_counts[MPB_STATUS_SKIPPED + 1];
    bool interrupted;                  /* a sticky error or a stop signal (mpb_stop.h) ended the sweep early */
};

/* Earlier runs' entries of an existing sidecar (for --resume), or "" when there
 * is none; NULL with a reason when the file exists but is not ours. */
char *mpb_meta_previous_runs(const char *path, char *why, size_t why_len);
/* Whether mpb_meta_write can write `path` (its temporary file can be made;
 * `path` and that file are each a regular file or new, outpath.h): checked
 * before the first case. False with a reason naming the file. */
bool mpb_meta_check(const char *path, char *why, size_t why_len);

/* (Re)write the sidecar: previous runs, then this one (none when `m` is
 * NULL: mpbench merge writes the parts' runs). */
bool mpb_meta_write(const char *path, const char *previous, const struct mpb_run_meta *m);

/* One run record of a sidecar, as mpbench merge reads it back. */
struct mpb_meta_run {
    const char *text; /* the record as written (in the file's text), to write it again */
    size_t len;
    char *run_id, *backend, *shard, *version, *git_sha; /* backend: the impl, "cuda" or "host" */
    long csv_schema_version;
    char **argv;      /* argv[0] is "run" */
    int argc;
};

struct mpb_meta_file {
    char *text;
    struct mpb_meta_run *runs;
    int n_runs;
};

/* Read sidecar `path` back. False with a reason naming the file when it
 * cannot be read, is not JSON, or a run record lacks a member above; errno
 * is then ENOMEM when memory ran out, else EINVAL. */
bool mpb_meta_read(const char *path, struct mpb_meta_file *out, char *why, size_t why_len);
void mpb_meta_file_free(struct mpb_meta_file *m);

/* JSON string literal of `s` (quotes included). */
void mpb_json_string(FILE *f, const char *s);
void mpb_utc_now(char *buf, size_t len);
/* A run identifier: UTC time stamp plus 24 bits from the clock's nanoseconds and the pid. */
void mpb_make_run_id(char *buf, size_t len);

#endif
