/* `mpbench env`: the environment a measurement would be made in (record/env.h). */
#include "commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "record/env.h"
#include "status.h"

static const char help[] =
"usage: mpbench env\n"
"\n"
"Prints the environment a measurement is made in, one `key: value` line each:\n"
"mpbench's version and build (buildtype, compilers, GPU architectures, flags),\n"
"MPFR, GMP, CUDA runtime and cuBLAS versions, the host (CPU, cores, memory, OS),\n"
"the NVIDIA driver, and each GPU: name, UUID, memory, SM count and compute\n"
"capability (CUDA), SM and memory clocks now and at most, power limit, power\n"
"now, temperature, performance state and whether it has an energy counter\n"
"(NVML, loaded at run time). Without a driver it says \"no NVIDIA driver\".\n"
"`run` and `grade` print the same lines, each after \"# \", when they write a CSV.\n";

/* Every GPU CUDA sees, opened one at a time for its properties. */
static int cuda_gpus(struct mpb_device_info *devs, int max, char *why, size_t why_len)
{
    int n = mpb_cuda_device_count(why, why_len), got = 0;
    for (int i = 0; i < n && got < max; i++) {
        struct mpb_cuda_env *env = mpb_cuda_open(i, why, why_len);
        if (!env)
            continue;
        devs[got++] = *mpb_cuda_device(env);
        mpb_cuda_close(env);
    }
    return got;
}

int mpb_cmd_env(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        fputs(help, stdout);
        return MPB_EXIT_OK;
    }
    if (argc > 1) {
        mpb_cli_error("env", "%s '%s' (usage: mpbench env)", argv[1][0] == '-' ? "unknown option" : "unexpected argument",
                      argv[1]);
        return MPB_EXIT_USAGE;
    }
    struct mpb_device_info *devs = calloc(MPB_ENV_MAX_GPUS, sizeof *devs);
    struct mpb_env *e = malloc(sizeof *e);
    if (!devs || !e) {
        free(devs);
        free(e);
        mpb_cli_error("env", "out of memory");
        return MPB_EXIT_RUNTIME;
    }
    char why[512] = "";
    int n = cuda_gpus(devs, MPB_ENV_MAX_GPUS, why, sizeof why);
    mpb_env_gather(e, devs, n);
    mpb_env_print(stdout, e, "");
    if (!n)
        printf("cuda: no GPU (%s)\n", why);
    free(devs);
    free(e);
    return MPB_EXIT_OK;
}
