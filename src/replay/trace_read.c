/* A hook trace read back (trace_read.h). */
#include "replay/trace_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case/values.h"
#include "mat_read.h"
#include "record/csv.h"

enum { COL_call, COL_routine, COL_order, COL_transa, COL_transb, COL_m, COL_n, COL_k, COL_alpha, COL_beta, COL_lda,
       COL_ldb, COL_ldc, COL_time_s, COL_thread, COL_operands, COL_scheme, COL_err, COL_type, COL_alpha_im,
       COL_beta_im, COL_batch, N_COLS };

/* Each routine the hook records, and the types it records it in. */
static const struct {
    const char *name, *types;
} routines[] = {{"dgemm_", "d"}, {"sgemm_", "s"}, {"cblas_dgemm", "d"}, {"cblas_sgemm", "s"},
                {"cublasDgemm_v2", "d"}, {"cublasSgemm_v2", "s"}, {"cublasZgemm_v2", "z"}, {"cublasCgemm_v2", "c"},
                {"cublasGemmEx", "dszc"}, {"cublasDgemmBatched", "d"}, {"cublasSgemmBatched", "s"},
                {"cublasZgemmBatched", "z"}, {"cublasCgemmBatched", "c"}, {"cublasDgemmStridedBatched", "d"},
                {"cublasSgemmStridedBatched", "s"}, {"cublasZgemmStridedBatched", "z"},
                {"cublasCgemmStridedBatched", "c"}, {"cublasGemmBatchedEx", "dszc"},
                {"cublasGemmStridedBatchedEx", "dszc"}};

static int routine_index(const char *s)
{
    for (size_t r = 0; r < sizeof routines / sizeof *routines; r++)
        if (!strcmp(s, routines[r].name))
            return (int)r;
    return -1;
}

static bool int_at_least(const char *s, int64_t lo, int64_t *out)
{
    return mpb_int_parse(s, out) && *out >= lo;
}

/* A cell against its column's grammar; false with what was expected. */
static bool check_cell(int col, const char *s, const char **expected)
{
    int64_t i;
    double x;
    switch (col) {
    case COL_call: *expected = "a call index >= 0"; return int_at_least(s, 0, &i);
    case COL_routine: *expected = "a routine the hook records (dgemm_, cblas_sgemm, cublasDgemm_v2, cublasGemmEx, ...)";
        return routine_index(s) >= 0;
    case COL_order: *expected = "C or R"; return !strcmp(s, "C") || !strcmp(s, "R");
    case COL_transa: case COL_transb: *expected = "N, T or C"; return strlen(s) == 1 && strchr("NTC", s[0]);
    case COL_m: case COL_n: case COL_k: *expected = "an integer >= 0"; return int_at_least(s, 0, &i);
    case COL_lda: case COL_ldb: case COL_ldc: *expected = "an integer >= 1"; return int_at_least(s, 1, &i);
    case COL_alpha: case COL_beta: *expected = "a real number"; return mpb_csv_read_real(s, &x);
    case COL_time_s: *expected = "seconds >= 0"; return mpb_csv_read_real(s, &x) && x >= 0;
    case COL_thread: *expected = "a thread id"; return int_at_least(s, 0, &i);
    case COL_operands: *expected = "empty or a stem c<digits>";
        return !*s || (s[0] == 'c' && strlen(s) > 1 && strlen(s) < MPB_TRACE_STEM_MAX &&
                       strspn(s + 1, "0123456789") == strlen(s + 1));
    case COL_scheme: *expected = "a scheme name"; return *s != '\0';
    case COL_err: *expected = "empty or an error >= 0"; return !*s || (mpb_csv_read_real(s, &x) && x >= 0);
    case COL_type: *expected = "d, s, z or c"; return strlen(s) == 1 && strchr("dszc", s[0]);
    case COL_alpha_im: case COL_beta_im: *expected = "a real number"; return mpb_csv_read_real(s, &x);
    default: *expected = "empty or a batch count >= 0"; return !*s || int_at_least(s, 0, &i);
    }
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t cap = 0, got = 0;
    while (f && !feof(f) && !ferror(f)) {
        if (got == cap) {
            uint8_t *grown = realloc(buf, cap = cap ? 2 * cap : 65536);
            if (!grown)
                break;
            buf = grown;
        }
        got += fread(buf + got, 1, cap - got, f);
    }
    bool ok = f && feof(f) && !ferror(f);
    if (f)
        fclose(f);
    if (!ok) {
        free(buf);
        return NULL;
    }
    *len = got;
    return buf;
}

