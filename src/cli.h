/* Command-line parsing shared by the subcommands. */
#ifndef MPB_CLI_H
#define MPB_CLI_H

#include <stdbool.h>
#include "plan.h"

enum mpb_parse_result { MPB_PARSE_OK, MPB_PARSE_HELP, MPB_PARSE_ERROR };

/* `mpbench run` options into `plan`; prints errors (naming the option and
 * the value and what is allowed) to stderr. */
enum mpb_parse_result mpb_cli_run_parse(int argc, char **argv, struct mpb_plan *plan);
void mpb_cli_run_help(void);

/* "mpbench <cmd>: message" on stderr. */
void mpb_cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "--opt VALUE" or "--opt=VALUE" at argv[*i]: NULL when it is not option
 * `name`; "" (after saying so) when the value is missing; else the value,
 * with *i advanced past it. */
const char *mpb_cli_value(const char *cmd, int argc, char **argv, int *i, const char *name);

/* Option value helpers: name the option in their error messages. */
bool mpb_cli_int(const char *cmd, const char *opt, const char *text, long lo, long hi, long *out);

#endif
