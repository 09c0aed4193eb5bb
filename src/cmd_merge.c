/* `mpbench merge`: the shard CSVs of one sweep (`mpbench run --shard I/N`)
 * into one CSV in the sweep's expansion order and one .meta.json. The order
 * and the set of cases come from the command the parts' meta.json record,
 * expanded again by the plan code, as `run` expanded it. */
#include "commands.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "record/csv.h"
#include "record/meta.h"
#include "record/row_check.h"
#include "status.h"
#include "record/version.h"

static const char merge_help_text[] =
"usage: mpbench merge [--allow-partial] OUT.csv PART.csv...\n"
"\n"
"Merges the parts of one sweep, each written by `mpbench run ... --shard I/N\n"
"--csv PART.csv` with its PART.csv.meta.json, into OUT.csv, its rows in the\n"
"order an unsharded run writes them, and OUT.csv.meta.json, which keeps every\n"
"part's run records. The sweep is the command the meta.json files record (the\n"
"same in every run of every part, apart from --shard, --csv, --resume and\n"
"--progress), expanded again by this mpbench: each row's case_id must be one\n"
"of its cases, or the row one written before its scheme gained parameters that\n"
"the case has at their defaults (kept as written). OUT is written only when\n"
"everything checks (through OUT.csv.tmp, renamed); an existing OUT is replaced.\n"
"\n"
"Refused, naming the file and what differs: a part a run is still writing;\n"
"parts of another command, backend, shard count, CSV schema_version or build\n"
"(mpbench version, git_sha); two parts of one shard; a case_id in two rows that\n"
"differ in a column other than run_id and the times; a missing shard, or a part\n"
"without every case of its shard (a killed or interrupted run: finish it with\n"
"its command and --resume).\n"
"\n"
"  --allow-partial   merge what there is: missing shards and cases are only\n"
"                    warned about (an incomplete last line of a killed run is\n"
"                    always dropped)\n"
"\n"
"OUT and OUT.meta.json must each be a regular file or a new path: a FIFO, a\n"
"device node or a symbolic link (even to a regular file: give its target's\n"
"path) is refused.\n"
"\n"
"Exit: 0 merged; 2 usage error, or parts refused, a malformed cell included\n"
"(OUT is left as it was); 3 OUT could not be written, or out of memory.";

static void merge_help(void)
{
    puts(merge_help_text);
}

/* Per-run columns: a case run twice differs in these and is still the
 * same result. */
static bool per_run_column(int col)
{
    static const enum mpb_col cols[] = {MPB_COL_run_id,      MPB_COL_time_ms_median, MPB_COL_time_ms_min,
                                        MPB_COL_time_ms_max, MPB_COL_noise_pct,      MPB_COL_tflops,
                                        MPB_COL_split_ms,    MPB_COL_gemm_ms,        MPB_COL_accum_ms};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        if ((int)cols[i] == col)
            return true;
    return false;
}

struct part {
    const char *path;
    char meta_path[4096];
    struct mpb_meta_file meta;
    int shard, shards; /* I/N of every run that wrote it */
};

struct merge {
    const char *out;
    bool allow_partial;
    struct part *parts;
    int n_parts;
    char **argv; /* the sweep's command: part 0's first run without the ignored options */
    int argc;
    struct mpb_plan plan;
    struct mpb_case *cases;    /* expansion order */
    int n_cases;
    const struct mpb_case **by_id;
    struct mpb_row *rows;      /* per case: the merged row, every cell NULL until a part has it */
    int *row_part, *row_line;  /* where each came from */
    int repeated;              /* rows found again, identical */
};

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return !strcmp(a, b) ||
           (!stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino);
}

/* The command line into mg: MPB_EXIT_OK (and *help when asked), USAGE, or
 * RUNTIME (out of memory). */
