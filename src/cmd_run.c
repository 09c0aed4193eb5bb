/* `mpbench run`: expand the plan, run each case, write one row per case. */
#include "commands.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "case/accuracy.h"
#include "record/case_row.h"
#include "cli/cli.h"
#include "workers/devices.h"
#include "record/dump.h"
#include "record/env.h"
#include "record/jsonl.h"
#include "case/hash.h"
#include "record/meta.h"
#include "record/outpath.h"
#include "record/row_check.h"
#include "record/summary.h"
#include "mpb_stop.h"

static void join_tags(const struct mpb_plan *plan, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < plan->n_tags && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ";" : "", plan->tags[i]);
}

static void print_dry_run(const struct mpb_plan *plan, const struct mpb_case *cases, int n)
{
    int shown = 0;
    for (int i = 0; i < n; i++) {
        if (cases[i].index % plan->shard_count != plan->shard_index)
            continue;
        printf("%s  %s%s%s\n", cases[i].id, cases[i].text, cases[i].gen_ok ? "" : "   # not_supported: ",
               cases[i].gen_ok ? "" : cases[i].gen_why);
        shown++;
    }
    if (plan->shard_count > 1)
        printf("%d cases in shard %d/%d (%d in all)\n", shown, plan->shard_index, plan->shard_count, n);
    else
        printf("%d cases\n", shown);
}

static void progress_line(int done, int todo, double elapsed_s, const struct mpb_summary_row *row,
                          const struct mpb_result *res)
{
    double eta = done ? elapsed_s / done * (todo - done) : 0;
    char text[1024];
    mpb_summary_progress(row, text, sizeof text);
    fprintf(stderr, "[%d/%d] %s", done, todo, text);
    if (res->status != MPB_STATUS_OK)
        fprintf(stderr, " (%s)", res->note);
    fprintf(stderr, "  ETA %dm%02ds\n", (int)(eta / 60), (int)fmod(eta, 60));
}

struct run_state {
    struct mpb_plan plan;
    struct mpb_cuda_env *env;
    struct mpb_case *cases;
    int n_cases;
    struct mpb_csv *csv;
    struct mpb_jsonl *jsonl; /* --jsonl; NULL: none */
    char *previous_meta;
    char meta_path[4096];
    struct mpb_run_meta meta;
    struct mpb_summary summary;
    struct mpb_device_info devices[MPB_MAX_DEVICES]; /* run --devices: the workers' GPUs */
};

static int finish_exit_code(const struct mpb_run_meta *m, bool io_failed)
{
    if (io_failed || m->interrupted || m->status_counts[MPB_STATUS_ERROR])
        return MPB_EXIT_RUNTIME;
    if (m->status_counts[MPB_STATUS_INCORRECT])
        return MPB_EXIT_INCORRECT;
    if (m->cases_run > 0 && m->status_counts[MPB_STATUS_OK] == 0)
        return MPB_EXIT_NOTHING_RAN;
    return MPB_EXIT_OK;
}

/* One case run, measured and made a row. */
struct case_outcome {
    struct mpb_result res;
    struct mpb_accuracy acc;
    const struct mpb_metrics *metrics; /* &acc.metrics when the reference ran, else NULL */
    struct mpb_row row;
};

static void case_outcome_free(struct case_outcome *o)
{
    mpb_row_clear(&o->row);
    mpb_accuracy_free(&o->acc);
    mpb_result_free(&o->res);
}

/* Run case c and its reference, dump it if asked, and build its row; false
 * when --dump could not write (the row is made all the same). */
