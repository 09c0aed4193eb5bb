/* One worker process per GPU of the node, shared by `run --devices` and
 * `grade --devices` (devices.h, cmd_grade.c).
 *
 * The parent starts each worker as this same program: the command's own
 * arguments, less those only the parent uses, plus the hidden `--worker
 * ORDINAL,RUN_ID`. Parent and worker speak over the worker's stdin and
 * stdout (text headers, then exact byte counts):
 *   worker -> parent  "DEV <bytes>\n" + struct mpb_device_info (the same
 *                     binary on both sides), once, after the GPU opened;
 *   parent -> worker  "<unit>\n" per unit of work, EOF when none is left;
 *   worker -> parent  "RES <unit> <bytes>\n" + the command's reply.
 * Once every worker has opened its GPU (or ended), the parent hands the
 * heaviest units out first, to whichever worker is free: every worker
 * starts with one of the heaviest, whatever the order in which they opened.
 * A worker that dies (a lost GPU, a crash) costs the unit it held, which
 * the command is told of; the others go on.
 *
 * Tests without a GPU: MPBENCH_DEVICES_STANDIN=N makes N "GPUs" whose
 * workers run the host models (their rows: impl host, gpu_uuid
 * standin-ORDINAL); MPBENCH_DEVICES_STANDIN_EXIT=D:J makes stand-in D exit
 * without a word when handed its J-th unit, and
 * MPBENCH_DEVICES_STANDIN_SLOW=D makes stand-in D take a second to open
 * (tests/test_devices.sh, tests/test_grade_devices.sh). */
#ifndef MPB_WORKER_POOL_H
#define MPB_WORKER_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "cuda_env.h"

/* What the parent knows of one worker. */
struct mpb_pool_worker {
    int ordinal;
    pid_t pid;
    int to_fd;            /* its stdin; -1 once closed */
    FILE *from;           /* its stdout */
    bool alive, ready;
    bool opened;          /* it said DEV: its GPU is open */
    int in_flight;        /* the unit it holds, -1 none */
    int handed;           /* units handed to it */
    struct mpb_device_info dev;
};

/* What a reply means to the command: malformed (the worker is taken for
 * dead), done, or done and the worker stops (its GPU failed for good). */
enum mpb_pool_reply { MPB_POOL_REPLY_BAD, MPB_POOL_REPLY_DONE, MPB_POOL_REPLY_DONE_STOP };

struct mpb_pool {
    const char *command;             /* "run", "grade": messages; argv[0] */
    const char *unit;                /* what one unit is called in messages ("case") */
    int argc;
    char **argv;                     /* the command's own arguments, to start the workers with */
    const char *const *parent_only;  /* options (with a value) the workers do not get; NULL-ended */
    const char *const *parent_flags; /* flags the workers do not get; NULL-ended */
    const char *run_id;
    const int *devices;              /* --devices: the ordinals, or every GPU when devices_all */
    int n_devices;
    bool devices_all;
    const int *units;                /* the units to run; handed out heaviest first, ties in this order */
    int n_units;
    double (*weight)(void *ctx, int unit);
    /* A worker's reply for `unit`, the payload it sent. */
    enum mpb_pool_reply (*on_reply)(void *ctx, const struct mpb_pool_worker *w, int unit, const char *payload,
                                    size_t len);
    /* The unit a dead worker held; `why` says which worker and how it ended. */
    void (*on_lost)(void *ctx, const struct mpb_pool_worker *w, int unit, const char *why);
    void *ctx;
    struct mpb_device_info *gpus;    /* out: the workers' GPUs (MPB_MAX_DEVICES entries) */
    int n_gpus;                      /* out */
    int not_handed;                  /* out: units never handed out (no worker was left) */
};

/* Run every unit. Returns MPB_EXIT_OK, or the exit code of a failure before
 * any unit ran (no such GPU, no memory). */
int mpb_pool_run(struct mpb_pool *p);

/* Worker side. A stand-in replaces the GPU (MPBENCH_DEVICES_STANDIN)? */
bool mpb_pool_standin(void);
/* The worker's GPU: *env opened on `ordinal`, or NULL and *standin filled
 * for a stand-in; false (said) when the GPU cannot be opened. */
bool mpb_pool_worker_open(const char *cmd, int ordinal, struct mpb_cuda_env **env,
                          struct mpb_device_info *standin);
bool mpb_pool_send_device(FILE *f, const struct mpb_device_info *dev);
/* The next unit the parent hands out (0..n_units-1); MPB_POOL_END when
 * stdin ends, MPB_POOL_BAD (said) on a malformed line. A stand-in named by
 * MPBENCH_DEVICES_STANDIN_EXIT exits here. */
#define MPB_POOL_END (-1)
#define MPB_POOL_BAD (-2)
int mpb_pool_next_unit(const char *cmd, int n_units, int ordinal, int *handed);
/* A reply made of parts, sent as one payload. */
struct mpb_pool_part {
    const void *data;
    size_t len;
};
bool mpb_pool_send_reply(FILE *f, int unit, const struct mpb_pool_part *parts, int n_parts);

#endif