static int merge_parse(int argc, char **argv, struct merge *mg, bool *help)
{
    int n = 0;
    *help = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            *help = true;
            return MPB_EXIT_OK;
        }
        if (!strcmp(argv[i], "--allow-partial")) {
            mg->allow_partial = true;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            mpb_cli_unknown_option("merge", argv[i], merge_help_text);
            return MPB_EXIT_USAGE;
        } else {
            n++;
        }
    }
    if (n < 2) {
        mpb_cli_error("merge", "%s (usage: mpbench merge [--allow-partial] OUT.csv PART.csv...)",
                      n ? "no PART.csv to merge" : "missing OUT.csv and the PART.csv files");
        return MPB_EXIT_USAGE;
    }
    mg->n_parts = n - 1;
    mg->parts = calloc((size_t)mg->n_parts, sizeof *mg->parts);
    if (!mg->parts) {
        mpb_cli_error("merge", "out of memory for %d parts", mg->n_parts);
        return MPB_EXIT_RUNTIME;
    }
    for (int i = 1, p = -1; i < argc; i++) {
        if (!strcmp(argv[i], "--allow-partial"))
            continue;
        if (p < 0)
            mg->out = argv[i];
        else
            mg->parts[p].path = argv[i];
        p++;
    }
    for (int p = 0; p < mg->n_parts; p++) {
        if (same_file(mg->out, mg->parts[p].path)) {
            mpb_cli_error("merge", "OUT.csv '%s' is also a part; it would be overwritten", mg->out);
            return MPB_EXIT_USAGE;
        }
        for (int q = 0; q < p; q++)
            if (same_file(mg->parts[q].path, mg->parts[p].path)) {
                mpb_cli_error("merge", "%s is given twice (as '%s' and '%s')", mg->parts[p].path,
                              mg->parts[q].path, mg->parts[p].path);
                return MPB_EXIT_USAGE;
            }
    }
    return MPB_EXIT_OK;
}

/* How many words at argv[i] are an option merge ignores (where a part went,
 * how its run was shown): 0 for any other. */
static int ignored_words(char **argv, int argc, int i)
{
    static const char *const valued[] = {"--shard", "--csv", "--progress"};
    if (!strcmp(argv[i], "--resume"))
        return 1;
    for (size_t v = 0; v < sizeof valued / sizeof valued[0]; v++) {
        size_t len = strlen(valued[v]);
        if (!strncmp(argv[i], valued[v], len) && (argv[i][len] == '=' || !argv[i][len]))
            return argv[i][len] == '=' || i + 1 == argc ? 1 : 2;
    }
    return 0;
}

/* The sweep's command of one run record: its argv without the ignored
 * options, into a new NULL-terminated array of its strings. */
static char **sweep_argv(const struct mpb_meta_run *r, int *argc)
{
    char **out = malloc(sizeof *out * (size_t)(r->argc + 1));
    *argc = 0;
    for (int i = 0; out && i < r->argc;) {
        int skip = ignored_words(r->argv, r->argc, i);
        if (!skip)
            out[(*argc)++] = r->argv[i];
        i += skip ? skip : 1;
    }
    if (out)
        out[*argc] = NULL;
    return out;
}

/* The first word where two commands differ; false when they are the same. */
static bool commands_differ(char **a, int na, char **b, int nb, int *at)
{
    for (*at = 0; *at < na || *at < nb; (*at)++)
        if (*at == na || *at == nb || strcmp(a[*at], b[*at]))
            return true;
    return false;
}

/* One run record against the first part's first run: the same sweep, build
 * and layout; and the same shard as the part's first run. An exit code. */
