#include "gate.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What makes a header mpbench's: every column the gate reads is there.
 * Columns are only ever appended (README "CSV columns"), so more are fine. */
static const enum mpb_col needed[] = {
    MPB_COL_schema_version, MPB_COL_case_id,        MPB_COL_scheme,         MPB_COL_scheme_version,
    MPB_COL_params,         MPB_COL_target,         MPB_COL_impl,           MPB_COL_m,
    MPB_COL_n,              MPB_COL_k,              MPB_COL_gen,            MPB_COL_gen_params,
    MPB_COL_reps,           MPB_COL_time_ms_median, MPB_COL_noise_pct,      MPB_COL_err_fro_rel,
    MPB_COL_err_max_rel,    MPB_COL_err_median_rel, MPB_COL_rho_a_max,      MPB_COL_rho_b_max,
    MPB_COL_rho_c_max,      MPB_COL_grade,          MPB_COL_out_hash,       MPB_COL_status,
    MPB_COL_gpu_name,       MPB_COL_driver_version, MPB_COL_cuda_runtime,   MPB_COL_cublas_version,
    MPB_COL_mpbench_version, MPB_COL_git_sha,
};
#define N_NEEDED ((int)(sizeof needed / sizeof needed[0]))

static int column_of(const char *name)
{
    for (int c = 0; c < MPB_COL_COUNT; c++)
        if (!strcmp(name, mpb_csv_column_names[c]))
            return c;
    return -1;
}

/* Map each field of the header to its column (-1: one we do not know). */
static bool read_header(char **fields, int n, int *map, const char *path, char *why, size_t why_len)
{
    bool seen[MPB_COL_COUNT] = {false};
    for (int p = 0; p < n; p++) {
        map[p] = column_of(fields[p]);
        if (map[p] >= 0)
            seen[map[p]] = true;
    }
    for (int i = 0; i < N_NEEDED; i++)
        if (!seen[needed[i]]) {
            snprintf(why, why_len, "%s: its header is not mpbench's: no column '%s'", path,
                     mpb_csv_column_names[needed[i]]);
            return false;
        }
    return true;
}

/* What each cell a verdict reads must hold (else the file is malformed:
 * a nan or negative error, or a grade Z, would let any candidate pass). */
enum cell_kind { CELL_HEX16, CELL_HASH, CELL_COUNT, CELL_REPS, CELL_TIME, CELL_ERROR, CELL_GRADE,
                 CELL_STATUS, CELL_TARGET, CELL_IMPL };

static const struct {
    enum mpb_col col;
    enum cell_kind kind;
} checked[] = {
    {MPB_COL_case_id, CELL_HEX16},          {MPB_COL_scheme_version, CELL_COUNT}, {MPB_COL_target, CELL_TARGET},
    {MPB_COL_impl, CELL_IMPL},              {MPB_COL_reps, CELL_REPS},            {MPB_COL_time_ms_median, CELL_TIME},
    {MPB_COL_noise_pct, CELL_TIME},         {MPB_COL_err_fro_rel, CELL_ERROR},    {MPB_COL_err_max_rel, CELL_ERROR},
    {MPB_COL_err_median_rel, CELL_ERROR},   {MPB_COL_rho_a_max, CELL_ERROR},      {MPB_COL_rho_b_max, CELL_ERROR},
    {MPB_COL_rho_c_max, CELL_ERROR},        {MPB_COL_grade, CELL_GRADE},          {MPB_COL_out_hash, CELL_HASH},
    {MPB_COL_status, CELL_STATUS},
};

static bool is_hex16(const char *s)
{
    return strlen(s) == 16 && strspn(s, "0123456789abcdef") == 16;
}

/* A number >= 0; `inf` when allowed. */
static bool is_nonnegative(const char *s, bool inf)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (!*s || *end || isnan(x) || !(x >= 0))
        return false;
    return isfinite(x) ? errno == 0 : inf && !strcmp(s, "inf");
}

static bool is_word_of(const char *s, const char *const *words)
{
    for (; *words; words++)
        if (!strcmp(s, *words))
            return true;
    return false;
}

