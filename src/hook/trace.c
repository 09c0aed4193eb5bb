/* The hook's trace folder (trace.h). */
#include "hook/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npy_write.h"
#include "record/meta.h"
#include "record/version.h"

static FILE *calls;
static char trace_dir[4096];
static uint64_t budget, spent;

/* The classes seen: a call's operands are saved for the first of each. */
struct trace_class {
    const char *routine;
    char type;
    bool row_major;
    char transa, transb;
    int64_t m, n, k;
};
static struct trace_class *classes;
static int64_t n_classes, cap_classes;

bool mpb_trace_is_open(void)
{
    return calls != NULL;
}

/* argv of this process, from /proc/self/cmdline, as a JSON array. */
static void write_argv(FILE *f)
{
    FILE *in = fopen("/proc/self/cmdline", "rb");
    char buf[8192];
    size_t len = in ? fread(buf, 1, sizeof buf - 1, in) : 0;
    if (in)
        fclose(in);
    buf[len] = '\0';
    fputc('[', f);
    for (size_t at = 0; at < len; at += strlen(buf + at) + 1) {
        if (at)
            fputs(", ", f);
        mpb_json_string(f, buf + at);
    }
    fputc(']', f);
}

static bool write_meta(const char *path, const struct mpb_trace_config *cfg)
{
    FILE *f = fopen(path, "we");
    if (!f)
        return false;
    char now[32];
    mpb_utc_now(now, sizeof now);
    fputs("{\n  \"program_argv\": ", f);
    write_argv(f);
    fprintf(f, ",\n  \"pid\": %ld,\n  \"start_time\": \"%s\",\n  \"hook_version\": ", (long)getpid(), now);
    mpb_json_string(f, MPB_VERSION);
    fputs(",\n  \"git_sha\": ", f);
    mpb_json_string(f, mpb_git_sha);
    fputs(",\n  \"mode\": ", f);
    mpb_json_string(f, cfg->mode);
    fprintf(f, ",\n  \"budget_bytes\": %" PRIu64 ",\n  \"sample_every\": %" PRId64 ",\n  \"columns\": ", cfg->budget,
            cfg->sample_every);
    mpb_json_string(f, MPB_TRACE_COLUMNS);
    fputs("\n}\n", f);
    return fclose(f) == 0;
}

bool mpb_trace_open(const struct mpb_trace_config *cfg, char *why, size_t why_len)
{
    if (strlen(cfg->dir) + 40 > sizeof trace_dir) {
        snprintf(why, why_len, "MPBENCH_HOOK_TRACE: a folder path of at most %zu characters", sizeof trace_dir - 40);
        return false;
    }
    if (mkdir(cfg->dir, 0777) != 0 && errno != EEXIST) {
        snprintf(why, why_len, "MPBENCH_HOOK_TRACE=%s: cannot create it: %s", cfg->dir, strerror(errno));
        return false;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/" MPB_TRACE_CSV, cfg->dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        snprintf(why, why_len, "%s: %s%s", path, strerror(errno),
                 errno == EEXIST ? " (a trace is never overwritten: name a new folder)" : "");
        return false;
    }
    calls = fdopen(fd, "w");
    if (!calls) {
        snprintf(why, why_len, "%s: %s", path, strerror(errno));
        close(fd);
        return false;
    }
    snprintf(trace_dir, sizeof trace_dir, "%s", cfg->dir);
    budget = cfg->budget;
    char meta[4300];
    snprintf(meta, sizeof meta, "%s.meta.json", path);
    if (!write_meta(meta, cfg) || fputs(MPB_TRACE_COLUMNS "\n", calls) < 0 || fflush(calls) != 0) {
        snprintf(why, why_len, "%s: cannot write it: %s", meta, strerror(errno));
        fclose(calls);
        calls = NULL;
        return false;
    }
    return true;
}