static int check_run(struct merge *mg, struct part *pt, const struct mpb_meta_run *r, bool first)
{
    const struct part *p0 = &mg->parts[0];
    const struct mpb_meta_run *r0 = &p0->meta.runs[0];
    const char *m = pt->meta_path, *m0 = p0->meta_path;
    int index, count, argc, at;
    if (r->argc < 1 || strcmp(r->argv[0], "run")) {
        mpb_cli_error("merge", "%s: run %s is not of mpbench run (its command: '%s ...'); merge takes the "
                      "--csv FILEs of mpbench run --shard I/N", m, r->run_id, r->argc ? r->argv[0] : "");
        return MPB_EXIT_USAGE;
    }
    if (!mpb_shard_parse(r->shard, &index, &count)) {
        mpb_cli_error("merge", "%s: run %s has shard '%s', expected I/N", m, r->run_id, r->shard);
        return MPB_EXIT_USAGE;
    }
    if (first) {
        pt->shard = index;
        pt->shards = count;
    } else if (index != pt->shard || count != pt->shards) {
        mpb_cli_error("merge", "%s: runs of shard %d/%d and of shard %s wrote %s; a part holds one shard", m,
                      pt->shard, pt->shards, r->shard, pt->path);
        return MPB_EXIT_USAGE;
    }
    if (strcmp(r->version, r0->version) || strcmp(r->git_sha, r0->git_sha)) {
        mpb_cli_error("merge", "%s: run %s is of mpbench %s (git_sha %s), %s's of mpbench %s (git_sha %s): "
                      "parts of different builds", m, r->run_id, r->version, r->git_sha, m0, r0->version,
                      r0->git_sha);
        return MPB_EXIT_USAGE;
    }
    if (r->csv_schema_version != r0->csv_schema_version) {
        mpb_cli_error("merge", "%s: run %s wrote CSV schema_version %ld, %s's wrote %ld: parts of different "
                      "layouts", m, r->run_id, r->csv_schema_version, m0, r0->csv_schema_version);
        return MPB_EXIT_USAGE;
    }
    if (strcmp(r->backend, r0->backend)) {
        mpb_cli_error("merge", "%s: run %s ran on the %s backend, %s's on %s: different case sets (the case "
                      "string names the backend)", m, r->run_id, r->backend, m0, r0->backend);
        return MPB_EXIT_USAGE;
    }
    char **argv = sweep_argv(r, &argc);
    if (!argv) {
        mpb_cli_error("merge", "out of memory");
        return MPB_EXIT_RUNTIME;
    }
    bool differ = commands_differ(argv, argc, mg->argv, mg->argc, &at);
    if (differ)
        mpb_cli_error("merge", "%s: run %s is another sweep than %s's: after '%s' its command has '%s' where "
                      "that one has '%s' (the commands may differ only in --shard, --csv, --resume and "
                      "--progress)", m, r->run_id, m0, argv[at - 1], at < argc ? argv[at] : "(its end)",
                      at < mg->argc ? mg->argv[at] : "(its end)");
    free(argv);
    if (!differ && count != p0->shards) {
        mpb_cli_error("merge", "%s is shard %d/%d, %s is shard %d/%d: parts of one sweep have one shard count",
                      pt->path, index, count, p0->path, p0->shard, p0->shards);
        return MPB_EXIT_USAGE;
    }
    return differ ? MPB_EXIT_USAGE : MPB_EXIT_OK;
}

/* A run holds an exclusive lock on its CSV until it ends (csv.c): until
 * then its rows and its meta.json are not yet the part's. */
static bool being_written(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    bool locked = fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    if (fd >= 0)
        close(fd);
    return locked;
}

/* Every part's meta.json: one sweep, one build, one layout, no shard twice. An exit code. */
static int check_parts(struct merge *mg)
{
    char why[1024];
    for (int p = 0; p < mg->n_parts; p++) {
        struct part *pt = &mg->parts[p];
        if (being_written(pt->path)) {
            mpb_cli_error("merge", "%s is being written by an mpbench run (it holds a lock on the file); merge "
                          "when it has ended", pt->path);
            return MPB_EXIT_USAGE;
        }
        snprintf(pt->meta_path, sizeof pt->meta_path, "%s.meta.json", pt->path);
        if (!mpb_meta_read(pt->meta_path, &pt->meta, why, sizeof why)) {
            bool nomem = errno == ENOMEM;
            mpb_cli_error("merge", "%s%s", why, nomem ? "" : " (merge takes each part's meta.json: a part is a --csv "
                                                             "FILE of mpbench run --shard I/N)");
            return nomem ? MPB_EXIT_RUNTIME : MPB_EXIT_USAGE;
        }
        if (pt->meta.n_runs == 0) {
            mpb_cli_error("merge", "%s: no run record", pt->meta_path);
            return MPB_EXIT_USAGE;
        }
        if (p == 0 && !(mg->argv = sweep_argv(&pt->meta.runs[0], &mg->argc))) {
            mpb_cli_error("merge", "out of memory");
            return MPB_EXIT_RUNTIME;
        }
        for (int r = 0; r < pt->meta.n_runs; r++) {
            int code = check_run(mg, pt, &pt->meta.runs[r], r == 0);
            if (code != MPB_EXIT_OK)
                return code;
        }
        for (int q = 0; q < p; q++)
            if (mg->parts[q].shard == pt->shard) {
                mpb_cli_error("merge", "%s and %s are both shard %d/%d", mg->parts[q].path, pt->path, pt->shard,
                              pt->shards);
                return MPB_EXIT_USAGE;
            }
    }
    const struct mpb_meta_run *r0 = &mg->parts[0].meta.runs[0];
    if (r0->csv_schema_version != MPB_CSV_SCHEMA_VERSION) {
        mpb_cli_error("merge", "the parts have CSV schema_version %ld, this mpbench writes %d: merge them with the "
                      "mpbench that wrote them (%s, git_sha %s)", r0->csv_schema_version, MPB_CSV_SCHEMA_VERSION,
                      r0->version, r0->git_sha);
        return MPB_EXIT_USAGE;
    }
    return MPB_EXIT_OK;
}

