/* One way to spread reference work over host threads (ref_mpfr.c,
 * ref_dd_host.c): `count` items cut into `threads` contiguous chunks. */
#ifndef MPB_REF_THREADS_H
#define MPB_REF_THREADS_H

#include <stdbool.h>
#include <stdint.h>

/* Calls work(ctx, begin, end) for the chunks [count·t/T, count·(t+1)/T),
 * t = 0 … T−1, on T threads (threads ≤ 0: one per online core; never more
 * than count). The calling thread takes chunk 0 and any chunk whose thread
 * could not be created. True when every call returned true. */
bool mpb_ref_parallel(int64_t count, int threads, void *ctx,
                      bool (*work)(void *ctx, int64_t begin, int64_t end));

#endif
