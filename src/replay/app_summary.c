/* mpbench replay's per-application summary (app_summary.h). */
#include "replay/app_summary.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "case/values.h"
#include "record/csv.h"
#include "schemes/registry.h"

/* One row of the run: a configuration on a class. */
struct replay_row {
    char config[200];
    int cls;
    bool ok;
    double ms, err;
};

/* "trace=DIR call=N" of a gen_params cell: the class whose operands call N
 * kept, or -1 when the row is not of this trace. */
static int class_of(const char *gen_params, const char *trace_dir, const struct mpb_trace_file *t)
{
    const char *tr = strstr(gen_params, " trace="), *call = strstr(gen_params, " call=");
    size_t dl = strlen(trace_dir);
    int64_t n;
    if (!tr || !call || strncmp(tr + 7, trace_dir, dl) || tr[7 + dl] != ' ' || !mpb_int_parse(call + 6, &n))
        return -1;
    for (int i = 0; i < t->n_classes; i++)
        if (t->classes[i].operands_call == n)
            return i;
    return -1;
}

static const char *native_of(const struct mpb_trace_class *c)
{
    return mpb_scheme_native(c->target, c->field)->name;
}

static bool read_rows(const char *csv_path, const char *trace_dir, const struct mpb_trace_file *t,
                      struct replay_row **rows, int *n_rows, char *why, size_t why_len)
{
    FILE *f = fopen(csv_path, "r");
    if (!f) {
        snprintf(why, why_len, "%s: cannot open it: %s", csv_path, strerror(errno));
        return false;
    }
    char *rec = NULL, buf[16384], *fields[MPB_COL_COUNT + 1];
    size_t cap = 0;
    int lines, line = 0;
    bool complete, ok = true;
    ssize_t len;
    while (ok && (len = mpb_csv_read_record(f, &rec, &cap, &lines, &complete)) > 0) {
        if (line++ == 0)
            continue; /* the header: run wrote it */
        int n = (size_t)len < sizeof buf ? mpb_csv_split(rec, buf, sizeof buf, fields, MPB_COL_COUNT + 1) : -1;
        if (n != MPB_COL_COUNT) {
            snprintf(why, why_len, "%s:%d: not a row of this mpbench's CSV", csv_path, line);
            ok = false;
            break;
        }
        int cls = class_of(fields[MPB_COL_gen_params], trace_dir, t);
        if (cls < 0)
            continue;
        struct replay_row *grown = realloc(*rows, sizeof *grown * (size_t)(*n_rows + 1));
        if (!grown) {
            snprintf(why, why_len, "out of memory");
            ok = false;
            break;
        }
        *rows = grown;
        struct replay_row *r = &grown[(*n_rows)++];
        /* the scheme alone, or with its parameters where they are not all the defaults of another row */
        snprintf(r->config, sizeof r->config, "%s|%s", fields[MPB_COL_scheme], fields[MPB_COL_params]);
        r->cls = cls;
        r->ok = !strcmp(fields[MPB_COL_status], "ok") &&
                mpb_csv_read_real(fields[MPB_COL_time_ms_median], &r->ms) &&
                mpb_csv_read_real(fields[MPB_COL_err_fro_rel], &r->err);
    }
    free(rec);
    fclose(f);
    return ok;
}

/* The row of configuration `config` on class `cls`, or NULL. */
static const struct replay_row *find(const struct replay_row *rows, int n, const char *config, int cls)
{
    for (int i = 0; i < n; i++)
        if (rows[i].cls == cls && !strcmp(rows[i].config, config))
            return &rows[i];
    return NULL;
}

/* The native GEMM's row on class `cls` (the first configuration of that scheme). */
static const struct replay_row *native_row(const struct replay_row *rows, int n, const struct mpb_trace_class *c,
                                           int cls)
{
    size_t len = strlen(native_of(c));
    for (int i = 0; i < n; i++)
        if (rows[i].cls == cls && !strncmp(rows[i].config, native_of(c), len) && rows[i].config[len] == '|')
            return &rows[i];
    return NULL;
}

/* What the table shows of a configuration: the scheme, and its parameters
 * when another configuration has the same scheme. */
static void label_of(const char *config, char **configs, int n, char *buf, size_t len)
{
    const char *bar = strchr(config, '|');
    int same = 0;
    for (int i = 0; i < n; i++)
        same += !strncmp(configs[i], config, (size_t)(bar - config) + 1);
    snprintf(buf, len, "%.*s%s%s", (int)(bar - config), config, same > 1 ? " " : "", same > 1 ? bar + 1 : "");
}

