/* Outcomes of a case and of a call, named as in the CUTLASS profiler. */
#ifndef MPB_STATUS_H
#define MPB_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

enum mpb_status {
    MPB_STATUS_OK = 0,        /* ran; numbers are valid */
    MPB_STATUS_INCORRECT,     /* ran, but the output failed a check */
    MPB_STATUS_NOT_SUPPORTED, /* check() said no, or no implementation on this backend */
    MPB_STATUS_ERROR,         /* a CUDA/cuBLAS/memory failure while running */
    MPB_STATUS_SKIPPED,       /* not run (e.g. an earlier sticky error ended the sweep) */
};

const char *mpb_status_name(enum mpb_status s);

/* Process exit codes (DESIGN.md "Command line"). */
enum mpb_exit {
    MPB_EXIT_OK = 0,
    MPB_EXIT_INCORRECT = 1,
    MPB_EXIT_USAGE = 2,
    MPB_EXIT_RUNTIME = 3,
    MPB_EXIT_NOTHING_RAN = 77,
};

#ifdef __cplusplus
}
#endif

#endif
