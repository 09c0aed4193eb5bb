/* Case expansion: the Cartesian product and its count, shapes from --size
 * and --m/--n/--k, sharding as a partition, "auto" parameters resolved, and
 * the canonical case string: parsed back, it gives the same single case. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli/cli.h"
#include "case/plan.h"

static int expand(char **argv, int argc, struct mpb_plan *plan, struct mpb_case **cases)
{
    int n = -1;
    char why[256];
    if (mpb_cli_run_parse(argc, argv, plan) != MPB_PARSE_OK)
        return -1;
    if (!mpb_plan_expand(plan, MPB_IMPL_HOST, cases, &n, why, sizeof why))
        return -1;
    return n;
}

/* Split a canonical string into argv (it holds no quoted spaces). */
static int split_words(char *text, char **argv, int max)
{
    int argc = 0;
    argv[argc++] = "run";
    for (char *tok = strtok(text, " "); tok && argc < max; tok = strtok(NULL, " "))
        argv[argc++] = tok;
    return argc;
}

static void test_round_trip(const struct mpb_case *c)
{
    char text[sizeof c->text], *argv[64];
    strcpy(text, c->text);
    int argc = split_words(text, argv, 64);
    struct mpb_plan plan;
    struct mpb_case *again = NULL;
    int n = expand(argv, argc, &plan, &again);
    CHECK(n == 1, "'%s' expands to %d cases", c->text, n);
    if (n == 1) {
        CHECK(!strcmp(again[0].text, c->text), "'%s' came back as '%s'", c->text, again[0].text);
        CHECK(!strcmp(again[0].id, c->id), "case_id changed for '%s'", c->text);
    }
    free(again);
    mpb_plan_free(&plan);
}

static void test_product(void)
{
    char *argv[] = {"run", "-s", "dgemm,sgemm", "-g", "phi", "-a", "phi=0.5,1,2", "-g", "uniform",
                    "--size", "64,128", "--seed", "1:3"};
    struct mpb_plan plan;
    struct mpb_case *cases = NULL;
    int n = expand(argv, (int)(sizeof argv / sizeof *argv), &plan, &cases);
    /* 2 schemes × (3 phi + 1 uniform) × 2 sizes × 3 seeds */
    CHECK(n == 48, "expected 48 cases, got %d", n);
    for (int i = 0; i < n; i++) {
        CHECK(cases[i].m == cases[i].n && cases[i].n == cases[i].k, "--size must give square shapes");
        for (int j = 0; j < i; j++)
            CHECK(strcmp(cases[i].id, cases[j].id), "cases %d and %d share a case_id", i, j);
        test_round_trip(&cases[i]);
    }
    free(cases);
    mpb_plan_free(&plan);
}

static void test_shapes(void)
{
    char *argv[] = {"run", "-s", "dgemm", "-g", "uniform", "--size", "32,64", "--k", "7,9"};
    struct mpb_plan plan;
    struct mpb_case *cases = NULL;
    int n = expand(argv, (int)(sizeof argv / sizeof *argv), &plan, &cases);
    CHECK(n == 4, "--size 32,64 --k 7,9: %d cases", n);
    for (int i = 0; i < n; i++)
        CHECK(cases[i].m == cases[i].n && (cases[i].k == 7 || cases[i].k == 9), "shape %lldx%lldx%lld",
              (long long)cases[i].m, (long long)cases[i].n, (long long)cases[i].k);
    free(cases);
    mpb_plan_free(&plan);

    char *argv2[] = {"run", "-s", "dgemm", "-g", "uniform", "--m", "10", "--n", "1,2", "--k", "3:5"};
    n = expand(argv2, (int)(sizeof argv2 / sizeof *argv2), &plan, &cases);
    CHECK(n == 6, "--m/--n/--k cross: %d cases", n);
    free(cases);
    mpb_plan_free(&plan);
}

