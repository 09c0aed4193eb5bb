#include "record/csv.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

const char *const mpb_csv_column_names[MPB_COL_COUNT] = {
#define MPB_COL_NAME(name) #name,
    MPB_CSV_COLUMNS(MPB_COL_NAME)
#undef MPB_COL_NAME
};

/* Columns of schema_version `version` (1 … MPB_CSV_SCHEMA_VERSION): the
 * first this many of the current list, as columns are only ever appended. */
static int schema_columns(int version)
{
    static const int columns[MPB_CSV_SCHEMA_VERSION + 1] = {0, MPB_COL_tags + 1, MPB_COL_cr_mismatch + 1,
                                                              MPB_COL_max_abs_vs_native + 1, MPB_COL_gpu_uuid + 1,
                                                              MPB_COL_gflops_per_w + 1, MPB_COL_rho_a_im_max + 1};
    return columns[version];
}

int mpb_csv_header_schema(char **fields, int n)
{
    for (int v = MPB_CSV_SCHEMA_VERSION; v >= 1; v--) {
        bool same = n == schema_columns(v);
        for (int c = 0; same && c < n; c++)
            same = strcmp(fields[c], mpb_csv_column_names[c]) == 0;
        if (same)
            return v;
    }
    return 0;
}

void mpb_row_set(struct mpb_row *row, enum mpb_col col, const char *text)
{
    free(row->cell[col]);
    row->cell[col] = text ? strdup(text) : NULL;
}

void mpb_row_setf(struct mpb_row *row, enum mpb_col col, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    mpb_row_set(row, col, buf);
}

void mpb_row_set_double(struct mpb_row *row, enum mpb_col col, double x)
{
    if (isnan(x))
        mpb_row_set(row, col, NULL);
    else
        mpb_row_setf(row, col, "%.17g", x);
}

void mpb_row_set_int(struct mpb_row *row, enum mpb_col col, int64_t x)
{
    mpb_row_setf(row, col, "%" PRId64, x);
}

void mpb_row_clear(struct mpb_row *row)
{
    for (int c = 0; c < MPB_COL_COUNT; c++) {
        free(row->cell[c]);
        row->cell[c] = NULL;
    }
}

static const char *skip_digits(const char *s)
{
    while (*s >= '0' && *s <= '9')
        s++;
    return s;
}

/* An optional '-', then digits with no leading zero; NULL without digits. */
static const char *skip_integer(const char *s)
{
    if (*s == '-')
        s++;
    if (*s == '0')
        return s + 1;
    const char *end = skip_digits(s);
    return end > s ? end : NULL;
}

bool mpb_csv_read_real(const char *s, double *x)
{
    if (!strcmp(s, "inf") || !strcmp(s, "-inf")) {
        *x = *s == '-' ? -INFINITY : INFINITY;
        return true;
    }
    const char *p = skip_integer(s), *from;
    if (p && *p == '.') {
        from = p + 1;
        p = skip_digits(from);
        p = p > from ? p : NULL;
    }
    if (p && *p == 'e') {
        from = p + 2;
        p = (p[1] == '+' || p[1] == '-') && skip_digits(from) > from ? skip_digits(from) : NULL;
    }
    if (!p || *p)
        return false;
    *x = strtod(s, NULL);
    return isfinite(*x); /* not 1e999: no double prints so */
}

bool mpb_csv_read_int(const char *s, int64_t *x)
{
    const char *end = skip_integer(s);
    if (!end || *end)
        return false;
    errno = 0;
    long long v = strtoll(s, NULL, 10);
    *x = v;
    return errno == 0;
}

/* A resumed row's case_id and the line it starts on. */
struct resumed_id {
    char *id;
    int line;
};

struct mpb_csv {
    FILE *f;
    int lock_fd; /* holds the flock on a FILE for the whole run; -1 for none */
    bool is_stdout;
    struct resumed_id *ids; /* of resumed rows, sorted by case_id */
    int n_ids;
};

void mpb_csv_write_field(FILE *f, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
    fputc('"', f);
}

static bool write_header(FILE *f)
{
    for (int c = 0; c < MPB_COL_COUNT; c++) {
        if (c)
            fputc(',', f);
        fputs(mpb_csv_column_names[c], f);
    }
    fputc('\n', f);
    return fflush(f) == 0 && !ferror(f);
}

