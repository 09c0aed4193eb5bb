/* One worker process per GPU (worker_pool.h): the parent's scheduler, the
 * protocol, the stand-ins. */
#define _GNU_SOURCE
#include "workers/worker_pool.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "case/plan.h"
#include "status.h"
#include "case/values.h"

extern char **environ;

/* A reply's payload is at most this long (a grade unit's rows are far less). */
#define MAX_PAYLOAD ((size_t)1 << 28)

bool mpb_pool_standin(void)
{
    const char *s = getenv("MPBENCH_DEVICES_STANDIN");
    return s && atoi(s) > 0;
}

bool mpb_pool_worker_open(const char *cmd, int ordinal, struct mpb_cuda_env **env, struct mpb_device_info *standin)
{
    char why[512];
    *env = NULL;
    if (mpb_pool_standin()) {
        memset(standin, 0, sizeof *standin);
        snprintf(standin->name, sizeof standin->name, "host stand-in %d", ordinal);
        snprintf(standin->uuid, sizeof standin->uuid, "standin-%d", ordinal);
        const char *slow = getenv("MPBENCH_DEVICES_STANDIN_SLOW");
        if (slow && atoi(slow) == ordinal)
            sleep(1);
        return true;
    }
    *env = mpb_cuda_open(ordinal, why, sizeof why);
    if (!*env)
        mpb_cli_error(cmd, "GPU %d: %s", ordinal, why);
    return *env != NULL;
}

bool mpb_pool_send_device(FILE *f, const struct mpb_device_info *dev)
{
    fprintf(f, "DEV %zu\n", sizeof *dev);
    return fwrite(dev, sizeof *dev, 1, f) == 1 && fflush(f) == 0;
}

int mpb_pool_next_unit(const char *cmd, int n_units, int ordinal, int *handed)
{
    char line[64];
    if (!fgets(line, sizeof line, stdin))
        return MPB_POOL_END;
    char *end;
    long i = strtol(line, &end, 10);
    if (end == line || i < 0 || i >= n_units) {
        mpb_cli_error(cmd, "--worker: unit '%.*s' out of range", (int)strcspn(line, "\n"), line);
        return MPB_POOL_BAD;
    }
    (*handed)++;
    const char *s = getenv("MPBENCH_DEVICES_STANDIN_EXIT");
    int d, j;
    if (mpb_pool_standin() && s && sscanf(s, "%d:%d", &d, &j) == 2 && d == ordinal && j == *handed)
        _exit(3);
    return (int)i;
}

bool mpb_pool_send_reply(FILE *f, int unit, const struct mpb_pool_part *parts, int n_parts)
{
    size_t total = 0;
    for (int i = 0; i < n_parts; i++)
        total += parts[i].len;
    fprintf(f, "RES %d %zu\n", unit, total);
    for (int i = 0; i < n_parts; i++)
        if (fwrite(parts[i].data, 1, parts[i].len, f) != parts[i].len)
            return false;
    return fflush(f) == 0;
}

/* The worker's arguments: the command's, less what only the parent does,
 * plus --worker and --progress never. */
static char **worker_argv(const struct mpb_pool *p, int ordinal, char *worker_arg, size_t len)
{
    char **v = calloc((size_t)p->argc + 6, sizeof *v);
    if (!v)
        return NULL;
    int n = 0;
    v[n++] = "mpbench";
    for (int i = 0; i < p->argc; i++) {
        const char *a = p->argv[i];
        bool skip = false;
        for (int f = 0; p->parent_flags && p->parent_flags[f] && !skip; f++)
            skip = !strcmp(a, p->parent_flags[f]);
        for (int o = 0; p->parent_only[o] && !skip; o++) {
            size_t l = strlen(p->parent_only[o]);
            if (!strncmp(a, p->parent_only[o], l) && a[l] == '=')
                skip = true;
            else if (!strcmp(a, p->parent_only[o])) {
                skip = true;
                i++; /* its value */
            }
        }
        if (!skip)
            v[n++] = (char *)a;
    }
    snprintf(worker_arg, len, "%d,%s", ordinal, p->run_id);
    v[n++] = "--worker";
    v[n++] = worker_arg;
    v[n++] = "--progress";
    v[n++] = "never";
    v[n] = NULL;
    return v;
}

