/* `mpbench run`'s options and help (cli.h); the helpers every command
 * shares are in cli.c. */
#include "cli/cli.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file_gen.h"
#include "mpb_energy.h"

static const char run_help[] =
"usage: mpbench run -s SCHEME [-a KEY=VALUES]... -g GEN [-a KEY=VALUES]... --size VALUES\n"
"                   [--m VALUES] [--n VALUES] [--k VALUES] [--seed VALUES]\n"
"                   [--reps N] [--warmup N] [--warmup-ms MS] [--backend auto|cuda|host]\n"
"                   [--energy-min-ms MS] [--no-energy-extend]\n"
"                   [--ref mpfr|dd|none] [--ref-samples N] [--dump DIR]\n"
"                   [--csv FILE|-] [--jsonl FILE] [--resume] [--shard I/N]\n"
"                   [--devices all|LIST]\n"
"                   [--progress auto|always|never]\n"
"                   [--vs-native] [--dry-run] [--tag K=V]...\n"
"\n"
"Runs every case of the Cartesian product schemes x parameters x generators x\n"
"parameters x shapes x seeds, one CSV row per case (README: \"CSV columns\").\n"
"\n"
"  -s SCHEME[,SCHEME...]  scheme(s) to run (mpbench list schemes); repeatable\n"
"  -g GEN[,GEN...]        matrix generator(s) (mpbench list generators); repeatable\n"
"  -a KEY=VALUES          parameter of the most recent -s or -g\n"
"  -g file -a a=PATH -a b=PATH  A and B from .npy or Matrix Market files; the\n"
"                         shape is theirs (--size, --m/--n/--k: left out, or equal)\n"
"  --size VALUES          square sizes m = n = k\n"
"  --m/--n/--k VALUES     replace one dimension of every size (or, without --size,\n"
"                         give all three: their product is swept)\n"
"  --seed VALUES          generator seeds, integers 0..2^53 (default 1)\n"
"  --reps N               timed calls per case (default 10 on cuda, 1 on host)\n"
"  --warmup N             untimed calls before them (default 3 on cuda, 0 on host)\n"
"  --warmup-ms MS         then more untimed calls until MS ms have passed since the\n"
"                         first (default 0): the timed calls run in the clock state\n"
"                         of sustained work (0..600000)\n"
"  --energy-min-ms MS     the energy columns (GPU, NVML) come from a window of at\n"
"                         least MS ms (default 1000; 0..600000, 0: any window):\n"
"                         when the timed calls end sooner, untimed repeats of the\n"
"                         call extend it (the times stay those of the timed calls);\n"
"                         NVML's readings are too coarse for a shorter one\n"
"  --no-energy-extend     do not repeat: a window shorter than --energy-min-ms\n"
"                         leaves the energy columns empty, the note saying why\n"
"  --ref R                mpfr (default): exact reference by MPFR, error and grade\n"
"                         columns filled; dd: every entry in double-double (on\n"
"                         the GPU with --backend cuda), checked against MPFR on\n"
"                         the entries mpfr would check (ref_check column);\n"
"                         none: skip it (timing only)\n"
"  --ref-samples N        above 2^24 exact products (m*n*k) check N random entries\n"
"                         plus the generator's designated ones (default 4096);\n"
"                         below it every entry is checked\n"
"  --dump DIR             write each case's A, B, C and reference entries as .npy\n"
"                         files with its case string, in DIR/<case_id>/ (DIR is\n"
"                         created when missing; checked before the first case)\n"
"  --backend B            cuda: the GPU, exit 77 without one; host: the host models\n"
"                         (no TFLOP/s); auto (default): cuda if a GPU is usable, else\n"
"                         host, saying so\n"
"  --csv FILE|-           where rows go (default -, stdout); FILE also gets\n"
"                         FILE.meta.json and a summary table on stdout\n"
"  --jsonl FILE           also write the rows to FILE as JSON Lines: one object per\n"
"                         row, numbers as numbers, empty cells as null, params and\n"
"                         gen_params as objects (README \"mpbench run\"); with\n"
"                         --resume it is made again from the CSV's rows first\n"
"  --resume               keep FILE's rows and run only cases it lacks (by case_id);\n"
"                         a run locks FILE: a second one on it is refused\n"
"  --shard I/N            run only cases whose index % N == I (0 <= I < N)\n"
"  --devices all|LIST     spread the cases over GPUs: all of them, or ordinals such\n"
"                         as 0,2 (one worker process per GPU, longest cases first;\n"
"                         needs --csv FILE, whose rows are put in expansion order at\n"
"                         the end; gpu_uuid names the GPU of each row). A GPU that\n"
"                         fails stops only its own worker\n"
"  --progress P           one line per case on stderr: auto (when stderr is a\n"
"                         terminal), always, never\n"
"  --vs-native            also run the target's native GEMM (dgemm, sgemm, zgemm or\n"
"                         cgemm) on the same A and B, untimed, and write\n"
"                         max |C - C_native| over every entry (column\n"
"                         max_abs_vs_native: EGEMM-TC's metric); and add the native\n"
"                         GEMM of each target to the run where no -s names it (its\n"
"                         rows tagged added=vs-native), so that the summary's\n"
"                         × native column is filled\n"
"  --dry-run              print the expanded cases and their count; run nothing\n"
"  --tag K=V              label recorded in the tags column and the meta.json\n"
"                         (all tags together at most 1023 characters)\n"
"\n"
"VALUES is a comma list of items: 4096, 0.5, eager, 1:8 (inclusive), 0:1:0.25,\n"
"1024:16384:*2 (geometric), 2^12, 2^10:2^14:*2.\n"
"A case the product holds twice runs once (stderr says how many were dropped).\n"
"Exit: 0 ok; 1 an incorrect result; 2 usage error (or an unwritable output, or a\n"
"FILE another run is writing); 3 runtime error (CUDA, I/O, memory); 77 nothing\n"
"could run.";

