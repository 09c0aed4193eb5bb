#define _GNU_SOURCE /* memfd_create */
#include "case/multi.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "generators.h"
#include "case/hash.h"
#include "mpb_size.h"
#include "schemes/registry.h"
#include "case/stats.h"

/* What the parent sends a part. */
struct multi_job {
    char scheme[64];
    double sp[MPB_MAX_PARAMS];
    struct mpb_gen_config gen;
    int64_t m, n, k, block;
    int rank, ranks, nprow, npcol;
    int ordinal;                /* the part's GPU; -1 on the host backend */
    int warmup, reps;
    unsigned char comm_id[128];
    int fd_c, fd_a, fd_b;       /* inherited memfds: C; A and B on the host backend (else -1) */
};

/* What a part says once its operands are generated, and after its run. */
struct part_status {
    int status;                 /* enum mpb_status */
    int sticky;
    char note[512];
};
struct part_report {
    struct part_status st;
    struct mpb_scheme_info info;
    /* where this part's untimed time went (ms): generating its blocks of A
     * and B, the scheme's setup (cuBLASMp's grid, descriptors, workspace),
     * putting its blocks of C into the shared C */
    double prepare_ms, setup_ms, gather_ms;
};

/* The shared arrays as one process maps them. */
struct shared {
    void *c, *a, *b;
    size_t c_bytes, a_bytes, b_bytes;
};

/* One part's local arrays and scheme state. */
struct part {
    const struct mpb_scheme *scheme;
    struct mpb_cuda_env *env;   /* NULL on the host backend */
    struct mpb_multi_part mp;
    void *la, *lb, *lc;
    size_t la_bytes, lb_bytes, lc_bytes;
};

static void set_status(struct part_status *st, enum mpb_status status, bool sticky, const char *fmt, const char *text)
{
    st->status = status;
    st->sticky = sticky;
    snprintf(st->note, sizeof st->note, fmt, text);
}

/* ---- the shared arrays -------------------------------------------------- */

