/* Command-line helpers shared by the subcommands (cli.h): messages, option
 * values, integer and word options, -s/-g/-a selections, the backend. */
#include "cli/cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "status.h"
#include "case/values.h"
#include "file_gen.h"
#include "cli/suggest.h"

void mpb_cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "mpbench %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

bool mpb_cli_int(const char *cmd, const char *opt, const char *text, long lo, long hi, long *out)
{
    int64_t v;
    if (!mpb_int_parse(text, &v) || v < lo || v > hi) {
        mpb_cli_error(cmd, "%s '%s': expected an integer in %ld..%ld", opt, text, lo, hi);
        return false;
    }
    *out = (long)v;
    return true;
}

/* Whether argv[i] is the long option `name` (len characters), as "--name" or "--name=VALUE". */
static bool is_option(const char *arg, const char *name, size_t len)
{
    return !strncmp(arg, name, len) && (arg[len] == '\0' || arg[len] == '=');
}

/* Two spellings of one option: {other, canonical}. */
static const char *const aliases[][2] = {{"--sizes", "--size"}};

/* The canonical name of the long option at `arg` (up to any '='), and its length. */
static const char *canonical(const char *arg, size_t *len)
{
    *len = strcspn(arg, "=");
    for (size_t a = 0; a < sizeof aliases / sizeof *aliases; a++)
        if (*len == strlen(aliases[a][0]) && !strncmp(arg, aliases[a][0], *len)) {
            *len = strlen(aliases[a][1]);
            return aliases[a][1];
        }
    return arg;
}

bool mpb_cli_refuse_repeats(const char *cmd, int argc, char **argv, const char *const *repeatable)
{
    for (int i = 1; i < argc; i++) {
        size_t len, typed = strcspn(argv[i], "=");
        const char *arg = canonical(argv[i], &len);
        bool once = !strncmp(arg, "--", 2) && isalpha((unsigned char)arg[2]) && !is_option(arg, "--help", 6);
        for (int r = 0; once && repeatable && repeatable[r]; r++)
            once = !is_option(arg, repeatable[r], strlen(repeatable[r]));
        for (int j = 1; once && j < i; j++) {
            size_t other_len;
            const char *other = canonical(argv[j], &other_len);
            if (other_len == len && !strncmp(other, arg, len)) {
                size_t before = strcspn(argv[j], "=");
                bool spelled = before != typed || strncmp(argv[j], argv[i], typed);
                mpb_cli_error(cmd, "%.*s is given twice%s%.*s%s: give it once (several values go in one comma "
                              "list); a second one would replace the first", (int)typed, argv[i],
                              spelled ? " (" : "", spelled ? (int)before : 0, argv[j],
                              spelled ? " before it is the same option)" : "");
                return false;
            }
        }
    }
    return true;
}

const char *mpb_cli_size_value(const char *cmd, int argc, char **argv, int *i, const char **name)
{
    const char *val = mpb_cli_value(cmd, argc, argv, i, *name = "--size");
    return val ? val : mpb_cli_value(cmd, argc, argv, i, *name = "--sizes");
}

int mpb_cli_close_stdout(const char *cmd, int code)
{
    bool failed = ferror(stdout) != 0;
    errno = 0;
    failed = fclose(stdout) != 0 || failed;
    if (!failed)
        return code;
    mpb_cli_error(cmd, "writing to standard output failed: %s", errno ? strerror(errno) : "an earlier write failed");
    return code == MPB_EXIT_OK || code == MPB_EXIT_INCORRECT ? MPB_EXIT_RUNTIME : code;
}

void mpb_cli_unknown_option(const char *cmd, const char *arg, const char *help)
{
    struct mpb_suggest near;
    char hint[96], name[80];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
    mpb_suggest_init(&near, name);
    /* the long options are the help's words "--name" */
    for (const char *p = strstr(help, "--"); p; p = strstr(p + 2, "--"))
        if ((p == help || !isalnum((unsigned char)p[-1])) && isalpha((unsigned char)p[2]))
            mpb_suggest_try(&near, p, 2 + strspn(p + 2, "abcdefghijklmnopqrstuvwxyz0123456789-"));
    mpb_suggest_format(&near, hint, sizeof hint);
    mpb_cli_error(cmd, "unknown option '%s'%s (mpbench %s --help lists them)", arg, hint, cmd);
}

