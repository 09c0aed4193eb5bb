/* `mpbench run --devices` (devices.h): the parent's scheduler and the
 * worker protocol. */
#define _GNU_SOURCE
#include "devices.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

extern char **environ;

struct worker {
    int ordinal;
    pid_t pid;
    int to_fd;            /* its stdin; -1 once closed */
    FILE *from;           /* its stdout */
    bool alive, ready;
    int in_flight;        /* case index it holds, -1 none */
    int handed;           /* cases handed to it */
    struct mpb_device_info dev;
};

bool mpb_devices_standin(void)
{
    const char *s = getenv("MPBENCH_DEVICES_STANDIN");
    return s && atoi(s) > 0;
}

void mpb_devices_standin_info(int ordinal, struct mpb_device_info *dev)
{
    memset(dev, 0, sizeof *dev);
    snprintf(dev->name, sizeof dev->name, "host stand-in %d", ordinal);
    snprintf(dev->uuid, sizeof dev->uuid, "standin-%d", ordinal);
}

void mpb_devices_standin_maybe_exit(int ordinal, int cases_handed)
{
    const char *s = getenv("MPBENCH_DEVICES_STANDIN_EXIT");
    int d, j;
    if (s && sscanf(s, "%d:%d", &d, &j) == 2 && d == ordinal && j == cases_handed)
        _exit(3);
}

bool mpb_worker_send_device(FILE *f, const struct mpb_device_info *dev)
{
    fprintf(f, "DEV %zu\n", sizeof *dev);
    return fwrite(dev, sizeof *dev, 1, f) == 1 && fflush(f) == 0;
}

bool mpb_worker_send_row(FILE *f, int index, int status, bool sticky, const char *summary, const char *record,
                         size_t record_len)
{
    fprintf(f, "ROW %d %d %d %zu %zu\n", index, status, sticky ? 1 : 0, strlen(summary), record_len);
    fputs(summary, f);
    return fwrite(record, 1, record_len, f) == record_len && fflush(f) == 0;
}

/* The worker's arguments: the run's, less what only the parent does
 * (--devices, --csv, --resume, --shard, --progress), plus --worker. */
static char **worker_argv(const struct mpb_devices_run *r, int ordinal, char *worker_arg, size_t len)
{
    static const char *const parent_only[] = {"--devices", "--csv", "--shard", "--progress", NULL};
    char **v = calloc((size_t)r->argc + 6, sizeof *v);
    if (!v)
        return NULL;
    int n = 0;
    v[n++] = "mpbench";
    for (int i = 0; i < r->argc; i++) {
        const char *a = r->argv[i];
        bool skip = !strcmp(a, "--resume");
        for (int p = 0; parent_only[p] && !skip; p++) {
            size_t l = strlen(parent_only[p]);
            if (!strncmp(a, parent_only[p], l) && a[l] == '=')
                skip = true;
            else if (!strcmp(a, parent_only[p])) {
                skip = true;
                i++; /* its value */
            }
        }
        if (!skip)
            v[n++] = (char *)a;
    }
    snprintf(worker_arg, len, "%d,%s", ordinal, r->run_id);
    v[n++] = "--worker";
    v[n++] = worker_arg;
    v[n++] = "--progress";
    v[n++] = "never";
    v[n] = NULL;
    return v;
}

static bool start_worker(const struct mpb_devices_run *r, struct worker *w)
{
    int in[2], out[2];
    char worker_arg[128];
    if (pipe(in) != 0)
        return false;
    if (pipe(out) != 0) {
        close(in[0]), close(in[1]);
        return false;
    }
    char **argv = worker_argv(r, w->ordinal, worker_arg, sizeof worker_arg);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, in[1]);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    int err = argv ? posix_spawn(&w->pid, "/proc/self/exe", &fa, NULL, argv, environ) : ENOMEM;
    posix_spawn_file_actions_destroy(&fa);
    free(argv);
    close(in[0]);
    close(out[1]);
    if (err) {
        close(in[1]), close(out[0]);
        errno = err;
        return false;
    }
    w->to_fd = in[1];
    w->from = fdopen(out[0], "r");
    w->alive = w->from != NULL;
    w->in_flight = -1;
    return w->alive;
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

/* Cases to run (positions in the cases array `arg`), longest (m n k)
 * first; ties in expansion order. */
static int longest_first(const void *pa, const void *pb, void *arg)
{
    const struct mpb_case *cases = arg;
    const struct mpb_case *a = &cases[*(const int *)pa], *b = &cases[*(const int *)pb];
    double wa = (double)a->m * (double)a->n * (double)a->k, wb = (double)b->m * (double)b->n * (double)b->k;
    if (wa != wb)
        return wa > wb ? -1 : 1;
    return a->index - b->index;
}

