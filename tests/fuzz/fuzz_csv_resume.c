/* libFuzzer harness: the results-CSV reader of `mpbench run --resume`
 * (src/record/csv.c: mpb_csv_open with resume, which reads the header and rows
 * through mpb_csv_split and cuts an incomplete last line).
 * Input (corpus/csv/): a CSV file, written to a scratch file and resumed.
 * Checks: when the file is accepted, a row appended to it is accepted by the
 * next resume, with one more row and that row's case_id. */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/csv.h"
#include "fuzz/fuzz_util.h"

static char path[512];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_path(path, sizeof path, "resume.csv");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char id[] = "00fuzz00fuzz00ff";
    fuzz_write_file(path, data, size);
    char why[1024] = "";
    struct mpb_csv *csv = mpb_csv_open(path, true, why, sizeof why);
    if (!csv) {
        FUZZ_CHECK(why[0] != '\0');
        unlink(path);
        return 0;
    }
    int rows = mpb_csv_resumed_rows(csv);
    FUZZ_CHECK(rows >= 0);
    (void)mpb_csv_has_case(csv, id);
    struct mpb_row row = {0};
    char schema[8];
    snprintf(schema, sizeof schema, "%d", MPB_CSV_SCHEMA_VERSION);
    mpb_row_set(&row, MPB_COL_schema_version, schema);
    mpb_row_set(&row, MPB_COL_case_id, id);
    mpb_row_set(&row, MPB_COL_note, "a note, with \"quotes\"\nand a newline");
    FUZZ_CHECK(mpb_csv_write(csv, &row));
    mpb_row_clear(&row);
    FUZZ_CHECK(mpb_csv_close(csv));

    csv = mpb_csv_open(path, true, why, sizeof why);
    if (!csv)
        fprintf(stderr, "second resume refused: %s\n", why);
    FUZZ_CHECK(csv != NULL);
    FUZZ_CHECK(mpb_csv_resumed_rows(csv) == rows + 1);
    FUZZ_CHECK(mpb_csv_has_case(csv, id));
    FUZZ_CHECK(mpb_csv_close(csv));
    unlink(path);
    return 0;
}
