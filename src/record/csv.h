/* The results CSV (DESIGN.md "CSV"): tidy, one row per case, no preamble,
 * C locale, %.17g, empty cell = missing, header before the first case,
 * flushed after every row. Columns are only ever appended; README
 * "CSV columns" documents each. */
#ifndef MPB_CSV_H
#define MPB_CSV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* 1: through tags; 2: ref_check (--ref dd) and cr_mismatch appended; 3:
 * max_abs_vs_native (--vs-native) appended; 4: gpu_uuid appended; 5:
 * power_w, joules_per_call and gflops_per_w (NVML) appended; 6: field
 * (real, complex) and the complex per-part rho_a_re_max, rho_a_im_max
 * appended. */
#define MPB_CSV_SCHEMA_VERSION 6

#define MPB_CSV_COLUMNS(X)                                                                 \
    X(schema_version) X(run_id) X(case_id) X(scheme) X(scheme_version) X(params) X(target)  \
    X(impl) X(m) X(n) X(k) X(gen) X(gen_params) X(seed) X(warmup) X(reps)                   \
    X(time_ms_median) X(time_ms_min) X(time_ms_max) X(noise_pct) X(tflops) X(split_ms)      \
    X(gemm_ms) X(accum_ms) X(slices) X(fallback) X(ref) X(ref_entries) X(err_fro_rel)       \
    X(err_max_rel) X(err_median_rel) X(rho_a_max) X(rho_b_max) X(rho_c_max) X(grade)        \
    X(nonfinite) X(out_hash) X(status) X(note) X(gpu_name) X(driver_version)                \
    X(cuda_runtime) X(cublas_version) X(mpbench_version) X(git_sha) X(settings) X(case)     \
    X(tags) X(ref_check) X(cr_mismatch) X(max_abs_vs_native) X(gpu_uuid)        \
    X(power_w) X(joules_per_call) X(gflops_per_w) X(field) X(rho_a_re_max) X(rho_a_im_max)

enum mpb_col {
#define MPB_COL_ENUM(name) MPB_COL_##name,
    MPB_CSV_COLUMNS(MPB_COL_ENUM)
#undef MPB_COL_ENUM
    MPB_COL_COUNT
};

extern const char *const mpb_csv_column_names[MPB_COL_COUNT];

/* One row under construction: every cell owned, NULL = empty. */
struct mpb_row {
    char *cell[MPB_COL_COUNT];
};

void mpb_row_set(struct mpb_row *row, enum mpb_col col, const char *text);
void mpb_row_setf(struct mpb_row *row, enum mpb_col col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* %.17g; NaN leaves the cell empty (missing). */
void mpb_row_set_double(struct mpb_row *row, enum mpb_col col, double x);
void mpb_row_set_int(struct mpb_row *row, enum mpb_col col, int64_t x);
void mpb_row_clear(struct mpb_row *row);

/* A cell read back in the grammar the two writers above use, and its
 * value. A real: [-]digits[.digits][e±digits] with no leading zero (what
 * %.17g prints), or inf, -inf; an integer: [-]digits, no leading zero,
 * within int64_t. No space, '+', hex, nan or empty cell. */
bool mpb_csv_read_real(const char *s, double *x);
bool mpb_csv_read_int(const char *s, int64_t *x);

struct mpb_csv;

/* Open for writing: "-" is stdout. A FILE is locked (flock) until
 * mpb_csv_close, and a file another run holds is refused. With `resume`, an
 * existing file keeps its rows (its header and every row's schema_version
 * must be ours; a truncated last line is dropped) and the case_ids already
 * present are remembered. The header is written (and flushed) here, so an
 * unwritable path fails before any case runs. NULL with a reason on
 * failure. */
struct mpb_csv *mpb_csv_open(const char *path, bool resume, char *why, size_t why_len);

/* Whether --resume may keep a row already in FILE (its MPB_COL_COUNT
 * fields); false with a reason, which the caller prefixes with FILE:LINE.
 * It may point fields[MPB_COL_case_id] at another case_id that outlives the
 * file's reading: the row's case is then remembered by that one. */
typedef bool mpb_csv_row_check(char **fields, void *arg, char *why, size_t why_len);

/* mpb_csv_open with resume, every row already in FILE also put to `check`.
 * A row refused, or a case_id in two rows (mpbench never writes one twice:
 * corruption), refuses the file, naming the lines, and leaves it as it was. */
struct mpb_csv *mpb_csv_resume(const char *path, mpb_csv_row_check *check, void *arg, char *why, size_t why_len);

/* The exclusive lock a run holds on its output FILE (flock, opened without
 * truncating it): the descriptor to close when done, or -1 with a reason
 * (another mpbench holds it, or FILE cannot be opened for writing). */
int mpb_csv_lock(const char *path, char *why, size_t why_len);

bool mpb_csv_has_case(const struct mpb_csv *csv, const char *case_id);

/* One row as a CSV record (fields quoted where needed, newline-terminated). */
void mpb_csv_format_row(FILE *f, const struct mpb_row *row);

/* Append a record made by mpb_csv_format_row (run --devices: a worker's row)
 * and flush. */
bool mpb_csv_write_record(struct mpb_csv *csv, const char *record, size_t len);

/* Rewrite FILE with its data records sorted by `rank(case_id)` (ascending;
 * records whose rank is negative keep their order, before the others),
 * through a temporary file renamed over it. False with a reason. */
bool mpb_csv_sort_file(const char *path, int (*rank)(const char *case_id, void *arg), void *arg, char *why,
                       size_t why_len);
int mpb_csv_resumed_rows(const struct mpb_csv *csv);
/* Write and flush one row; false on an I/O error (disk full…). */
bool mpb_csv_write(struct mpb_csv *csv, const struct mpb_row *row);
bool mpb_csv_close(struct mpb_csv *csv);

/* One field as the results CSV writes it: as is, or (when it holds a comma,
 * quote, CR or LF) in quotes with quotes doubled and CR/LF as spaces, so
 * that a record is one line (RFC 4180). NULL writes nothing. */
void mpb_csv_write_field(FILE *f, const char *s);

/* The schema_version whose column list a header's `n` fields are exactly;
 * 0 when none is. */
int mpb_csv_header_schema(char **fields, int n);

/* Split one CSV record (RFC 4180 quoting) into at most `max` fields held in
 * `buf`; returns the field count, or -1 on malformed quoting. A quoted field
 * may hold CR and LF. */
int mpb_csv_split(const char *line, char *buf, size_t buf_len, char **fields, int max);

/* Read one record into *rec (grown as getline grows its line): up to a line
 * break outside quotes, so a quoted field holding line breaks (RFC 4180)
 * makes a record of several lines; *lines gets how many. *complete is false
 * when the input ends first (inside quotes, or no final newline: a run
 * killed mid-write). The record's length, 0 at the end, -1 on an error. */
ssize_t mpb_csv_read_record(FILE *f, char **rec, size_t *cap, int *lines, bool *complete);

#endif