int mpb_csv_split(const char *line, char *buf, size_t buf_len, char **fields, int max)
{
    size_t at = 0;
    int n = 0;
    const char *p = line;
    for (;;) {
        if (n == max || at >= buf_len)
            return -1;
        fields[n++] = buf + at;
        if (*p == '"') {
            for (p++;; p++) {
                if (*p == '\0')
                    return -1;
                if (*p == '"') {
                    if (p[1] != '"')
                        break;
                    p++;
                }
                if (at + 1 >= buf_len)
                    return -1;
                buf[at++] = *p;
            }
            p++;
            if (*p != ',' && *p != '\0' && *p != '\n' && *p != '\r')
                return -1;
        } else {
            for (; *p && *p != ',' && *p != '\n' && *p != '\r'; p++) {
                if (at + 1 >= buf_len)
                    return -1;
                buf[at++] = *p;
            }
        }
        buf[at++] = '\0';
        if (*p != ',')
            return n;
        p++;
    }
}

ssize_t mpb_csv_read_record(FILE *f, char **rec, size_t *cap, int *lines, bool *complete)
{
    char *line = NULL;
    size_t line_cap = 0, len = 0;
    ssize_t got;
    bool quoted = false;
    *lines = 0;
    *complete = false;
    while ((got = getline(&line, &line_cap, f)) > 0) {
        if (len + (size_t)got + 1 > *cap) {
            size_t want = 2 * (len + (size_t)got + 1);
            char *grown = realloc(*rec, want);
            if (!grown) {
                free(line);
                return -1;
            }
            *rec = grown;
            *cap = want;
        }
        memcpy(*rec + len, line, (size_t)got + 1);
        len += (size_t)got;
        (*lines)++;
        /* a doubled quote flips twice: the parity says whether we are inside */
        for (ssize_t i = 0; i < got; i++)
            quoted ^= line[i] == '"';
        if (!quoted && line[got - 1] == '\n') {
            *complete = true;
            break;
        }
    }
    free(line);
    return ferror(f) ? -1 : (ssize_t)len;
}

