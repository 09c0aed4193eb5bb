/* The CSV writer and reader: quoting, %.17g round trip, empty = missing,
 * header first, resume (known case_ids, truncated last line dropped,
 * foreign header refused). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "record/csv.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void row_with(struct mpb_row *row, const char *id, double t)
{
    mpb_row_set_int(row, MPB_COL_schema_version, MPB_CSV_SCHEMA_VERSION);
    mpb_row_set(row, MPB_COL_case_id, id);
    mpb_row_set(row, MPB_COL_note, "a \"quoted\", comma\nand newline");
    mpb_row_set_double(row, MPB_COL_time_ms_median, t);
    mpb_row_set_double(row, MPB_COL_tflops, NAN);
    mpb_row_set_int(row, MPB_COL_m, 4096);
}

static void test_split(void)
{
    char buf[256], *f[8];
    int n = mpb_csv_split("a,\"b,\"\"c\"\"\",,d\n", buf, sizeof buf, f, 8);
    CHECK(n == 4, "split count %d", n);
    if (n == 4)
        CHECK(!strcmp(f[0], "a") && !strcmp(f[1], "b,\"c\"") && !strcmp(f[2], "") && !strcmp(f[3], "d"),
              "fields '%s' '%s' '%s' '%s'", f[0], f[1], f[2], f[3]);
    CHECK(mpb_csv_split("\"open,x", buf, sizeof buf, f, 8) == -1, "unterminated quote accepted");
}

/* The grammar cells are read back in: what %.17g and PRId64 print, nothing else. */
static void test_read_numbers(void)
{
    static const char *const reals[] = {"0", "-0", "1", "0.5", "-2.5", "1.0912105871563946e-15", "1e+300",
                                        "4.9406564584124654e-324", "inf", "-inf", "10.0", "1e-16"};
    static const char *const not_reals[] = {"", " 1", "1 ", "+1", "01", "00.5", ".5", "1.", "1e5", "1E-5",
                                            "1e+", "0x1p-50", "nan", "NaN", "infinity", "Inf", "1e999",
                                            "-", "1,5", "1e-16x", "--1"};
    static const char *const ints[] = {"0", "7", "-3", "1024", "9223372036854775807"};
    static const char *const not_ints[] = {"", "04", "+2", " 2", "2 ", "2.0", "1e3", "0x10", "-",
                                           "9223372036854775808", "99999999999999999999999"};
    double x;
    int64_t i;
    for (size_t k = 0; k < sizeof reals / sizeof reals[0]; k++)
        CHECK(mpb_csv_read_real(reals[k], &x) && x == strtod(reals[k], NULL), "real '%s' refused", reals[k]);
    for (size_t k = 0; k < sizeof not_reals / sizeof not_reals[0]; k++)
        CHECK(!mpb_csv_read_real(not_reals[k], &x), "real '%s' accepted", not_reals[k]);
    for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++)
        CHECK(mpb_csv_read_int(ints[k], &i) && i == strtoll(ints[k], NULL, 10), "integer '%s' refused", ints[k]);
    for (size_t k = 0; k < sizeof not_ints / sizeof not_ints[0]; k++)
        CHECK(!mpb_csv_read_int(not_ints[k], &i), "integer '%s' accepted", not_ints[k]);
    struct mpb_row row = {0};
    mpb_row_set_double(&row, MPB_COL_err_fro_rel, 0x1p-50);
    mpb_row_set_double(&row, MPB_COL_rho_a_max, INFINITY);
    mpb_row_set_int(&row, MPB_COL_m, INT64_MIN);
    CHECK(mpb_csv_read_real(row.cell[MPB_COL_err_fro_rel], &x) && x == 0x1p-50, "%s", row.cell[MPB_COL_err_fro_rel]);
    CHECK(mpb_csv_read_real(row.cell[MPB_COL_rho_a_max], &x) && isinf(x), "%s", row.cell[MPB_COL_rho_a_max]);
    CHECK(mpb_csv_read_int(row.cell[MPB_COL_m], &i) && i == INT64_MIN, "%s", row.cell[MPB_COL_m]);
    mpb_row_clear(&row);
}