/* NULL when `s` is a valid cell of this kind, else what it should be. */
static const char *malformed(enum cell_kind kind, const char *s)
{
    static const char *const grades[] = {"", "A", "B", "C", "F", NULL};
    static const char *const statuses[] = {"ok", "incorrect", "not_supported", "error", "skipped", NULL};
    static const char *const targets[] = {"fp64", "fp32", NULL}, *const impls[] = {"cuda", "host", NULL};
    switch (kind) {
    case CELL_HEX16:
        return is_hex16(s) ? NULL : "16 hex digits";
    case CELL_HASH:
        return !*s || is_hex16(s) ? NULL : "16 hex digits or empty";
    case CELL_COUNT:
        return *s && !s[strspn(s, "0123456789")] ? NULL : "an integer >= 0";
    case CELL_REPS:
        return !s[strspn(s, "0123456789")] ? NULL : "an integer >= 0 or empty";
    case CELL_TIME:
        return !*s || is_nonnegative(s, false) ? NULL : "a finite number >= 0 or empty";
    case CELL_ERROR:
        return !*s || is_nonnegative(s, true) ? NULL : "a number >= 0 (or inf) or empty";
    case CELL_GRADE:
        return is_word_of(s, grades) ? NULL : "A, B, C, F or empty";
    case CELL_STATUS:
        return is_word_of(s, statuses) ? NULL : "ok, incorrect, not_supported, error or skipped";
    case CELL_TARGET:
        return is_word_of(s, targets) ? NULL : "fp64 or fp32";
    case CELL_IMPL:
        return is_word_of(s, impls) ? NULL : "cuda or host";
    }
    return NULL;
}

/* Every checked cell of a data row; false naming file, line and column. */
static bool check_cells(char **fields, const int *map, int n, const char *path, int lineno, char *why,
                        size_t why_len)
{
    for (int p = 0; p < n; p++)
        for (size_t i = 0; map[p] >= 0 && i < sizeof checked / sizeof checked[0]; i++) {
            const char *want = checked[i].col == (enum mpb_col)map[p] ? malformed(checked[i].kind, fields[p]) : NULL;
            if (want) {
                snprintf(why, why_len, "%s:%d: column %s (field %d): '%s' is not %s", path, lineno,
                         mpb_csv_column_names[map[p]], p + 1, fields[p], want);
                return false;
            }
        }
    return true;
}

static bool read_row(struct mpb_row *row, char **fields, const int *map, int n, const char *path, int lineno,
                     char *why, size_t why_len)
{
    for (int p = 0; p < n; p++)
        if (map[p] >= 0 && fields[p][0])
            mpb_row_set(row, (enum mpb_col)map[p], fields[p]);
    /* Every schema so far only appended columns, and the gate reads by
     * name: it reads them all (an older file's missing columns are empty). */
    const char *schema = row->cell[MPB_COL_schema_version];
    char *end = NULL;
    long version = schema ? strtol(schema, &end, 10) : 0;
    if (!schema || *end || version < 1 || version > MPB_CSV_SCHEMA_VERSION) {
        snprintf(why, why_len, "%s:%d: schema_version '%s'; this mpbench reads 1 to %d", path, lineno,
                 schema ? schema : "", MPB_CSV_SCHEMA_VERSION);
        return false;
    }
    return check_cells(fields, map, n, path, lineno, why, why_len);
}

struct reader {
    struct mpb_gate_file *f;
    int *map; /* header field -> column; NULL until the header is read */
    int n_cols;
    int cap;  /* rows allocated */
};

static bool grow_rows(struct reader *r)
{
    if (r->f->n_rows < r->cap)
        return true;
    int want = r->cap ? 2 * r->cap : 64;
    struct mpb_row *grown = realloc(r->f->rows, sizeof *grown * (size_t)want);
    if (!grown)
        return false;
    memset(grown + r->cap, 0, sizeof *grown * (size_t)(want - r->cap));
    r->f->rows = grown;
    r->cap = want;
    return true;
}

