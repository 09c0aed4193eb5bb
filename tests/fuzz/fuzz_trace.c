/* libFuzzer harness: the hook trace reader of `mpbench replay`
 * (src/replay/trace_read.c: mpb_trace_load, DIR/calls.csv read column by
 * column against the writer's grammar, calls grouped into classes, operand
 * files looked up). Input (corpus/trace/): a calls.csv, written into a
 * scratch folder of its own (no operand files: a row naming some is refused
 * for the missing file). Checks: a refusal says why and leaves nothing to
 * free; an accepted trace's classes hold every call once, each class at
 * least one, with sane shapes. */
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz/fuzz_util.h"
#include "replay/trace_read.h"

static char dir[512], csv[600];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_path(dir, sizeof dir, "trace");
    mkdir(dir, 0700);
    snprintf(csv, sizeof csv, "%s/" MPB_TRACE_CSV, dir);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write_file(csv, data, size);
    struct mpb_trace_file t;
    char why[1024] = "";
    bool ok = mpb_trace_load(dir, &t, why, sizeof why);
    unlink(csv);
    if (!ok) {
        FUZZ_CHECK(why[0] != '\0' && t.classes == NULL);
        return 0;
    }
    int64_t calls = 0;
    for (int i = 0; i < t.n_classes; i++) {
        const struct mpb_trace_class *c = &t.classes[i];
        FUZZ_CHECK(c->calls >= 1 && c->m >= 0 && c->n >= 0 && c->k >= 0);
        FUZZ_CHECK(c->type == 'd' || c->type == 's' || c->type == 'z' || c->type == 'c');
        calls += c->calls;
    }
    FUZZ_CHECK(calls == t.n_calls);
    mpb_trace_file_free(&t);
    return 0;
}