/* By case_id, then line: a case_id twice is two neighbours, the first line first. */
static int compare_ids(const void *a, const void *b)
{
    const struct resumed_id *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

static bool remember_id(struct mpb_csv *csv, const char *id, int line, char *why, size_t why_len)
{
    struct resumed_id *grown = realloc(csv->ids, sizeof *grown * (size_t)(csv->n_ids + 1));
    if (grown) {
        csv->ids = grown;
        csv->ids[csv->n_ids] = (struct resumed_id){strdup(id), line};
    }
    if (!grown || !csv->ids[csv->n_ids].id) {
        snprintf(why, why_len, "out of memory");
        return false;
    }
    csv->n_ids++;
    return true;
}

/* Sort the resumed case_ids; false, naming both lines, when one is there twice. */
static bool sort_ids(struct mpb_csv *csv, const char *path, char *why, size_t why_len)
{
    if (!csv->n_ids) /* qsort's array may not be NULL, even with no element */
        return true;
    qsort(csv->ids, (size_t)csv->n_ids, sizeof *csv->ids, compare_ids);
    for (int i = 1; i < csv->n_ids; i++)
        if (!strcmp(csv->ids[i].id, csv->ids[i - 1].id)) {
            snprintf(why, why_len, "%s:%d and %s:%d both hold case_id %s (mpbench writes a case once: the file was "
                     "edited or joined by hand); --resume keeps nothing of it: remove one, or write a new --csv FILE",
                     path, csv->ids[i - 1].line, path, csv->ids[i].line, csv->ids[i].id);
            return false;
        }
    return true;
}

/* Read an existing file for --resume: check the header and every row
 * (`check`, when given), remember case_ids, and only when all is well cut
 * a last line that has no newline (a run killed mid-write). */
static bool resume_read(struct mpb_csv *csv, const char *path, mpb_csv_row_check *check, void *arg, bool *empty,
                        char *why, size_t why_len)
{
    FILE *f = fopen(path, "r");
    *empty = true;
    if (!f && errno == ENOENT)
        return true; /* nothing to resume: start a new file */
    if (!f) {
        snprintf(why, why_len, "%s: %s", path, strerror(errno));
        return false;
    }
    char *line = NULL, *buf = NULL;
    size_t cap = 0;
    ssize_t len;
    long keep = 0; /* bytes up to the end of the last complete record */
    bool ok = true, complete;
    char *fields[MPB_COL_COUNT + 1], ours[16], row_why[768];
    snprintf(ours, sizeof ours, "%d", MPB_CSV_SCHEMA_VERSION);
    for (int lineno = 1, spans; ok && (len = mpb_csv_read_record(f, &line, &cap, &spans, &complete)) > 0;
         lineno += spans) {
        if (!complete) {
            fprintf(stderr, "mpbench run: warning [resume-truncated]: %s:%d: dropping an incomplete last "
                    "record (%zd bytes)\n", path, lineno, len);
            break;
        }
        keep += len;
        *empty = false;
        free(buf);
        buf = malloc((size_t)len + 1);
        if (!buf) {
            snprintf(why, why_len, "%s:%d: out of memory", path, lineno);
            ok = false;
            break;
        }
        int n = mpb_csv_split(line, buf, (size_t)len + 1, fields, MPB_COL_COUNT + 1);
        if (n < 0) {
            snprintf(why, why_len, "%s:%d: not a CSV record (its quoting is malformed)", path, lineno);
            ok = false;
        } else if (lineno == 1) {
            int schema = mpb_csv_header_schema(fields, n);
            if (schema != MPB_CSV_SCHEMA_VERSION && schema != 0) {
                /* Rows of two layouts in one file would break every reader. */
                snprintf(why, why_len, "%s has CSV schema_version %d, this mpbench writes schema_version %d "
                         "(columns appended since); --resume cannot mix them: write a new --csv FILE "
                         "(mpbench gate compares the two)", path, schema, MPB_CSV_SCHEMA_VERSION);
                ok = false;
            } else if (schema == 0) {
                snprintf(why, why_len, "%s: its header is not this mpbench's (schema_version %d); "
                         "resume into a file written by this version, or write a new one", path,
                         MPB_CSV_SCHEMA_VERSION);
                ok = false;
            }
        } else if (n != MPB_COL_COUNT) {
            snprintf(why, why_len, "%s:%d: %d fields, expected %d", path, lineno, n, MPB_COL_COUNT);
            ok = false;
        } else if (strcmp(fields[MPB_COL_schema_version], ours) != 0) {
            snprintf(why, why_len, "%s:%d: schema_version '%s', the header's is %d; --resume cannot mix "
                     "layouts: write a new --csv FILE", path, lineno, fields[MPB_COL_schema_version],
                     MPB_CSV_SCHEMA_VERSION);
            ok = false;
        } else if (check && !check(fields, arg, row_why, sizeof row_why)) {
            snprintf(why, why_len, "%s:%d: %s", path, lineno, row_why);
            ok = false;
        } else {
            ok = remember_id(csv, fields[MPB_COL_case_id], lineno, why, why_len);
        }
    }
    if (len < 0) {
        snprintf(why, why_len, "%s: cannot read: %s", path, strerror(errno));
        ok = false;
    }
    free(line);
    free(buf);
    fclose(f);
    ok = ok && sort_ids(csv, path, why, why_len);
    if (ok && truncate(path, keep) != 0) {
        snprintf(why, why_len, "%s: cannot cut the incomplete last line: %s", path, strerror(errno));
        ok = false;
    }
    return ok;
}

/* An exclusive lock on FILE before anything reads or truncates it: two
 * runs on one file would both append (or one truncate the other's rows).
 * Opened without O_TRUNC, so a refused run changes nothing. */
int mpb_csv_lock(const char *path, char *why, size_t why_len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        snprintf(why, why_len, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) == 0)
        return fd;
    if (errno == EWOULDBLOCK)
        snprintf(why, why_len, "%s is being written by another mpbench run (it holds a lock on the file); "
                 "let it finish, then --resume, or write another --csv FILE", path);
    else
        snprintf(why, why_len, "cannot lock %s: %s", path, strerror(errno));
    close(fd);
    return -1;
}

