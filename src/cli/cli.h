/* Command-line parsing shared by the subcommands (cli.c); `run`'s own in
 * cli_run.c. */
#ifndef MPB_CLI_H
#define MPB_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include "cuda_env.h"
#include "case/plan.h"

enum mpb_parse_result { MPB_PARSE_OK, MPB_PARSE_HELP, MPB_PARSE_ERROR };

/* `mpbench run` options into `plan`; prints errors (naming the option and
 * the value and what is allowed) to stderr. */
enum mpb_parse_result mpb_cli_run_parse(int argc, char **argv, struct mpb_plan *plan);
void mpb_cli_run_help(void);

/* "mpbench <cmd>: message" on stderr. */
void mpb_cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A long option given twice is refused (exit 2) unless `repeatable`
 * (NULL-terminated, may be NULL) names it: a second value would silently
 * replace the first. Values never look like long options (mpb_cli_value
 * refuses "--csv --resume"), so every "--word" of argv is an option. */
bool mpb_cli_refuse_repeats(const char *cmd, int argc, char **argv, const char *const *repeatable);

/* The exit code of command `cmd` once stdout is flushed and closed: a
 * write to it that failed (a full disk, /dev/full) turns 0 and 1 into 3,
 * after a message; other codes already say that something failed. */
int mpb_cli_close_stdout(const char *cmd, int code);

/* "unknown option 'ARG'" naming the nearest long option of `help` (the
 * command's --help text) when ARG looks like a typo of it. */
void mpb_cli_unknown_option(const char *cmd, const char *arg, const char *help);

/* "--opt VALUE" or "--opt=VALUE" at argv[*i]: NULL when it is not option
 * `name`; "" (after saying so) when the value is missing; else the value,
 * with *i advanced past it. */
const char *mpb_cli_value(const char *cmd, int argc, char **argv, int *i, const char *name);

/* The size list, as mpb_cli_value: --size VALUES, also spelled --sizes
 * (one option for run, grade and tune; mpb_cli_refuse_repeats takes the two
 * spellings as one); *name is the spelling given, for messages. */
const char *mpb_cli_size_value(const char *cmd, int argc, char **argv, int *i, const char **name);

/* Option value helpers: name the option in their error messages. */
bool mpb_cli_int(const char *cmd, const char *opt, const char *text, long lo, long hi, long *out);
/* VALUES (values.h) of integers in lo..hi into *out (replacing its list). */
bool mpb_cli_int_list(const char *cmd, const char *opt, const char *text, int64_t lo, int64_t hi,
                      struct mpb_int_list *out);
/* One of the NULL-terminated `words`: its index in *out. */
bool mpb_cli_choice(const char *cmd, const char *opt, const char *text, const char *const *words,
                    int *out);

/* `-s NAME[,NAME...]` (scheme) or `-g NAME[,NAME...]`: one selection per
 * name appended to *list, each parameter at its default; *first is the
 * index of the first one (what a following -a applies to). */
bool mpb_cli_add_selections(const char *cmd, const char *opt, const char *text, bool scheme,
                            struct mpb_selection **list, int *count, int *first);
/* `-a KEY=VALUES`: the value list of parameter KEY of `sel`. */
bool mpb_cli_apply_arg(const char *cmd, const char *text, struct mpb_selection *sel);

/* The backend of `choice`: the GPU unless host was asked for. false, with
 * *exit_code = 77 and a message, when cuda was asked for and none is
 * usable; under auto without a GPU, *env stays NULL and a note says that
 * the host models run instead (`doing`: "running", "grading"). */
bool mpb_cli_open_backend(const char *cmd, enum mpb_backend_choice choice, const char *doing,
                          struct mpb_cuda_env **env, int *exit_code);

/* The value of --devices: all, or a comma list of distinct GPU ordinals. */
bool mpb_cli_devices(const char *cmd, const char *text, int *devices, int *n_devices, bool *all);
/* The value of the hidden --worker ORDINAL,RUN_ID. */
bool mpb_cli_worker(const char *cmd, const char *text, int *ordinal, const char **run_id);

#endif