static void test_write_and_resume(const char *path)
{
    char why[512];
    struct mpb_csv *csv = mpb_csv_open(path, false, why, sizeof why);
    CHECK(csv != NULL, "open: %s", why);
    if (!csv)
        return;
    char *text = slurp(path);
    CHECK(text && strncmp(text, "schema_version,run_id,case_id,", 30) == 0 && strchr(text, '\n'),
          "header not written at open: '%s'", text ? text : "(none)");
    struct mpb_row row = {0};
    double t = 0.1 + 0.2; /* needs 17 digits to round-trip */
    row_with(&row, "00000000000000aa", t);
    CHECK(mpb_csv_write(csv, &row), "write");
    row_with(&row, "00000000000000bb", 1.0 / 3.0);
    CHECK(mpb_csv_write(csv, &row), "write");
    mpb_row_clear(&row);
    CHECK(mpb_csv_close(csv), "close");

    /* Read back row 1 and check the cells. */
    text = slurp(path);
    char *line1 = strchr(text, '\n') + 1, *end = strchr(line1, '\n');
    *end = '\0';
    char buf[4096], *f[MPB_COL_COUNT + 1];
    int n = mpb_csv_split(line1, buf, sizeof buf, f, MPB_COL_COUNT + 1);
    CHECK(n == MPB_COL_COUNT, "row has %d fields, expected %d", n, MPB_COL_COUNT);
    if (n == MPB_COL_COUNT) {
        CHECK(strtod(f[MPB_COL_time_ms_median], NULL) == t, "%%.17g round trip: '%s'", f[MPB_COL_time_ms_median]);
        CHECK(f[MPB_COL_tflops][0] == '\0', "NaN must be an empty cell, got '%s'", f[MPB_COL_tflops]);
        CHECK(!strcmp(f[MPB_COL_note], "a \"quoted\", comma and newline"), "note '%s'", f[MPB_COL_note]);
        CHECK(!strcmp(f[MPB_COL_m], "4096"), "m '%s'", f[MPB_COL_m]);
    }

    /* A run killed mid-row leaves a partial line: resume drops it. */
    FILE *fa = fopen(path, "a");
    fputs("1,partial,00000000000000cc", fa);
    fclose(fa);
    csv = mpb_csv_open(path, true, why, sizeof why);
    CHECK(csv != NULL, "resume open: %s", why);
    if (!csv)
        return;
    CHECK(mpb_csv_resumed_rows(csv) == 2, "resumed %d rows", mpb_csv_resumed_rows(csv));
    CHECK(mpb_csv_has_case(csv, "00000000000000aa") && mpb_csv_has_case(csv, "00000000000000bb"),
          "resumed ids missing");
    CHECK(!mpb_csv_has_case(csv, "00000000000000cc"), "truncated row counted");
    row_with(&row, "00000000000000dd", 2.0);
    CHECK(mpb_csv_write(csv, &row), "append");
    mpb_row_clear(&row);
    mpb_csv_close(csv);
    text = slurp(path);
    int lines = 0;
    for (char *p = text; *p; p++)
        lines += *p == '\n';
    CHECK(lines == 4, "after resume %d lines, expected header + 3 rows", lines);
    CHECK(strstr(text, "partial") == NULL, "partial line kept");
    CHECK(strncmp(text, "schema_version", 14) == 0 && strstr(text + 1, "schema_version,run_id") == NULL,
          "header written twice");
}

static void test_foreign_header(const char *path)
{
    FILE *f = fopen(path, "w");
    fputs("a,b,c\n1,2,3\n", f);
    fclose(f);
    char why[512] = "";
    struct mpb_csv *csv = mpb_csv_open(path, true, why, sizeof why);
    CHECK(csv == NULL, "resume accepted a foreign header");
    CHECK(strstr(why, "header") != NULL, "message '%s' does not say header", why);
    char *text = slurp(path);
    CHECK(text && !strcmp(text, "a,b,c\n1,2,3\n"), "refused file was modified: '%s'", text);
}

/* A second writer of one FILE is refused while the first holds it, and the
 * refused open changes nothing; after close the file opens again. */
static void test_lock(const char *path)
{
    char why[512] = "";
    struct mpb_csv *first = mpb_csv_open(path, false, why, sizeof why);
    CHECK(first != NULL, "open: %s", why);
    if (!first)
        return;
    struct mpb_row row = {0};
    row_with(&row, "00000000000000aa", 1.0);
    CHECK(mpb_csv_write(first, &row), "write");
    for (int resume = 0; resume < 2; resume++) {
        why[0] = '\0';
        struct mpb_csv *second = mpb_csv_open(path, resume, why, sizeof why);
        CHECK(second == NULL && strstr(why, "being written by another mpbench run") && strstr(why, path),
              "a second open (resume %d) while the first holds the file: '%s'", resume, why);
        if (second)
            mpb_csv_close(second);
    }
    row_with(&row, "00000000000000bb", 2.0);
    CHECK(mpb_csv_write(first, &row), "write after the refused opens");
    mpb_row_clear(&row);
    CHECK(mpb_csv_close(first), "close");
    struct mpb_csv *again = mpb_csv_open(path, true, why, sizeof why);
    CHECK(again != NULL, "open after close: %s", why);
    if (again) {
        CHECK(mpb_csv_resumed_rows(again) == 2, "the refused opens cost rows: %d", mpb_csv_resumed_rows(again));
        mpb_csv_close(again);
    }
}

