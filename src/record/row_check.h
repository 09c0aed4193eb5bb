/* A results row read back (run --resume, merge): each cell in the grammar
 * src/record/case_row.c writes it, and the columns that name a case those of the
 * case its case_id says, so that nothing is kept that mpbench did not write
 * for this sweep. */
#ifndef MPB_ROW_CHECK_H
#define MPB_ROW_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "case/plan.h"
#include "record/csv.h"

/* fields: the MPB_COL_COUNT cells of a row of this schema_version. False
 * with a sentence naming the column and the cell. */
bool mpb_row_cells_check(char **fields, char *why, size_t why_len);

/* Whether column c holds a number when it is not empty (its cells are
 * integers or %.17g reals): for the JSON Lines writer. */
bool mpb_row_col_numeric(enum mpb_col c);

/* Whether case_id, case, scheme, params, target, impl, m, n, k, gen,
 * gen_params and seed are those of case c; false naming the first that is not. */
bool mpb_row_is_case(char **fields, const struct mpb_case *c, char *why, size_t why_len);

/* Whether the row is case c as written before c's scheme gained parameters
 * that c has at their defaults: every column mpb_row_is_case compares but
 * case_id and case the same, and c's params the row's plus those
 * (mpb_param_added_at_default, as mpbench gate pairs such rows). */
bool mpb_row_is_case_before_added(char **fields, const struct mpb_case *c);

#endif