/* One operand file of a class against the shape and type its calls say. */
static bool check_operand(const char *dir, const struct mpb_trace_class *c, char which, int line, char *why,
                          size_t why_len)
{
    char path[4200], what[300];
    snprintf(path, sizeof path, "%s/%s_%c.npy", dir, c->stem, which);
    int64_t rows = which == 'B' ? c->k : c->m, cols = which == 'A' ? c->k : c->n;
    const char *dtype = c->type == 'd' ? "float64" : c->type == 's' ? "float32" : c->type == 'z' ? "complex128"
                                                                                        : "complex64";
    size_t len = 0;
    uint8_t *buf = read_file(path, &len);
    struct mpb_mat mat = {0};
    bool ok = buf && mpb_npy_parse(buf, len, &mat, what, sizeof what);
    if (!buf)
        snprintf(why, why_len, "%s (calls.csv line %d, column operands): cannot read it: %s", path, line,
                 strerror(errno));
    else if (!ok)
        snprintf(why, why_len, "%s (calls.csv line %d, column operands): %s", path, line, what);
    else if (mat.rows != rows || mat.cols != cols || strcmp(mat.dtype, dtype)) {
        snprintf(why, why_len, "%s: %lld x %lld %s, but calls.csv line %d says op(%c) is %lld x %lld %s", path,
                 (long long)mat.rows, (long long)mat.cols, mat.dtype, line, which == 'C' ? 'C' : which,
                 (long long)rows, (long long)cols, dtype);
        ok = false;
    }
    free(buf);
    mpb_mat_free(&mat);
    return ok;
}

static struct mpb_trace_class *find_class(struct mpb_trace_file *t, const struct mpb_trace_class *key)
{
    for (int i = 0; i < t->n_classes; i++) {
        struct mpb_trace_class *c = &t->classes[i];
        if (!strcmp(c->routine, key->routine) && c->type == key->type && c->order == key->order && c->transa == key->transa &&
            c->transb == key->transb && c->m == key->m && c->n == key->n && c->k == key->k)
            return c;
    }
    struct mpb_trace_class *grown = realloc(t->classes, sizeof *grown * (size_t)(t->n_classes + 1));
    if (!grown)
        return NULL;
    t->classes = grown;
    grown[t->n_classes] = *key;
    return &grown[t->n_classes++];
}

struct seen_call {
    int64_t call;
    int line;
};

static int by_call(const void *x, const void *y)
{
    const struct seen_call *a = x, *b = y;
    return a->call < b->call ? -1 : a->call > b->call;
}

