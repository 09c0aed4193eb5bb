/* `mpbench probe`: what the tensor cores compute on this GPU, for every
 * instruction path mpbench's kernels use (README "mpbench probe"). The tests,
 * the model fit and the answers are kernels/tc/tc_probe_*; this file runs
 * them, prints the table and writes the CSV with its sidecar. */
#include "commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "record/csv.h"
#include "record/meta.h"
#include "tc/tc_probe.h"
#include "tc/tc_probe_fit.h"
#include "record/version.h"

#define CMD "probe"
#define MAX_ANSWERS 16

static const char help_text[] =
"usage: mpbench probe [--random N] [--seed S] [--csv FILE]\n"
"\n"
"Runs single tensor-core instructions (mma.sync and wgmma; FP16, BF16 and TF32\n"
"inputs with FP32 accumulation; INT8 with INT32) on inputs built to separate the\n"
"hypotheses about what one MMA computes, plus N random ones, and fits a model of\n"
"the arithmetic to the results bit for bit: are products exact, how the sum is\n"
"rounded, how many bits an addend keeps when aligned and relative to what, whether\n"
"an instruction normalises part-way, subnormals, overflow, special values. Each\n"
"answer is printed with the test that decides it. Needs a GPU with wgmma (sm_90a).\n"
"\n"
"  --random N     random tests per path and input (default 6000)\n"
"  --seed S       seed of the random tests (default 1)\n"
"  --csv FILE     one row per answer (path,input,question,answer,evidence,...)\n"
"                 and FILE.meta.json\n"
"\n"
"Exit: 0 ok; 1 no model fits a path bit for bit; 2 usage error; 3 runtime error;\n"
"77 no usable GPU.";

static void help(void)
{
    puts(help_text);
}

struct probe_args {
    long random, seed;
    const char *csv_path;
};

static int parse(int argc, char **argv, struct probe_args *p)
{
    *p = (struct probe_args){.random = 6000, .seed = 1};
    for (int i = 1; i < argc; i++) {
        const char *val;
        long n;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return MPB_PARSE_HELP;
        if ((val = mpb_cli_value(CMD, argc, argv, &i, "--random"))) {
            if (!*val || !mpb_cli_int(CMD, "--random", val, 0, 1000000, &n))
                return MPB_PARSE_ERROR;
            p->random = n;
        } else if ((val = mpb_cli_value(CMD, argc, argv, &i, "--seed"))) {
            if (!*val || !mpb_cli_int(CMD, "--seed", val, 0, 2147483647L, &n))
                return MPB_PARSE_ERROR;
            p->seed = n;
        } else if ((val = mpb_cli_value(CMD, argc, argv, &i, "--csv"))) {
            if (!*val)
                return MPB_PARSE_ERROR;
            p->csv_path = val;
        } else {
            mpb_cli_unknown_option(CMD, argv[i], help_text);
            return MPB_PARSE_ERROR;
        }
    }
    return MPB_PARSE_OK;
}

static const char *const path_names[] = {"mma.sync", "wgmma"};
static const char *const input_names[] = {"fp16", "bf16", "tf32", "int8"};

struct probe_out {
    FILE *csv;
    const struct mpb_device_info *dev;
};

static void csv_row(const struct probe_out *o, const char *path, const char *input, int tests,
                    const struct tc_answer *a)
{
    if (!o->csv)
        return;
    char count[16];
    snprintf(count, sizeof count, "%d", tests);
    const char *cells[] = {path, input, a->question, a->answer, a->evidence, count, o->dev->name, o->dev->driver_string,
                           MPB_VERSION, mpb_git_sha};
    for (size_t i = 0; i < sizeof cells / sizeof *cells; i++) {
        if (i)
            fputc(',', o->csv);
        mpb_csv_write_field(o->csv, cells[i]);
    }
    fputc('\n', o->csv);
}

static void print_answers(const char *path, const char *input, const struct tc_answer *a, int n)
{
    printf("\n%s %s\n", path, input);
    for (int i = 0; i < n; i++)
        printf("  %-36s %s\n  %-36s   %s\n", a[i].question, a[i].answer, "", a[i].evidence);
}

