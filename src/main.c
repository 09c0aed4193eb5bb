/* mpbench: benchmark and grade GEMM emulation schemes (README.md). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "status.h"
#include "version.h"

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
          "  probe      what the tensor cores compute on this GPU: a model fitted bit for bit,\n"
          "             with the evidence (mpbench probe --help)\n"
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

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return MPB_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "run"))
        return mpb_cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "tune"))
        return mpb_cmd_tune(argc - 1, argv + 1);
    if (!strcmp(cmd, "list"))
        return mpb_cmd_list(argc - 1, argv + 1);
    if (!strcmp(cmd, "selftest"))
        return mpb_cmd_selftest(argc - 1, argv + 1);
    if (!strcmp(cmd, "grade"))
        return mpb_cmd_grade(argc - 1, argv + 1);
    if (!strcmp(cmd, "gate"))
        return mpb_cmd_gate(argc - 1, argv + 1);
    if (!strcmp(cmd, "probe"))
        return mpb_cmd_probe(argc - 1, argv + 1);
    if (!strcmp(cmd, "merge"))
        return mpb_cmd_merge(argc - 1, argv + 1);
    if (!strcmp(cmd, "rank")) /* hidden: a part of a case over several GPUs (src/multi.h) */
        return mpb_cmd_rank(argc - 1, argv + 1);
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version"))
        return version(argc - 1, argv + 1);
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        usage(stdout);
        return MPB_EXIT_OK;
    }
    fprintf(stderr, "mpbench: unknown command '%s'\n", cmd);
    usage(stderr);
    return MPB_EXIT_USAGE;
}
