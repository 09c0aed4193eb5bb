/* libFuzzer harness: `mpbench run`'s option parser (src/cli/cli_run.c,
 * mpb_cli_run_parse, with the helpers of src/cli/cli.c and src/case/values.c).
 * Input (corpus/run_argv/): the arguments after `mpbench run`, separated by
 * NUL bytes when the input holds one, else one per line. The parser prints
 * its errors to stderr (scripts/fuzz closes the harness's stderr). */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "cli/cli.h"
#include "fuzz/fuzz_util.h"
#include "case/plan.h"
#include "file_gen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_argv a;
    fuzz_argv_split(data, size, "run", &a);
    struct mpb_plan plan;
    enum mpb_parse_result r = mpb_cli_run_parse(a.argc, a.argv, &plan);
    if (r == MPB_PARSE_OK) {
        FUZZ_CHECK(plan.n_schemes >= 1 && plan.n_gens >= 1 && plan.seeds.n >= 1);
        bool files_only = true; /* every generator takes the shape of its files */
        for (int g = 0; g < plan.n_gens; g++) {
            FUZZ_CHECK(!plan.gens[g].files || plan.gens[g].files->loaded);
            files_only = files_only && plan.gens[g].files;
        }
        FUZZ_CHECK(files_only || plan.sizes.n >= 1 || (plan.ms.n >= 1 && plan.ns.n >= 1 && plan.ks.n >= 1));
        FUZZ_CHECK(plan.shard_count >= 1 && plan.shard_index >= 0 && plan.shard_index < plan.shard_count);
        FUZZ_CHECK(plan.csv_path && plan.csv_path[0]);
        for (int i = 0; i < plan.sizes.n; i++)
            FUZZ_CHECK(plan.sizes.v[i] >= 1 && plan.sizes.v[i] <= (INT64_C(1) << 31));
        for (int i = 0; i < plan.seeds.n; i++)
            FUZZ_CHECK(plan.seeds.v[i] >= 0 && plan.seeds.v[i] <= (INT64_C(1) << 53));
    }
    /* mpb_plan_free is safe after any outcome: the parser starts from a
     * zeroed plan and only ever adds owned pointers to it. */
    mpb_plan_free(&plan);
    fuzz_argv_free(&a);
    return 0;
}