/* One floating path: battery, GPU, fit, answers. false on a CUDA failure
 * (already said); *fits is false when no model matches every test. */
static bool probe_float(struct mpb_cuda_env *env, const struct probe_args *p, const struct probe_out *o,
                        enum tc_probe_path path, enum tc_input fmt, bool *fits)
{
    struct tc_fbattery b;
    if (!tc_battery_build(&b, fmt, (int)p->random, (uint64_t)p->seed)) {
        mpb_cli_error(CMD, "out of host memory for the tests");
        return false;
    }
    const int k = tc_input_k(fmt);
    float *a = malloc(sizeof *a * (size_t)(b.n * k)), *bb = malloc(sizeof *bb * (size_t)(b.n * k));
    float *c = malloc(sizeof *c * (size_t)b.n), *d = malloc(sizeof *d * (size_t)b.n);
    bool ok = a && bb && c && d;
    if (!ok)
        mpb_cli_error(CMD, "out of host memory for the tests");
    for (int i = 0; ok && i < b.n; i++) {
        memcpy(a + (size_t)i * k, b.t[i].a, sizeof(float) * (size_t)k);
        memcpy(bb + (size_t)i * k, b.t[i].b, sizeof(float) * (size_t)k);
        c[i] = b.t[i].c;
    }
    if (ok && tc_probe_float(env, path, fmt, b.n, a, bb, c, d) != MPB_STATUS_OK) {
        mpb_cli_error(CMD, "%s %s: %s", path_names[path], input_names[fmt], mpb_cuda_last_error(env));
        ok = false;
    }
    if (ok) {
        struct tc_fit fit;
        struct tc_answer ans[MAX_ANSWERS];
        tc_fit(&b, d, &fit);
        int n = tc_answers(&b, d, &fit, ans, MAX_ANSWERS);
        char model[160];
        tc_model_format(&fit.best, model, sizeof model);
        printf("%-9s %-5s %6d %10d  %s\n", path_names[path], input_names[fmt], b.n, fit.mismatches, model);
        print_answers(path_names[path], input_names[fmt], ans, n);
        for (int i = 0; i < n; i++)
            csv_row(o, path_names[path], input_names[fmt], b.n, &ans[i]);
        *fits = fit.mismatches == 0;
    }
    free(a), free(bb), free(c), free(d);
    tc_battery_free(&b);
    return ok;
}

static bool probe_int8(struct mpb_cuda_env *env, const struct probe_args *p, const struct probe_out *o,
                       enum tc_probe_path path)
{
    struct tc_ibattery b;
    if (!tc_ibattery_build(&b, (int)p->random, (uint64_t)p->seed)) {
        mpb_cli_error(CMD, "out of host memory for the tests");
        return false;
    }
    int8_t *a = malloc((size_t)b.n * 32), *bb = malloc((size_t)b.n * 32);
    int32_t *c = malloc(sizeof *c * (size_t)b.n), *d = malloc(sizeof *d * (size_t)b.n);
    bool ok = a && bb && c && d;
    if (!ok)
        mpb_cli_error(CMD, "out of host memory for the tests");
    for (int i = 0; ok && i < b.n; i++) {
        memcpy(a + (size_t)i * 32, b.t[i].a, 32);
        memcpy(bb + (size_t)i * 32, b.t[i].b, 32);
        c[i] = b.t[i].c;
    }
    if (ok && tc_probe_int8(env, path, b.n, a, bb, c, d) != MPB_STATUS_OK) {
        mpb_cli_error(CMD, "%s int8: %s", path_names[path], mpb_cuda_last_error(env));
        ok = false;
    }
    if (ok) {
        struct tc_answer ans[MAX_ANSWERS];
        int n = tc_int8_answers(&b, d, ans, MAX_ANSWERS);
        printf("%-9s %-5s %6d %10s  %s; overflow %s\n", path_names[path], "int8", b.n, "-", ans[0].answer,
               ans[1].answer);
        print_answers(path_names[path], "int8", ans, n);
        for (int i = 0; i < n; i++)
            csv_row(o, path_names[path], "int8", b.n, &ans[i]);
    }
    free(a), free(bb), free(c), free(d);
    tc_ibattery_free(&b);
    return ok;
}