static bool run_one_case(const struct mpb_plan *plan, const struct mpb_runner *runner,
                         const struct mpb_row_context *ctx, const struct mpb_case *c, struct case_outcome *o)
{
    struct mpb_result *res = &o->res;
    struct mpb_accuracy *acc = &o->acc;
    bool measured = false, ok = true;
    char why[512];
    memset(o, 0, sizeof *o);
    mpb_run_case(runner, c, res);
    if (res->status == MPB_STATUS_OK && plan->ref != MPB_REF_NONE) {
        if (plan->ref == MPB_REF_DD)
            measured = mpb_accuracy_measure_dd(c, res, plan->ref_samples, c->impl == MPB_IMPL_CUDA ? runner->env : NULL,
                                               acc, why, sizeof why);
        else
            measured = mpb_accuracy_measure(c, res, plan->ref_samples, acc, why, sizeof why);
        if (!measured)
            snprintf(res->note, sizeof res->note, "%s", why);
        else if (acc->metrics.note[0] && !res->note[0])
            snprintf(res->note, sizeof res->note, "%s", acc->metrics.note);
        /* A reference that fails its own check judges nothing. */
        if (plan->ref == MPB_REF_DD && measured && !(acc->metrics.ref_check <= MPB_REF_DD_CHECK_LIMIT)) {
            res->status = MPB_STATUS_ERROR;
            snprintf(res->note, sizeof res->note, "reference: dd disagrees with MPFR by ref_check %g "
                     "(> %g) at entry (%lld, %lld)", acc->metrics.ref_check, MPB_REF_DD_CHECK_LIMIT,
                     (long long)acc->ref_check_at.i, (long long)acc->ref_check_at.j);
        }
        res->sticky |= runner->env && mpb_cuda_is_sticky(runner->env);
    }
    if (res->status == MPB_STATUS_OK && plan->dump_dir &&
        !mpb_dump_case(plan->dump_dir, c, res, acc->entries, acc->values, acc->n, why, sizeof why)) {
        mpb_cli_error("run", "%s", why);
        ok = false;
    }
    o->metrics = measured ? &acc->metrics : NULL;
    mpb_case_row(&o->row, ctx, c, res, o->metrics);
    if (res->energy_note[0])
        fprintf(stderr, "mpbench run: %s: %s (power_w, joules_per_call, gflops_per_w left empty)\n", c->text,
                res->energy_note);
    /* the reason is not only in the CSV's note: stdout may be the CSV */
    if (res->status == MPB_STATUS_ERROR || res->status == MPB_STATUS_NOT_SUPPORTED ||
        res->status == MPB_STATUS_INCORRECT)
        fprintf(stderr, "mpbench run: %s: %s: %s\n", mpb_status_name(res->status), c->text,
                res->note[0] ? res->note : "(no note)");
    return ok;
}

/* A run --devices worker (devices.h): the cases the parent names on stdin,
 * each answered with its row on stdout, until stdin ends or the GPU fails
 * for good. */
static int worker_loop(struct run_state *st, const struct mpb_runner *runner, const struct mpb_row_context *ctx)
{
    int handed = 0, i;
    bool io_failed = false;
    while (!io_failed && (i = mpb_pool_next_unit("run", st->n_cases, st->plan.worker_device, &handed)) >= 0) {
        const struct mpb_case *c = &st->cases[i];
        struct case_outcome o;
        struct mpb_summary one = {0};
        char *record = NULL, line[256];
        size_t record_len = 0;
        io_failed = !run_one_case(&st->plan, runner, ctx, c, &o);
        mpb_summary_add(&one, c, &o.res, o.metrics);
        if (one.n)
            mpb_summary_encode(&one.rows[0], line, sizeof line);
        FILE *mem = open_memstream(&record, &record_len);
        if (mem) {
            mpb_csv_format_row(mem, &o.row);
            fclose(mem);
        }
        if (!mem || !one.n ||
            !mpb_worker_send_row(stdout, i, o.res.status, o.res.sticky, line, record, record_len))
            io_failed = true;
        bool sticky = o.res.sticky;
        free(record);
        mpb_summary_free(&one);
        case_outcome_free(&o);
        if (sticky)
            return MPB_EXIT_RUNTIME;
    }
    return io_failed || i == MPB_POOL_BAD ? MPB_EXIT_RUNTIME : MPB_EXIT_OK;
}

