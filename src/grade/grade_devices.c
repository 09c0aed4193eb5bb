/* `mpbench grade --devices` (grade_devices.h): (configuration, shape) units
 * over the worker pool, their verdicts merged and their rows written in the
 * order of a one-process run. */
#include "grade/grade_devices.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "grade/grade_table.h"
#include "workers/worker_pool.h"

/* A unit's reply: this header, the partial verdict, the CSV records. */
struct unit_reply {
    int sticky;
};

bool mpb_grade_send_unit(FILE *f, int unit, bool sticky, const struct mpb_verdict *v, const char *records,
                         size_t records_len)
{
    struct unit_reply head = {sticky};
    struct mpb_pool_part parts[] = {{&head, sizeof head}, {v, sizeof *v}, {records, records_len}};
    return mpb_pool_send_reply(f, unit, parts, 3);
}

/* A unit that has come back (or is lost) and waits for the ones before it. */
struct unit_slot {
    bool done;
    struct mpb_verdict *v;
    char *records;
    size_t records_len;
};

struct grade_pool {
    struct mpb_grade_devices *d;
    struct unit_slot *slots;
    int n_units;
    int next;      /* the first unit not yet taken in order */
    int replies;   /* units come back so far, for --progress */
    struct timespec t0;
};

static const struct mpb_grade_shape *unit_shape(const struct grade_pool *gp, int unit)
{
    return &gp->d->shapes[unit % gp->d->n_shapes];
}

static double unit_weight(void *ctx, int unit)
{
    const struct grade_pool *gp = ctx;
    const struct mpb_grade_shape *s = unit_shape(gp, unit);
    return (double)s->m * (double)s->n * (double)s->k * gp->d->seeds;
}

/* The units complete from `next` on, in (configuration, shape) order: rows
 * to the cases CSV, verdicts merged, a configuration settled after its
 * last shape. */
static void take_in_order(struct grade_pool *gp)
{
    struct mpb_grade_devices *d = gp->d;
    for (; gp->next < gp->n_units && gp->slots[gp->next].done; gp->next++) {
        struct unit_slot *slot = &gp->slots[gp->next];
        int cfg = gp->next / d->n_shapes, shape = gp->next % d->n_shapes;
        if (d->cases_csv && slot->records_len && !d->io_failed &&
            !mpb_csv_write_record(d->cases_csv, slot->records, slot->records_len)) {
            mpb_cli_error("grade", "writing %s failed: %m", d->cases_path);
            d->io_failed = true;
        }
        if (shape == 0)
            mpb_verdict_init(&d->verdicts[cfg]);
        mpb_verdict_merge(&d->verdicts[cfg], slot->v);
        free(slot->v);
        free(slot->records);
        slot->v = NULL;
        slot->records = NULL;
        if (shape == d->n_shapes - 1) {
            mpb_verdict_settle(&d->verdicts[cfg]);
            if (!d->on_config(d->ctx, cfg))
                d->io_failed = true;
        }
    }
}

void mpb_grade_unit_lost(struct mpb_verdict *v, const struct mpb_grade_config *cfg,
                         const struct mpb_grade_shape *shape, int seeds, const char *why)
{
    char note[512];
    int64_t cases = (int64_t)seeds * mpb_grade_battery_cases(cfg->scheme->field);
    snprintf(note, sizeof note, "%lldx%lldx%lld: %lld cases lost: %s", (long long)shape->m, (long long)shape->n,
             (long long)shape->k, (long long)cases, why);
    mpb_verdict_init(v);
    mpb_verdict_add_lost(v, cases, note);
}

/* A unit that will not come back: counted in its configuration's verdict. */
static void lose_unit(struct grade_pool *gp, int unit, const char *why)
{
    struct unit_slot *slot = &gp->slots[unit];
    slot->v = malloc(sizeof *slot->v);
    if (!slot->v) {
        mpb_cli_error("grade", "out of memory for a verdict");
        exit(MPB_EXIT_RUNTIME);
    }
    mpb_grade_unit_lost(slot->v, &gp->d->cfgs[unit / gp->d->n_shapes], unit_shape(gp, unit), gp->d->seeds, why);
    fprintf(stderr, "mpbench grade: error: %s %s\n", gp->d->cfgs[unit / gp->d->n_shapes].scheme->name,
            slot->v->lost);
    slot->done = true;
    take_in_order(gp);
}