static void print_config(FILE *out, const char *config, const char *label, const struct replay_row *rows, int n,
                         const struct mpb_trace_file *t)
{
    int64_t calls = 0, shapes = 0, worse_calls = 0, worse_shapes = 0;
    double time_s = 0, native_s = 0, worst = -1;
    for (int c = 0; c < t->n_classes; c++) {
        const struct replay_row *r = find(rows, n, config, c), *nat = native_row(rows, n, &t->classes[c], c);
        if (!r || !r->ok)
            continue;
        shapes++;
        calls += t->classes[c].calls;
        time_s += 1e-3 * r->ms * (double)t->classes[c].calls;
        if (nat && nat->ok)
            native_s += 1e-3 * nat->ms * (double)t->classes[c].calls;
        if (r->err > worst)
            worst = r->err;
        if (nat && nat->ok && r->err > MPB_REPLAY_WORSE * nat->err) {
            worse_shapes++;
            worse_calls += t->classes[c].calls;
        }
    }
    char w[32] = "-", ratio[32] = "-";
    if (worst >= 0)
        snprintf(w, sizeof w, "%.3g", worst);
    if (time_s > 0 && native_s > 0)
        snprintf(ratio, sizeof ratio, "%.3g", native_s / time_s);
    fprintf(out, "%-28s %7lld %7lld %9lld %9lld %12s %13.6g %9s\n", label, (long long)shapes, (long long)calls,
            (long long)worse_shapes, (long long)worse_calls, w, time_s, ratio);
}

/* The calls of a configuration that lose accuracy, worst first, at most 10. */
static void print_worse(FILE *out, const char *config, const char *label, const struct replay_row *rows, int n,
                        const struct mpb_trace_file *t)
{
    int listed = 0;
    bool *done = calloc((size_t)t->n_classes + 1, 1);
    for (;;) {
        int pick = -1;
        double pick_err = 0, pick_nat = 0;
        for (int c = 0; c < t->n_classes; c++) {
            const struct replay_row *r = find(rows, n, config, c), *nat = native_row(rows, n, &t->classes[c], c);
            if (done && !done[c] && r && r->ok && nat && nat->ok && r->err > MPB_REPLAY_WORSE * nat->err &&
                (pick < 0 || r->err > pick_err)) {
                pick = c;
                pick_err = r->err;
                pick_nat = nat->err;
            }
        }
        if (pick < 0)
            break;
        done[pick] = true;
        const struct mpb_trace_class *c = &t->classes[pick];
        if (listed++ >= 10)
            continue;
        if (listed == 1)
            fprintf(out, "%s loses accuracy on:\n", label);
        fprintf(out, "  call %lld: %s %c%c %lldx%lldx%lld (%lld call%s of this shape): err_fro_rel %.3g, %s's %.3g\n",
                (long long)c->operands_call, c->routine, c->transa, c->transb, (long long)c->m, (long long)c->n,
                (long long)c->k, (long long)c->calls, c->calls == 1 ? "" : "s", pick_err, native_of(c), pick_nat);
    }
    if (listed > 10)
        fprintf(out, "  ... and %d more shape%s\n", listed - 10, listed - 10 == 1 ? "" : "s");
    free(done);
}

bool mpb_replay_summary(FILE *out, const char *csv_path, const char *trace_dir, const struct mpb_trace_file *t,
                        char *why, size_t why_len)
{
    struct replay_row *rows = NULL;
    int n = 0;
    if (!read_rows(csv_path, trace_dir, t, &rows, &n, why, why_len)) {
        free(rows);
        return false;
    }
    int64_t kept = 0, kept_calls = 0;
    for (int c = 0; c < t->n_classes; c++)
        if (t->classes[c].stem[0]) {
            kept++;
            kept_calls += t->classes[c].calls;
        }
    fprintf(out, "\nreplay of %s: %lld calls in %d shapes, recorded GEMM time %.6g s; %lld shapes (%lld calls) "
            "kept operands and were replayed\n", trace_dir, (long long)t->n_calls, t->n_classes, t->recorded_s,
            (long long)kept, (long long)kept_calls);
    /* the configurations, in the CSV's order */
    char **configs = malloc(sizeof *configs * (size_t)(n ? n : 1));
    int n_configs = 0;
    for (int i = 0; configs && i < n; i++) {
        int j = 0;
        while (j < n_configs && strcmp(configs[j], rows[i].config))
            j++;
        if (j == n_configs)
            configs[n_configs++] = rows[i].config;
    }
    fprintf(out, "%-28s %7s %7s %9s %9s %12s %13s %9s\n", "scheme", "shapes", "calls", "worse", "calls", "worst",
            "GEMM time", "× native");
    fprintf(out, "%-28s %7s %7s %9s %9s %12s %13s %9s\n", "", "ok", "", "shapes", "worse", "err_fro_rel", "s", "");
    char label[240];
    for (int i = 0; i < n_configs; i++) {
        label_of(configs[i], configs, n_configs, label, sizeof label);
        print_config(out, configs[i], label, rows, n, t);
    }
    fprintf(out, "worse: err_fro_rel (against the exact product) above %g× the native GEMM's (dgemm, sgemm, zgemm "
            "or cgemm, by the call's type) on the same operands; GEMM time: each shape's median time × its recorded calls, over the "
            "shapes replayed; × native: the native GEMM's time over this one\n", MPB_REPLAY_WORSE);
    for (int i = 0; i < n_configs; i++) {
        label_of(configs[i], configs, n_configs, label, sizeof label);
        print_worse(out, configs[i], label, rows, n, t);
    }
    free(configs);
    free(rows);
    return true;
}