static void *map_fd(int fd, size_t bytes)
{
    if (fd < 0 || bytes == 0)
        return NULL;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void unmap_shared(struct shared *sh)
{
    if (sh->c)
        munmap(sh->c, sh->c_bytes);
    if (sh->a)
        munmap(sh->a, sh->a_bytes);
    if (sh->b)
        munmap(sh->b, sh->b_bytes);
    memset(sh, 0, sizeof *sh);
}

static size_t bytes_of(int64_t rows, int64_t cols)
{
    return mpb_size_matrix(rows, cols, sizeof(double));
}

static bool map_job(const struct multi_job *job, struct shared *sh)
{
    memset(sh, 0, sizeof *sh);
    sh->c_bytes = bytes_of(job->m, job->n);
    sh->c = map_fd(job->fd_c, sh->c_bytes);
    bool ok = sh->c || sh->c_bytes == 0;
    if (job->fd_a >= 0) {
        sh->a_bytes = bytes_of(job->m, job->k);
        sh->b_bytes = bytes_of(job->k, job->n);
        sh->a = map_fd(job->fd_a, sh->a_bytes);
        sh->b = map_fd(job->fd_b, sh->b_bytes);
        ok = ok && (sh->a || sh->a_bytes == 0) && (sh->b || sh->b_bytes == 0);
    }
    return ok;
}

/* A memfd of `bytes` (zero-filled), inherited by the parts; -1 on failure. */
static int new_memfd(const char *name, size_t bytes)
{
    int fd = memfd_create(name, 0);
    if (fd >= 0 && bytes > 0 && ftruncate(fd, (off_t)bytes) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Local block (rows × cols, leading dimension rows) to or from its places
 * in the whole column-major matrix, one column segment of a block at a time. */
/* Local columns [c0, c0 + cols) of a part, `local` pointing at column c0,
 * into their places in the whole column-major array. */
static void scatter_cols(const struct mpb_block_cyclic *d, const double *local, int64_t c0, int64_t cols,
                         double *whole)
{
    int64_t rows = mpb_bc_local_rows(d);
    for (int64_t c = 0; c < cols; c++) {
        double *col = whole + mpb_bc_global_col(d, c0 + c) * d->rows;
        for (int64_t r = 0; r < rows; r += d->mb) {
            int64_t len = rows - r < d->mb ? rows - r : d->mb;
            memcpy(col + mpb_bc_global_row(d, r), local + r + c * rows, sizeof *local * (size_t)len);
        }
    }
}

static void scatter(const struct mpb_block_cyclic *d, const double *local, double *whole)
{
    scatter_cols(d, local, 0, mpb_bc_local_cols(d), whole);
}

/* ---- one part ------------------------------------------------------------- */

static void part_layouts(const struct multi_job *job, struct mpb_multi_part *mp)
{
    memset(mp, 0, sizeof *mp);
    mp->rank = job->rank;
    mp->ranks = job->ranks;
    mp->m = job->m;
    mp->n = job->n;
    mp->k = job->k;
    int prow = job->rank % job->nprow, pcol = job->rank / job->nprow; /* column-major grid */
    struct mpb_block_cyclic base = {.mb = job->block, .nb = job->block, .nprow = job->nprow,
                                    .npcol = job->npcol, .prow = prow, .pcol = pcol};
    mp->a = mp->b = mp->c = base;
    mp->a.rows = job->m, mp->a.cols = job->k;
    mp->b.rows = job->k, mp->b.cols = job->n;
    mp->c.rows = job->m, mp->c.cols = job->n;
    memcpy(mp->comm_id, job->comm_id, sizeof mp->comm_id);
}

static bool part_alloc(struct part *p, void **ptr, size_t *bytes, const struct mpb_block_cyclic *d)
{
    *bytes = bytes_of(mpb_bc_local_rows(d), mpb_bc_local_cols(d));
    size_t alloc = *bytes ? *bytes : sizeof(double); /* a part may hold no block */
    if (p->env)
        return mpb_cuda_alloc(p->env, ptr, alloc) == MPB_STATUS_OK;
    *ptr = malloc(alloc);
    return *ptr != NULL;
}

static void part_failure(const struct part *p, struct part_status *st, const char *stage)
{
    char text[480];
    snprintf(text, sizeof text, "%s: %s", stage, p->env ? mpb_cuda_last_error(p->env) : "out of host memory");
    set_status(st, MPB_STATUS_ERROR, p->env && mpb_cuda_is_sticky(p->env), "%s", text);
}

/* A device block of this part into its places in a shared array, through
 * two page-locked staging buffers of whole local columns: the DMA engine
 * fills one while the CPU scatters the other. A pageable buffer of the whole
 * block (34 GB for C at 65536 on one GPU) made the gather run at under
 * 1.5 GB/s (results/h200x2/cublasmp/README.md). */
#define GATHER_STAGE_BYTES ((size_t)256 << 20)

static bool download_scatter(const struct part *p, const struct mpb_block_cyclic *d, const void *dev,
                             void *whole, struct part_status *st)
{
    int64_t rows = mpb_bc_local_rows(d), cols = mpb_bc_local_cols(d);
    if (rows == 0 || cols == 0)
        return true;
    size_t col_bytes = bytes_of(rows, 1);
    int64_t chunk = GATHER_STAGE_BYTES / col_bytes > 0 ? (int64_t)(GATHER_STAGE_BYTES / col_bytes) : 1;
    if (chunk > cols)
        chunk = cols;
    void *stage[2] = {NULL, NULL};
    bool ok = mpb_cuda_host_alloc(p->env, &stage[0], col_bytes * (size_t)chunk) == MPB_STATUS_OK &&
              mpb_cuda_host_alloc(p->env, &stage[1], col_bytes * (size_t)chunk) == MPB_STATUS_OK;
    if (!ok) {
        part_failure(p, st, "page-locked staging for the gather");
        goto done;
    }
    const char *src = dev;
    int64_t n0 = chunk;
    ok = mpb_cuda_download_async(p->env, stage[0], src, col_bytes * (size_t)n0) == MPB_STATUS_OK &&
         mpb_cuda_sync(p->env) == MPB_STATUS_OK;
    for (int64_t c0 = 0, i = 0; ok && c0 < cols; c0 += n0, i++) {
        n0 = cols - c0 < chunk ? cols - c0 : chunk;
        int64_t c1 = c0 + n0, n1 = cols - c1 < chunk ? cols - c1 : chunk;
        if (n1 > 0)
            ok = mpb_cuda_download_async(p->env, stage[(i + 1) & 1], src + col_bytes * (size_t)c1,
                                         col_bytes * (size_t)n1) == MPB_STATUS_OK;
        scatter_cols(d, stage[i & 1], c0, n0, whole);
        ok = ok && mpb_cuda_sync(p->env) == MPB_STATUS_OK;
    }
    if (!ok)
        part_failure(p, st, "downloading the part's blocks");
done:
    mpb_cuda_host_free(p->env, stage[0]);
    mpb_cuda_host_free(p->env, stage[1]);
    return ok;
}

/* Allocate and generate this part's blocks; put them in the shared A and B
 * where there are such (the host backend, and a reference to follow). */
static void part_prepare(const struct multi_job *job, struct part *p, const struct shared *sh,
                         struct part_status *st)
{
    set_status(st, MPB_STATUS_OK, false, "%s", "");
    part_layouts(job, &p->mp);
    if (!part_alloc(p, &p->la, &p->la_bytes, &p->mp.a) || !part_alloc(p, &p->lb, &p->lb_bytes, &p->mp.b) ||
        !part_alloc(p, &p->lc, &p->lc_bytes, &p->mp.c)) {
        part_failure(p, st, "allocating the part's blocks");
        return;
    }
    p->mp.la = p->la;
    p->mp.lb = p->lb;
    p->mp.lc = p->lc;
    if (p->env) {
        if (mpb_gen_fill_cuda_cyclic(p->env, &job->gen, MPB_OPERAND_A, &p->mp.a, p->la) ||
            mpb_gen_fill_cuda_cyclic(p->env, &job->gen, MPB_OPERAND_B, &p->mp.b, p->lb) ||
            mpb_cuda_memset(p->env, p->lc, 0xff, p->lc_bytes) || mpb_cuda_sync(p->env))
            part_failure(p, st, "generating the part's blocks");
        else if (sh->a && download_scatter(p, &p->mp.a, p->la, sh->a, st))
            download_scatter(p, &p->mp.b, p->lb, sh->b, st);
        return;
    }
    mpb_gen_fill_host_cyclic(&job->gen, MPB_OPERAND_A, &p->mp.a, p->la);
    mpb_gen_fill_host_cyclic(&job->gen, MPB_OPERAND_B, &p->mp.b, p->lb);
    memset(p->lc, 0xff, p->lc_bytes); /* poison: NaN */
    scatter(&p->mp.a, p->la, sh->a);
    scatter(&p->mp.b, p->lb, sh->b);
    p->mp.whole_a = sh->a;
    p->mp.whole_b = sh->b;
}

static void run_host_part(const struct multi_job *job, struct part *p, double *times, struct part_report *rep)
{
    const struct mpb_scheme_multi *ops = p->scheme->multi;
    enum mpb_status s = MPB_STATUS_OK;
    for (int i = 0; i < job->warmup && s == MPB_STATUS_OK; i++)
        s = ops->run_host(&p->mp, job->sp, &rep->info);
    for (int i = 0; i < job->reps && s == MPB_STATUS_OK; i++) {
        double t0 = mpb_now_ms();
        s = ops->run_host(&p->mp, job->sp, &rep->info);
        times[i] = mpb_now_ms() - t0;
    }
    if (s != MPB_STATUS_OK)
        set_status(&rep->st, s, false, "%s", rep->info.note);
}

static void run_cuda_part(const struct multi_job *job, struct part *p, double *times, struct part_report *rep)
{
    const struct mpb_scheme_multi *ops = p->scheme->multi;
    void *state = NULL;
    double phase_ms[MPB_PHASE_COUNT];
    struct mpb_gemm g = {.m = job->m, .n = job->n, .k = job->k, .target = MPB_TARGET_FP64,
                         .a = p->la, .b = p->lb, .c = p->lc};
    double t0 = mpb_now_ms();
    if (ops->setup(p->env, &p->mp, job->sp, &state) != MPB_STATUS_OK) {
        part_failure(p, &rep->st, "scheme setup");
        return;
    }
    rep->setup_ms = mpb_now_ms() - t0;
    if (mpb_cuda_time(p->env, ops->calls, state, &g, job->warmup, 0, job->reps, times, phase_ms, NULL) != MPB_STATUS_OK)
        part_failure(p, &rep->st, "timed calls");
    else if (ops->calls->report(p->env, state, &rep->info) != MPB_STATUS_OK)
        part_failure(p, &rep->st, "reading back what the scheme did");
    ops->calls->teardown(p->env, state);
}

/* The collective run, then this part's C into the shared C. */
static void part_execute(const struct multi_job *job, struct part *p, const struct shared *sh, double *times,
                         struct part_report *rep)
{
    set_status(&rep->st, MPB_STATUS_OK, false, "%s", "");
    rep->info = (struct mpb_scheme_info){.slices = -1, .fallback = -1};
    if (!p->env)
        run_host_part(job, p, times, rep);
    else
        run_cuda_part(job, p, times, rep);
    double t0 = mpb_now_ms();
    if (rep->st.status == MPB_STATUS_OK && !p->env)
        scatter(&p->mp.c, p->lc, sh->c);
    else if (rep->st.status == MPB_STATUS_OK)
        download_scatter(p, &p->mp.c, p->lc, sh->c, &rep->st);
    rep->gather_ms = mpb_now_ms() - t0;
}

static void part_free(struct part *p)
{
    void *bufs[] = {p->la, p->lb, p->lc};
    for (int i = 0; i < 3; i++) {
        if (p->env)
            mpb_cuda_free(p->env, bufs[i]);
        else
            free(bufs[i]);
    }
    p->la = p->lb = p->lc = NULL;
}

/* ---- the hidden command: parts 1..P-1 ------------------------------------- */

static bool write_all(FILE *f, const void *p, size_t bytes)
{
    return fwrite(p, 1, bytes, f) == bytes && fflush(f) == 0;
}

/* The parent's writes to a part: a part that died must not kill the run
 * with SIGPIPE (the write fails instead, and the case says why), and the
 * run's own disposition of SIGPIPE is left as it was. */
static bool write_to_part(FILE *f, const void *p, size_t bytes)
{
    struct sigaction ignore = {.sa_handler = SIG_IGN}, old;
    sigemptyset(&ignore.sa_mask);
    if (sigaction(SIGPIPE, &ignore, &old) != 0)
        return false;
    bool ok = write_all(f, p, bytes);
    sigaction(SIGPIPE, &old, NULL);
    return ok;
}

static bool read_all(FILE *f, void *p, size_t bytes)
{
    return fread(p, 1, bytes, f) == bytes;
}

int mpb_multi_part(int argc, char **argv)
{
    (void)argv;
    struct multi_job job;
    if (argc != 1 || isatty(STDIN_FILENO) || !read_all(stdin, &job, sizeof job)) {
        fprintf(stderr, "mpbench rank: a part of a distributed case, started by mpbench itself (not for users)\n");
        return MPB_EXIT_USAGE;
    }
    job.scheme[sizeof job.scheme - 1] = '\0';
    struct part p = {.scheme = mpb_scheme_find(job.scheme)};
    struct part_report rep = {0};
    struct shared sh = {0};
    char why[256] = "";
    double *times = calloc((size_t)job.reps + 1, sizeof *times);
    if (!p.scheme || !p.scheme->multi || job.reps < 0)
        set_status(&rep.st, MPB_STATUS_ERROR, false, "bad job for scheme '%s'", job.scheme);
    else if (!map_job(&job, &sh) || !times)
        set_status(&rep.st, MPB_STATUS_ERROR, false, "%s", "cannot map the shared arrays");
    else if (job.ordinal >= 0 && !(p.env = mpb_cuda_open(job.ordinal, why, sizeof why)))
        set_status(&rep.st, MPB_STATUS_ERROR, false, "%s", why);
    else {
        double t0 = mpb_now_ms();
        part_prepare(&job, &p, &sh, &rep.st);
        rep.prepare_ms = mpb_now_ms() - t0;
    }
    /* tests only (tests/test_multi.sh): this part dies before it is ready */
    const char *die = getenv("MPBENCH_MULTI_PART_EXIT");
    if (die && atoi(die) == job.rank)
        _exit(3);
    char word[8] = "";
    bool go = write_all(stdout, &rep.st, sizeof rep.st) && fgets(word, sizeof word, stdin) &&
              !strcmp(word, "go\n") && rep.st.status == MPB_STATUS_OK;
    if (go) {
        part_execute(&job, &p, &sh, times, &rep);
        if (!write_all(stdout, &rep, sizeof rep) || !write_all(stdout, times, sizeof *times * (size_t)job.reps))
            go = false;
    }
    part_free(&p);
    if (p.env)
        mpb_cuda_close(p.env);
    unmap_shared(&sh);
    free(times);
    return go && rep.st.status == MPB_STATUS_OK ? MPB_EXIT_OK : MPB_EXIT_RUNTIME;
}

/* ---- the parent: part 0 and the others' processes ------------------------- */

struct child {
    pid_t pid;
    FILE *to, *from;
};

static bool start_child(const struct multi_job *job, struct child *ch)
{
    int in[2], out[2];
    memset(ch, 0, sizeof *ch);
    ch->pid = -1;
    if (pipe2(in, O_CLOEXEC) != 0)
        return false;
    if (pipe2(out, O_CLOEXEC) != 0) {
        close(in[0]);
        close(in[1]);
        return false;
    }
    fflush(NULL);
    ch->pid = fork();
    if (ch->pid == 0) {
        /* dup2 clears close-on-exec on 0 and 1; the memfds have none */
        if (dup2(in[0], STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0)
            _exit(127);
        execl("/proc/self/exe", "mpbench", "rank", (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    if (ch->pid < 0) {
        close(in[1]);
        close(out[0]);
        return false;
    }
    ch->to = fdopen(in[1], "w");
    ch->from = fdopen(out[0], "r");
    return ch->to && ch->from && write_to_part(ch->to, job, sizeof *job);
}

/* Close the pipes and reap; true when the part exited 0. */
static bool end_child(struct child *ch, bool kill_it)
{
    if (ch->pid <= 0)
        return false;
    if (kill_it)
        kill(ch->pid, SIGKILL);
    if (ch->to)
        fclose(ch->to);
    if (ch->from)
        fclose(ch->from);
    int wst = 0;
    while (waitpid(ch->pid, &wst, 0) < 0 && errno == EINTR)
        ;
    ch->pid = -1;
    return WIFEXITED(wst) && WEXITSTATUS(wst) == 0;
}

static void fail_row(struct mpb_result *res, enum mpb_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fail_row(struct mpb_result *res, enum mpb_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    res->status = status;
    vsnprintf(res->note, sizeof res->note, fmt, ap);
    va_end(ap);
}

/* Whether the case can run here: the GPUs and the host memory it needs. */
static bool multi_fits(const struct mpb_runner *r, const struct mpb_case *c, int ranks, int *base,
                       struct mpb_result *res)
{
    *base = -1;
    if (r->impl == MPB_IMPL_CUDA) {
        char why[256];
        int count = mpb_cuda_device_count(why, sizeof why);
        *base = mpb_cuda_device(r->env)->ordinal;
        if (ranks > 1 && r->node_shared) {
            fail_row(res, MPB_STATUS_NOT_SUPPORTED, "spans %d GPUs: not inside run --devices, whose workers "
                     "hold the node's GPUs one each", ranks);
            return false;
        }
        if (*base + ranks > count) {
            fail_row(res, MPB_STATUS_NOT_SUPPORTED, "needs %d GPUs (ordinals %d..%d); this process sees %d",
                     ranks, *base, *base + ranks - 1, count);
            return false;
        }
    }
    /* shared C (+ A and B on the host backend), the kept copies, and on the
     * host backend each part's blocks and its rows and columns */
    size_t a = bytes_of(c->m, c->k), b = bytes_of(c->k, c->n), out = bytes_of(c->m, c->n);
    size_t ab = mpb_size_add(a, b), need = out;
    if (r->keep_data) /* shared A and B, and the copies the reference keeps */
        need = mpb_size_add(need, mpb_size_add(mpb_size_mul(2, ab), out));
    if (r->impl == MPB_IMPL_HOST) /* shared A and B; each part's blocks and its rows and columns */
        need = mpb_size_add(need, mpb_size_mul(3, mpb_size_add(ab, out)));
    size_t avail = mpb_host_memory_available();
    if (need > avail) {
        fail_row(res, MPB_STATUS_NOT_SUPPORTED, "too large for this machine: needs %.3g GB of host memory "
                 "(the gathered C and what the reference keeps), %.3g GB available (MemAvailable)",
                 (double)need * 1e-9, (double)avail * 1e-9);
        return false;
    }
    return true;
}

/* The first part that failed, into the row; false when none did. */
static bool first_failure(int ranks, const struct part_report *reps, struct mpb_result *res)
{
    for (int i = 0; i < ranks; i++)
        if (reps[i].st.status != MPB_STATUS_OK) {
            res->status = reps[i].st.status;
            res->sticky = i == 0 && reps[i].st.sticky;
            snprintf(res->note, sizeof res->note, "part %d of %d: %.440s", i, ranks, reps[i].st.note);
            return true;
        }
    return false;
}

/* The parts' reports into the row: the first failure, else the times (the
 * slowest part's per call), part 0's settings, and the note with where the
 * untimed time went (the slowest part's, for each step). */
static void combine(int ranks, const struct part_report *reps, double *const *times, int n_reps,
                    struct mpb_result *res)
{
    if (first_failure(ranks, reps, res))
        return;
    for (int t = 0; t < n_reps; t++)
        for (int i = 1; i < ranks; i++)
            times[0][t] = fmax(times[0][t], times[i][t]);
    res->info = reps[0].info;
    res->time_ms = mpb_timing_stats(times[0], n_reps);
    if (res->info.settings[0] && ranks > 1) {
        size_t len = strlen(res->info.settings);
        snprintf(res->info.settings + len, sizeof res->info.settings - len, " ranks=%d", ranks);
    }
    double prepare = 0, setup = 0, gather = 0;
    for (int i = 0; i < ranks; i++) {
        prepare = fmax(prepare, reps[i].prepare_ms);
        setup = fmax(setup, reps[i].setup_ms);
        gather = fmax(gather, reps[i].gather_ms);
    }
    snprintf(res->note, sizeof res->note, "%s%suntimed, slowest part: fill %.1f ms, setup %.1f ms, gather %.1f ms",
             res->info.note, res->info.note[0] ? "; " : "", prepare, setup, gather);
}

/* A, B and C on the host for the reference, from the shared arrays. */
static void keep_data(const struct mpb_case *c, const struct shared *sh, struct mpb_result *res)
{
    res->a = malloc(bytes_of(c->m, c->k) ? bytes_of(c->m, c->k) : 1);
    res->b = malloc(bytes_of(c->k, c->n) ? bytes_of(c->k, c->n) : 1);
    res->c = malloc(sh->c_bytes ? sh->c_bytes : 1);
    if (!res->a || !res->b || !res->c) {
        mpb_result_free(res);
        fail_row(res, MPB_STATUS_ERROR, "out of host memory keeping A, B and C for the reference");
        return;
    }
    memcpy(res->c, sh->c, sh->c_bytes);
    memcpy(res->a, sh->a, sh->a_bytes);
    memcpy(res->b, sh->b, sh->b_bytes);
}

struct multi_run {
    struct multi_job job;
    struct shared sh;
    struct child *children;     /* parts 1..ranks-1 */
    struct part_report *reports;
    double **times;
    struct part p0;
};

static bool alloc_run(struct multi_run *mr, int ranks, int reps)
{
    mr->children = calloc((size_t)ranks, sizeof *mr->children);
    mr->reports = calloc((size_t)ranks, sizeof *mr->reports);
    mr->times = calloc((size_t)ranks, sizeof *mr->times);
    bool ok = mr->children && mr->reports && mr->times;
    for (int i = 0; ok && i < ranks; i++) {
        mr->children[i].pid = -1;
        ok = (mr->times[i] = calloc((size_t)reps + 1, sizeof **mr->times)) != NULL;
    }
    return ok;
}

static void free_run(struct multi_run *mr, int ranks)
{
    for (int i = 0; mr->times && i < ranks; i++)
        free(mr->times[i]);
    free(mr->times);
    free(mr->reports);
    free(mr->children);
    unmap_shared(&mr->sh);
    int fds[] = {mr->job.fd_c, mr->job.fd_a, mr->job.fd_b};
    for (int i = 0; i < 3; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

/* Start the other parts, prepare part 0, wait for every part to be ready;
 * false (res set) when a part could not start or prepare. */
static bool start_parts(const struct mpb_runner *r, int base, int ranks, struct multi_run *mr,
                        struct mpb_result *res)
{
    for (int i = 1; i < ranks; i++) {
        struct multi_job job = mr->job;
        job.rank = i;
        job.ordinal = base < 0 ? -1 : base + i;
        if (!start_child(&job, &mr->children[i])) {
            fail_row(res, MPB_STATUS_ERROR, "cannot start part %d of %d: %s", i, ranks, strerror(errno));
            return false;
        }
    }
    mr->p0.env = r->env;
    mr->job.ordinal = base;
    double t0 = mpb_now_ms();
    part_prepare(&mr->job, &mr->p0, &mr->sh, &mr->reports[0].st);
    mr->reports[0].prepare_ms = mpb_now_ms() - t0;
    for (int i = 1; i < ranks; i++)
        if (!read_all(mr->children[i].from, &mr->reports[i].st, sizeof mr->reports[i].st))
            set_status(&mr->reports[i].st, MPB_STATUS_ERROR, false, "%s", "the part's process ended before it was ready");
    return !first_failure(ranks, mr->reports, res);
}

void mpb_run_multi(const struct mpb_runner *r, const struct mpb_case *c, struct mpb_result *res)
{
    const struct mpb_scheme_multi *ops = c->scheme->multi;
    struct multi_run mr = {.job = {.fd_c = -1, .fd_a = -1, .fd_b = -1}};
    int nprow, npcol, base;
    int64_t block;
    ops->layout(c->sp, &nprow, &npcol, &block);
    int ranks = nprow * npcol;
    if (!multi_fits(r, c, ranks, &base, res))
        return;
    struct multi_job *job = &mr.job;
    snprintf(job->scheme, sizeof job->scheme, "%s", c->scheme->name);
    memcpy(job->sp, c->sp, sizeof job->sp);
    mpb_gen_config_init(&job->gen, c->gen, c->gp, c->scheme->target, c->m, c->n, c->k, c->seed);
    job->m = c->m, job->n = c->n, job->k = c->k, job->block = block;
    job->ranks = ranks, job->nprow = nprow, job->npcol = npcol;
    job->warmup = r->warmup, job->reps = r->reps;
    bool host = r->impl == MPB_IMPL_HOST;
    char why[256];
    if (!alloc_run(&mr, ranks, r->reps)) {
        fail_row(res, MPB_STATUS_ERROR, "out of host memory for %d parts", ranks);
        goto done;
    }
    job->fd_c = new_memfd("mpbench-c", bytes_of(c->m, c->n));
    bool share_ab = host || r->keep_data;
    if (share_ab) {
        job->fd_a = new_memfd("mpbench-a", bytes_of(c->m, c->k));
        job->fd_b = new_memfd("mpbench-b", bytes_of(c->k, c->n));
    }
    if (job->fd_c < 0 || (share_ab && (job->fd_a < 0 || job->fd_b < 0)) || !map_job(job, &mr.sh)) {
        fail_row(res, MPB_STATUS_ERROR, "cannot make the shared arrays: %s", strerror(errno));
        goto done;
    }
    if (!host && ops->new_comm_id(job->comm_id, why, sizeof why) != MPB_STATUS_OK) {
        fail_row(res, MPB_STATUS_ERROR, "%s", why);
        goto done;
    }
    mr.p0.scheme = c->scheme;
    bool ready = start_parts(r, base, ranks, &mr, res);
    for (int i = 1; i < ranks; i++)
        if (mr.children[i].to && !write_to_part(mr.children[i].to, ready ? "go\n" : "stop\n", ready ? 3 : 5))
            ready = false;
    if (ready) {
        part_execute(job, &mr.p0, &mr.sh, mr.times[0], &mr.reports[0]);
        /* a part 0 that failed in a collective leaves the others waiting in it */
        bool others_stuck = mr.reports[0].st.status != MPB_STATUS_OK;
        for (int i = 1; i < ranks && !others_stuck; i++)
            if (!read_all(mr.children[i].from, &mr.reports[i], sizeof mr.reports[i]) ||
                !read_all(mr.children[i].from, mr.times[i], sizeof *mr.times[i] * (size_t)r->reps))
                set_status(&mr.reports[i].st, MPB_STATUS_ERROR, false, "%s", "the part's process ended during the run");
        for (int i = 1; i < ranks; i++)
            if (!end_child(&mr.children[i], others_stuck) && mr.reports[i].st.status == MPB_STATUS_OK)
                set_status(&mr.reports[i].st, MPB_STATUS_ERROR, false, "%s", "the part's process failed on exit");
        combine(ranks, mr.reports, mr.times, r->reps, res);
    }
    if (res->status == MPB_STATUS_OK) {
        if (!host)
            res->tflops = mpb_gemm_flops(c->m, c->n, c->k, c->scheme->field) / (res->time_ms.median * 1e-3) / 1e12;
        mpb_result_summarise(res, mr.sh.c, c->m * c->n, MPB_TARGET_FP64, MPB_FIELD_REAL);
        if (r->keep_data)
            keep_data(c, &mr.sh, res);
    }
done:
    for (int i = 1; mr.children && i < ranks; i++)
        end_child(&mr.children[i], true);
    part_free(&mr.p0);
    free_run(&mr, ranks);
}
