/* The engine's plain INT8 GEMM (sm_90a): a batch of products of one shape,
 * C_g = A_g · B_g for g < n_gemms, in one persistent launch. A_g is m rows
 * and B_g n rows (column j of B) of k int8 values each, K-major (the only
 * order the 8-bit wgmma reads): row i at a + i·ld. Each product's sum is
 * formed exactly in INT32, modulo 2^32 as the tensor cores add it, and
 * written by one of two epilogues:
 *   mod = 0       C_g int32, column-major, leading dimension ldc;
 *   mod = 2..255  C_g mod `mod` in [0, mod), one uint8 per entry,
 *                 column-major, leading dimension ldc (tc_i8_arith.h:
 *                 the residue of the INT32 sum, as Ozaki-II's CRT reads it).
 * tc_engine_host.c holds the host model (tc_i8_host), which computes the
 * same bits with the same arithmetic header. */
#ifndef MPB_TC_I8_H
#define MPB_TC_I8_H

#include <stddef.h>
#include <stdint.h>

#include "tc/tc_i8_arith.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Products of one launch at most: Ozaki-II's moduli (20), with room. */
#define TC_I8_MAX_GEMMS 24

struct tc_i8_gemm {
    const int8_t *a, *b; /* 16-byte aligned */
    void *c;             /* int32_t (mod 0) or uint8_t entries; 16-byte aligned */
    int mod;             /* 0: INT32 C; TC_I8_MOD_MIN..TC_I8_MOD_MAX: residues */
};

struct tc_i8_args {
    int64_t m, n, k;
    int64_t ld;  /* bytes per row of every A and B: >= k, a multiple of 16 */
    int64_t ldc; /* entries per column of every C: >= m; a multiple of 4 (INT32 C) and of 16 (residues) */
    int n_gemms;
    struct tc_i8_gemm gemms[TC_I8_MAX_GEMMS];
    int cluster;    /* CTAs that share B's tile through TMA multicast: 1, 2, or 0 (2 where m spans two row tiles, else 1) */
    int max_stages; /* pipeline stages at most: 0 (as many as fit) or 2.. */
};

/* Can the engine run this batch? false with a reason when not. */
int tc_i8_supported(const struct tc_i8_args *args, char *why, size_t why_len);

/* A launch prepared once (tensor maps, grid, shared memory) and enqueued
 * many times. tc_i8_plan_create returns a cudaError_t value (0 success) and
 * writes why on failure; the plan keeps the pointers of `args`. */
struct tc_i8_plan;
int tc_i8_plan_create(const struct tc_i8_args *args, struct tc_i8_plan **plan, char *why, size_t why_len);
int tc_i8_plan_launch(const struct tc_i8_plan *plan, void *stream);
void tc_i8_plan_destroy(struct tc_i8_plan *plan);

/* What the plan chose: "tile=128x256x128 stages=4 cluster=2 gemms=15 grid=132". */
void tc_i8_plan_describe(const struct tc_i8_plan *plan, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