static void test_auto_resolved(void)
{
    char *argv[] = {"run", "-s", "dgemm", "-g", "test2", "--size", "1024"};
    struct mpb_plan plan;
    struct mpb_case *cases = NULL;
    int n = expand(argv, (int)(sizeof argv / sizeof *argv), &plan, &cases);
    CHECK(n == 1 && cases[0].gen_ok, "test2 at 1024: %d cases", n);
    if (n == 1)
        CHECK(strstr(cases[0].text, "auto") == NULL, "'auto' left in the case string: %s", cases[0].text);
    free(cases);
    mpb_plan_free(&plan);
}

static void test_shards(void)
{
    char *argv[] = {"run", "-s", "dgemm", "-g", "uniform", "--size", "1:10", "--shard", "1/3"};
    struct mpb_plan plan;
    struct mpb_case *cases = NULL;
    int n = expand(argv, (int)(sizeof argv / sizeof *argv), &plan, &cases);
    CHECK(n == 10 && plan.shard_index == 1 && plan.shard_count == 3, "shard parse: n=%d %d/%d", n,
          plan.shard_index, plan.shard_count);
    for (int i = 0; i < n; i++)
        CHECK(cases[i].index == i, "case index %d at %d", cases[i].index, i);
    free(cases);
    mpb_plan_free(&plan);
}

/* The same case twice (a repeated size, scheme or seed) is kept once, the
 * first in expansion order, and the kept cases are numbered 0..n-1. */
static void test_duplicates(void)
{
    char *argv[] = {"run", "-s", "dgemm", "-s", "sgemm,dgemm", "-g", "uniform", "--size", "8,9,8", "--seed", "2,2"};
    struct mpb_plan plan;
    struct mpb_case *cases = NULL;
    int n = expand(argv, (int)(sizeof argv / sizeof *argv), &plan, &cases);
    CHECK(n == 18, "expected 18 cases before dropping duplicates, got %d", n);
    int dropped = mpb_plan_drop_duplicates(cases, &n);
    CHECK(dropped == 14 && n == 4, "dropped %d, kept %d; expected 14 and 4", dropped, n);
    const char *order[] = {"dgemm", "dgemm", "sgemm", "sgemm"};
    for (int i = 0; i < n && i < 4; i++) {
        CHECK(cases[i].index == i, "case %d has index %d", i, cases[i].index);
        CHECK(!strcmp(cases[i].scheme->name, order[i]) && cases[i].m == (i % 2 ? 9 : 8),
              "case %d is %s at %lld", i, cases[i].scheme->name, (long long)cases[i].m);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(cases[i].text, cases[j].text), "cases %d and %d are one case", i, j);
    }
    free(cases);
    mpb_plan_free(&plan);
}

static void test_rejections(void)
{
    char *bad[][12] = {
        {"run", "-s", "nosuch", "-g", "uniform", "--size", "8"},
        {"run", "-s", "dgemm", "-g", "nosuch", "--size", "8"},
        {"run", "-s", "dgemm", "-a", "x=1", "-g", "uniform", "--size", "8"},
        {"run", "-s", "dgemm", "-g", "phi", "-a", "phi=-1", "--size", "8"},
        {"run", "-s", "dgemm", "-g", "uniform", "--size", "0"},
        {"run", "-s", "dgemm", "-g", "uniform", "--size", "8", "--shard", "3/3"},
        {"run", "-s", "dgemm", "-g", "uniform"},
        {"run", "-g", "uniform", "--size", "8"},
        {"run", "-s", "dgemm", "-g", "uniform", "--size", "8", "--bogus"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int argc = 0;
        while (argc < 12 && bad[i][argc])
            argc++;
        struct mpb_plan plan;
        CHECK(mpb_cli_run_parse(argc, bad[i], &plan) == MPB_PARSE_ERROR, "bad argv %zu accepted", i);
        mpb_plan_free(&plan);
    }
}

int main(void)
{
    test_product();
    test_shapes();
    test_auto_resolved();
    test_shards();
    test_duplicates();
    test_rejections();
    return check_report("test_plan");
}
