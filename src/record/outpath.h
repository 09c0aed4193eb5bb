/* Outputs written to a temporary file that is then renamed over their path
 * (merge's OUT, every .meta.json sidecar, the CSV run --devices sorts): a
 * rename puts a new regular file in place of whatever the path held, so
 * such a path must be a regular file or not exist yet. */
#ifndef MPB_OUTPATH_H
#define MPB_OUTPATH_H

#include <stdbool.h>
#include <stddef.h>

/* False, with a sentence naming the path and what it is, when it exists and
 * is not a regular file: a device node, FIFO, socket or folder, or a
 * symbolic link (refused even to a regular file: the rename would replace
 * the link, not its target). */
bool mpb_outpath_check(const char *path, char *why, size_t why_len);

#endif
