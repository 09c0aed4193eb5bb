/* `mpbench run --devices` (devices.h): cases as the worker pool's units,
 * their rows, the CSV put in expansion order. */
#define _GNU_SOURCE
#include "workers/devices.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

/* The reply of a case (worker_pool.h): this header, the summary line,
 * the CSV record. */
struct row_reply {
    int status;
    int sticky;
    size_t summary_len;
};

bool mpb_worker_send_row(FILE *f, int index, int status, bool sticky, const char *summary, const char *record,
                         size_t record_len)
{
    struct row_reply head = {status, sticky, strlen(summary)};
    struct mpb_pool_part parts[] = {{&head, sizeof head}, {summary, head.summary_len}, {record, record_len}};
    return mpb_pool_send_reply(f, index, parts, 3);
}

int mpb_sweep_pending(const struct mpb_plan *plan, const struct mpb_case *cases, int n_cases,
                      const struct mpb_csv *csv, struct mpb_run_meta *m, int *todo)
{
    int n = 0;
    for (int i = 0; i < n_cases; i++) {
        if (cases[i].index % plan->shard_count != plan->shard_index)
            continue;
        m->cases_this_shard++;
        if (mpb_csv_has_case(csv, cases[i].id))
            m->cases_resumed++;
        else if (todo)
            todo[n++] = i;
        else
            n++;
    }
    return n;
}

/* A sweep's pool state: the run, and what the rows so far add up to. */
struct sweep_state {
    struct mpb_devices_run *r;
    int done, todo;
    bool io_failed;
};

static double case_weight(void *ctx, int unit)
{
    const struct mpb_case *c = &((struct sweep_state *)ctx)->r->cases[unit];
    return (double)c->m * (double)c->n * (double)c->k;
}

/* The row of a case whose worker died holding it. */
static void write_lost_case(void *ctx, const struct mpb_pool_worker *w, int unit, const char *why)
{
    struct sweep_state *st = ctx;
    struct mpb_devices_run *r = st->r;
    const struct mpb_case *c = &r->cases[unit];
    struct mpb_result res = {.status = MPB_STATUS_ERROR, .tflops = NAN};
    res.time_ms.median = res.time_ms.min = res.time_ms.max = res.time_ms.noise_pct = NAN;
    res.max_abs_vs_native = res.power_w = res.joules_per_call = NAN;
    res.info.slices = -1;
    res.info.fallback = -1;
    for (int p = 0; p < MPB_PHASE_COUNT; p++)
        res.phase_ms[p] = NAN;
    snprintf(res.note, sizeof res.note, "%s", why);
    struct mpb_row_context row_ctx = *r->ctx;
    row_ctx.dev = &w->dev;
    struct mpb_row row = {0};
    mpb_case_row(&row, &row_ctx, c, &res, NULL);
    st->io_failed |= !mpb_csv_write(r->csv, &row);
    mpb_row_clear(&row);
    mpb_summary_add(r->summary, c, &res, NULL);
    r->meta->cases_run++;
    r->meta->status_counts[MPB_STATUS_ERROR]++;
    st->done++;
    fprintf(stderr, "mpbench run: error: %s: %s\n", c->text, res.note);
}

/* A case's row: to the CSV as it comes, its summary row, its counts. */
static enum mpb_pool_reply take_row(void *ctx, const struct mpb_pool_worker *w, int unit, const char *payload,
                                    size_t len)
{
    struct sweep_state *st = ctx;
    struct mpb_devices_run *r = st->r;
    struct row_reply head;
    if (len < sizeof head)
        return MPB_POOL_REPLY_BAD;
    memcpy(&head, payload, sizeof head);
    if (head.status < 0 || head.status > MPB_STATUS_SKIPPED || head.summary_len > 65536 ||
        head.summary_len > len - sizeof head)
        return MPB_POOL_REPLY_BAD;
    char *sum = strndup(payload + sizeof head, head.summary_len);
    bool decoded = sum && mpb_summary_add_encoded(r->summary, &r->cases[unit], sum);
    free(sum);
    if (!decoded)
        return MPB_POOL_REPLY_BAD;
    const char *rec = payload + sizeof head + head.summary_len;
    if (!mpb_csv_write_record(r->csv, rec, len - sizeof head - head.summary_len)) {
        mpb_cli_error("run", "writing %s failed: %m", r->plan->csv_path);
        st->io_failed = true;
    }
    r->meta->cases_run++;
    r->meta->status_counts[head.status]++;
    st->done++;
    /* a failed case's line on stderr is the worker's (run_one_case) */
    if (r->show_progress) {
        char text[1024];
        mpb_summary_progress(&r->summary->rows[r->summary->n - 1], text, sizeof text);
        fprintf(stderr, "[%d/%d] GPU %d: %s\n", st->done, st->todo, w->ordinal, text);
    }
    if (!head.sticky)
        return MPB_POOL_REPLY_DONE;
    fprintf(stderr, "mpbench run: GPU %d (%s) failed for good (see its row's note); its worker stops\n",
            w->ordinal, w->dev.uuid);
    return MPB_POOL_REPLY_DONE_STOP;
}