/* The sweep: every case of this shard not already in the CSV. */
static int sweep(struct run_state *st, const struct mpb_runner *runner, const struct mpb_row_context *ctx)
{
    const struct mpb_plan *plan = &st->plan;
    struct mpb_run_meta *m = &st->meta;
    bool show = plan->progress == MPB_PROGRESS_ALWAYS ||
                (plan->progress == MPB_PROGRESS_AUTO && isatty(STDERR_FILENO));
    int todo = mpb_sweep_pending(plan, st->cases, st->n_cases, st->csv, m, NULL);
    bool io_failed = false;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < st->n_cases && !m->interrupted && !io_failed && !mpb_stop_requested(); i++) {
        const struct mpb_case *c = &st->cases[i];
        if (c->index % plan->shard_count != plan->shard_index || mpb_csv_has_case(st->csv, c->id))
            continue;
        struct case_outcome o;
        io_failed = !run_one_case(plan, runner, ctx, c, &o);
        if (!mpb_csv_write(st->csv, &o.row)) {
            mpb_cli_error("run", "writing %s failed: %m", plan->csv_path);
            io_failed = true;
        }
        if (st->jsonl && !mpb_jsonl_write(st->jsonl, &o.row)) {
            mpb_cli_error("run", "writing %s failed: %m", plan->jsonl_path);
            io_failed = true;
        }
        m->cases_run++;
        m->status_counts[o.res.status]++;
        mpb_summary_add(&st->summary, c, &o.res, o.metrics);
        m->interrupted = o.res.sticky;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (show && st->summary.n)
            progress_line(m->cases_run, todo, (double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec),
                          &st->summary.rows[st->summary.n - 1], &o.res);
        case_outcome_free(&o);
    }
    if (m->interrupted)
        mpb_cli_error("run", "the CUDA context failed (%s); %d cases were not run. The CSV keeps every "
                      "row written; rerun with --resume to finish", mpb_cuda_last_error(st->env),
                      todo - m->cases_run);
    const int sig = mpb_stop_requested();
    if (sig && !m->interrupted && m->cases_run < todo) {
        m->interrupted = true;
        mpb_cli_error("run", "stopped by %s; %d cases were not run. The CSV keeps every row written; rerun "
                      "with --resume to finish", mpb_stop_name(sig), todo - m->cases_run);
        return 128 + sig;
    }
    return finish_exit_code(m, io_failed);
}

/* This run's cases (of its shard) by case_id: the rows --resume may keep. */
struct resumable {
    const struct mpb_plan *plan;
    const struct mpb_case **by_id;
    int n;
};

static int compare_cases_by_id(const void *a, const void *b)
{
    return strcmp((*(const struct mpb_case *const *)a)->id, (*(const struct mpb_case *const *)b)->id);
}

static int compare_id_with_case(const void *id, const void *c)
{
    return strcmp(id, (*(const struct mpb_case *const *)c)->id);
}

static bool resumable_index(struct resumable *r, const struct mpb_plan *plan, const struct mpb_case *cases, int n)
{
    r->plan = plan;
    r->n = 0;
    r->by_id = malloc(sizeof *r->by_id * (size_t)(n ? n : 1));
    for (int i = 0; r->by_id && i < n; i++)
        if (cases[i].index % plan->shard_count == plan->shard_index)
            r->by_id[r->n++] = &cases[i];
    if (r->n)
        qsort(r->by_id, (size_t)r->n, sizeof *r->by_id, compare_cases_by_id);
    return r->by_id != NULL;
}

/* The case of this command (and shard) that a row written before its
 * scheme gained parameters stands for: the row's params plus parameters at
 * their defaults (mpb_row_is_case_before_added), else NULL. */
