/* mpbench: benchmark and grade GEMM emulation schemes (README.md). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/suggest.h"
#include "case/multi.h"
#include "commands.h"
#include "status.h"
#include "record/version.h"

static void usage(FILE *f)
{
    fputs("usage: mpbench <command> [options]\n"
          "\n"
          "commands:\n"
          "  run        run a sweep of cases, one CSV row each (mpbench run --help)\n"
          "  tune       choose a level (scheme configuration) per GEMM of a chain: moTuner,\n"
          "             MixPert's greedy tuner, exhaustive, PriorK (mpbench tune --help)\n"
          "  list       list schemes and generators with their parameters\n"
          "  selftest   check the GPU against the host models, and the host models\n"
          "             against their error bounds\n"
          "  grade      grade schemes on the Demmel battery: verdict table (mpbench grade --help)\n"
          "  gate       compare a candidate results CSV with a baseline (mpbench gate --help)\n"
          "  merge      merge the shard CSVs of one sweep into one (mpbench merge --help)\n"
          "  replay     run a program's recorded GEMMs (libmpbench_hook.so's trace) through\n"
          "             schemes, graded, with the application's summary (mpbench replay --help)\n"
          "  probe      what the tensor cores compute on this GPU: a model fitted bit for bit,\n"
          "             with the evidence (mpbench probe --help)\n"
          "  env        print the GPUs, driver, libraries, build and host (mpbench env --help)\n"
          "  version    print the version and commit\n"
          "\n"
          "Exit codes: 0 ok, 1 incorrect result, 2 usage error, 3 runtime error,\n"
          "77 nothing could run.\n", f);
}

/* `mpbench version`: no options but --help. */
static int version(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        puts("usage: mpbench version\n\nPrints the version and the commit it was built from.");
        return MPB_EXIT_OK;
    }
    if (argc > 1) {
        if (argv[1][0] == '-')
            mpb_cli_error("version", "unknown option '%s' (usage: mpbench version)", argv[1]);
        else
            mpb_cli_error("version", "unexpected argument '%s' (usage: mpbench version)", argv[1]);
        return MPB_EXIT_USAGE;
    }
    printf("mpbench %s (%s)\n", MPB_VERSION, mpb_git_sha);
    return MPB_EXIT_OK;
}

/* Each command, and its long options that may be given more than once
 * (every other is refused the second time: mpb_cli_refuse_repeats). */
static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *const *repeatable;
} commands[] = {
    {"run", mpb_cmd_run, (const char *const[]){"--tag", NULL}},
    {"tune", mpb_cmd_tune, (const char *const[]){"--levels", NULL}},
    {"list", mpb_cmd_list, NULL},
    {"selftest", mpb_cmd_selftest, NULL},
    {"grade", mpb_cmd_grade, NULL},
    {"gate", mpb_cmd_gate, NULL},
    {"probe", mpb_cmd_probe, NULL},
    {"merge", mpb_cmd_merge, NULL},
    {"env", mpb_cmd_env, NULL},
    {"replay", mpb_cmd_replay, (const char *const[]){"--tag", NULL}},
    {"rank", mpb_multi_part, NULL}, /* hidden: a part of a case over several GPUs (src/case/multi.h) */
    {"version", version, NULL},
    {"--version", version, NULL},
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return MPB_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    for (size_t c = 0; c < sizeof commands / sizeof *commands; c++)
        if (!strcmp(cmd, commands[c].name)) {
            int code = mpb_cli_refuse_repeats(cmd, argc - 1, argv + 1, commands[c].repeatable)
                           ? commands[c].run(argc - 1, argv + 1)
                           : MPB_EXIT_USAGE;
            return mpb_cli_close_stdout(cmd, code);
        }
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        usage(stdout);
        return mpb_cli_close_stdout("help", MPB_EXIT_OK);
    }
    struct mpb_suggest near;
    char hint[96];
    mpb_suggest_init(&near, cmd);
    for (size_t c = 0; c < sizeof commands / sizeof *commands; c++)
        if (strcmp(commands[c].name, "rank") && commands[c].name[0] != '-') /* not suggested: hidden, a spelling */
            mpb_suggest_try(&near, commands[c].name, strlen(commands[c].name));
    mpb_suggest_format(&near, hint, sizeof hint);
    fprintf(stderr, "mpbench: unknown command '%s'%s\n", cmd, hint);
    usage(stderr);
    return MPB_EXIT_USAGE;
}