/* True when the call's class is new (and now seen). */
static bool new_class(const char *routine, const struct mpb_hook_call *c)
{
    for (int64_t i = 0; i < n_classes; i++) {
        const struct trace_class *s = &classes[i];
        if (s->routine == routine && s->type == mpb_hook_type(c) && s->row_major == c->row_major && s->transa == c->transa &&
            s->transb == c->transb && s->m == c->m && s->n == c->n && s->k == c->k)
            return false;
    }
    if (n_classes == cap_classes) {
        int64_t cap = cap_classes ? 2 * cap_classes : 64;
        struct trace_class *grown = realloc(classes, sizeof *grown * (size_t)cap);
        if (!grown)
            return false;
        classes = grown;
        cap_classes = cap;
    }
    classes[n_classes++] = (struct trace_class){routine, mpb_hook_type(c), c->row_major, c->transa, c->transb, c->m, c->n, c->k};
    return true;
}

static bool save(const struct mpb_hook_call *call, char which, const char *stem, int64_t rows, int64_t cols)
{
    void *data = mpb_hook_pack(call, which);
    char path[4200];
    snprintf(path, sizeof path, "%s/%s_%c.npy", trace_dir, stem, which);
    char type = mpb_hook_type(call);
    const char *descr = type == 'd' ? "<f8" : type == 's' ? "<f4" : type == 'z' ? "<c16" : "<c8";
    bool ok = data && mpb_npy_write(path, descr, data, rows, cols);
    if (!ok) {
        mpb_hook_log_once(MPB_HOOK_LOG_OPERANDS, "%s: %s: this and later calls' operands may be missing from "
                          "the trace", path, data ? strerror(errno) : "out of memory");
        unlink(path);
    }
    free(data);
    return ok;
}

void mpb_trace_operands(const struct mpb_hook_routine *r, const struct mpb_hook_call *call, int64_t index,
                        char stem[MPB_TRACE_STEM_MAX])
{
    stem[0] = '\0';
    if (!calls || call->m <= 0 || call->n <= 0 || call->k <= 0 || !new_class(r->name, call))
        return;
    uint64_t elem = mpb_elem_size(call->target, call->field), header = 128;
    uint64_t bytes = elem * (uint64_t)(call->m * call->k + call->k * call->n) + 2 * header;
    if (call->beta != 0 || call->beta_im != 0)
        bytes += elem * (uint64_t)(call->m * call->n) + header;
    if (spent + bytes > budget) {
        mpb_hook_log_once(MPB_HOOK_LOG_BUDGET, "the operand budget (MPBENCH_HOOK_BUDGET=%" PRIu64 " bytes) is "
                          "spent: call %" PRId64 " (%s %lldx%lldx%lld) and later new shapes keep no operands",
                          budget, index, r->name, (long long)call->m, (long long)call->n, (long long)call->k);
        return;
    }
    char s[MPB_TRACE_STEM_MAX];
    snprintf(s, sizeof s, "c%06" PRId64, index);
    bool ok = save(call, 'A', s, call->m, call->k) && save(call, 'B', s, call->k, call->n) &&
              ((call->beta == 0 && call->beta_im == 0) || save(call, 'C', s, call->m, call->n));
    if (ok) {
        spent += bytes;
        memcpy(stem, s, sizeof s);
    }
}

void mpb_trace_row(const struct mpb_hook_call *c, const struct mpb_trace_row *row)
{
    if (!calls)
        return;
    char err[32] = "", batch[24] = "";
    if (!isnan(row->err))
        snprintf(err, sizeof err, "%.6g", row->err);
    if (c->batched)
        snprintf(batch, sizeof batch, "%" PRId64, c->batch);
    fprintf(calls, "%" PRId64 ",%s,%c,%c,%c,%lld,%lld,%lld,%.17g,%.17g,%lld,%lld,%lld,%.9g,%ld,%s,%s,%s,%c,%.17g,%.17g,%s\n",
            row->index, row->routine, c->row_major ? 'R' : 'C', c->transa, c->transb, (long long)c->m,
            (long long)c->n, (long long)c->k, c->alpha, c->beta, (long long)c->lda, (long long)c->ldb,
            (long long)c->ldc, row->seconds, row->thread, row->stem, row->scheme, err, mpb_hook_type(c), c->alpha_im,
            c->beta_im, batch);
    if (fflush(calls) != 0 || ferror(calls)) {
        mpb_hook_log_once(MPB_HOOK_LOG_TRACE, "%s/" MPB_TRACE_CSV ": cannot write it (%s): recording stops, the "
                          "program goes on", trace_dir, strerror(errno));
        fclose(calls);
        calls = NULL;
    }
}