static bool start_worker(const struct mpb_pool *p, struct mpb_pool_worker *w)
{
    int in[2], out[2];
    char worker_arg[128];
    if (pipe(in) != 0)
        return false;
    if (pipe(out) != 0) {
        close(in[0]), close(in[1]);
        return false;
    }
    char **argv = worker_argv(p, w->ordinal, worker_arg, sizeof worker_arg);
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

/* Units to hand out, heaviest first; ties in the caller's order. */
struct weighted_unit {
    int unit, order;
    double weight;
};

static int heaviest_first(const void *pa, const void *pb)
{
    const struct weighted_unit *a = pa, *b = pb;
    if (a->weight != b->weight)
        return a->weight > b->weight ? -1 : 1;
    return a->order - b->order;
}

/* Hand the next unit to a free worker, or close its stdin when none is left. */
static void hand_next(struct mpb_pool_worker *w, const struct weighted_unit *queue, int n_queue, int *next)
{
    if (*next < n_queue) {
        char line[32];
        int len = snprintf(line, sizeof line, "%d\n", queue[*next].unit);
        if (write(w->to_fd, line, (size_t)len) == len) {
            w->in_flight = queue[(*next)++].unit;
            w->handed++;
            return;
        }
    }
    close(w->to_fd);
    w->to_fd = -1;
    w->ready = false;
}

/* Read one message; false at EOF or on a malformed one. */
static bool read_message(struct mpb_pool *p, struct mpb_pool_worker *w)
{
    char head[160];
    if (!fgets(head, sizeof head, w->from))
        return false;
    size_t bytes;
    int unit;
    if (sscanf(head, "DEV %zu", &bytes) == 1) {
        if (bytes != sizeof w->dev || fread(&w->dev, sizeof w->dev, 1, w->from) != 1)
            return false;
        w->ready = w->opened = true;
        return true;
    }
    if (sscanf(head, "RES %d %zu", &unit, &bytes) != 2 || unit != w->in_flight || bytes > MAX_PAYLOAD)
        return false;
    char *payload = malloc(bytes + 1);
    enum mpb_pool_reply reply = MPB_POOL_REPLY_BAD;
    if (payload && fread(payload, 1, bytes, w->from) == bytes) {
        payload[bytes] = '\0';
        reply = p->on_reply(p->ctx, w, unit, payload, bytes);
    }
    free(payload);
    if (reply == MPB_POOL_REPLY_BAD)
        return false;
    w->in_flight = -1;
    if (reply == MPB_POOL_REPLY_DONE_STOP)
        w->ready = false; /* its GPU failed for good: it exits, the others go on */
    return true;
}

/* The ordinals to use: --devices all, or the list (each checked against
 * what is there). 0 with a message when none can be used. */
static int resolve_devices(const struct mpb_pool *p, int *ordinals)
{
    char why[256] = "";
    int count = mpb_pool_standin() ? atoi(getenv("MPBENCH_DEVICES_STANDIN")) : mpb_cuda_device_count(why, sizeof why);
    if (count <= 0) {
        mpb_cli_error(p->command, "--devices: %s", why);
        return 0;
    }
    if (p->devices_all) {
        int n = count < MPB_MAX_DEVICES ? count : MPB_MAX_DEVICES;
        for (int d = 0; d < n; d++)
            ordinals[d] = d;
        return n;
    }
    for (int i = 0; i < p->n_devices; i++) {
        if (p->devices[i] >= count) {
            mpb_cli_error(p->command, "--devices: there is no GPU %d (this node shows %d: 0..%d)", p->devices[i],
                          count, count - 1);
            return 0;
        }
        ordinals[i] = p->devices[i];
    }
    return p->n_devices;
}

/* The worker is gone (EOF or garbage): reap it, and report the unit it held. */
static void bury_worker(struct mpb_pool *p, struct mpb_pool_worker *w)
{
    int status = 0;
    fclose(w->from);
    if (w->to_fd >= 0)
        close(w->to_fd);
    waitpid(w->pid, &status, 0);
    w->alive = false;
    if (w->in_flight >= 0) {
        char why[320];
        if (WIFSIGNALED(status))
            snprintf(why, sizeof why, "the worker on GPU %d (%s) was killed by signal %d during this %s", w->ordinal,
                     w->dev.uuid, WTERMSIG(status), p->unit);
        else
            snprintf(why, sizeof why, "the worker on GPU %d (%s) exited with status %d during this %s", w->ordinal,
                     w->dev.uuid, WIFEXITED(status) ? WEXITSTATUS(status) : -1, p->unit);
        p->on_lost(p->ctx, w, w->in_flight, why);
    } else if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0) && w->handed == 0) {
        fprintf(stderr, "mpbench %s: GPU %d: its worker stopped before the first %s (status %d)\n", p->command,
                w->ordinal, p->unit, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
}

/* Is a worker still opening its GPU (alive, no DEV yet)? */
static bool any_opening(const struct mpb_pool_worker *workers, int n_workers)
{
    for (int w = 0; w < n_workers; w++)
        if (workers[w].alive && !workers[w].opened)
            return true;
    return false;
}

/* The workers' messages until every worker has ended. No unit goes out
 * before every worker has opened its GPU or ended, so that the heaviest
 * units start together and a worker slow to open is not left idle. */
static void serve(struct mpb_pool *p, struct mpb_pool_worker *workers, int n_workers, struct pollfd *fds,
                  const struct weighted_unit *queue)
{
    int next = 0;
    bool handing = false;
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
            mpb_cli_error(p->command, "--devices: poll: %m");
            break;
        }
        for (int w = 0, f = 0; w < n_workers; w++) {
            struct mpb_pool_worker *wk = &workers[w];
            if (!wk->alive || !fds[f++].revents)
                continue;
            bool was_ready = wk->ready;
            if (!read_message(p, wk)) {
                bury_worker(p, wk);
                continue;
            }
            if (!was_ready && wk->ready && p->n_gpus < MPB_MAX_DEVICES)
                p->gpus[p->n_gpus++] = wk->dev;
            if (wk->ready && handing)
                hand_next(wk, queue, p->n_units, &next);
            else if (!wk->ready && wk->to_fd >= 0) {
                close(wk->to_fd);
                wk->to_fd = -1;
            }
        }
        if (!handing && !any_opening(workers, n_workers)) {
            handing = true;
            for (int w = 0; w < n_workers; w++)
                if (workers[w].alive && workers[w].ready)
                    hand_next(&workers[w], queue, p->n_units, &next);
        }
    }
    p->not_handed = p->n_units - next;
}