static const struct mpb_case **case_before_added(const struct resumable *r, char **fields)
{
    for (int i = 0; i < r->n; i++)
        if (!strcmp(fields[MPB_COL_scheme], r->by_id[i]->scheme->name) &&
            mpb_row_is_case_before_added(fields, r->by_id[i]))
            return &r->by_id[i];
    return NULL;
}

/* A row already in FILE is kept only when mpbench wrote it for a case of
 * this command (and shard): another sweep's row, or a malformed one, would
 * pass for a result of this one (mpb_csv_row_check). */
static bool resumable_row(char **fields, void *arg, char *why, size_t why_len)
{
    const struct resumable *r = arg;
    const char *id = fields[MPB_COL_case_id];
    const struct mpb_case **c = r->n ? bsearch(id, r->by_id, (size_t)r->n, sizeof *r->by_id, compare_id_with_case)
                                     : NULL;
    if (!mpb_row_cells_check(fields, why, why_len))
        return false;
    if (!c && (c = case_before_added(r, fields))) {
        fields[MPB_COL_case_id] = (char *)(*c)->id; /* remembered: the case is skipped */
        return true;
    }
    if (!c) {
        char shard[48] = "";
        if (r->plan->shard_count > 1)
            snprintf(shard, sizeof shard, " (shard %d/%d)", r->plan->shard_index, r->plan->shard_count);
        snprintf(why, why_len, "case_id %s (case '%.200s') is not a case of this command%s; --resume continues the "
                 "sweep that wrote the file: run another sweep into a new --csv FILE", id, fields[MPB_COL_case], shard);
        return false;
    }
    return mpb_row_is_case(fields, *c, why, why_len);
}

static bool reopen_jsonl(struct run_state *st)
{
    char why[512];
    bool closed = mpb_jsonl_close(st->jsonl);
    st->jsonl = closed ? mpb_jsonl_open(st->plan.jsonl_path, st->plan.csv_path, why, sizeof why) : NULL;
    if (!st->jsonl)
        mpb_cli_error("run", "--jsonl %s: %s", st->plan.jsonl_path, closed ? why : "closing it failed");
    return st->jsonl != NULL;
}

