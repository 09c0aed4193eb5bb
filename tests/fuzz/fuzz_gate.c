/* libFuzzer harness: `mpbench gate` end to end (src/cmd_gate.c: option
 * parsing, src/gate/gate.c: the CSV loader mpb_gate_load, the comparison, then
 * the markdown report and the JSON writer).
 * Input (corpus/csv/, the same CSV corpus as fuzz_csv_resume): a CSV file,
 * compared with itself; or two CSV files separated by a NUL byte, the
 * baseline before it and the candidate after it.
 * Checks: the exit code is 0 (--report-only) or 3 (not an mpbench CSV), and
 * the --json file, when written, is well-formed JSON (syntax only; bytes
 * above 0x7f pass as they are); a file the gate reads and that holds a row
 * passes against itself (whatever its rows say, they are the same). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "fuzz/fuzz_util.h"
#include "gate/gate.h"
#include "status.h"

/* A JSON syntax check, recursive descent over the whole file. */
struct json {
    const char *p, *end;
    int depth;
};

static void ws(struct json *j)
{
    while (j->p < j->end && strchr(" \t\n\r", *j->p) && *j->p)
        j->p++;
}

static bool lit(struct json *j, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n))
        return false;
    j->p += n;
    return true;
}

static bool string(struct json *j)
{
    if (j->p >= j->end || *j->p != '"')
        return false;
    for (j->p++; j->p < j->end; j->p++) {
        unsigned char c = (unsigned char)*j->p;
        if (c == '"') {
            j->p++;
            return true;
        }
        if (c < 0x20)
            return false;
        if (c == '\\') {
            if (++j->p >= j->end)
                return false;
            if (*j->p == 'u') {
                for (int i = 0; i < 4; i++)
                    if (++j->p >= j->end || !strchr("0123456789abcdefABCDEF", *j->p) || !*j->p)
                        return false;
            } else if (!*j->p || !strchr("\"\\/bfnrt", *j->p)) {
                return false;
            }
        }
    }
    return false;
}

static bool number(struct json *j)
{
    const char *s = j->p;
    if (j->p < j->end && *j->p == '-')
        j->p++;
    if (j->p >= j->end || *j->p < '0' || *j->p > '9')
        return false;
    if (*j->p == '0')
        j->p++;
    else
        while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
            j->p++;
    if (j->p < j->end && *j->p == '.') {
        if (++j->p >= j->end || *j->p < '0' || *j->p > '9')
            return false;
        while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
            j->p++;
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
            j->p++;
        if (j->p >= j->end || *j->p < '0' || *j->p > '9')
            return false;
        while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
            j->p++;
    }
    return j->p > s;
}

static bool value(struct json *j)
{
    ws(j);
    if (j->p >= j->end || ++j->depth > 64)
        return false;
    bool ok;
    char open = *j->p;
    if (open == '{' || open == '[') {
        char close = open == '{' ? '}' : ']';
        j->p++;
        ws(j);
        ok = true;
        if (j->p < j->end && *j->p == close) {
            j->p++;
        } else {
            for (;;) {
                if (open == '{') {
                    ws(j);
                    if (!string(j))
                        return false;
                    ws(j);
                    if (j->p >= j->end || *j->p++ != ':')
                        return false;
                }
                if (!value(j))
                    return false;
                ws(j);
                if (j->p < j->end && *j->p == ',') {
                    j->p++;
                    continue;
                }
                if (j->p < j->end && *j->p == close) {
                    j->p++;
                    break;
                }
                return false;
            }
        }
    } else if (open == '"') {
        ok = string(j);
    } else {
        ok = lit(j, "null") || lit(j, "true") || lit(j, "false") || number(j);
    }
    j->depth--;
    return ok;
}

static bool json_file_ok(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return true; /* not written (the gate refused a file) */
    char *buf = NULL;
    size_t len = 0, cap = 0, got;
    char chunk[65536];
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + got > cap) {
            cap = 2 * (len + got);
            buf = realloc(buf, cap);
        }
        memcpy(buf + len, chunk, got);
        len += got;
    }
    fclose(f);
    struct json j = {buf, buf + len, 0};
    bool ok = value(&j);
    ws(&j);
    ok = ok && j.p == j.end;
    if (!ok)
        fprintf(stderr, "%s: not JSON at byte %ld\n", path, (long)(j.p - buf));
    free(buf);
    return ok;
}

static char base_path[512], cand_path[512], json_path[512];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_path(base_path, sizeof base_path, "baseline.csv");
    fuzz_path(cand_path, sizeof cand_path, "candidate.csv");
    fuzz_path(json_path, sizeof json_path, "gate.json");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, '\0', size);
    size_t base_size = nul ? (size_t)(nul - data) : size;
    fuzz_write_file(base_path, data, base_size);
    if (nul)
        fuzz_write_file(cand_path, nul + 1, size - base_size - 1);
    else
        fuzz_write_file(cand_path, data, size);
    char *argv[] = {"gate", "--baseline", base_path, "--candidate", cand_path, "--json", json_path,
                    "--report-only", NULL};
    int code = mpb_cmd_gate(8, argv);
    /* --report-only: 0, or 3 when a file is not an mpbench CSV. */
    FUZZ_CHECK(code == MPB_EXIT_OK || code == MPB_EXIT_RUNTIME);
    FUZZ_CHECK(code != MPB_EXIT_OK || json_file_ok(json_path));
    struct mpb_gate_file f;
    char why[1024];
    if (!nul && mpb_gate_load(&f, base_path, why, sizeof why)) {
        bool rows = f.n_rows > 0;
        mpb_gate_free(&f);
        char *self[] = {"gate", "--baseline", base_path, "--candidate", base_path, NULL};
        FUZZ_CHECK(!rows || mpb_cmd_gate(5, self) == MPB_EXIT_OK);
    }
    unlink(base_path);
    unlink(cand_path);
    unlink(json_path);
    return 0;
}