const char *mpb_cli_value(const char *cmd, int argc, char **argv, int *i, const char *name)
{
    size_t len = strlen(name);
    const char *arg = argv[*i], *val;
    if (strncmp(arg, name, len) == 0 && arg[len] == '=')
        val = arg + len + 1;
    else if (strcmp(arg, name) != 0)
        return NULL;
    else if (*i + 1 < argc && strncmp(argv[*i + 1], "--", 2) == 0 && isalpha((unsigned char)argv[*i + 1][2])) {
        /* "--csv --resume": a missing value, not a file named --resume */
        mpb_cli_error(cmd, "%s needs a value (the next argument, '%s', is an option)", name, argv[*i + 1]);
        return "";
    } else
        val = *i + 1 < argc ? argv[++*i] : "";
    if (!*val)
        mpb_cli_error(cmd, "%s needs a value", name);
    return val;
}

bool mpb_cli_int_list(const char *cmd, const char *opt, const char *text, int64_t lo, int64_t hi,
                      struct mpb_int_list *out)
{
    struct mpb_values v;
    char why[256];
    if (!mpb_values_parse(text, &v, why, sizeof why)) {
        mpb_cli_error(cmd, "%s '%s': %s", opt, text, why);
        return false;
    }
    free(out->v);
    out->v = malloc(sizeof *out->v * (size_t)(v.n ? v.n : 1));
    out->n = 0;
    bool ok = out->v != NULL;
    for (int i = 0; ok && i < v.n; i++) {
        char *end;
        double x = strtod(v.items[i], &end);
        if (*end != '\0' || x != floor(x) || x < (double)lo || x > (double)hi) {
            mpb_cli_error(cmd, "%s '%s': '%s' is not an integer in %lld..%lld", opt, text,
                          v.items[i], (long long)lo, (long long)hi);
            ok = false;
        } else {
            out->v[out->n++] = (int64_t)x;
        }
    }
    mpb_values_free(&v);
    return ok;
}

bool mpb_cli_choice(const char *cmd, const char *opt, const char *text, const char *const *words, int *out)
{
    for (int i = 0; words[i]; i++)
        if (strcmp(text, words[i]) == 0) {
            *out = i;
            return true;
        }
    char allowed[128] = "";
    size_t used = 0;
    for (int i = 0; words[i]; i++)
        used += (size_t)snprintf(allowed + used, sizeof allowed - used, "%s%s", i ? "|" : "", words[i]);
    mpb_cli_error(cmd, "%s '%s': expected %s", opt, text, allowed);
    return false;
}

bool mpb_cli_add_selections(const char *cmd, const char *opt, const char *text, bool scheme,
                            struct mpb_selection **list, int *count, int *first)
{
    /* Names are words: a comma list taken as typed, not the VALUES grammar
     * (which would read "1e-400" as the number 0). */
    char *names = strdup(text);
    if (!names)
        return false;
    *first = *count;
    bool ok = true;
    for (char *p = names, *name; ok && (name = strsep(&p, ",")) != NULL;) {
        struct mpb_selection sel = {0};
        if (!*name) {
            mpb_cli_error(cmd, "%s '%s': empty name (two commas in a row, or a comma at an end)", opt, text);
            ok = false;
            break;
        }
        if (scheme) {
            sel.scheme = mpb_scheme_find(name);
            if (sel.scheme) {
                sel.specs = sel.scheme->params;
                sel.n_specs = sel.scheme->n_params;
            }
        } else {
            sel.gen = mpb_generator_find(name);
            if (sel.gen) {
                sel.specs = sel.gen->params;
                sel.n_specs = sel.gen->n_params;
            }
            if (sel.gen && sel.gen->from_files && !(sel.files = calloc(1, sizeof *sel.files))) {
                ok = false;
                break;
            }
        }
        if (!sel.scheme && !sel.gen) {
            struct mpb_suggest near;
            char hint[96];
            mpb_suggest_init(&near, name);
            for (int i = 0; i < (scheme ? mpb_n_schemes : mpb_n_generators); i++) {
                const char *known = scheme ? mpb_schemes[i]->name : mpb_generators[i]->name;
                mpb_suggest_try(&near, known, strlen(known));
            }
            mpb_suggest_format(&near, hint, sizeof hint);
            mpb_cli_error(cmd, "%s '%s': unknown %s%s (mpbench list %s shows them)", opt, name,
                          scheme ? "scheme" : "generator", hint, scheme ? "schemes" : "generators");
            ok = false;
            break;
        }
        double defaults[MPB_MAX_PARAMS];
        mpb_param_defaults(sel.specs, sel.n_specs, defaults);
        for (int p = 0; p < sel.n_specs; p++) {
            sel.values[p] = malloc(sizeof(double));
            if (!sel.values[p]) {
                ok = false;
                break;
            }
            sel.values[p][0] = defaults[p];
            sel.n_values[p] = 1;
        }
        struct mpb_selection *grown = realloc(*list, sizeof *grown * (size_t)(*count + 1));
        if (!grown) {
            ok = false;
            break;
        }
        *list = grown;
        (*list)[(*count)++] = sel;
    }
    free(names);
    return ok;
}

