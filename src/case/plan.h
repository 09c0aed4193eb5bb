/* What `mpbench run` was asked to do, and its expansion into cases. */
#ifndef MPB_PLAN_H
#define MPB_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include "generators.h"
#include "schemes/registry.h"

enum mpb_backend_choice { MPB_BACKEND_AUTO, MPB_BACKEND_CUDA, MPB_BACKEND_HOST };
enum mpb_impl { MPB_IMPL_CUDA, MPB_IMPL_HOST };
enum mpb_progress { MPB_PROGRESS_AUTO, MPB_PROGRESS_ALWAYS, MPB_PROGRESS_NEVER };
enum mpb_ref_choice { MPB_REF_MPFR, MPB_REF_NONE, MPB_REF_DD };

const char *mpb_impl_name(enum mpb_impl impl);
/* The words of --backend and --progress, in enum order, NULL-terminated. */
extern const char *const mpb_backend_words[];
extern const char *const mpb_progress_words[];
/* "mpfr", "none", "dd": the --ref word and the ref column. */
const char *mpb_ref_name(enum mpb_ref_choice ref);

/* One -s or -g name with the value lists given by its -a options. */
struct mpb_selection {
    const struct mpb_scheme *scheme;    /* set for -s */
    const struct mpb_generator *gen;    /* set for -g */
    const struct mpb_param_spec *specs;
    int n_specs;
    double *values[MPB_MAX_PARAMS];     /* each parameter's list (defaults: one value) */
    int n_values[MPB_MAX_PARAMS];
    bool added;                         /* run --vs-native added it: a target's native GEMM no -s named */
    struct mpb_gen_files *files;        /* -g of a from_files generator: its -a files, read by the CLI */
};

struct mpb_int_list {
    int n;
    int64_t *v;
};

/* The tags column (every --tag joined by ';') holds at most this many
 * characters; a longer one is refused, never cut. */
#define MPB_TAGS_MAX 1023
/* The tag of a row whose scheme run --vs-native added, after the --tag ones. */
#define MPB_TAG_ADDED "added=vs-native"

/* --devices takes at most this many GPU ordinals. */
#define MPB_MAX_DEVICES 64

struct mpb_plan {
    struct mpb_selection *schemes;
    int n_schemes;
    struct mpb_selection *gens;
    int n_gens;
    struct mpb_int_list sizes, ms, ns, ks, seeds;
    int warmup, reps;        /* -1: the backend's default */
    int warmup_ms;           /* > 0: untimed calls go on until this many ms have passed */
    int energy_min_ms;       /* --energy-min-ms: the energy window's minimum (mpb_energy.h) */
    bool energy_no_extend;   /* --no-energy-extend: a shorter window's energy is left empty */
    enum mpb_backend_choice backend;
    enum mpb_ref_choice ref;
    int64_t ref_samples;     /* random entries checked above the full-check size */
    const char *csv_path;    /* "-" = stdout */
    const char *dump_dir;    /* --dump: NULL = none */
    const char *jsonl_path;  /* --jsonl: NULL = none */
    bool resume;
    int shard_index, shard_count;
    enum mpb_progress progress;
    bool dry_run;
    bool vs_native;          /* --vs-native: max |C - C_native| per case, and each target's native GEMM run */
    char **tags;             /* "K=V"; joined by ';' at most MPB_TAGS_MAX characters */
    int n_tags;
    /* --devices: the GPU ordinals the sweep spreads over (one worker process
     * each); devices_all = every GPU. n_devices 0 and !devices_all: not given. */
    int devices[MPB_MAX_DEVICES];
    int n_devices;
    bool devices_all;
    /* The hidden --worker ORDINAL,RUN_ID that `run --devices` starts its
     * workers with (src/workers/devices.h); worker_device -1 otherwise. */
    int worker_device;
    const char *worker_run_id;
};

struct mpb_case {
    const struct mpb_scheme *scheme;
    double sp[MPB_MAX_PARAMS];
    const struct mpb_generator *gen;
    double gp[MPB_MAX_PARAMS];  /* resolved for this case when gen_ok */
    const struct mpb_gen_files *files; /* a from_files generator's operands (the plan's); else NULL */
    bool gen_ok;
    char gen_why[320];          /* why the generator cannot make this case */
    int64_t m, n, k;
    uint64_t seed;
    enum mpb_impl impl;
    bool added;                 /* of a selection --vs-native added (tags: MPB_TAG_ADDED) */
    int index;                  /* position in the full expansion, before sharding */
    char text[768];             /* canonical case string: pasted after `mpbench run`, reruns it */
    char id[17];                /* case_id: hex FNV-1a-64 of text */
};

/* "I/N" of --shard (and of a meta.json's shard): integers with
 * 1 <= N <= INT_MAX and 0 <= I < N, read at full width (mpb_int_parse). */
bool mpb_shard_parse(const char *text, int *index, int *count);

/* Cartesian product schemes × their parameter lists × generators × theirs
 * × shapes × seeds, in that nesting order (outermost first); a from_files
 * generator's one shape is its files' (the CLI checked the options against
 * it: mpb_plan_check_file_shapes). False with
 * why; errno is then ENOMEM when memory ran out, else EINVAL. */
bool mpb_plan_expand(const struct mpb_plan *plan, enum mpb_impl impl, struct mpb_case **cases,
                     int *n_cases, char *why, size_t why_len);

/* The shape options against each from_files generator's files: every
 * value of --size, --m, --n, --k must be the files' dimension it gives
 * (none need be given). False with why naming the option and value. */
bool mpb_plan_check_file_shapes(const struct mpb_plan *plan, char *why, size_t why_len);

/* Keep the first of the cases that share a case string (--size 8,8, or
 * -s dgemm -s dgemm), in expansion order, and number them 0..n-1 again (the
 * index --shard reads); the count dropped, -1 when out of memory. */
int mpb_plan_drop_duplicates(struct mpb_case *cases, int *n_cases);

/* Parameter values of this case as "k=v k=v" (the CSV cells). */
void mpb_case_params(const struct mpb_case *c, char *buf, size_t len);
void mpb_case_gen_params(const struct mpb_case *c, char *buf, size_t len);

void mpb_plan_free(struct mpb_plan *plan);

#endif