/* --resume refuses a data row of another schema_version than the header's,
 * naming the line, and leaves the file as it was. */
static void test_resume_schema(const char *path)
{
    char why[512] = "";
    struct mpb_csv *csv = mpb_csv_open(path, false, why, sizeof why);
    CHECK(csv != NULL, "open: %s", why);
    if (!csv)
        return;
    struct mpb_row row = {0};
    row_with(&row, "00000000000000aa", 1.0);
    mpb_csv_write(csv, &row);
    row_with(&row, "00000000000000bb", 1.0);
    mpb_row_set(&row, MPB_COL_schema_version, "1");
    mpb_csv_write(csv, &row);
    mpb_row_clear(&row);
    mpb_csv_close(csv);
    char before[1 << 12];
    snprintf(before, sizeof before, "%s", slurp(path));
    csv = mpb_csv_open(path, true, why, sizeof why);
    CHECK(csv == NULL, "resume accepted a schema_version 1 row under the current header");
    if (csv)
        mpb_csv_close(csv);
    char where[600];
    snprintf(where, sizeof where, "%s:3: schema_version '1'", path);
    CHECK(strstr(why, where) != NULL, "message '%s' lacks '%s'", why, where);
    CHECK(!strcmp(slurp(path), before), "the refused resume changed the file");
}

/* RFC 4180: a quoted field may hold a line break, so a record may span
 * lines. The split reads it; --resume reads it as one row, and a record cut
 * inside its quotes (a killed run) is the incomplete last one it drops. */
static void test_multiline_records(const char *path)
{
    char buf[256], *f[8];
    int n = mpb_csv_split("a,\"two\nlines\r\n\",c\r\n", buf, sizeof buf, f, 8);
    CHECK(n == 3 && !strcmp(f[1], "two\nlines\r\n") && !strcmp(f[2], "c"), "split of a quoted line break: %d", n);

    char why[512] = "";
    struct mpb_csv *csv = mpb_csv_open(path, false, why, sizeof why);
    CHECK(csv != NULL, "open: %s", why);
    if (!csv)
        return;
    struct mpb_row row = {0};
    row_with(&row, "00000000000000aa", 1.0);
    mpb_csv_write(csv, &row);
    mpb_row_clear(&row);
    mpb_csv_close(csv);
    /* another writer's row: the note quoted with the line breaks kept */
    char line[4096] = "", *p = line, schema[8];
    snprintf(schema, sizeof schema, "%d", MPB_CSV_SCHEMA_VERSION);
    for (int c = 0; c < MPB_COL_COUNT; c++)
        p += sprintf(p, "%s%s", c ? "," : "",
                     c == MPB_COL_schema_version ? schema
                     : c == MPB_COL_case_id      ? "00000000000000bb"
                     : c == MPB_COL_note         ? "\"first line\nsecond, \"\"quoted\"\"\r\nthird\""
                                                 : "");
    FILE *fa = fopen(path, "a");
    fprintf(fa, "%s\n", line);
    long complete = ftell(fa);
    fprintf(fa, "%s,,00000000000000cc,\"cut inside\nits quotes", schema); /* a killed run */
    fclose(fa);
    csv = mpb_csv_open(path, true, why, sizeof why);
    CHECK(csv != NULL, "resume of a record that spans lines: %s", why);
    if (!csv)
        return;
    CHECK(mpb_csv_resumed_rows(csv) == 2, "resumed %d rows, expected 2", mpb_csv_resumed_rows(csv));
    CHECK(mpb_csv_has_case(csv, "00000000000000bb"), "the multi-line row's case_id is not known");
    CHECK(!mpb_csv_has_case(csv, "00000000000000cc"), "the record cut inside its quotes was counted");
    mpb_csv_close(csv);
    FILE *fr = fopen(path, "r");
    fseek(fr, 0, SEEK_END);
    CHECK(ftell(fr) == complete, "the cut record was not dropped: %ld bytes, expected %ld", ftell(fr), complete);
    fclose(fr);
}

static void test_unwritable(void)
{
    char why[512] = "";
    struct mpb_csv *csv = mpb_csv_open("/nonexistent-dir/x.csv", false, why, sizeof why);
    CHECK(csv == NULL && strstr(why, "/nonexistent-dir/x.csv"), "unwritable path: '%s'", why);
}

int main(void)
{
    char path[] = "/tmp/mpb_test_csv_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 99;
    close(fd);
    test_split();
    test_read_numbers();
    test_write_and_resume(path);
    test_foreign_header(path);
    test_lock(path);
    test_resume_schema(path);
    test_multiline_records(path);
    test_unwritable();
    unlink(path);
    return check_report("test_csv");
}