static int compare_case_ids(const void *a, const void *b)
{
    return strcmp((*(const struct mpb_case *const *)a)->id, (*(const struct mpb_case *const *)b)->id);
}

/* The sweep's cases, as `run` expanded them (the index --shard reads). */
static int expand(struct merge *mg)
{
    const struct part *p0 = &mg->parts[0];
    const struct mpb_meta_run *r0 = &p0->meta.runs[0];
    char why[512];
    if (strcmp(r0->backend, "cuda") && strcmp(r0->backend, "host")) {
        mpb_cli_error("merge", "%s: backend '%s', expected cuda or host", p0->meta_path, r0->backend);
        return MPB_EXIT_USAGE;
    }
    if (mpb_cli_run_parse(mg->argc, mg->argv, &mg->plan) != MPB_PARSE_OK) {
        mpb_cli_error("merge", "%s: this mpbench (%s) cannot read the sweep's command (the parts are of %s, "
                      "git_sha %s)", p0->meta_path, mpb_git_sha, r0->version, r0->git_sha);
        return MPB_EXIT_USAGE;
    }
    enum mpb_impl impl = strcmp(r0->backend, "cuda") ? MPB_IMPL_HOST : MPB_IMPL_CUDA;
    if (!mpb_plan_expand(&mg->plan, impl, &mg->cases, &mg->n_cases, why, sizeof why)) {
        mpb_cli_error("merge", "%s: the sweep's command: %s", p0->meta_path, why);
        return errno == ENOMEM ? MPB_EXIT_RUNTIME : MPB_EXIT_USAGE;
    }
    size_t n = (size_t)mg->n_cases + 1;
    mg->by_id = malloc(sizeof *mg->by_id * n);
    mg->rows = calloc(n, sizeof *mg->rows);
    mg->row_part = calloc(n, sizeof *mg->row_part);
    mg->row_line = calloc(n, sizeof *mg->row_line);
    if (mpb_plan_drop_duplicates(mg->cases, &mg->n_cases) < 0 || !mg->by_id || !mg->rows || !mg->row_part ||
        !mg->row_line) {
        mpb_cli_error("merge", "out of memory for %d cases", mg->n_cases);
        return MPB_EXIT_RUNTIME;
    }
    for (int i = 0; i < mg->n_cases; i++)
        mg->by_id[i] = &mg->cases[i];
    qsort(mg->by_id, (size_t)mg->n_cases, sizeof *mg->by_id, compare_case_ids);
    return MPB_EXIT_OK;
}

static const struct mpb_case *find_case(const struct merge *mg, const char *id)
{
    struct mpb_case key;
    const struct mpb_case *k = &key, **hit;
    snprintf(key.id, sizeof key.id, "%s", id);
    if (strlen(id) != sizeof key.id - 1 || !mg->n_cases)
        return NULL;
    hit = bsearch(&k, mg->by_id, (size_t)mg->n_cases, sizeof *mg->by_id, compare_case_ids);
    return hit ? *hit : NULL;
}

/* The case a row written before its scheme gained parameters stands for:
 * its params plus parameters at their defaults (mpb_row_is_case_before_added,
 * as run --resume and mpbench gate take such rows), else NULL. */
static const struct mpb_case *case_before_added(const struct merge *mg, char **fields)
{
    for (int i = 0; i < mg->n_cases; i++)
        if (!strcmp(fields[MPB_COL_scheme], mg->cases[i].scheme->name) &&
            mpb_row_is_case_before_added(fields, &mg->cases[i]))
            return &mg->cases[i];
    return NULL;
}

