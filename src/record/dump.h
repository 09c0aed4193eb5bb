/* --dump DIR: write a case's A, B, C and reference entries as .npy files
 * with its canonical case string, so anyone can reproduce and inspect it
 * outside mpbench (numpy.load reads them). */
#ifndef MPB_DUMP_H
#define MPB_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "case/plan.h"
#include "npy_write.h"
#include "reference.h"
#include "case/runner.h"

/* DIR is a folder (created when missing) that a file can be created in:
 * checked before the first case. False with a reason naming DIR. */
bool mpb_dump_check(const char *dir, char *why, size_t why_len);

/* DIR/<case_id>/{case.txt, A.npy, B.npy, C.npy} and, when entries are given,
 * ref_i.npy, ref_j.npy (int64), ref_hi.npy, ref_lo.npy, ref_rounded.npy (f8).
 * res holds host copies of A, B and C. False with a reason on failure. */
bool mpb_dump_case(const char *dir, const struct mpb_case *c, const struct mpb_result *res,
                   const struct mpb_ref_entry *e, const struct mpb_ref_value *v, int64_t n,
                   char *why, size_t why_len);

#endif