static struct mpb_csv *csv_open(const char *path, bool resume, mpb_csv_row_check *check, void *arg, char *why,
                                size_t why_len)
{
    struct mpb_csv *csv = calloc(1, sizeof *csv);
    if (!csv) {
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    bool empty = true;
    csv->lock_fd = -1;
    if (strcmp(path, "-") == 0) {
        csv->f = stdout;
        csv->is_stdout = true;
    } else {
        if ((csv->lock_fd = mpb_csv_lock(path, why, why_len)) < 0 ||
            (resume && !resume_read(csv, path, check, arg, &empty, why, why_len))) {
            mpb_csv_close(csv);
            return NULL;
        }
        csv->f = fopen(path, resume ? "a" : "w");
        if (!csv->f) {
            snprintf(why, why_len, "cannot write %s: %s", path, strerror(errno));
            mpb_csv_close(csv);
            return NULL;
        }
    }
    if (empty && !write_header(csv->f)) {
        snprintf(why, why_len, "cannot write %s: %s", path, strerror(errno));
        mpb_csv_close(csv);
        return NULL;
    }
    return csv;
}

struct mpb_csv *mpb_csv_open(const char *path, bool resume, char *why, size_t why_len)
{
    return csv_open(path, resume, NULL, NULL, why, why_len);
}

struct mpb_csv *mpb_csv_resume(const char *path, mpb_csv_row_check *check, void *arg, char *why, size_t why_len)
{
    return csv_open(path, true, check, arg, why, why_len);
}

static int compare_id_only(const void *key, const void *elem)
{
    return strcmp(key, ((const struct resumed_id *)elem)->id);
}

bool mpb_csv_has_case(const struct mpb_csv *csv, const char *case_id)
{
    return csv->n_ids && bsearch(case_id, csv->ids, (size_t)csv->n_ids, sizeof *csv->ids, compare_id_only);
}

int mpb_csv_resumed_rows(const struct mpb_csv *csv)
{
    return csv->n_ids;
}

void mpb_csv_format_row(FILE *f, const struct mpb_row *row)
{
    for (int c = 0; c < MPB_COL_COUNT; c++) {
        if (c)
            fputc(',', f);
        mpb_csv_write_field(f, row->cell[c]);
    }
    fputc('\n', f);
}

bool mpb_csv_write(struct mpb_csv *csv, const struct mpb_row *row)
{
    mpb_csv_format_row(csv->f, row);
    return fflush(csv->f) == 0 && !ferror(csv->f);
}

bool mpb_csv_write_record(struct mpb_csv *csv, const char *record, size_t len)
{
    return fwrite(record, 1, len, csv->f) == len && fflush(csv->f) == 0 && !ferror(csv->f);
}

struct ranked_record {
    char *text;
    size_t len;
    int rank, order;
};

static int compare_ranked(const void *pa, const void *pb)
{
    const struct ranked_record *a = pa, *b = pb;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return a->order - b->order;
}

bool mpb_csv_sort_file(const char *path, int (*rank)(const char *case_id, void *arg), void *arg, char *why,
                       size_t why_len)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        snprintf(why, why_len, "%s: %s", path, strerror(errno));
        return false;
    }
    struct ranked_record *recs = NULL;
    int n = 0, cap = 0, lines = 0;
    char *rec = NULL, *header = NULL, *fields[MPB_COL_COUNT + 1];
    size_t rec_cap = 0;
    bool complete = true, ok = true;
    ssize_t len;
    while (ok && (len = mpb_csv_read_record(in, &rec, &rec_cap, &lines, &complete)) > 0) {
        char *copy = malloc((size_t)len + 1);
        ok = copy != NULL;
        if (!ok)
            break;
        memcpy(copy, rec, (size_t)len + 1);
        if (!header) {
            header = copy;
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            struct ranked_record *grown = realloc(recs, sizeof *recs * (size_t)cap);
            if (!grown) {
                free(copy);
                ok = false;
                break;
            }
            recs = grown;
        }
        char *buf = malloc((size_t)len + 1);
        int nf = buf ? mpb_csv_split(rec, buf, (size_t)len + 1, fields, MPB_COL_COUNT + 1) : -1;
        recs[n] = (struct ranked_record){copy, (size_t)len, nf > MPB_COL_case_id ? rank(fields[MPB_COL_case_id], arg) : -1, n};
        free(buf);
        n++;
    }
    fclose(in);
    free(rec);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.sort.tmp", path);
    FILE *out = ok && header ? fopen(tmp, "w") : NULL;
    if (ok && header && !out)
        snprintf(why, why_len, "%s: %s", tmp, strerror(errno));
    else if (!ok)
        snprintf(why, why_len, "%s: out of memory reading it back", path);
    if (out) {
        qsort(recs, (size_t)n, sizeof *recs, compare_ranked);
        fputs(header, out);
        for (int i = 0; i < n; i++)
            fwrite(recs[i].text, 1, recs[i].len, out);
        ok = fflush(out) == 0 && !ferror(out) && fsync(fileno(out)) == 0;
        ok = fclose(out) == 0 && ok;
        ok = ok && rename(tmp, path) == 0;
        if (!ok) {
            snprintf(why, why_len, "%s: %s", tmp, strerror(errno));
            remove(tmp);
        }
    }
    for (int i = 0; i < n; i++)
        free(recs[i].text);
    free(recs);
    free(header);
    return ok && out;
}

bool mpb_csv_close(struct mpb_csv *csv)
{
    bool ok = true;
    if (csv->f && !csv->is_stdout)
        ok = fclose(csv->f) == 0;
    else if (csv->f)
        ok = fflush(csv->f) == 0;
    if (csv->lock_fd >= 0)
        close(csv->lock_fd); /* releases the lock */
    for (int i = 0; i < csv->n_ids; i++)
        free(csv->ids[i].id);
    free(csv->ids);
    free(csv);
    return ok;
}