/* One data row of part p: the row of its case, or the same result again. */
static int take_row(struct merge *mg, int p, int line, char **fields)
{
    const struct part *pt = &mg->parts[p];
    const struct mpb_meta_run *r0 = &pt->meta.runs[0];
    if (strcmp(fields[MPB_COL_git_sha], r0->git_sha) || strcmp(fields[MPB_COL_mpbench_version], r0->version)) {
        mpb_cli_error("merge", "%s:%d: a row of mpbench %s (git_sha %s), its meta.json's runs are of %s (%s)",
                      pt->path, line, fields[MPB_COL_mpbench_version], fields[MPB_COL_git_sha], r0->version,
                      r0->git_sha);
        return MPB_EXIT_USAGE;
    }
    const struct mpb_case *c = find_case(mg, fields[MPB_COL_case_id]);
    const bool older = !c || strcmp(c->text, fields[MPB_COL_case]);
    if (older && !(c = case_before_added(mg, fields))) {
        mpb_cli_error("merge", "%s:%d: case_id '%s' (case '%s') is not a case of the sweep its meta.json records, "
                      "as this mpbench (%s) expands it", pt->path, line, fields[MPB_COL_case_id],
                      fields[MPB_COL_case], mpb_git_sha);
        return MPB_EXIT_USAGE;
    }
    char why[512];
    if (!mpb_row_cells_check(fields, why, sizeof why) || (!older && !mpb_row_is_case(fields, c, why, sizeof why))) {
        mpb_cli_error("merge", "%s:%d: %s", pt->path, line, why);
        return MPB_EXIT_USAGE;
    }
    struct mpb_row *row = &mg->rows[c->index];
    if (!row->cell[MPB_COL_case_id]) {
        for (int col = 0; col < MPB_COL_COUNT; col++) {
            mpb_row_set(row, (enum mpb_col)col, fields[col][0] ? fields[col] : NULL);
            if (fields[col][0] && !row->cell[col]) {
                mpb_cli_error("merge", "out of memory");
                return MPB_EXIT_RUNTIME;
            }
        }
        mg->row_part[c->index] = p;
        mg->row_line[c->index] = line;
        return MPB_EXIT_OK;
    }
    for (int col = 0; col < MPB_COL_COUNT; col++) {
        const char *had = row->cell[col] ? row->cell[col] : "";
        if (!per_run_column(col) && strcmp(had, fields[col])) {
            mpb_cli_error("merge", "case_id %s is in %s:%d and %s:%d with different %s ('%s', '%s')", c->id,
                          mg->parts[mg->row_part[c->index]].path, mg->row_line[c->index], pt->path, line,
                          mpb_csv_column_names[col], had, fields[col]);
            return MPB_EXIT_USAGE;
        }
    }
    mg->repeated++;
    return MPB_EXIT_OK;
}

/* One record of a part: the header (this version's) or a data row. */
static int read_record(struct merge *mg, int p, int line, const char *rec, size_t len)
{
    const char *path = mg->parts[p].path;
    char *buf = malloc(len + 1), *fields[MPB_COL_COUNT + 1], ours[16];
    if (!buf) {
        mpb_cli_error("merge", "out of memory");
        return MPB_EXIT_RUNTIME;
    }
    int n = mpb_csv_split(rec, buf, len + 1, fields, MPB_COL_COUNT + 1), code = MPB_EXIT_USAGE;
    snprintf(ours, sizeof ours, "%d", MPB_CSV_SCHEMA_VERSION);
    if (n < 0)
        mpb_cli_error("merge", "%s:%d: malformed quoting", path, line);
    else if (line == 1 && mpb_csv_header_schema(fields, n) != MPB_CSV_SCHEMA_VERSION)
        mpb_cli_error("merge", "%s: its header is not that of CSV schema_version %d (this mpbench's)", path,
                      MPB_CSV_SCHEMA_VERSION);
    else if (line > 1 && n != MPB_COL_COUNT)
        mpb_cli_error("merge", "%s:%d: %d fields, expected %d", path, line, n, MPB_COL_COUNT);
    else if (line > 1 && strcmp(fields[MPB_COL_schema_version], ours))
        mpb_cli_error("merge", "%s:%d: schema_version '%s', the header's is %d", path, line,
                      fields[MPB_COL_schema_version], MPB_CSV_SCHEMA_VERSION);
    else
        code = line > 1 ? take_row(mg, p, line, fields) : MPB_EXIT_OK;
    free(buf);
    return code;
}

