/* A chain of the user's, described in a text file (`mpbench tune -c FILE`,
 * README "mpbench tune"): its buffers and steps as chain.h has them, the
 * dimensions in terms of n. A file is read and checked once (load: all that
 * holds at every n), then built at each size (the dimensions and shapes at
 * that n), so that errors come before anything runs and the file is read
 * once however many sizes use it. */
#ifndef MPB_TUNE_CHAIN_FILE_H
#define MPB_TUNE_CHAIN_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tune/chain.h"

/* A dimension as written: `value`, n * value or n / value. */
enum mpb_tune_dim_kind { MPB_TUNE_DIM_NUMBER, MPB_TUNE_DIM_N_TIMES, MPB_TUNE_DIM_N_OVER };
struct mpb_tune_file_dim {
    enum mpb_tune_dim_kind kind;
    int64_t value;
};

/* An input's scale as written: num, num / sqrt(d) or sqrt(num / d), with
 * d = n where denom is 0 (sqrt(3/n) is then the bits chain.c computes). */
enum mpb_tune_scale_form { MPB_TUNE_SCALE_NUMBER, MPB_TUNE_SCALE_OVER_SQRT, MPB_TUNE_SCALE_SQRT_OF };
struct mpb_tune_file_scale {
    enum mpb_tune_scale_form form;
    double num;
    int64_t denom;
};

/* Buffers in the order they first appear in the file (their index in the
 * chain); an input's shape and scale as written, a written buffer's step. */
struct mpb_tune_file_buffer {
    char name[32];
    int line;
    bool input;
    struct mpb_tune_file_dim rows, cols;
    struct mpb_tune_file_scale scale;
    int writer;
};

struct mpb_tune_file_step {
    int line;
    enum mpb_tune_step_kind kind; /* GEMM, BIAS or BIAS_RELU */
    int out, a, b;
};

struct mpb_tune_chain_file {
    const char *path; /* the caller's string, named in every message: it must outlive this */
    char name[32];    /* the chain's name: the file's without its folder and ".chain" */
    int n_buffers, n_steps, output;
    struct mpb_tune_file_buffer buffers[MPB_TUNE_MAX_BUFFERS];
    struct mpb_tune_file_step steps[MPB_TUNE_MAX_STEPS];
};

/* Whether a -c word names a file: it has a '/' or ends in ".chain" (the
 * others are chain.c's names). */
bool mpb_tune_chain_file_word(const char *word);

/* Read and check the description at `path`; false with one sentence in
 * why, naming PATH:LINE (or PATH alone for the file as a whole). */
bool mpb_tune_chain_file_load(const char *path, struct mpb_tune_chain_file *f, char *why, size_t why_len);

/* The chain of a loaded description at n = `size` (false where a dimension
 * or a shape does not hold at this n, said as load says it). */
bool mpb_tune_chain_file_build(const struct mpb_tune_chain_file *f, int64_t size, struct mpb_tune_chain *c, char *why,
                               size_t why_len);

#endif
