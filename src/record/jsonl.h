/* The results as JSON Lines (run --jsonl FILE): one object per row of the
 * CSV, its columns as members with their types (numbers as numbers, an
 * empty cell as null, ±inf as ±1e999, which JSON readers decode as
 * infinities), and `params` and `gen_params` as objects of the parameters,
 * numbers where the value is one. The CSV stays the record: the file is
 * made from the CSV's rows when it is opened (--resume keeps them) and
 * made again from the sorted CSV after run --devices; rows are appended
 * and flushed as the CSV's are. */
#ifndef MPB_JSONL_H
#define MPB_JSONL_H

#include <stdbool.h>
#include <stddef.h>

#include "record/csv.h"

struct mpb_jsonl;

/* Whether FILE may be written beside the CSV `csv_path`: not the CSV (nor
 * its sidecar), not stdout, a regular file or new (outpath.h). Checked
 * before anything is written; false with a reason. */
bool mpb_jsonl_check(const char *path, const char *csv_path, char *why, size_t why_len);

/* (Re)make FILE from the data rows of the CSV at `csv_path` ("-": none),
 * through a temporary file renamed over it, and open it for the rows to
 * come. NULL with a reason. */
struct mpb_jsonl *mpb_jsonl_open(const char *path, const char *csv_path, char *why, size_t why_len);

/* One row (every column's cell) as one line, flushed; false on an I/O error. */
bool mpb_jsonl_write(struct mpb_jsonl *j, const struct mpb_row *row);
bool mpb_jsonl_close(struct mpb_jsonl *j);

#endif