static int read_part(struct merge *mg, int p)
{
    const char *path = mg->parts[p].path;
    FILE *f = fopen(path, "r");
    if (!f) {
        mpb_cli_error("merge", "%s: cannot read: %s", path, strerror(errno));
        return MPB_EXIT_USAGE;
    }
    char *rec = NULL;
    size_t cap = 0;
    ssize_t len;
    bool complete;
    int code = MPB_EXIT_OK, line = 1;
    for (int spans; code == MPB_EXIT_OK && (len = mpb_csv_read_record(f, &rec, &cap, &spans, &complete)) > 0;
         line += spans) {
        if (!complete) {
            fprintf(stderr, "mpbench merge: warning: %s:%d: dropping an incomplete last record (%zd bytes, a run "
                    "killed while writing it)\n", path, line, len);
            break;
        }
        code = read_record(mg, p, line, rec, (size_t)len);
    }
    if (code == MPB_EXIT_OK && len < 0) {
        mpb_cli_error("merge", "%s: cannot read: %s", path, strerror(errno));
        code = errno == ENOMEM ? MPB_EXIT_RUNTIME : MPB_EXIT_USAGE;
    } else if (code == MPB_EXIT_OK && line == 1) {
        mpb_cli_error("merge", "%s: empty, expected mpbench's CSV header", path);
        code = MPB_EXIT_USAGE;
    }
    free(rec);
    fclose(f);
    return code;
}

/* Cases no part has: per shard, said as errors (or, with --allow-partial,
 * warnings). An exit code: USAGE when some are missing and that is refused. */
static int check_complete(const struct merge *mg, int *n_missing)
{
    int shards = mg->parts[0].shards;
    int *missing = calloc((size_t)shards, sizeof *missing), *total = calloc((size_t)shards, sizeof *total);
    if (!missing || !total) {
        free(missing);
        free(total);
        mpb_cli_error("merge", "out of memory for %d shards", shards);
        return MPB_EXIT_RUNTIME;
    }
    *n_missing = 0;
    for (int i = 0; i < mg->n_cases; i++) {
        total[i % shards]++;
        if (!mg->rows[i].cell[MPB_COL_case_id]) {
            missing[i % shards]++;
            (*n_missing)++;
        }
    }
    const char *kind = mg->allow_partial ? "warning: " : "";
    for (int s = 0; s < shards; s++) {
        int p = 0;
        while (p < mg->n_parts && mg->parts[p].shard != s)
            p++;
        if (!missing[s])
            continue;
        if (p == mg->n_parts)
            fprintf(stderr, "mpbench merge: %sshard %d/%d is missing (no part is that shard): %d case%s\n",
                    kind, s, shards, missing[s], missing[s] == 1 ? "" : "s");
        else
            fprintf(stderr, "mpbench merge: %s%s (shard %d/%d) lacks %d of its %d cases: its run was killed or "
                    "interrupted; finish it with its command (in %s) and --resume\n", kind, mg->parts[p].path, s,
                    shards, missing[s], total[s], mg->parts[p].meta_path);
    }
    free(missing);
    free(total);
    if (*n_missing && !mg->allow_partial) {
        mpb_cli_error("merge", "%d of %d cases missing; %s not written (--allow-partial merges what there is)",
                      *n_missing, mg->n_cases, mg->out);
        return MPB_EXIT_USAGE;
    }
    return MPB_EXIT_OK;
}

/* The parts' run records, in shard order, for OUT's meta.json. */
static char *joined_runs(const struct merge *mg)
{
    size_t len = 1;
    for (int p = 0; p < mg->n_parts; p++)
        for (int r = 0; r < mg->parts[p].meta.n_runs; r++)
            len += mg->parts[p].meta.runs[r].len + 2;
    char *out = malloc(len), *at = out;
    for (int s = 0; out && s < mg->parts[0].shards; s++)
        for (int p = 0; p < mg->n_parts; p++)
            for (int r = 0; mg->parts[p].shard == s && r < mg->parts[p].meta.n_runs; r++) {
                const struct mpb_meta_run *run = &mg->parts[p].meta.runs[r];
                if (at != out)
                    at += sprintf(at, ",\n");
                memcpy(at, run->text, run->len);
                at += run->len;
            }
    if (out)
        *at = '\0';
    return out;
}

