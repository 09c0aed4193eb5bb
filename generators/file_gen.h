/* The `file` generator's operands: A and B (and optionally a C) read from
 * .npy or Matrix Market files (mat_read.h) on the host, once per command,
 * and copied into each case's operands in its target (gen_fill_host.c,
 * gen_fill.cu upload them). Unlike the counter-based generators nothing is
 * computed per element: the files are the matrices, named in gen_params
 * and the case string by path and the first 16 hex digits of their
 * SHA-256, which a rerun checks. */
#ifndef MPB_FILE_GEN_H
#define MPB_FILE_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "gemm.h"
#include "gen_config.h"
#include "mat_read.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { MPB_FILE_A, MPB_FILE_B, MPB_FILE_C, MPB_FILE_COUNT };

/* The longest path -a a=PATH takes: three of them and their hashes fit
 * the case string and the gen_params cell. */
#define MPB_FILE_PATH_MAX 100
/* Hex digits of the SHA-256 written in gen_params and the case string. */
#define MPB_FILE_SHA_DIGITS 16

struct mpb_gen_file {
    char path[MPB_FILE_PATH_MAX + 1]; /* "": not given */
    char want_sha[65];                /* -a a_sha256=HEX: the digest must begin so; "": any */
    char sha[65];                     /* of the file's bytes */
    bool mm;                          /* Matrix Market (entries named from 1), else .npy (from 0) */
    struct mpb_mat mat;
};

struct mpb_gen_files {
    struct mpb_gen_file f[MPB_FILE_COUNT];
    /* Where the files came from, carried into gen_params and the case
     * string and not read: a hook trace's folder and call (mpbench replay
     * writes them); "": not given. */
    char trace[MPB_FILE_PATH_MAX + 1];
    char call[21];
    bool loaded;
};

/* The keys -a takes after -g file, NULL-terminated, for help and errors. */
extern const char *const mpb_gen_files_keys[];

/* -a KEY=VALUE: a, b, c (a path, taken as typed: no comma list),
 * a_sha256, b_sha256, c_sha256 (1 to 64 hex digits), or the labels trace
 * (a path) and call (a call index, digits). false with why. */
bool mpb_gen_files_arg(struct mpb_gen_files *fs, const char *key, const char *value, char *why, size_t why_len);

/* Read and check the files: a and b given, each a regular file in one of
 * the two formats, whole and finite, its hash as asked; A and B both real
 * or both complex; A's columns = B's rows; C, when given, m×n and of A's
 * field. false with why naming the file and where in it. */
bool mpb_gen_files_load(struct mpb_gen_files *fs, char *why, size_t why_len);

void mpb_gen_files_free(struct mpb_gen_files *fs);

/* The shape the files make (after a load). */
void mpb_gen_files_shape(const struct mpb_gen_files *fs, int64_t *m, int64_t *n, int64_t *k);

/* Whether a scheme of this target and field can take the operands: the
 * field must be the files', and an fp32 target needs every value of A and
 * B exact in float (float32 data always is; fp64 data widens exactly into
 * fp64). false with why. */
bool mpb_gen_files_fit(const struct mpb_gen_files *fs, enum mpb_target target, enum mpb_field field,
                       char *why, size_t why_len);

/* "a=PATH a_sha256=HEX b=PATH b_sha256=HEX [c=PATH c_sha256=HEX]
 * [trace=PATH call=N]" (the gen_params cell), and the same as " -a a=PATH -a a_sha256=HEX ..." (the
 * case string). Return the length they would have. */
size_t mpb_gen_files_params(const struct mpb_gen_files *fs, char *buf, size_t len);
size_t mpb_gen_files_case_args(const struct mpb_gen_files *fs, char *buf, size_t len);

/* A or B, column-major, in the target's type (two parts per complex
 * element), from the values read (after mpb_gen_files_fit said yes). */
void mpb_gen_files_fill(const struct mpb_gen_files *fs, enum mpb_operand which, enum mpb_target target, void *dst);

#ifdef __cplusplus
}
#endif

#endif