/* Rank of a case_id in the expansion (for sorting the CSV), -1 when the
 * plan has no such case (a resumed row of another plan). */
struct id_index {
    const char *id;
    int index;
};
struct id_table {
    struct id_index *ids; /* sorted by id */
    int n;
};
static int compare_id_index(const void *a, const void *b)
{
    return strcmp(((const struct id_index *)a)->id, ((const struct id_index *)b)->id);
}
static int rank_of(const char *case_id, void *arg)
{
    const struct id_table *t = arg;
    struct id_index key = {case_id, 0};
    const struct id_index *hit = bsearch(&key, t->ids, (size_t)t->n, sizeof *t->ids, compare_id_index);
    return hit ? hit->index : -1;
}

static bool sort_csv(const struct mpb_devices_run *r)
{
    struct id_index *ids = malloc(sizeof *ids * (size_t)(r->n_cases ? r->n_cases : 1));
    if (!ids)
        return false;
    for (int i = 0; i < r->n_cases; i++)
        ids[i] = (struct id_index){r->cases[i].id, r->cases[i].index};
    qsort(ids, (size_t)r->n_cases, sizeof *ids, compare_id_index);
    struct id_table table = {ids, r->n_cases};
    char why[512];
    bool ok = mpb_csv_sort_file(r->plan->csv_path, rank_of, &table, why, sizeof why);
    if (!ok)
        mpb_cli_error("run", "putting %s in expansion order: %s (its rows are all there, in the order they "
                             "finished)", r->plan->csv_path, why);
    free(ids);
    return ok;
}

int mpb_devices_sweep(struct mpb_devices_run *r, struct mpb_device_info *devices, bool *io_failed_out)
{
    static const char *const parent_only[] = {"--devices", "--csv", "--jsonl", "--shard", "--progress", NULL};
    static const char *const parent_flags[] = {"--resume", NULL};
    const struct mpb_plan *plan = r->plan;
    struct mpb_run_meta *m = r->meta;
    int *todo = malloc(sizeof *todo * (size_t)(r->n_cases ? r->n_cases : 1));
    if (!todo) {
        mpb_cli_error("run", "out of memory for %d cases", r->n_cases);
        return MPB_EXIT_RUNTIME;
    }
    struct sweep_state st = {.r = r};
    st.todo = mpb_sweep_pending(plan, r->cases, r->n_cases, r->csv, m, todo);
    struct mpb_pool pool = {.command = "run", .unit = "case", .argc = r->argc, .argv = r->argv,
                            .parent_only = parent_only, .parent_flags = parent_flags, .run_id = r->run_id,
                            .devices = plan->devices, .n_devices = plan->n_devices,
                            .devices_all = plan->devices_all, .units = todo, .n_units = st.todo,
                            .weight = case_weight, .on_reply = take_row, .on_lost = write_lost_case, .ctx = &st,
                            .gpus = devices};
    int exit_code = mpb_pool_run(&pool);
    free(todo);
    if (exit_code != MPB_EXIT_OK)
        return exit_code;
    if (pool.not_handed > 0) {
        m->interrupted = true;
        mpb_cli_error("run", "no GPU worker is left; %d cases were not run. The CSV keeps every row written; "
                             "rerun with --resume to finish", pool.not_handed);
    }
    m->dev = pool.n_gpus ? &devices[0] : NULL;
    m->devices = devices;
    m->n_devices = pool.n_gpus;
    if (!sort_csv(r))
        st.io_failed = true;
    *io_failed_out = st.io_failed;
    return MPB_EXIT_OK;
}