/* OUT through OUT.tmp, renamed once it is whole; then its meta.json
 * (both checked by outputs_check). */
static int write_out(const struct merge *mg, int *written)
{
    char tmp[4096], meta[4096], why[1024];
    snprintf(tmp, sizeof tmp, "%s.tmp", mg->out);
    snprintf(meta, sizeof meta, "%s.meta.json", mg->out);
    struct mpb_csv *csv = mpb_csv_open(tmp, false, why, sizeof why);
    if (!csv) {
        mpb_cli_error("merge", "%s", why);
        return MPB_EXIT_USAGE;
    }
    bool ok = true;
    *written = 0;
    for (int i = 0; ok && i < mg->n_cases; i++)
        if (mg->rows[i].cell[MPB_COL_case_id]) {
            ok = mpb_csv_write(csv, &mg->rows[i]);
            (*written)++;
        }
    ok = mpb_csv_close(csv) && ok;
    char *runs = ok ? joined_runs(mg) : NULL;
    ok = ok && runs && mpb_meta_write(meta, runs, NULL) && rename(tmp, mg->out) == 0;
    free(runs);
    if (!ok) {
        mpb_cli_error("merge", "writing %s failed: %s", mg->out, strerror(errno));
        unlink(tmp);
        return MPB_EXIT_RUNTIME;
    }
    return MPB_EXIT_OK;
}

/* OUT and its meta.json are replaced by a rename: each must be a regular
 * file or new (outpath.h: a FIFO, a device node or a symbolic link would
 * become a regular file), checked before anything is read. */
static bool outputs_check(const struct merge *mg)
{
    char meta[4096], why[1024];
    snprintf(meta, sizeof meta, "%s.meta.json", mg->out);
    if (mpb_meta_check(mg->out, why, sizeof why) && mpb_meta_check(meta, why, sizeof why))
        return true;
    mpb_cli_error("merge", "OUT.csv: %s", why);
    return false;
}

static int merge_parts(struct merge *mg)
{
    if (!outputs_check(mg))
        return MPB_EXIT_USAGE;
    int code = check_parts(mg), missing, written;
    if (code == MPB_EXIT_OK)
        code = expand(mg);
    for (int p = 0; code == MPB_EXIT_OK && p < mg->n_parts; p++)
        code = read_part(mg, p);
    if (code == MPB_EXIT_OK)
        code = check_complete(mg, &missing);
    if (code == MPB_EXIT_OK)
        code = write_out(mg, &written);
    if (code != MPB_EXIT_OK)
        return code;
    printf("mpbench merge: %s: %d row%s of %d case%s from %d part%s of %d shard%s", mg->out, written,
           written == 1 ? "" : "s", mg->n_cases, mg->n_cases == 1 ? "" : "s", mg->n_parts, mg->n_parts == 1 ? "" : "s",
           mg->parts[0].shards, mg->parts[0].shards == 1 ? "" : "s");
    if (mg->repeated)
        printf(" (%d row%s in two places, the same result: kept once)", mg->repeated,
               mg->repeated == 1 ? " was" : "s were");
    printf("%s\n", missing ? " (partial)" : "");
    return MPB_EXIT_OK;
}

int mpb_cmd_merge(int argc, char **argv)
{
    struct merge mg = {0};
    bool help;
    int code = merge_parse(argc, argv, &mg, &help);
    if (help)
        merge_help();
    else if (code == MPB_EXIT_OK)
        code = merge_parts(&mg);
    for (int i = 0; mg.rows && i < mg.n_cases; i++)
        mpb_row_clear(&mg.rows[i]);
    for (int p = 0; p < mg.n_parts; p++)
        mpb_meta_file_free(&mg.parts[p].meta);
    free(mg.rows);
    free(mg.row_part);
    free(mg.row_line);
    free(mg.by_id);
    free(mg.cases);
    mpb_plan_free(&mg.plan);
    free(mg.argv);
    free(mg.parts);
    return code;
}
