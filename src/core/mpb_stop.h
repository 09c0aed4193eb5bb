/* A stop asked for by the user (SIGINT, Ctrl-C; SIGTERM, as `timeout` and
 * batch schedulers send): a sweep finishes the case it is running, keeps
 * every row written, records the run as interrupted in its sidecar and
 * exits 128 + the signal's number, as a shell reports a process killed by
 * it. A second signal more than a second after the first stops at once,
 * losing only the case in progress: the CSV is written row by row; one
 * within a second is the same request (`timeout` signals the process and
 * then its process group, and two threads may take the two at once). A
 * signal ignored when mpbench started (a shell's background job's SIGINT)
 * stays ignored. */
#ifndef MPB_STOP_H
#define MPB_STOP_H

/* Installs the handlers; `cmd` names the subcommand in the one line the
 * first signal prints. Returns 0, or -1 with errno when sigaction fails. */
int mpb_stop_install(const char *cmd);

/* The signal that asked for the stop, or 0. */
int mpb_stop_requested(void);

/* "SIGINT", "SIGTERM" (the only two handled). */
const char *mpb_stop_name(int sig);

#endif
