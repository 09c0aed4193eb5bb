/* A hook trace read back for mpbench replay: DIR/calls.csv checked column
 * by column against the writer's grammar (hook/trace.h), its calls grouped
 * into classes (routine, type, order, transposes, m, n, k) with their counts, and
 * each class's operand files checked against the calls' shape and type. */
#ifndef MPB_TRACE_READ_H
#define MPB_TRACE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "gemm.h"
#include "hook/trace.h"

struct mpb_trace_class {
    char routine[32];
    char type;               /* d, s, z or c */
    enum mpb_target target;
    enum mpb_field field;
    char order, transa, transb;
    int64_t m, n, k;
    int64_t calls;           /* recorded calls of the class */
    double recorded_s;       /* their recorded times, summed */
    int64_t operands_call;   /* the call whose operands were kept; -1: none */
    char stem[MPB_TRACE_STEM_MAX];
};

struct mpb_trace_file {
    struct mpb_trace_class *classes;
    int n_classes;
    int64_t n_calls;
    double recorded_s;
};

/* False with why naming the file, line and column (or the operand file
 * and what it holds against what the calls say). */
bool mpb_trace_load(const char *dir, struct mpb_trace_file *t, char *why, size_t why_len);
void mpb_trace_file_free(struct mpb_trace_file *t);

#endif
