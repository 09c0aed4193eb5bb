/* mpbench replay TRACE: a hook trace's recorded calls, those that kept
 * their operands, run as cases of the file generator through the schemes
 * named (one `mpbench run`, its CSV and table as ever), then the
 * per-application summary (replay/app_summary.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "commands.h"
#include "file_gen.h"
#include "replay/app_summary.h"
#include "replay/trace_read.h"
#include "status.h"

#define CMD "replay"

static const char help_text[] =
"usage: mpbench replay TRACE [-s SCHEME [-a KEY=VALUES]...]... [--ref mpfr|dd|none]\n"
"                      [--ref-samples N] [--backend auto|cuda|host] [--reps N] [--warmup N]\n"
"                      [--warmup-ms MS] [--csv FILE] [--jsonl FILE] [--dump DIR] [--resume]\n"
"                      [--progress auto|always|never] [--tag K=V]...\n"
"\n"
"Replays a trace folder that libmpbench_hook.so wrote (MPBENCH_HOOK=record\n"
"MPBENCH_HOOK_TRACE=TRACE; README \"Grading your own application\"): every\n"
"recorded shape that kept its operands (TRACE/cNNNNNN_A.npy, _B.npy: op(A) and\n"
"op(B)) becomes a case of the file generator, labelled `trace=TRACE call=N` in\n"
"gen_params, and runs through the schemes named and the native GEMM of its\n"
"type (dgemm, sgemm, zgemm or cgemm: cublasZgemm_v2's is zgemm), with\n"
"the exact reference and grades: one `mpbench run`, whose options above mean\n"
"what they mean there, and whose table and CSV are as ever. C on input (beta\n"
"!= 0) is kept in the trace but not replayed: the product A·B is graded.\n"
"Batched cuBLAS calls are only counted in the trace: they keep no operands.\n"
"\n"
"Then the application's summary: per scheme, the shapes replayed, the calls\n"
"they stand for, how many lose accuracy (err_fro_rel above 2x the native\n"
"GEMM's on the same operands) and which, and the application's GEMM time\n"
"under it (each shape's median time x its recorded call count).\n"
"\n"
"  TRACE           the trace folder (calls.csv; at most 86 characters, as the\n"
"                  file generator takes paths of at most 100)\n"
"  --csv FILE      the results CSV (default: TRACE/replay.csv; `-` refused:\n"
"                  the summary reads the file)\n"
"\n"
"The generator and the shapes are the trace's: -g, --size, --m, --n, --k,\n"
"--seed, --shard, --devices and --dry-run are refused.\n"
"A malformed trace (a missing or garbled column, an operand file missing or\n"
"of another shape or type than its calls) is refused naming the file, line\n"
"and column.\n"
"\n"
"Exit: run's (0 every case ok; 1 a case incorrect; 77 none could run); 2 usage\n"
"error or a malformed trace; 3 runtime error.";

/* Options passed on to run with a value, and without one. */
static const char *const with_value[] = {"-s", "-a", "--ref", "--ref-samples", "--backend", "--reps", "--warmup",
                                         "--warmup-ms", "--csv", "--jsonl", "--dump", "--progress", "--tag", NULL};
static const char *const flags[] = {"--resume", NULL};
/* run's options that the trace decides. */
static const char *const refused[] = {"-g", "--size", "--sizes", "--m", "--n", "--k", "--seed", "--shard",
                                      "--devices", "--dry-run", "--vs-native", NULL};

/* The index of arg's option in `words`: the word itself, or a long
 * option's --opt=VALUE spelling; -1 when none. */
static int word_index(const char *const *words, const char *arg)
{
    size_t len = arg[1] == '-' ? strcspn(arg, "=") : strlen(arg);
    for (int i = 0; words[i]; i++)
        if (strlen(words[i]) == len && !strncmp(words[i], arg, len))
            return i;
    return -1;
}

/* One word appended to a NULL-terminated argv. */
static bool push(char ***v, int *n, const char *word)
{
    char **grown = realloc(*v, sizeof *grown * (size_t)(*n + 2));
    if (!grown)
        return false;
    *v = grown;
    grown[(*n)++] = (char *)word;
    grown[*n] = NULL;
    return true;
}

static char *joined(const char *a, const char *b, const char *c)
{
    size_t len = strlen(a) + strlen(b) + strlen(c) + 1;
    char *s = malloc(len);
    if (s)
        snprintf(s, len, "%s%s%s", a, b, c);
    return s;
}

