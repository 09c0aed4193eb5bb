/* Cases of schemes whose one GEMM spans several GPUs (scheme->multi,
 * kernels/cublasmp): one process per part. The case's own process is
 * part 0 on its GPU; parts 1..P-1 are this program again, started as the
 * hidden command `mpbench rank` (mpb_multi_part below) on the next GPUs (ordinals base+1 ...).
 *
 * Each part generates only its blocks of A and B (block-cyclic, the same
 * (seed, stream, index) bits as a one-GPU run: generators.h), and writes
 * its blocks of C into one shared m×n array (a memfd every part maps), so
 * that the output hash and the reference see the whole C as in a one-GPU
 * run. On the host backend A and B are shared the same way, each part
 * writing its own blocks, and the host model reads them whole.
 *
 * Parent and parts speak over the part's stdin and stdout: the job (a
 * binary struct: the same program on both sides), "ready" with a status
 * once the part's operands are generated, then "go" or "stop" from the
 * parent, then the part's report and its times. The parent waits for every
 * part to be ready before any starts the collective calls, and takes each
 * timed call's time as the slowest part's. A part that dies costs only its
 * case (an error row naming the part); MPBENCH_MULTI_PART_EXIT=R (tests
 * only) makes part R exit before it is ready. Untimed warm-up calls are
 * counted, not timed (--warmup-ms does not apply), so that every part
 * makes the same collective calls. */
#ifndef MPB_MULTI_H
#define MPB_MULTI_H

#include "case/result.h"

void mpb_run_multi(const struct mpb_runner *r, const struct mpb_case *c, struct mpb_result *res);

/* The hidden command `mpbench rank`: one part's whole life, its job read
 * from stdin; returns the exit code (status.h). */
int mpb_multi_part(int argc, char **argv);

#endif