int mpb_pool_run(struct mpb_pool *p)
{
    int ordinals[MPB_MAX_DEVICES];
    int n_workers = resolve_devices(p, ordinals);
    if (n_workers == 0)
        return MPB_EXIT_NOTHING_RAN;
    struct weighted_unit *queue = malloc(sizeof *queue * (size_t)(p->n_units ? p->n_units : 1));
    struct mpb_pool_worker *workers = calloc((size_t)n_workers, sizeof *workers);
    struct pollfd *fds = calloc((size_t)n_workers, sizeof *fds);
    if (!queue || !workers || !fds) {
        free(queue), free(workers), free(fds);
        mpb_cli_error(p->command, "out of memory for %d %ss", p->n_units, p->unit);
        return MPB_EXIT_RUNTIME;
    }
    for (int i = 0; i < p->n_units; i++)
        queue[i] = (struct weighted_unit){p->units[i], i, p->weight(p->ctx, p->units[i])};
    qsort(queue, (size_t)p->n_units, sizeof *queue, heaviest_first);
    signal(SIGPIPE, SIG_IGN); /* a dead worker's stdin: write() fails instead */
    int started = 0;
    for (int w = 0; w < n_workers; w++) {
        workers[w].ordinal = ordinals[w];
        workers[w].to_fd = -1;
        if (start_worker(p, &workers[w]))
            started++;
        else
            mpb_cli_error(p->command, "--devices: cannot start the worker for GPU %d: %m", ordinals[w]);
    }
    fprintf(stderr, "mpbench %s: %d %ss over %d GPU worker%s (longest first)\n", p->command, p->n_units, p->unit,
            started, started == 1 ? "" : "s");
    p->n_gpus = 0;
    serve(p, workers, n_workers, fds, queue);
    free(queue);
    free(workers);
    free(fds);
    return MPB_EXIT_OK;
}