/* The rows into classes; false with why naming the line and column. */
static bool read_rows(FILE *f, const char *path, struct mpb_trace_file *t, struct seen_call **seen, int **lines,
                      char *why, size_t why_len)
{
    static const char *const names[N_COLS] = {"call", "routine", "order", "transa", "transb", "m", "n", "k",
                                              "alpha", "beta", "lda", "ldb", "ldc", "time_s", "thread",
                                              "operands", "scheme", "err_vs_native", "type", "alpha_im",
                                              "beta_im", "batch"};
    char *rec = NULL, buf[2048], *fields[N_COLS + 1];
    size_t cap = 0;
    int nl = 0, line = 1;
    bool complete = true, ok = true;
    ssize_t len = mpb_csv_read_record(f, &rec, &cap, &nl, &complete);
    if (len <= 0 || strcmp(rec, MPB_TRACE_COLUMNS "\n")) {
        snprintf(why, why_len, "%s:1: not a hook trace's header (expected %s)", path, MPB_TRACE_COLUMNS);
        free(rec);
        return false;
    }
    while (ok && (len = mpb_csv_read_record(f, &rec, &cap, &nl, &complete)) > 0) {
        line++;
        int n = (size_t)len < sizeof buf ? mpb_csv_split(rec, buf, sizeof buf, fields, N_COLS + 1) : -1;
        if (n != N_COLS || !complete) {
            snprintf(why, why_len, "%s:%d: %s", path, line,
                     !complete ? "the record ends before its line does (a cut-off write)"
                     : n < 0   ? "malformed or overlong record"
                               : "expected 22 columns");
            if (n >= 0 && n != N_COLS && complete)
                snprintf(why + strlen(why), why_len - strlen(why), ", not %d", n);
            ok = false;
            break;
        }
        for (int c = 0; ok && c < N_COLS; c++) {
            const char *expected;
            if (!check_cell(c, fields[c], &expected)) {
                snprintf(why, why_len, "%s:%d: column %d (%s): '%.40s': expected %s", path, line, c + 1, names[c],
                         fields[c], expected);
                ok = false;
            }
        }
        int routine = ok ? routine_index(fields[COL_routine]) : -1;
        if (ok && !strchr(routines[routine].types, fields[COL_type][0])) {
            snprintf(why, why_len, "%s:%d: column %d (type): '%s': %s records type %s", path, line, COL_type + 1,
                     fields[COL_type], routines[routine].name, routines[routine].types);
            ok = false;
        }
        if (ok && fields[COL_batch][0] && !strstr(fields[COL_routine], "Batched")) {
            snprintf(why, why_len, "%s:%d: column %d (batch): '%s' for %s, which is not batched", path, line,
                     COL_batch + 1, fields[COL_batch], fields[COL_routine]);
            ok = false;
        }
        if (ok && fields[COL_operands][0] && fields[COL_batch][0]) {
            snprintf(why, why_len, "%s:%d: column 16 (operands): '%s' for a batched call (only counted)", path, line,
                     fields[COL_operands]);
            ok = false;
        }
        if (!ok)
            break;
        struct mpb_trace_class key = {.order = fields[COL_order][0], .transa = fields[COL_transa][0],
                                      .transb = fields[COL_transb][0], .operands_call = -1};
        snprintf(key.routine, sizeof key.routine, "%s", fields[COL_routine]);
        key.type = fields[COL_type][0];
        key.target = key.type == 'd' || key.type == 'z' ? MPB_TARGET_FP64 : MPB_TARGET_FP32;
        key.field = key.type == 'z' || key.type == 'c' ? MPB_FIELD_COMPLEX : MPB_FIELD_REAL;
        int64_t call;
        double secs;
        mpb_int_parse(fields[COL_m], &key.m);
        mpb_int_parse(fields[COL_n], &key.n);
        mpb_int_parse(fields[COL_k], &key.k);
        mpb_int_parse(fields[COL_call], &call);
        mpb_csv_read_real(fields[COL_time_s], &secs);
        struct mpb_trace_class *c = find_class(t, &key);
        struct seen_call *s = realloc(*seen, sizeof *s * (size_t)(t->n_calls + 1));
        int *l = realloc(*lines, sizeof *l * (size_t)(t->n_classes + 1));
        if (s)
            *seen = s;
        if (l)
            *lines = l;
        if (!c || !s || !l) {
            snprintf(why, why_len, "%s: out of memory", path);
            ok = false;
            break;
        }
        s[t->n_calls++] = (struct seen_call){call, line};
        c->calls++;
        c->recorded_s += secs;
        t->recorded_s += secs;
        if (fields[COL_operands][0] && c->operands_call < 0) {
            if (key.m == 0 || key.n == 0 || key.k == 0) {
                snprintf(why, why_len, "%s:%d: column 16 (operands): '%s' for a call of an empty product", path,
                         line, fields[COL_operands]);
                ok = false;
                break;
            }
            c->operands_call = call;
            snprintf(c->stem, sizeof c->stem, "%s", fields[COL_operands]);
            l[c - t->classes] = line;
        }
    }
    if (ok && len < 0) {
        snprintf(why, why_len, "%s: reading it failed after line %d: %s", path, line, strerror(errno));
        ok = false;
    }
    free(rec);
    return ok;
}

bool mpb_trace_load(const char *dir, struct mpb_trace_file *t, char *why, size_t why_len)
{
    *t = (struct mpb_trace_file){0};
    char path[4200];
    snprintf(path, sizeof path, "%s/" MPB_TRACE_CSV, dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, why_len, "%s: cannot open it: %s (a trace folder of MPBENCH_HOOK=record)", path,
                 strerror(errno));
        return false;
    }
    struct seen_call *seen = NULL;
    int *lines = NULL;
    bool ok = read_rows(f, path, t, &seen, &lines, why, why_len);
    fclose(f);
    if (ok && t->n_calls > 0) {
        qsort(seen, (size_t)t->n_calls, sizeof *seen, by_call);
        for (int64_t i = 1; ok && i < t->n_calls; i++)
            if (seen[i].call == seen[i - 1].call) {
                snprintf(why, why_len, "%s:%d: column 1 (call): call %lld again (line %d has it)", path,
                         seen[i].line > seen[i - 1].line ? seen[i].line : seen[i - 1].line, (long long)seen[i].call,
                         seen[i].line > seen[i - 1].line ? seen[i - 1].line : seen[i].line);
                ok = false;
            }
    }
    for (int i = 0; ok && i < t->n_classes; i++) {
        const struct mpb_trace_class *c = &t->classes[i];
        ok = !c->stem[0] || (check_operand(dir, c, 'A', lines[i], why, why_len) &&
                             check_operand(dir, c, 'B', lines[i], why, why_len));
    }
    free(seen);
    free(lines);
    if (!ok)
        mpb_trace_file_free(t);
    return ok;
}

void mpb_trace_file_free(struct mpb_trace_file *t)
{
    free(t->classes);
    *t = (struct mpb_trace_file){0};
}