void mpb_cli_run_help(void)
{
    puts(run_help);
}

static bool parse_shard(const char *text, struct mpb_plan *plan)
{
    if (!mpb_shard_parse(text, &plan->shard_index, &plan->shard_count)) {
        mpb_cli_error("run", "--shard '%s': expected I/N, integers with 1 <= N <= %d and 0 <= I < N (e.g. 0/4)",
                      text, INT_MAX);
        return false;
    }
    return true;
}

/* --vs-native: the native GEMM of each target and field the schemes have
 * (mpb_scheme_native), at its defaults, after them, where no -s named it;
 * so the summary's × native has its baseline, and the cases of the named
 * schemes keep their indices (--shard). */
static bool add_natives(struct mpb_plan *plan)
{
    for (int s = 0, named = plan->n_schemes; s < named; s++) {
        const struct mpb_scheme *nat = mpb_scheme_native(plan->schemes[s].scheme->target,
                                                         plan->schemes[s].scheme->field);
        bool present = false;
        for (int t = 0; t < plan->n_schemes && !present; t++)
            present = plan->schemes[t].scheme == nat;
        int first;
        if (present)
            continue;
        if (!mpb_cli_add_selections("run", "--vs-native", nat->name, true, &plan->schemes, &plan->n_schemes, &first))
            return false;
        plan->schemes[first].added = true;
    }
    return true;
}

/* Read every -g file's matrices, before any output is opened: a file
 * that cannot be read is refused as a bad option value is. */
static bool load_files(struct mpb_plan *plan)
{
    char why[640];
    for (int g = 0; g < plan->n_gens; g++)
        if (plan->gens[g].files && !mpb_gen_files_load(plan->gens[g].files, why, sizeof why)) {
            mpb_cli_error("run", "-g %s: %s", plan->gens[g].gen->name, why);
            return false;
        }
    if (!mpb_plan_check_file_shapes(plan, why, sizeof why)) {
        mpb_cli_error("run", "%s", why);
        return false;
    }
    return true;
}

static bool check_plan(struct mpb_plan *plan)
{
    if (plan->n_schemes == 0) {
        mpb_cli_error("run", "no scheme: give -s SCHEME (mpbench list schemes)");
        return false;
    }
    if (plan->n_gens == 0) {
        mpb_cli_error("run", "no generator: give -g GEN (mpbench list generators)");
        return false;
    }
    bool shaped = true; /* every generator has the shape of its files */
    for (int g = 0; g < plan->n_gens; g++)
        shaped = shaped && plan->gens[g].files;
    if (!shaped && plan->sizes.n == 0 && (plan->ms.n == 0 || plan->ns.n == 0 || plan->ks.n == 0)) {
        mpb_cli_error("run", "no shape: give --size VALUES, or all of --m, --n and --k");
        return false;
    }
    if (!load_files(plan) || (plan->vs_native && !add_natives(plan)))
        return false;
    if (plan->seeds.n == 0) {
        plan->seeds.v = malloc(sizeof *plan->seeds.v);
        if (!plan->seeds.v)
            return false;
        plan->seeds.v[0] = 1;
        plan->seeds.n = 1;
    }
    if (plan->resume && strcmp(plan->csv_path, "-") == 0) {
        mpb_cli_error("run", "--resume needs --csv FILE (it reads the rows already there)");
        return false;
    }
    bool devices = plan->n_devices > 0 || plan->devices_all;
    if (devices && strcmp(plan->csv_path, "-") == 0 && !plan->dry_run) {
        mpb_cli_error("run", "--devices needs --csv FILE (rows arrive as the GPUs finish them and are put in "
                             "expansion order at the end)");
        return false;
    }
    if (devices && plan->backend == MPB_BACKEND_HOST) {
        mpb_cli_error("run", "--devices spreads cases over GPUs: it does not go with --backend host");
        return false;
    }
    return true;
}

