/* libFuzzer harness: the plan, from the command line to its cases
 * (src/cli/cli_run.c mpb_cli_run_parse, then src/case/plan.c mpb_plan_expand and the
 * case strings). mpbench has no plan file: a plan is `mpbench run`'s
 * arguments (scripts/gate-plan is one), so a plan corpus file
 * (corpus/plan/) is those arguments, NUL-separated when the input holds a
 * NUL byte, else one per line, as corpus/run_argv/.
 * Checks: the expansion's count is the Cartesian product (computed here
 * without overflow) unless it is refused with a reason, sweeps above the
 * limit are refused (before anything is allocated for them: a 2 GB malloc
 * is a crash here), every case string is terminated and its case_id is 16
 * hex digits of its hash. Plans of more than FUZZ_MAX_CASES cases (but under
 * the limit) are parsed and not expanded: legitimate, only slow. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "fuzz/fuzz_util.h"
#include "case/plan.h"

#define FUZZ_MAX_CASES 2000
#define PLAN_LIMIT 10000000.0 /* src/case/plan.c's limit */

static double combinations(const struct mpb_selection *s, int n)
{
    double total = 0;
    for (int i = 0; i < n; i++) {
        double c = 1;
        for (int p = 0; p < s[i].n_specs; p++)
            c *= s[i].n_values[p];
        total += c;
    }
    return total;
}

static double expected_cases(const struct mpb_plan *p)
{
    double shapes = p->sizes.n ? p->sizes.n : 1;
    shapes *= p->ms.n ? p->ms.n : 1;
    shapes *= p->ns.n ? p->ns.n : 1;
    shapes *= p->ks.n ? p->ks.n : 1;
    double gens = 0; /* a generator of files has their one shape */
    for (int g = 0; g < p->n_gens; g++)
        gens += combinations(&p->gens[g], 1) * (p->gens[g].files ? 1 : shapes);
    return combinations(p->schemes, p->n_schemes) * gens * p->seeds.n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_argv a;
    fuzz_argv_split(data, size, "run", &a);
    struct mpb_plan plan;
    if (mpb_cli_run_parse(a.argc, a.argv, &plan) == MPB_PARSE_OK) {
        double want = expected_cases(&plan);
        struct mpb_case *cases = NULL;
        int n = -1;
        char why[256] = "";
        if (want > PLAN_LIMIT) {
            FUZZ_CHECK(!mpb_plan_expand(&plan, MPB_IMPL_HOST, &cases, &n, why, sizeof why));
            FUZZ_CHECK(why[0] != '\0');
        } else if (want <= FUZZ_MAX_CASES) {
            /* It may refuse (a generator's parameters that do not go
             * together), saying why; else every case is there. */
            if (!mpb_plan_expand(&plan, MPB_IMPL_HOST, &cases, &n, why, sizeof why)) {
                FUZZ_CHECK(why[0] != '\0');
                n = 0;
            } else {
                FUZZ_CHECK(n == (int)want);
            }
            for (int i = 0; i < n; i++) {
                const struct mpb_case *c = &cases[i];
                FUZZ_CHECK(c->index == i);
                FUZZ_CHECK(memchr(c->text, '\0', sizeof c->text) != NULL);
                FUZZ_CHECK(memchr(c->gen_why, '\0', sizeof c->gen_why) != NULL);
                FUZZ_CHECK(strlen(c->id) == 16 && strspn(c->id, "0123456789abcdef") == 16);
                FUZZ_CHECK(c->m >= 1 && c->n >= 1 && c->k >= 1);
                char buf[512];
                mpb_case_params(c, buf, sizeof buf);
                mpb_case_gen_params(c, buf, sizeof buf);
            }
            free(cases);
        }
    }
    mpb_plan_free(&plan);
    fuzz_argv_free(&a);
    return 0;
}