bool mpb_cli_apply_arg(const char *cmd, const char *text, struct mpb_selection *sel)
{
    const char *owner_kind = sel->scheme ? "scheme" : "generator";
    const char *eq = strchr(text, '=');
    const char *owner = sel->scheme ? sel->scheme->name : sel->gen->name;
    if (!eq || eq == text) {
        mpb_cli_error(cmd, "-a '%s': expected KEY=VALUES", text);
        return false;
    }
    char key[64], why[256];
    snprintf(key, sizeof key, "%.*s", (int)(eq - text), text);
    if (sel->files) { /* a path, taken as typed (a comma is no list) */
        if (!mpb_gen_files_arg(sel->files, key, eq + 1, why, sizeof why)) {
            mpb_cli_error(cmd, "-a %s: generator '%s': %s", text, owner, why);
            return false;
        }
        return true;
    }
    int p = mpb_param_find(sel->specs, sel->n_specs, key);
    if (p < 0) {
        char names[512] = "";
        size_t used = 0;
        for (int i = 0; i < sel->n_specs && used < sizeof names; i++)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                     sel->specs[i].name);
        mpb_cli_error(cmd, "-a %s: %s '%s' has no parameter '%s' (%s%s)", text, owner_kind, owner,
                      key, sel->n_specs ? "it has: " : "it has none", names);
        return false;
    }
    struct mpb_values v;
    if (!mpb_values_parse(eq + 1, &v, why, sizeof why)) {
        mpb_cli_error(cmd, "-a %s: %s", text, why);
        return false;
    }
    double *vals = malloc(sizeof *vals * (size_t)(v.n ? v.n : 1));
    bool ok = vals != NULL;
    for (int i = 0; ok && i < v.n; i++) {
        if (!mpb_param_parse(&sel->specs[p], v.items[i], &vals[i], why, sizeof why)) {
            mpb_cli_error(cmd, "-a %s: %s '%s' parameter %s: %s", text, owner_kind, owner, key, why);
            ok = false;
        }
    }
    if (ok) {
        free(sel->values[p]);
        sel->values[p] = vals;
        sel->n_values[p] = v.n;
    } else {
        free(vals);
    }
    mpb_values_free(&v);
    return ok;
}

bool mpb_cli_open_backend(const char *cmd, enum mpb_backend_choice choice, const char *doing,
                          struct mpb_cuda_env **env, int *exit_code)
{
    char why[512];
    *env = NULL;
    if (choice == MPB_BACKEND_HOST)
        return true;
    *env = mpb_cuda_open(0, why, sizeof why);
    if (*env)
        return true;
    if (choice == MPB_BACKEND_CUDA) {
        mpb_cli_error(cmd, "--backend cuda: no usable GPU: %s", why);
        *exit_code = MPB_EXIT_NOTHING_RAN;
        return false;
    }
    fprintf(stderr, "mpbench %s: note [backend-host]: no usable GPU (%s); %s the host models "
                    "(impl=host; say --backend host to silence this)\n", cmd, why, doing);
    return true;
}

bool mpb_cli_devices(const char *cmd, const char *text, int *devices, int *n_devices, bool *all)
{
    *n_devices = 0;
    *all = !strcmp(text, "all");
    if (*all)
        return true;
    for (const char *p = text;;) {
        const char *end = p + strcspn(p, ",");
        int64_t d;
        if (!mpb_int_parse_n(p, (size_t)(end - p), &d) || d < 0 || d > 1023) {
            mpb_cli_error(cmd, "--devices '%s': expected all, or GPU ordinals in 0..1023 such as 0,2 (at '%s')",
                          text, p);
            return false;
        }
        for (int i = 0; i < *n_devices; i++)
            if (devices[i] == (int)d) {
                mpb_cli_error(cmd, "--devices '%s': GPU %d named twice", text, (int)d);
                return false;
            }
        if (*n_devices == MPB_MAX_DEVICES) {
            mpb_cli_error(cmd, "--devices '%s': more than %d GPUs", text, MPB_MAX_DEVICES);
            return false;
        }
        devices[(*n_devices)++] = (int)d;
        if (*end == '\0')
            return true;
        p = end + 1;
    }
}

bool mpb_cli_worker(const char *cmd, const char *text, int *ordinal, const char **run_id)
{
    const char *comma = strchr(text, ',');
    int64_t d;
    if (!comma || !mpb_int_parse_n(text, (size_t)(comma - text), &d) || d < 0 || d > 1023 || !comma[1]) {
        mpb_cli_error(cmd, "--worker '%s': internal option of %s --devices (ORDINAL,RUN_ID)", text, cmd);
        return false;
    }
    *ordinal = (int)d;
    *run_id = comma + 1;
    return true;
}