/* The option that takes a list, and where its values go. */
static struct mpb_int_list *dim_option(struct mpb_plan *plan, const char *name)
{
    if (!strcmp(name, "--size") || !strcmp(name, "--sizes")) return &plan->sizes;
    if (!strcmp(name, "--m")) return &plan->ms;
    if (!strcmp(name, "--n")) return &plan->ns;
    if (!strcmp(name, "--k")) return &plan->ks;
    return NULL;
}

enum mpb_parse_result mpb_cli_run_parse(int argc, char **argv, struct mpb_plan *plan)
{
    static const char *const refs[] = {"mpfr", "none", "dd", NULL};
    static const char *const dims[] = {"--size", "--sizes", "--m", "--n", "--k", NULL}; /* --sizes: grade's spelling */
    memset(plan, 0, sizeof *plan);
    plan->warmup = plan->reps = -1;
    plan->energy_min_ms = MPB_ENERGY_MIN_MS_DEFAULT;
    plan->csv_path = "-";
    plan->shard_count = 1;
    plan->ref_samples = 4096;
    plan->worker_device = -1;
    /* The most recent -s or -g selections, which -a applies to. */
    bool last_is_scheme = true;
    int last_first = -1, last_end = -1;
    size_t tags_len = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *val;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help"))
            return MPB_PARSE_HELP;
        if ((val = mpb_cli_value("run", argc, argv, &i, "-s")) || (val = mpb_cli_value("run", argc, argv, &i, "-g"))) {
            bool scheme = arg[1] == 's';
            if (!*val || !mpb_cli_add_selections("run", scheme ? "-s" : "-g", val, scheme,
                                                    scheme ? &plan->schemes : &plan->gens,
                                                    scheme ? &plan->n_schemes : &plan->n_gens, &last_first))
                return MPB_PARSE_ERROR;
            last_is_scheme = scheme;
            last_end = scheme ? plan->n_schemes : plan->n_gens;
            continue;
        }
        if ((val = mpb_cli_value("run", argc, argv, &i, "-a"))) {
            if (!*val)
                return MPB_PARSE_ERROR;
            if (last_first < 0) {
                mpb_cli_error("run", "-a %s comes before any -s or -g it could apply to", val);
                return MPB_PARSE_ERROR;
            }
            struct mpb_selection *sel = last_is_scheme ? plan->schemes : plan->gens;
            for (int s = last_first; s < last_end; s++)
                if (!mpb_cli_apply_arg("run", val, &sel[s]))
                    return MPB_PARSE_ERROR;
            continue;
        }
        bool matched = false;
        for (int d = 0; dims[d] && !matched; d++) {
            if ((val = mpb_cli_value("run", argc, argv, &i, dims[d]))) {
                matched = true;
                if (!*val || !mpb_cli_int_list("run", dims[d], val, 1, INT64_C(1) << 31, dim_option(plan, dims[d])))
                    return MPB_PARSE_ERROR;
            }
        }
        if (matched)
            continue;
        long n;
        int choice;
        if ((val = mpb_cli_value("run", argc, argv, &i, "--seed"))) {
            if (!*val || !mpb_cli_int_list("run", "--seed", val, 0, INT64_C(1) << 53, &plan->seeds))
                return MPB_PARSE_ERROR;
        } else if ((val = mpb_cli_value("run", argc, argv, &i, "--reps"))) {
            if (!*val || !mpb_cli_int("run", "--reps", val, 1, 100000, &n))
                return MPB_PARSE_ERROR;
            plan->reps = (int)n;
        } else if ((val = mpb_cli_value("run", argc, argv, &i, "--warmup"))) {
            if (!*val || !mpb_cli_int("run", "--warmup", val, 0, 100000, &n))
                return MPB_PARSE_ERROR;
            plan->warmup = (int)n;
        } else if ((val = mpb_cli_value("run", argc, argv, &i, "--warmup-ms"))) {
            if (!*val || !mpb_cli_int("run", "--warmup-ms", val, 0, 600000, &n))
                return MPB_PARSE_ERROR;
            plan->warmup_ms = (int)n;
        } else if ((val = mpb_cli_value("run", argc, argv, &i, "--energy-min-ms"))) {
            if (!*val || !mpb_cli_int("run", "--energy-min-ms", val, 0, 600000, &n))
                return MPB_PARSE_ERROR;
            plan->energy_min_ms = (int)n;
        } else if ((val = mpb_cli_value("run", argc, argv, &i, "--backend"))) {
            if (!*val || !mpb_cli_choice("run", "--backend", val, mpb_backend_words, &choice))
                return MPB_PARSE_ERROR;
            plan->backend = (enum mpb_backend_choice)choice;
        } else if ((val = mpb_cli_value("run", argc, argv, &i, "--ref"))) {
            if (!*val || !mpb_cli_choice("run", "--ref", val, refs, &choice))
                return MPB_PARSE_ERROR;
            plan->ref = (enum mpb_ref_choice)choice;
        } else if ((val = mpb_cli_value("run", argc, argv, &i, "--ref-samples"))) {
            if (!*val || !mpb_cli_int("run", "--ref-samples", val, 1, 100000000, &n))
                return MPB_PARSE_ERROR;
            plan->ref_samples = n;
        } else if ((val = mpb_cli_value("run", argc, argv, &i, "--progress"))) {
            if (!*val || !mpb_cli_choice("run", "--progress", val, mpb_progress_words, &choice))
                return MPB_PARSE_ERROR;
            plan->progress = (enum mpb_progress)choice;
        } else if ((val = mpb_cli_value("run", argc, argv, &i, "--csv"))) {
            if (!*val)
                return MPB_PARSE_ERROR;
            plan->csv_path = val;
        } else if ((val = mpb_cli_value("run", argc, argv, &i, "--jsonl"))) {
            if (!*val)
                return MPB_PARSE_ERROR;
            plan->jsonl_path = val;
        } else if ((val = mpb_cli_value("run", argc, argv, &i, "--dump"))) {
            if (!*val)
                return MPB_PARSE_ERROR;
            plan->dump_dir = val;
        } else if ((val = mpb_cli_value("run", argc, argv, &i, "--shard"))) {
            if (!*val || !parse_shard(val, plan))
                return MPB_PARSE_ERROR;
        } else if ((val = mpb_cli_value("run", argc, argv, &i, "--tag"))) {
            if (!*val || !strchr(val, '=') || *val == '=' || strpbrk(val, ",\"\n")) {
                mpb_cli_error("run", "--tag '%s': expected K=V (no commas, quotes or newlines)", val);
                return MPB_PARSE_ERROR;
            }
            tags_len += (plan->n_tags ? 1 : 0) + strlen(val);
            if (tags_len > MPB_TAGS_MAX) {
                mpb_cli_error("run", "--tag '%.40s...': the tags together (joined by ';') are %zu characters "
                              "(limit %d)", val, tags_len, MPB_TAGS_MAX);
                return MPB_PARSE_ERROR;
            }
            char **grown = realloc(plan->tags, sizeof *grown * (size_t)(plan->n_tags + 1));
            if (!grown)
                return MPB_PARSE_ERROR;
            plan->tags = grown;
            plan->tags[plan->n_tags++] = (char *)val;
        } else if ((val = mpb_cli_value("run", argc, argv, &i, "--devices"))) {
            if (!*val || !mpb_cli_devices("run", val, plan->devices, &plan->n_devices, &plan->devices_all))
                return MPB_PARSE_ERROR;
        } else if ((val = mpb_cli_value("run", argc, argv, &i, "--worker"))) {
            if (!*val || !mpb_cli_worker("run", val, &plan->worker_device, &plan->worker_run_id))
                return MPB_PARSE_ERROR;
        } else if (!strcmp(arg, "--resume")) {
            plan->resume = true;
        } else if (!strcmp(arg, "--dry-run")) {
            plan->dry_run = true;
        } else if (!strcmp(arg, "--no-energy-extend")) {
            plan->energy_no_extend = true;
        } else if (!strcmp(arg, "--vs-native")) {
            plan->vs_native = true;
        } else {
            mpb_cli_unknown_option("run", arg, run_help);
            return MPB_PARSE_ERROR;
        }
    }
    return check_plan(plan) ? MPB_PARSE_OK : MPB_PARSE_ERROR;
}