/* One record (it may span lines: RFC 4180 lets a quoted cell hold a line
 * break); `lineno` is the line it starts on. */
static bool read_line(struct reader *r, const char *line, size_t len, int lineno, char *why, size_t why_len)
{
    const char *path = r->f->path;
    int max = 1;
    for (const char *s = line; *s; s++)
        max += *s == ',';
    char *buf = malloc(len + 1);
    char **fields = malloc(sizeof *fields * (size_t)max);
    bool ok = buf && fields && grow_rows(r);
    int n = ok ? mpb_csv_split(line, buf, len + 1, fields, max) : 0;
    if (!ok) {
        snprintf(why, why_len, "%s: out of memory", path);
    } else if (n < 0) {
        snprintf(why, why_len, "%s:%d: malformed quoting", path, lineno);
        ok = false;
    } else if (!r->map) {
        r->map = malloc(sizeof *r->map * (size_t)n);
        r->n_cols = n;
        ok = r->map && read_header(fields, n, r->map, path, why, why_len);
    } else if (n != r->n_cols) {
        snprintf(why, why_len, "%s:%d: %d fields, the header has %d (a truncated last line? "
                 "mpbench run --resume drops it)", path, lineno, n, r->n_cols);
        ok = false;
    } else {
        ok = read_row(&r->f->rows[r->f->n_rows++], fields, r->map, n, path, lineno, why, why_len);
    }
    free(buf);
    free(fields);
    return ok;
}

static bool read_lines(struct mpb_gate_file *f, FILE *in, char *why, size_t why_len)
{
    struct reader r = {.f = f};
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    bool ok = true, complete;
    for (int lineno = 1, spans; ok && (len = mpb_csv_read_record(in, &line, &cap, &spans, &complete)) > 0;
         lineno += spans)
        if (strspn(line, "\r\n") != (size_t)len) /* a blank line is no record */
            ok = read_line(&r, line, (size_t)len, lineno, why, why_len);
    if (ok && (len < 0 || ferror(in))) {
        snprintf(why, why_len, "%s: cannot read: %s", f->path, strerror(errno));
        ok = false;
    }
    if (ok && !r.map) {
        snprintf(why, why_len, "%s: empty, expected mpbench's CSV header", f->path);
        ok = false;
    }
    free(line);
    free(r.map);
    return ok;
}

struct id_at {
    const char *id;
    int at;
};