static int run_plan(struct run_state *st, int argc, char **argv)
{
    struct mpb_plan *plan = &st->plan;
    char why[512], run_id[48], tags[MPB_TAGS_MAX + 1];
    int exit_code = MPB_EXIT_OK;
    /* A dry run with the backend named needs no device: it runs nothing. */
    bool named_dry_run = plan->dry_run && plan->backend != MPB_BACKEND_AUTO;
    bool worker = plan->worker_device >= 0, devices = plan->n_devices > 0 || plan->devices_all;
    struct mpb_device_info standin_dev;
    if (worker) {
        if (!mpb_pool_worker_open("run", plan->worker_device, &st->env, &standin_dev))
            return MPB_EXIT_NOTHING_RAN;
    } else if (devices && !plan->dry_run) {
        /* the workers open the GPUs; the rows are theirs */
    } else if (!named_dry_run && !mpb_cli_open_backend("run", plan->backend, "running", &st->env, &exit_code))
        return exit_code;
    bool cuda_rows = st->env || (devices && !mpb_pool_standin()) || (named_dry_run && plan->backend == MPB_BACKEND_CUDA);
    enum mpb_impl impl = cuda_rows ? MPB_IMPL_CUDA : MPB_IMPL_HOST;
    struct mpb_runner runner = {.impl = impl, .env = st->env, .keep_data = plan->ref != MPB_REF_NONE || plan->dump_dir,
                                .ref_dd = plan->ref == MPB_REF_DD, .vs_native = plan->vs_native,
                                .node_shared = worker};
    runner.warmup = plan->warmup >= 0 ? plan->warmup : impl == MPB_IMPL_CUDA ? 3 : 0;
    runner.reps = plan->reps >= 0 ? plan->reps : impl == MPB_IMPL_CUDA ? 10 : 1;
    runner.warmup_ms = plan->warmup_ms;
    runner.energy = true;
    runner.energy_min_ms = plan->energy_min_ms;
    runner.energy_extend = !plan->energy_no_extend;
    if (!mpb_plan_expand(plan, impl, &st->cases, &st->n_cases, why, sizeof why)) {
        mpb_cli_error("run", "%s", why);
        return errno == ENOMEM ? MPB_EXIT_RUNTIME : MPB_EXIT_USAGE;
    }
    int dropped = mpb_plan_drop_duplicates(st->cases, &st->n_cases);
    if (dropped < 0) {
        mpb_cli_error("run", "out of memory for %d cases", st->n_cases);
        return MPB_EXIT_RUNTIME;
    }
    if (dropped)
        fprintf(stderr, "mpbench run: %d duplicate case%s dropped (the same case string as an earlier one)\n",
                dropped, dropped == 1 ? "" : "s");
    if (plan->dry_run) {
        print_dry_run(plan, st->cases, st->n_cases);
        return MPB_EXIT_OK;
    }
    if (worker) {
        const struct mpb_device_info *dev = st->env ? mpb_cuda_device(st->env) : &standin_dev;
        join_tags(plan, tags, sizeof tags);
        struct mpb_row_context wctx = {.run_id = plan->worker_run_id, .dev = dev, .warmup = runner.warmup,
                                       .reps = runner.reps, .tags = tags, .ref = mpb_ref_name(plan->ref)};
        if (!mpb_pool_send_device(stdout, dev))
            return MPB_EXIT_RUNTIME;
        return worker_loop(st, &runner, &wctx);
    }
    bool to_file = strcmp(plan->csv_path, "-") != 0;
    if (to_file) {
        snprintf(st->meta_path, sizeof st->meta_path, "%s.meta.json", plan->csv_path);
        st->previous_meta = plan->resume ? mpb_meta_previous_runs(st->meta_path, why, sizeof why) : strdup("");
        if (!st->previous_meta) {
            mpb_cli_error("run", "--resume: %s", why);
            return MPB_EXIT_USAGE;
        }
    }
    /* Every output is checked before the CSV is opened (which truncates it)
     * and before the first case: an unusable one is a usage error. With
     * --devices FILE is sorted at the end and renamed into place (outpath.h). */
    if ((plan->dump_dir && !mpb_dump_check(plan->dump_dir, why, sizeof why)) ||
        (to_file && !mpb_meta_check(st->meta_path, why, sizeof why)) ||
        (to_file && devices && !mpb_outpath_check(plan->csv_path, why, sizeof why)) ||
        (plan->jsonl_path && !mpb_jsonl_check(plan->jsonl_path, plan->csv_path, why, sizeof why))) {
        mpb_cli_error("run", "%s", why);
        return MPB_EXIT_USAGE;
    }
    struct resumable resumable = {0};
    if (plan->resume && !resumable_index(&resumable, plan, st->cases, st->n_cases)) {
        mpb_cli_error("run", "out of memory for %d cases", st->n_cases);
        return MPB_EXIT_RUNTIME;
    }
    st->csv = plan->resume ? mpb_csv_resume(plan->csv_path, resumable_row, &resumable, why, sizeof why)
                           : mpb_csv_open(plan->csv_path, false, why, sizeof why);
    free(resumable.by_id);
    if (!st->csv) {
        mpb_cli_error("run", "--csv %s: %s", plan->csv_path, why);
        return MPB_EXIT_USAGE;
    }
    /* Made from the CSV now that its rows are known good (--resume). */
    if (plan->jsonl_path && !(st->jsonl = mpb_jsonl_open(plan->jsonl_path, plan->csv_path, why, sizeof why))) {
        mpb_cli_error("run", "--jsonl %s: %s", plan->jsonl_path, why);
        return MPB_EXIT_USAGE;
    }
    mpb_make_run_id(run_id, sizeof run_id);
    join_tags(plan, tags, sizeof tags);
    struct mpb_run_meta *m = &st->meta;
    *m = (struct mpb_run_meta){.run_id = run_id, .argc = argc, .argv = argv, .plan = plan, .impl = impl,
                               .warmup = runner.warmup, .reps = runner.reps,
                               .dev = st->env ? mpb_cuda_device(st->env) : NULL,
                               .cases_total = st->n_cases};
    mpb_utc_now(m->started_utc, sizeof m->started_utc);
    if (to_file && !mpb_meta_write(st->meta_path, st->previous_meta, m)) {
        mpb_cli_error("run", "cannot write %s: %m", st->meta_path);
        return MPB_EXIT_RUNTIME;
    }
    /* stdout, as MAGMA's testers print theirs, unless stdout is the CSV */
    mpb_env_header(to_file ? stdout : stderr, m->dev);
    struct mpb_row_context ctx = {.run_id = run_id, .dev = m->dev, .warmup = runner.warmup,
                                  .reps = runner.reps, .tags = tags,
                                  .ref = mpb_ref_name(plan->ref)};
    if (devices) {
        bool io_failed = false;
        struct mpb_devices_run dr = {.plan = plan, .cases = st->cases, .n_cases = st->n_cases, .argc = argc,
                                     .argv = argv, .run_id = run_id, .csv = st->csv, .meta = m,
                                     .summary = &st->summary, .ctx = &ctx,
                                     .show_progress = plan->progress == MPB_PROGRESS_ALWAYS ||
                                                      (plan->progress == MPB_PROGRESS_AUTO && isatty(STDERR_FILENO))};
        exit_code = mpb_devices_sweep(&dr, st->devices, &io_failed);
        /* the CSV is now in expansion order: the JSON Lines follow it */
        if (st->jsonl && !reopen_jsonl(st)) {
            io_failed = true;
            exit_code = exit_code == MPB_EXIT_OK ? MPB_EXIT_RUNTIME : exit_code;
        }
        if (exit_code == MPB_EXIT_OK)
            exit_code = finish_exit_code(m, io_failed);
    } else {
        if (mpb_stop_install("run") != 0)
            mpb_cli_error("run", "cannot catch SIGINT and SIGTERM (%m): a signal will stop the sweep at once");
        exit_code = sweep(st, &runner, &ctx);
    }
    mpb_utc_now(m->finished_utc, sizeof m->finished_utc);
    if (to_file && !mpb_meta_write(st->meta_path, st->previous_meta, m)) {
        mpb_cli_error("run", "cannot write %s: %m", st->meta_path);
        exit_code = MPB_EXIT_RUNTIME;
    }
    if (to_file)
        mpb_summary_print(&st->summary, stdout);
    if (m->cases_resumed)
        fprintf(stderr, "mpbench run: %d cases already in %s were skipped (--resume)\n", m->cases_resumed,
                plan->csv_path);
    return exit_code;
}

int mpb_cmd_run(int argc, char **argv)
{
    struct run_state st = {0};
    enum mpb_parse_result parsed = mpb_cli_run_parse(argc, argv, &st.plan);
    int exit_code;
    if (parsed == MPB_PARSE_HELP) {
        mpb_cli_run_help();
        exit_code = MPB_EXIT_OK;
    } else if (parsed == MPB_PARSE_ERROR) {
        exit_code = MPB_EXIT_USAGE;
    } else {
        exit_code = run_plan(&st, argc, argv);
    }
    if (st.csv && !mpb_csv_close(st.csv) && exit_code == MPB_EXIT_OK)
        exit_code = MPB_EXIT_RUNTIME;
    if (st.jsonl && !mpb_jsonl_close(st.jsonl) && exit_code == MPB_EXIT_OK)
        exit_code = MPB_EXIT_RUNTIME;
    mpb_summary_free(&st.summary);
    free(st.previous_meta);
    free(st.cases);
    if (st.env)
        mpb_cuda_close(st.env);
    mpb_plan_free(&st.plan);
    return exit_code;
}
