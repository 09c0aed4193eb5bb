/* Results as JSON Lines (jsonl.h). */
#include "record/jsonl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "generators.h"
#include "record/meta.h"
#include "record/outpath.h"
#include "record/row_check.h"

struct mpb_jsonl {
    FILE *f;
};

/* Same file: the same path, or the same inode when both exist. */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return !strcmp(a, b) || (stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino);
}

bool mpb_jsonl_check(const char *path, const char *csv_path, char *why, size_t why_len)
{
    char sidecar[4200];
    snprintf(sidecar, sizeof sidecar, "%s.meta.json", csv_path);
    if (!strcmp(path, "-")) {
        snprintf(why, why_len, "--jsonl -: name a file (stdout holds the summary, or the CSV)");
        return false;
    }
    if (same_file(path, csv_path) || same_file(path, sidecar)) {
        snprintf(why, why_len, "--jsonl %s is the --csv file %s or its sidecar: name another file", path,
                 same_file(path, csv_path) ? csv_path : sidecar);
        return false;
    }
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    return mpb_outpath_check(path, why, why_len) && mpb_outpath_check(tmp, why, why_len);
}

/* A cell as a JSON number: mpbench writes numbers in JSON's grammar but
 * for inf, which JSON lacks; 1e999 reads back as infinity. */
static void json_number(FILE *f, const char *cell)
{
    if (!strcmp(cell, "inf") || !strcmp(cell, "-inf"))
        fputs(*cell == '-' ? "-1e999" : "1e999", f);
    else
        fputs(cell, f);
}

/* "moduli=14 gemm=engine" as {"moduli": 14, "gemm": "engine"}: a value in
 * the CSV's number grammar (mpb_csv_read_real) is a number, unless
 * `strings` (a file generator's paths and hashes: a hash may be all digits). */
static void json_params(FILE *f, const char *text, bool strings)
{
    char *copy = strdup(text), *save = NULL;
    fputc('{', f);
    int n = 0;
    for (char *kv = copy ? strtok_r(copy, " ", &save) : NULL; kv; kv = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(kv, '=');
        double x;
        if (!eq)
            continue;
        *eq = '\0';
        fputs(n++ ? ", " : "", f);
        mpb_json_string(f, kv);
        fputs(": ", f);
        if (!strings && mpb_csv_read_real(eq + 1, &x))
            json_number(f, eq + 1);
        else
            mpb_json_string(f, eq + 1);
    }
    fputc('}', f);
    free(copy);
}

static void format_fields(FILE *f, char **cells)
{
    const struct mpb_generator *gen = cells[MPB_COL_gen] ? mpb_generator_find(cells[MPB_COL_gen]) : NULL;
    fputc('{', f);
    for (int c = 0; c < MPB_COL_COUNT; c++) {
        const char *cell = cells[c] ? cells[c] : "";
        fputs(c ? ", " : "", f);
        mpb_json_string(f, mpb_csv_column_names[c]);
        fputs(": ", f);
        if (c == MPB_COL_params)
            json_params(f, cell, false);
        else if (c == MPB_COL_gen_params)
            json_params(f, cell, gen && gen->from_files);
        else if (!*cell)
            fputs("null", f);
        else if (mpb_row_col_numeric((enum mpb_col)c))
            json_number(f, cell);
        else
            mpb_json_string(f, cell);
    }
    fputs("}\n", f);
}

static bool flushed(FILE *f)
{
    return fflush(f) == 0 && !ferror(f);
}

/* Every data row of the CSV at `csv_path` into f. */
static bool copy_rows(FILE *f, const char *csv_path, char *why, size_t why_len)
{
    FILE *in = fopen(csv_path, "r");
    if (!in) {
        snprintf(why, why_len, "%s: %s", csv_path, strerror(errno));
        return false;
    }
    char *rec = NULL, *buf = NULL, *fields[MPB_COL_COUNT + 1];
    size_t cap = 0;
    int lines, line = 0;
    bool complete, ok = true;
    ssize_t len;
    while (ok && (len = mpb_csv_read_record(in, &rec, &cap, &lines, &complete)) > 0) {
        line += lines;
        if (line == 1)
            continue; /* the header */
        char *grown = realloc(buf, (size_t)len + 1);
        ok = grown && mpb_csv_split(rec, grown, (size_t)len + 1, fields, MPB_COL_COUNT + 1) == MPB_COL_COUNT;
        buf = grown ? grown : buf;
        if (!ok)
            snprintf(why, why_len, "%s:%d: not a row of this mpbench's CSV", csv_path, line);
        else
            format_fields(f, fields);
    }
    if (ok && len < 0) {
        snprintf(why, why_len, "%s: cannot read: %s", csv_path, strerror(errno));
        ok = false;
    }
    free(rec);
    free(buf);
    fclose(in);
    return ok;
}

struct mpb_jsonl *mpb_jsonl_open(const char *path, const char *csv_path, char *why, size_t why_len)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(why, why_len, "cannot write %s: %s", tmp, strerror(errno));
        return NULL;
    }
    bool ok = strcmp(csv_path, "-") == 0 || copy_rows(f, csv_path, why, why_len);
    if (ok && !flushed(f))
        snprintf(why, why_len, "cannot write %s: %s", tmp, strerror(errno));
    ok = ok && flushed(f);
    ok = fclose(f) == 0 && ok;
    if (ok && rename(tmp, path) != 0) {
        snprintf(why, why_len, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        ok = false;
    }
    struct mpb_jsonl *j = ok ? malloc(sizeof *j) : NULL;
    if (j && !(j->f = fopen(path, "a"))) {
        snprintf(why, why_len, "cannot write %s: %s", path, strerror(errno));
        free(j);
        j = NULL;
    } else if (ok && !j) {
        snprintf(why, why_len, "out of memory");
    }
    if (!ok)
        remove(tmp);
    return j;
}

bool mpb_jsonl_write(struct mpb_jsonl *j, const struct mpb_row *row)
{
    format_fields(j->f, (char **)row->cell);
    return flushed(j->f);
}

bool mpb_jsonl_close(struct mpb_jsonl *j)
{
    bool ok = fclose(j->f) == 0;
    free(j);
    return ok;
}