/* Hand the next case to a free worker, or close its stdin when none is left. */
static void hand_next(struct worker *w, const int *queue, int n_queue, int *next)
{
    if (*next < n_queue) {
        char line[32];
        int len = snprintf(line, sizeof line, "%d\n", queue[*next]);
        if (write(w->to_fd, line, (size_t)len) == len) {
            w->in_flight = queue[(*next)++];
            w->handed++;
            return;
        }
    }
    close(w->to_fd);
    w->to_fd = -1;
    w->ready = false;
}

/* The row of a case whose worker died holding it. */
static bool write_lost_case(struct mpb_devices_run *r, const struct worker *w, int status)
{
    const struct mpb_case *c = &r->cases[w->in_flight];
    struct mpb_result res = {.status = MPB_STATUS_ERROR, .tflops = NAN};
    res.time_ms.median = res.time_ms.min = res.time_ms.max = res.time_ms.noise_pct = NAN;
    res.max_abs_vs_native = NAN;
    res.info.slices = -1;
    res.info.fallback = -1;
    for (int p = 0; p < MPB_PHASE_COUNT; p++)
        res.phase_ms[p] = NAN;
    if (WIFSIGNALED(status))
        snprintf(res.note, sizeof res.note, "the worker on GPU %d (%s) was killed by signal %d during this case",
                 w->ordinal, w->dev.uuid, WTERMSIG(status));
    else
        snprintf(res.note, sizeof res.note, "the worker on GPU %d (%s) exited with status %d during this case",
                 w->ordinal, w->dev.uuid, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    struct mpb_row_context ctx = *r->ctx;
    ctx.dev = &w->dev;
    struct mpb_row row = {0};
    mpb_case_row(&row, &ctx, c, &res, NULL);
    bool ok = mpb_csv_write(r->csv, &row);
    mpb_row_clear(&row);
    mpb_summary_add(r->summary, c, &res, NULL);
    r->meta->cases_run++;
    r->meta->status_counts[MPB_STATUS_ERROR]++;
    fprintf(stderr, "mpbench run: error: %s: %s\n", c->text, res.note);
    return ok;
}

/* Read one message; false at EOF or on a malformed one. */
static bool read_message(struct mpb_devices_run *r, struct worker *w, int *done, int todo, bool *io_failed)
{
    char head[160];
    if (!fgets(head, sizeof head, w->from))
        return false;
    size_t dev_bytes;
    int index, status, sticky;
    size_t sum_len, rec_len;
    if (sscanf(head, "DEV %zu", &dev_bytes) == 1) {
        if (dev_bytes != sizeof w->dev || fread(&w->dev, sizeof w->dev, 1, w->from) != 1)
            return false;
        w->ready = true;
        return true;
    }
    if (sscanf(head, "ROW %d %d %d %zu %zu", &index, &status, &sticky, &sum_len, &rec_len) != 5 ||
        index != w->in_flight || status < 0 || status > MPB_STATUS_SKIPPED || sum_len > 65536 ||
        rec_len > (1u << 24))
        return false;
    char *sum = malloc(sum_len + 1), *rec = malloc(rec_len + 1);
    bool ok = sum && rec && fread(sum, 1, sum_len, w->from) == sum_len && fread(rec, 1, rec_len, w->from) == rec_len;
    if (ok) {
        sum[sum_len] = '\0';
        if (!mpb_csv_write_record(r->csv, rec, rec_len)) {
            mpb_cli_error("run", "writing %s failed: %m", r->plan->csv_path);
            *io_failed = true;
        }
        mpb_summary_add_line(r->summary, sum);
        r->meta->cases_run++;
        r->meta->status_counts[status]++;
        (*done)++;
        /* a failed case's line on stderr is the worker's (run_one_case) */
        if (r->show_progress) {
            for (char *t = sum; *t; t++)
                *t = *t == '\t' ? ' ' : *t;
            fprintf(stderr, "[%d/%d] GPU %d: %s\n", *done, todo, w->ordinal, sum);
        }
        w->in_flight = -1;
        if (sticky) { /* the worker's context is gone: it exits, the others go on */
            fprintf(stderr, "mpbench run: GPU %d (%s) failed for good (see its row's note); its worker stops\n",
                    w->ordinal, w->dev.uuid);
            w->ready = false;
        }
    }
    free(sum);
    free(rec);
    return ok;
}

/* The ordinals to use: --devices all, or the list (each checked against
 * what is there). 0 with a message when none can be used. */
static int resolve_devices(const struct mpb_plan *plan, int *ordinals)
{
    char why[256] = "";
    const char *standin = getenv("MPBENCH_DEVICES_STANDIN");
    int count = mpb_devices_standin() ? atoi(standin) : mpb_cuda_device_count(why, sizeof why);
    if (count <= 0) {
        mpb_cli_error("run", "--devices: %s", why);
        return 0;
    }
    if (plan->devices_all) {
        int n = count < MPB_MAX_DEVICES ? count : MPB_MAX_DEVICES;
        for (int d = 0; d < n; d++)
            ordinals[d] = d;
        return n;
    }
    for (int i = 0; i < plan->n_devices; i++) {
        if (plan->devices[i] >= count) {
            mpb_cli_error("run", "--devices: there is no GPU %d (this node shows %d: 0..%d)", plan->devices[i], count,
                          count - 1);
            return 0;
        }
        ordinals[i] = plan->devices[i];
    }
    return plan->n_devices;
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
    const struct mpb_plan *plan = r->plan;
    struct mpb_run_meta *m = r->meta;
    int ordinals[MPB_MAX_DEVICES];
    int n_workers = resolve_devices(plan, ordinals);
    if (n_workers == 0)
        return MPB_EXIT_NOTHING_RAN;
    int *queue = malloc(sizeof *queue * (size_t)(r->n_cases ? r->n_cases : 1));
    struct worker *workers = calloc((size_t)n_workers, sizeof *workers);
    struct pollfd *fds = calloc((size_t)n_workers, sizeof *fds);
    if (!queue || !workers || !fds) {
        free(queue), free(workers), free(fds);
        mpb_cli_error("run", "out of memory for %d cases", r->n_cases);
        return MPB_EXIT_RUNTIME;
    }
    int next = 0, done = 0;
    int n_queue = mpb_sweep_pending(plan, r->cases, r->n_cases, r->csv, m, queue);
    qsort_r(queue, (size_t)n_queue, sizeof *queue, longest_first, (void *)r->cases);
    signal(SIGPIPE, SIG_IGN); /* a dead worker's stdin: write() fails instead */
    int started = 0;
    for (int w = 0; w < n_workers; w++) {
        workers[w].ordinal = ordinals[w];
        workers[w].to_fd = -1;
        if (start_worker(r, &workers[w]))
            started++;
        else
            mpb_cli_error("run", "--devices: cannot start the worker for GPU %d: %m", ordinals[w]);
    }
    fprintf(stderr, "mpbench run: %d cases over %d GPU worker%s (longest first)\n", n_queue, started,
            started == 1 ? "" : "s");
    bool io_failed = false;
    int n_devices = 0;
    for (;;) {
        int n_fds = 0;
        for (int w = 0; w < n_workers; w++)
            if (workers[w].alive)
                fds[n_fds++] = (struct pollfd){.fd = fileno(workers[w].from), .events = POLLIN};
        if (n_fds == 0)
            break;
        if (poll(fds, (nfds_t)n_fds, -1) < 0) {
            if (errno == EINTR)
                continue;
            mpb_cli_error("run", "--devices: poll: %m");
            break;
        }
        for (int w = 0, f = 0; w < n_workers; w++) {
            struct worker *wk = &workers[w];
            if (!wk->alive)
                continue;
            short ev = fds[f++].revents;
            if (!ev)
                continue;
            bool was_ready = wk->ready;
            if (read_message(r, wk, &done, n_queue, &io_failed)) {
                if (!was_ready && wk->ready && n_devices < MPB_MAX_DEVICES)
                    devices[n_devices++] = wk->dev;
                if (wk->ready)
                    hand_next(wk, queue, n_queue, &next);
                else if (wk->to_fd >= 0) {
                    close(wk->to_fd);
                    wk->to_fd = -1;
                }
                continue;
            }
            /* EOF or garbage: the worker is gone */
            int status = 0;
            fclose(wk->from);
            if (wk->to_fd >= 0)
                close(wk->to_fd);
            waitpid(wk->pid, &status, 0);
            wk->alive = false;
            if (wk->in_flight >= 0) {
                io_failed |= !write_lost_case(r, wk, status);
                done++;
            } else if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) && wk->handed == 0)
                fprintf(stderr, "mpbench run: GPU %d: its worker stopped before the first case (status %d)\n",
                        wk->ordinal, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        }
    }
    if (next < n_queue) {
        m->interrupted = true;
        mpb_cli_error("run", "no GPU worker is left; %d cases were not run. The CSV keeps every row written; "
                             "rerun with --resume to finish", n_queue - next);
    }
    m->dev = n_devices ? &devices[0] : NULL;
    m->devices = devices;
    m->n_devices = n_devices;
    if (!sort_csv(r))
        io_failed = true;
    free(queue);
    free(workers);
    free(fds);
    *io_failed_out = io_failed;
    return MPB_EXIT_OK;
}