static void on_lost(void *ctx, const struct mpb_pool_worker *w, int unit, const char *why)
{
    (void)w;
    lose_unit(ctx, unit, why);
}

static enum mpb_pool_reply on_reply(void *ctx, const struct mpb_pool_worker *w, int unit, const char *payload,
                                    size_t len)
{
    struct grade_pool *gp = ctx;
    struct unit_slot *slot = &gp->slots[unit];
    struct unit_reply head;
    if (len < sizeof head + sizeof *slot->v)
        return MPB_POOL_REPLY_BAD;
    memcpy(&head, payload, sizeof head);
    slot->v = malloc(sizeof *slot->v);
    slot->records_len = len - sizeof head - sizeof *slot->v;
    slot->records = malloc(slot->records_len + 1);
    if (!slot->v || !slot->records) {
        free(slot->v);
        free(slot->records);
        slot->v = NULL;
        slot->records = NULL;
        return MPB_POOL_REPLY_BAD;
    }
    memcpy(slot->v, payload + sizeof head, sizeof *slot->v);
    memcpy(slot->records, payload + sizeof head + sizeof *slot->v, slot->records_len);
    slot->done = true;
    gp->replies++;
    if (gp->d->show_progress) {
        const struct mpb_grade_shape *s = unit_shape(gp, unit);
        char label[256];
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        /* the largest units go first, so this ETA errs long */
        double elapsed = (double)(t.tv_sec - gp->t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - gp->t0.tv_nsec);
        double eta = elapsed / gp->replies * (gp->n_units - gp->replies);
        mpb_grade_label(&gp->d->cfgs[unit / gp->d->n_shapes], label, sizeof label);
        fprintf(stderr, "[%d/%d] GPU %d: %s %lldx%lldx%lld: %lld cases, %lld ok  ETA %dm%02ds\n", gp->replies,
                gp->n_units, w->ordinal, label, (long long)s->m, (long long)s->n, (long long)s->k,
                (long long)slot->v->cases, (long long)slot->v->cases_ok, (int)(eta / 60), (int)fmod(eta, 60));
    }
    take_in_order(gp);
    if (!head.sticky)
        return MPB_POOL_REPLY_DONE;
    fprintf(stderr, "mpbench grade: GPU %d (%s) failed for good (see its cases' notes); its worker stops\n",
            w->ordinal, w->dev.uuid);
    return MPB_POOL_REPLY_DONE_STOP;
}

int mpb_grade_devices_run(struct mpb_grade_devices *d)
{
    static const char *const parent_only[] = {"--devices", "--csv", "--cases-csv", "--progress", NULL};
    struct grade_pool gp = {.d = d, .n_units = d->n_cfgs * d->n_shapes};
    clock_gettime(CLOCK_MONOTONIC, &gp.t0);
    int *units = malloc(sizeof *units * (size_t)(gp.n_units ? gp.n_units : 1));
    gp.slots = calloc((size_t)(gp.n_units ? gp.n_units : 1), sizeof *gp.slots);
    if (!units || !gp.slots) {
        free(units);
        free(gp.slots);
        mpb_cli_error("grade", "out of memory for %d units", gp.n_units);
        return MPB_EXIT_RUNTIME;
    }
    for (int u = 0; u < gp.n_units; u++)
        units[u] = u;
    struct mpb_pool pool = {.command = "grade", .unit = "unit", .argc = d->argc, .argv = d->argv,
                            .parent_only = parent_only, .run_id = d->run_id, .devices = d->devices,
                            .n_devices = d->n_devices, .devices_all = d->devices_all, .units = units,
                            .n_units = gp.n_units, .weight = unit_weight, .on_reply = on_reply,
                            .on_lost = on_lost, .ctx = &gp, .gpus = d->gpus};
    int exit_code = mpb_pool_run(&pool);
    d->n_gpus = pool.n_gpus;
    if (exit_code == MPB_EXIT_OK && pool.not_handed > 0) {
        mpb_cli_error("grade", "no GPU worker is left; %d units were not run", pool.not_handed);
        for (int u = 0; u < gp.n_units; u++)
            if (!gp.slots[u].done)
                lose_unit(&gp, u, "not run: no GPU worker was left");
    }
    free(units);
    free(gp.slots);
    return exit_code;
}
