/* mpbench replay's per-application summary: the run's rows of the trace's
 * calls read back from its CSV and, per scheme configuration, the calls
 * that lose accuracy against the native GEMM on the same operands and the
 * application's GEMM time under it (each replayed shape's measured time ×
 * its recorded call count). */
#ifndef MPB_APP_SUMMARY_H
#define MPB_APP_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "replay/trace_read.h"

/* A call loses accuracy when its err_fro_rel exceeds the native GEMM's by
 * more than this factor. */
#define MPB_REPLAY_WORSE 2.0

bool mpb_replay_summary(FILE *out, const char *csv_path, const char *trace_dir, const struct mpb_trace_file *t,
                        char *why, size_t why_len);

#endif
