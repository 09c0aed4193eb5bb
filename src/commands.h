/* The subcommands; each returns the process exit code (status.h). */
#ifndef MPB_COMMANDS_H
#define MPB_COMMANDS_H

int mpb_cmd_run(int argc, char **argv);
int mpb_cmd_tune(int argc, char **argv);
int mpb_cmd_list(int argc, char **argv);
int mpb_cmd_selftest(int argc, char **argv);
int mpb_cmd_gate(int argc, char **argv);
int mpb_cmd_grade(int argc, char **argv);
int mpb_cmd_probe(int argc, char **argv);
int mpb_cmd_merge(int argc, char **argv);
int mpb_cmd_env(int argc, char **argv);
int mpb_cmd_replay(int argc, char **argv);

#endif