static int probe_all(struct mpb_cuda_env *env, const struct probe_args *p, int argc, char **argv)
{
    const struct mpb_device_info *dev = mpb_cuda_device(env);
    if (!(dev->cc_major == 9 && dev->cc_minor == 0)) {
        mpb_cli_error(CMD, "%s is sm_%d%d; the probe's wgmma kernels are built for sm_90a (Hopper)", dev->name,
                      dev->cc_major, dev->cc_minor);
        return MPB_EXIT_NOTHING_RAN;
    }
    struct probe_out o = {.dev = dev};
    char meta_path[4096], run_id[48];
    mpb_make_run_id(run_id, sizeof run_id);
    struct mpb_plan meta_plan = {.shard_count = 1};
    struct mpb_run_meta meta = {.run_id = run_id, .argc = argc, .argv = argv, .plan = &meta_plan,
                                .impl = MPB_IMPL_CUDA, .dev = dev};
    mpb_utc_now(meta.started_utc, sizeof meta.started_utc);
    if (p->csv_path) {
        snprintf(meta_path, sizeof meta_path, "%s.meta.json", p->csv_path);
        if (!(o.csv = fopen(p->csv_path, "w")) || !mpb_meta_write(meta_path, "", &meta)) {
            mpb_cli_error(CMD, "--csv %s: cannot write it or its .meta.json: %m", p->csv_path);
            if (o.csv)
                fclose(o.csv);
            return MPB_EXIT_USAGE;
        }
        fputs("path,input,question,answer,evidence,tests,gpu_name,driver_version,mpbench_version,git_sha\n", o.csv);
    }
    printf("mpbench probe on %s (sm_%d%d, driver %s): constructed tests and %ld random ones (seed %ld) per "
           "path and input\n\n%-9s %-5s %6s %10s  %s\n", dev->name, dev->cc_major, dev->cc_minor,
           dev->driver_string, p->random, p->seed, "path", "input", "tests", "mismatches", "fitted model");
    int exit_code = MPB_EXIT_OK;
    for (int path = 0; path < 2 && exit_code != MPB_EXIT_RUNTIME; path++) {
        for (int fmt = 0; fmt < 3 && exit_code != MPB_EXIT_RUNTIME; fmt++) {
            bool fits = false;
            if (!probe_float(env, p, &o, (enum tc_probe_path)path, (enum tc_input)fmt, &fits))
                exit_code = MPB_EXIT_RUNTIME;
            else if (!fits && exit_code == MPB_EXIT_OK)
                exit_code = MPB_EXIT_INCORRECT;
        }
        if (exit_code != MPB_EXIT_RUNTIME && !probe_int8(env, p, &o, (enum tc_probe_path)path))
            exit_code = MPB_EXIT_RUNTIME;
    }
    if (exit_code == MPB_EXIT_INCORRECT)
        fprintf(stderr, "mpbench probe: no candidate model reproduces every test of some path (mismatches "
                        "column): the host models of the tensor-core schemes would not be bitwise there\n");
    if (o.csv) {
        meta.cases_run = meta.cases_total = meta.cases_this_shard = 1;
        mpb_utc_now(meta.finished_utc, sizeof meta.finished_utc);
        if (fclose(o.csv) != 0 || !mpb_meta_write(meta_path, "", &meta)) {
            mpb_cli_error(CMD, "writing %s failed: %m", p->csv_path);
            exit_code = MPB_EXIT_RUNTIME;
        }
    }
    return exit_code;
}

int mpb_cmd_probe(int argc, char **argv)
{
    struct probe_args p;
    int parsed = parse(argc, argv, &p);
    if (parsed == MPB_PARSE_HELP) {
        help();
        return MPB_EXIT_OK;
    }
    if (parsed == MPB_PARSE_ERROR)
        return MPB_EXIT_USAGE;
    struct mpb_cuda_env *env = NULL;
    int exit_code = MPB_EXIT_OK;
    if (!mpb_cli_open_backend(CMD, MPB_BACKEND_CUDA, "probing", &env, &exit_code))
        return exit_code;
    exit_code = probe_all(env, &p, argc, argv);
    mpb_cuda_close(env);
    return exit_code;
}