static int id_at_cmp(const void *a, const void *b)
{
    const struct id_at *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* Keep the last row of each case_id (a --resume rerun appends a newer
 * one): `live` in file order for the report, `by_id` for the join. */
static bool index_rows(struct mpb_gate_file *f)
{
    size_t n = (size_t)f->n_rows + 1;
    struct id_at *order = malloc(sizeof *order * n);
    bool *keep = calloc(n, sizeof *keep);
    f->live = malloc(sizeof *f->live * n);
    f->by_id = malloc(sizeof *f->by_id * n);
    bool ok = order && keep && f->live && f->by_id;
    for (int i = 0; ok && i < f->n_rows; i++)
        order[i] = (struct id_at){f->rows[i].cell[MPB_COL_case_id], i};
    if (ok)
        qsort(order, (size_t)f->n_rows, sizeof *order, id_at_cmp);
    int n_ids = 0;
    for (int i = 0; ok && i < f->n_rows; i++)
        if (i + 1 == f->n_rows || strcmp(order[i].id, order[i + 1].id)) {
            keep[order[i].at] = true;
            f->by_id[n_ids++] = &f->rows[order[i].at];
        }
    for (int i = 0; ok && i < f->n_rows; i++)
        if (keep[i])
            f->live[f->n_live++] = &f->rows[i];
    free(order);
    free(keep);
    return ok;
}

bool mpb_gate_load(struct mpb_gate_file *f, const char *path, char *why, size_t why_len)
{
    memset(f, 0, sizeof *f);
    f->path = path;
    FILE *in = fopen(path, "r");
    if (!in) {
        snprintf(why, why_len, "%s: cannot read: %s", path, strerror(errno));
        return false;
    }
    bool ok = read_lines(f, in, why, why_len);
    fclose(in);
    if (ok && !index_rows(f)) {
        snprintf(why, why_len, "%s: out of memory", path);
        ok = false;
    }
    if (!ok)
        mpb_gate_free(f);
    return ok;
}

void mpb_gate_free(struct mpb_gate_file *f)
{
    for (int i = 0; i < f->n_rows; i++)
        mpb_row_clear(&f->rows[i]);
    free(f->rows);
    free(f->live);
    free(f->by_id);
    memset(f, 0, sizeof *f);
}

const char *mpb_gate_cell(const struct mpb_row *row, enum mpb_col col)
{
    return row && row->cell[col] ? row->cell[col] : "";
}

const char *mpb_gate_version(const struct mpb_gate_file *f, enum mpb_col col)
{
    const char *seen = NULL;
    for (int i = 0; i < f->n_live; i++) {
        const char *v = f->live[i]->cell[col];
        if (v && seen && strcmp(v, seen))
            return "mixed";
        if (v)
            seen = v;
    }
    return seen;
}

static const struct mpb_row *find(const struct mpb_gate_file *f, const char *case_id)
{
    int lo = 0, hi = f->n_live;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strcmp(case_id, f->by_id[mid]->cell[MPB_COL_case_id]);
        if (!c)
            return f->by_id[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* A number cell; NaN when empty or not a number (missing). */
static double number(const struct mpb_row *row, enum mpb_col col)
{
    const char *s = mpb_gate_cell(row, col);
    char *end;
    double x = strtod(s, &end);
    return *s && !*end ? x : NAN;
}

/* Append a reason to the pair's `why`, "; "-separated. */
static void say(struct mpb_gate_pair *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct mpb_gate_pair *p, const char *fmt, ...)
{
    size_t used = strlen(p->why);
    if (used && used + 2 < sizeof p->why) {
        strcpy(p->why + used, "; ");
        used += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->why + used, sizeof p->why - used, fmt, ap);
    va_end(ap);
}

static const char *shown(const char *s)
{
    return *s ? s : "(empty)";
}

/* Rows of different scheme numerics, GPUs or backends say nothing about
 * the upgrade. */
static bool incomparable(struct mpb_gate_pair *p)
{
    static const enum mpb_col setup[] = {MPB_COL_scheme_version, MPB_COL_gpu_name, MPB_COL_impl};
    bool differ = false;
    for (size_t i = 0; i < sizeof setup / sizeof setup[0]; i++) {
        const char *b = mpb_gate_cell(p->base, setup[i]), *c = mpb_gate_cell(p->cand, setup[i]);
        if (strcmp(b, c)) {
            say(p, "%s %s→%s", mpb_csv_column_names[setup[i]], shown(b), shown(c));
            differ = true;
        }
    }
    return differ;
}

static const enum mpb_col error_cols[] = {MPB_COL_err_fro_rel, MPB_COL_err_max_rel, MPB_COL_err_median_rel,
                                          MPB_COL_rho_a_max,   MPB_COL_rho_b_max,   MPB_COL_rho_c_max};

static double error_floor(const struct mpb_row *base, enum mpb_col col)
{
    bool rho = col == MPB_COL_rho_a_max || col == MPB_COL_rho_b_max || col == MPB_COL_rho_c_max;
    double u = strcmp(mpb_gate_cell(base, MPB_COL_target), "fp32") ? 0x1p-53 : 0x1p-24;
    return ldexp(rho ? 1 : u, MPB_GATE_FLOOR_LOG2);
}

/* Sets worst_err and says which columns grew past the factor; true when
 * one did. A column the baseline lacks holds nothing to compare with; one
 * only the candidate lacks lost its value (--ref none, or a NaN error),
 * which the gate cannot pass. */
static bool errors_grew(struct mpb_gate_pair *p, double factor)
{
    bool grew = false;
    int lost = 0;
    for (size_t i = 0; i < sizeof error_cols / sizeof error_cols[0]; i++) {
        enum mpb_col col = error_cols[i];
        double b = number(p->base, col), c = number(p->cand, col);
        if (isnan(b))
            continue;
        double ratio = isnan(c) ? INFINITY : c == b ? 1 : c / fmax(b, error_floor(p->base, col));
        if (isnan(p->worst_err) || ratio > p->worst_err)
            p->worst_err = ratio;
        if (!(ratio > factor))
            continue;
        grew = true;
        if (isnan(c))
            lost++;
        else
            say(p, "%s %.3g→%.3g", mpb_csv_column_names[col], b, c);
    }
    if (lost)
        say(p, "%d error column(s) empty in the candidate only", lost);
    return grew;
}

/* A > B > C > F; -1 for not graded. */
static int grade_rank(const char *g)
{
    static const char order[] = "ABCF";
    const char *at = g[0] && !g[1] ? strchr(order, g[0]) : NULL;
    return at ? (int)(at - order) : -1;
}

static enum mpb_gate_acc judge_accuracy(struct mpb_gate_pair *p, double factor)
{
    const char *bs = mpb_gate_cell(p->base, MPB_COL_status), *cs = mpb_gate_cell(p->cand, MPB_COL_status);
    if (incomparable(p))
        return MPB_GATE_ACC_INCOMPARABLE;
    if (strcmp(bs, "ok")) { /* no numbers to hold the candidate to */
        if (!strcmp(bs, cs))
            return MPB_GATE_ACC_SAME;
        say(p, "status %s→%s", shown(bs), shown(cs));
        return MPB_GATE_ACC_CHANGED;
    }
    if (strcmp(cs, "ok")) {
        say(p, "status ok→%s", shown(cs));
        return MPB_GATE_ACC_WORSE;
    }
    const char *bh = mpb_gate_cell(p->base, MPB_COL_out_hash);
    if (*bh && !strcmp(bh, mpb_gate_cell(p->cand, MPB_COL_out_hash)))
        return MPB_GATE_ACC_SAME;
    bool worse = errors_grew(p, factor);
    const char *bg = mpb_gate_cell(p->base, MPB_COL_grade), *cg = mpb_gate_cell(p->cand, MPB_COL_grade);
    if (grade_rank(bg) >= 0 && grade_rank(cg) > grade_rank(bg)) {
        say(p, "grade %s→%s", bg, cg);
        worse = true;
    }
    if (!worse)
        say(p, "out_hash differs");
    return worse ? MPB_GATE_ACC_WORSE : MPB_GATE_ACC_CHANGED;
}

static bool both_are(const struct mpb_gate_pair *p, enum mpb_col col, const char *value)
{
    return !strcmp(mpb_gate_cell(p->base, col), value) && !strcmp(mpb_gate_cell(p->cand, col), value);
}

/* Timing noise widens the band: a ratio inside twice the noisier side's
 * noise_pct is not a measured change. */
static enum mpb_gate_perf judge_perf(struct mpb_gate_pair *p, const struct mpb_gate_tol *tol)
{
    const struct mpb_row *b = p->base, *c = p->cand;
    double tb = number(b, MPB_COL_time_ms_median), tc = number(c, MPB_COL_time_ms_median);
    if (tb > 0 && tc >= 0)
        p->time_ratio = tc / tb;
    if (!both_are(p, MPB_COL_impl, "cuda") || !both_are(p, MPB_COL_status, "ok"))
        return MPB_GATE_PERF_NONE;
    bool enough = number(b, MPB_COL_reps) >= MPB_GATE_PERF_MIN_REPS &&
                  number(c, MPB_COL_reps) >= MPB_GATE_PERF_MIN_REPS;
    if (!enough) {
        say(p, "reps %s/%s, fewer than %d", shown(mpb_gate_cell(b, MPB_COL_reps)),
            shown(mpb_gate_cell(c, MPB_COL_reps)), MPB_GATE_PERF_MIN_REPS);
        return MPB_GATE_PERF_AMBIGUOUS;
    }
    if (isnan(p->time_ratio)) {
        say(p, "no time");
        return MPB_GATE_PERF_AMBIGUOUS;
    }
    /* Calls of tens of µs vary by tens of percent between runs of one session
     * (launch latency, clock ramp: results/h200/gate/baseline-gate-rerun.md). */
    if (fmin(tb, tc) < tol->min_ms) {
        say(p, "calls under %g ms", tol->min_ms);
        return MPB_GATE_PERF_AMBIGUOUS;
    }
    /* fmax drops a NaN (empty noise_pct) operand */
    double noise = fmax(number(b, MPB_COL_noise_pct), number(c, MPB_COL_noise_pct));
    double t = fmax(tol->perf_pct, 2 * noise);
    if (fabs(p->time_ratio - 1) <= t / 100)
        return MPB_GATE_PERF_SAME;
    say(p, "time outside ±%.3g%%", t);
    return p->time_ratio < 1 ? MPB_GATE_PERF_FAST : MPB_GATE_PERF_SLOW;
}

static void judge(struct mpb_gate_pair *p, const struct mpb_gate_tol *tol)
{
    p->time_ratio = p->worst_err = NAN;
    if (!p->cand)
        p->acc = MPB_GATE_ACC_MISSING;
    else if (!p->base)
        p->acc = MPB_GATE_ACC_NEW;
    else
        p->acc = judge_accuracy(p, tol->err_factor);
    bool both = p->base && p->cand && p->acc != MPB_GATE_ACC_INCOMPARABLE;
    p->perf = both ? judge_perf(p, tol) : MPB_GATE_PERF_NONE;
}

bool mpb_gate_compare(const struct mpb_gate_file *base, const struct mpb_gate_file *cand,
                      const struct mpb_gate_tol *tol, struct mpb_gate_result *res)
{
    memset(res, 0, sizeof *res);
    res->pairs = calloc((size_t)base->n_live + (size_t)cand->n_live + 1, sizeof *res->pairs);
    if (!res->pairs)
        return false;
    for (int i = 0; i < base->n_live; i++) {
        const struct mpb_row *b = base->live[i];
        res->pairs[res->n_pairs++] =
            (struct mpb_gate_pair){.base = b, .cand = find(cand, b->cell[MPB_COL_case_id])};
    }
    for (int i = 0; i < cand->n_live; i++) {
        const struct mpb_row *c = cand->live[i];
        if (!find(base, c->cell[MPB_COL_case_id]))
            res->pairs[res->n_pairs++] = (struct mpb_gate_pair){.cand = c};
    }
    for (int i = 0; i < res->n_pairs; i++) {
        res->n_compared += res->pairs[i].base && res->pairs[i].cand;
        judge(&res->pairs[i], tol);
        res->acc_count[res->pairs[i].acc]++;
        res->perf_count[res->pairs[i].perf]++;
    }
    return true;
}

void mpb_gate_result_free(struct mpb_gate_result *res)
{
    free(res->pairs);
    memset(res, 0, sizeof *res);
}

bool mpb_gate_failed(const struct mpb_gate_result *res)
{
    return res->n_compared == 0 || res->acc_count[MPB_GATE_ACC_WORSE] || res->acc_count[MPB_GATE_ACC_MISSING] ||
           res->acc_count[MPB_GATE_ACC_INCOMPARABLE] || res->perf_count[MPB_GATE_PERF_SLOW];
}

const char *mpb_gate_acc_name(enum mpb_gate_acc a)
{
    static const char *const names[MPB_GATE_ACC_COUNT] = {"SAME", "CHANGED", "WORSE", "MISSING", "NEW",
                                                          "INCOMPARABLE"};
    return a < MPB_GATE_ACC_COUNT ? names[a] : "?";
}

const char *mpb_gate_perf_name(enum mpb_gate_perf p)
{
    static const char *const names[MPB_GATE_PERF_COUNT] = {"-", "SAME", "FAST", "SLOW", "AMBIGUOUS"};
    return p < MPB_GATE_PERF_COUNT ? names[p] : "?";
}
