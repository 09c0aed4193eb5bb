/* MPBENCH_HOOK=emulate=SCHEME[,KEY=VALUE...]: a host BLAS call computed by
 * an mpbench scheme's host model on the call's packed operands. */
#ifndef MPB_HOOK_EMULATE_H
#define MPB_HOOK_EMULATE_H

#include <stdbool.h>
#include <stddef.h>
#include "hook/hook.h"
#include "param.h"
#include "scheme.h"

struct mpb_hook_emulation {
    const struct mpb_scheme *scheme;
    double params[MPB_MAX_PARAMS];
};

/* "SCHEME[,KEY=VALUE...]" (each value one word of `mpbench list`'s
 * parameters); false with why naming the bad word. */
bool mpb_hook_emulation_parse(const char *spec, struct mpb_hook_emulation *e, char *why, size_t why_len);

/* P = op(A)·op(B) by the scheme's host model, from packed a (m×k) and b
 * (k×n) into p (m×n), column-major in the call's target. False with why
 * (p unspecified) when the scheme does not take the call: another target
 * or field, no host model, its check refuses the shape, or it failed. */
bool mpb_hook_emulate(const struct mpb_hook_emulation *e, const struct mpb_hook_call *call, const void *a,
                      const void *b, void *p, char *why, size_t why_len);

/* C = alpha·P + beta·C in the call's layout and target (beta 0: C is not
 * read, as BLAS says). */
void mpb_hook_store(const struct mpb_hook_call *call, const void *p);

/* ‖P − Q‖_F / ‖Q‖_F (‖P − Q‖_F when Q is 0), both packed m×n. */
double mpb_hook_rel_err(const struct mpb_hook_call *call, const void *p, const void *q);

#endif