int mpb_cmd_replay(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            puts(help_text);
            return MPB_EXIT_OK;
        }
    if (argc < 2 || argv[1][0] == '-') {
        mpb_cli_error(CMD, "missing TRACE, the trace folder (usage: mpbench replay TRACE [-s SCHEME ...])");
        return MPB_EXIT_USAGE;
    }
    const char *trace = argv[1], *csv = NULL;
    /* TRACE/c000000_A.npy must fit the file generator's paths */
    if (strlen(trace) + strlen("/c000000_A.npy") > MPB_FILE_PATH_MAX) {
        mpb_cli_error(CMD, "TRACE '%s': at most %zu characters (the file generator's paths are at most %d): use a "
                      "shorter relative path or a link", trace, MPB_FILE_PATH_MAX - strlen("/c000000_A.npy"),
                      MPB_FILE_PATH_MAX);
        return MPB_EXIT_USAGE;
    }
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i];
        if (word_index(refused, arg) >= 0) {
            mpb_cli_error(CMD, "%.*s: the trace gives the generator and the shapes (mpbench replay --help)",
                          (int)strcspn(arg, "="), arg);
            return MPB_EXIT_USAGE;
        }
        int v = word_index(with_value, arg);
        if (v < 0 && word_index(flags, arg) < 0) {
            if (arg[0] == '-')
                mpb_cli_unknown_option(CMD, arg, help_text);
            else
                mpb_cli_error(CMD, "unexpected argument '%s' (one TRACE only)", arg);
            return MPB_EXIT_USAGE;
        }
        if (v >= 0 && !strchr(arg, '=') && i + 1 >= argc) {
            mpb_cli_error(CMD, "%s: missing its value", arg);
            return MPB_EXIT_USAGE;
        }
        if (v >= 0 && !strcmp(with_value[v], "--csv"))
            csv = strchr(arg, '=') ? strchr(arg, '=') + 1 : argv[i + 1];
        if (v >= 0 && !strchr(arg, '='))
            i++;
    }
    if (csv && !strcmp(csv, "-")) {
        mpb_cli_error(CMD, "--csv -: the summary reads the rows back: name a file");
        return MPB_EXIT_USAGE;
    }
    struct mpb_trace_file t;
    char why[1024];
    if (!mpb_trace_load(trace, &t, why, sizeof why)) {
        mpb_cli_error(CMD, "%s", why);
        return MPB_EXIT_USAGE;
    }
    /* the native GEMM of each type replayed: d, s, z, c */
    bool has[4] = {false, false, false, false}, any = false;
    for (int c = 0; c < t.n_classes; c++)
        if (t.classes[c].stem[0]) {
            any = true;
            has[strchr("dszc", t.classes[c].type) - "dszc"] = true;
        }
    if (!any) {
        mpb_cli_error(CMD, "%s: none of its %lld calls kept operands (the byte budget, MPBENCH_HOOK_BUDGET, was "
                      "spent or 0): nothing to replay", trace, (long long)t.n_calls);
        mpb_trace_file_free(&t);
        return MPB_EXIT_USAGE;
    }
    /* run's command line: the user's options, the natives, the CSV, one -g file per shape */
    char **rv = NULL, **owned = NULL;
    int rn = 0, on = 0;
    char *csv_default = csv ? NULL : joined(trace, "/", "replay.csv");
    bool ok = push(&rv, &rn, "run");
    for (int i = 2; ok && i < argc; i++)
        ok = push(&rv, &rn, argv[i]);
    static const char *const natives[4] = {"dgemm", "sgemm", "zgemm", "cgemm"};
    for (int i = 0; i < 4; i++)
        if (has[i])
            ok = ok && push(&rv, &rn, "-s") && push(&rv, &rn, natives[i]);
    if (!csv)
        ok = ok && csv_default && push(&rv, &rn, "--csv") && push(&rv, &rn, csv_default);
    for (int c = 0; ok && c < t.n_classes; c++) {
        const struct mpb_trace_class *k = &t.classes[c];
        if (!k->stem[0])
            continue;
        char call[40], a[64], b[64];
        snprintf(call, sizeof call, "call=%lld", (long long)k->operands_call);
        snprintf(a, sizeof a, "/%s_A.npy", k->stem);
        snprintf(b, sizeof b, "/%s_B.npy", k->stem);
        char *words[4] = {joined("a=", trace, a), joined("b=", trace, b), joined("trace=", trace, ""),
                          joined(call, "", "")};
        for (int w = 0; w < 4; w++)
            ok = ok && words[w] && push(&owned, &on, words[w]);
        if (!ok) {
            for (int w = 0; w < 4; w++)
                if (!words[w] || on == 0 || owned[on - 1] != words[w])
                    free(words[w]);
            break;
        }
        ok = push(&rv, &rn, "-g") && push(&rv, &rn, "file");
        for (int w = 0; ok && w < 4; w++)
            ok = push(&rv, &rn, "-a") && push(&rv, &rn, words[w]);
    }
    int code = MPB_EXIT_RUNTIME;
    if (!ok)
        mpb_cli_error(CMD, "out of memory");
    else if (!mpb_cli_refuse_repeats("run", rn, rv, (const char *const[]){"--tag", NULL}))
        code = MPB_EXIT_USAGE;
    else
        code = mpb_cmd_run(rn, rv);
    if (ok && code != MPB_EXIT_USAGE && code != MPB_EXIT_RUNTIME) {
        fflush(stdout);
        if (!mpb_replay_summary(stdout, csv ? csv : csv_default, trace, &t, why, sizeof why)) {
            mpb_cli_error(CMD, "%s", why);
            code = MPB_EXIT_RUNTIME;
        }
    }
    for (int i = 0; i < on; i++)
        free(owned[i]);
    free(owned);
    free(rv);
    free(csv_default);
    mpb_trace_file_free(&t);
    return code;
}
