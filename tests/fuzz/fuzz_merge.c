/* libFuzzer harness: `mpbench merge` end to end (src/cmd_merge.c; the
 * meta.json reader mpb_meta_read of src/record/meta.c, the sweep's argv expanded
 * again by the plan code, the part's CSV read through src/record/csv.c).
 * Input (corpus/merge/): a part's meta.json; or a meta.json and the part's
 * CSV separated by a NUL byte (without one, the CSV is the header alone).
 * The part is merged alone, with --allow-partial (a part is seldom the whole
 * sweep), into a scratch OUT.
 * Checks: the exit code is 0, 2 or 3; OUT exists exactly when it is 0, and
 * then its meta.json reads back with the part's run records. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "record/csv.h"
#include "fuzz/fuzz_util.h"
#include "record/meta.h"
#include "status.h"

static char part[512], part_meta[600], out[512], out_meta[600];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_path(part, sizeof part, "part.csv");
    fuzz_path(out, sizeof out, "out.csv");
    snprintf(part_meta, sizeof part_meta, "%s.meta.json", part);
    snprintf(out_meta, sizeof out_meta, "%s.meta.json", out);
    return 0;
}

static void write_header(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        abort();
    for (int c = 0; c < MPB_COL_COUNT; c++)
        fprintf(f, "%s%s", c ? "," : "", mpb_csv_column_names[c]);
    fputc('\n', f);
    if (fclose(f) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, '\0', size);
    size_t meta_size = nul ? (size_t)(nul - data) : size;
    fuzz_write_file(part_meta, data, meta_size);
    if (nul)
        fuzz_write_file(part, nul + 1, size - meta_size - 1);
    else
        write_header(part);
    unlink(out);
    unlink(out_meta);

    char *argv[] = {"merge", "--allow-partial", out, part, NULL};
    int code = mpb_cmd_merge(4, argv);
    FUZZ_CHECK(code == MPB_EXIT_OK || code == MPB_EXIT_USAGE || code == MPB_EXIT_RUNTIME);
    FUZZ_CHECK((access(out, F_OK) == 0) == (code == MPB_EXIT_OK));
    if (code == MPB_EXIT_OK) {
        struct mpb_meta_file in, merged;
        char why[1024];
        FUZZ_CHECK(mpb_meta_read(part_meta, &in, why, sizeof why));
        FUZZ_CHECK(mpb_meta_read(out_meta, &merged, why, sizeof why));
        FUZZ_CHECK(in.n_runs == merged.n_runs);
        for (int r = 0; r < in.n_runs; r++)
            FUZZ_CHECK(merged.runs[r].argc == in.runs[r].argc && !strcmp(merged.runs[r].run_id, in.runs[r].run_id));
        mpb_meta_file_free(&in);
        mpb_meta_file_free(&merged);
    }
    unlink(out);
    unlink(out_meta);
    unlink(part);
    unlink(part_meta);
    return 0;
}
