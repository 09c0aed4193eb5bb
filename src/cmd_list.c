/* `mpbench list [schemes|generators]`: every name with its parameters. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "commands.h"
#include "generators.h"
#include "schemes/registry.h"

static void print_params(const struct mpb_param_spec *specs, int n)
{
    for (int p = 0; p < n; p++) {
        char range[256];
        mpb_param_describe_range(&specs[p], range, sizeof range);
        printf("      %-12s default %-8s %-28s %s\n", specs[p].name, specs[p].def, range, specs[p].help);
    }
}

static void list_schemes(void)
{
    printf("schemes (-s NAME; -a KEY=VALUES sets a parameter):\n");
    for (int i = 0; i < mpb_n_schemes; i++) {
        const struct mpb_scheme *s = mpb_schemes[i];
        printf("  %-16s %-10s %s  backends:%s%s  version %d\n      %s\n", s->name, s->family,
               mpb_target_name(s->target), s->cuda ? " cuda" : "", s->run_host ? " host" : "", s->version,
               s->help);
        print_params(s->params, s->n_params);
    }
}

static void list_generators(void)
{
    printf("generators (-g NAME; -a KEY=VALUES sets a parameter):\n");
    for (int i = 0; i < mpb_n_generators; i++) {
        const struct mpb_generator *g = mpb_generators[i];
        printf("  %-16s %s\n", g->name, g->help);
        print_params(g->params, g->n_params);
    }
}

int mpb_cmd_list(int argc, char **argv)
{
    if (argc > 2) {
        mpb_cli_error("list", "unexpected argument '%s' (usage: mpbench list [schemes|generators])", argv[2]);
        return 2;
    }
    const char *what = argc == 2 ? argv[1] : "all";
    if (!strcmp(what, "-h") || !strcmp(what, "--help")) {
        puts("usage: mpbench list [schemes|generators]\n\nLists the schemes and generators with each "
             "parameter's default, allowed values and meaning.");
        return 0;
    }
    bool all = !strcmp(what, "all");
    if (!all && strcmp(what, "schemes") && strcmp(what, "generators")) {
        mpb_cli_error("list", "'%s': expected schemes or generators", what);
        return 2;
    }
    if (all || !strcmp(what, "schemes"))
        list_schemes();
    if (all)
        putchar('\n');
    if (all || !strcmp(what, "generators"))
        list_generators();
    return 0;
}
