/* What one row of a results CSV must hold for `mpbench gate` to judge it
 * (README "Gating a driver upgrade"): every cell a verdict or the report
 * reads in the grammar mpbench writes it, and the cells consistent with
 * each other as mpbench writes them, so that a corrupted file is refused
 * rather than judged. */
#ifndef MPB_GATE_ROW_H
#define MPB_GATE_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include "record/csv.h"

/* False with "column NAME (field N): …" in `why` (the caller adds the file
 * and line) at the first cell that mpbench could not have written there.
 * Cells of columns the file lacks are NULL (empty). */
bool mpb_gate_row_check(const struct mpb_row *row, char *why, size_t why_len);

#endif
