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
/* hidden: one part of a case over several GPUs, started by mpbench itself (multi.h) */
int mpb_cmd_rank(int argc, char **argv);

#endif
