/* Host-side descriptor parts of ozaki2_int8 and ozaki2_int8_sp: parameter
 * tables, check(), the error bound and the layout choices both backends
 * share. */
#include "ozaki2/ozaki2.h"

#include <math.h>
#include <stdio.h>

#include "common/cublas_util.h"
#include "common/int8_gemm_auto.h"
#include "mpb_size.h"
#include "tc/tc_engine.h"

static const char *const mode_choices[] = {"fast", "accurate", NULL};
static const char *const gemm_choices[] = {"calls", "batched", "engine", "auto", NULL};

#define OZ2_PARAMS(default_moduli)                                                               \
    {                                                                                            \
        [MPB_OZ2_MODULI] = {.name = "moduli", .kind = MPB_PARAM_INT, .def = default_moduli,     \
                            .lo = MPB_OZ2_MIN_MODULI, .hi = MPB_OZ2_MAX_MODULI,                  \
                            .allow_auto = true,                                                  \
                            .help = "number of moduli = INT8 GEMMs (256, 255, 253, 251, ...); "  \
                                    "auto = the fewest whose error bound is within the native "  \
                                    "GEMM's for this shape and data (note says why)"},          \
        [MPB_OZ2_MODE] = {.name = "mode", .kind = MPB_PARAM_CHOICE, .def = "fast",               \
                          .choices = mode_choices,                                               \
                          .help = "scaling bound: fast = Cauchy-Schwarz; accurate = one extra "  \
                                  "INT8 GEMM of the leading bits"},                              \
        [MPB_OZ2_NBLOCK] = {.name = "nblock", .kind = MPB_PARAM_INT, .def = "0", .lo = 0,        \
                            .hi = 1 << 30,                                                       \
                            .help = "columns of B per INT8 GEMM call; 0 = auto (4096 when "      \
                                    "n > 4096)"},                                                \
        [MPB_OZ2_MBLOCK] = {.name = "mblock", .kind = MPB_PARAM_INT, .def = "0", .lo = 0,        \
                            .hi = 1 << 30,                                                       \
                            .help = "rows of A per INT8 GEMM call; 0 = auto (all m)"},                                                \
        [MPB_OZ2_GEMM] = {.name = "gemm", .kind = MPB_PARAM_CHOICE, .def = "auto",               \
                          .choices = gemm_choices,                                               \
                          .help = "INT8 GEMMs: calls = one cublasGemmEx per modulus and tile; "  \
                                  "batched = one strided-batched call per tile; engine = all "   \
                                  "moduli in one launch of mpbench's INT8 engine, residues "     \
                                  "stored as bytes (sm_90a, k <= 131071); auto = engine up to "  \
                                  "m*n*k = 8192^3 where it runs, else calls (settings say "      \
                                  "which)"},                                                     \
        [MPB_OZ2_TOL] = {.name = "tol", .kind = MPB_PARAM_REAL, .def = "0", .lo = 0, .hi = 1,     \
                         .help = "with moduli=auto: the fewest moduli whose error bound is at "  \
                                 "most tol, normwise relative to ||(|A||B|)||_F (e.g. 1e-8); "  \
                                 "0 = the native GEMM's"},                                       \
    }

/* Defaults: 15 moduli reach DGEMM's normwise error for phi ≤ 2 on the host
 * model at n = 256 (14 do not at phi = 0.5; published for GEMMul8 on a GH200:
 * 14–15); 8 for SGEMM (published 7–9). Mode fast: on the H200 at n = 16384 it is as
 * accurate as accurate mode at 15 moduli (err_fro 5.1e-16 vs 5.4e-16 at
 * phi = 0.5, both below DGEMM's 4.4e-15) and 7% faster, since the accurate
 * bound's 6-bit digits lose about what it gains over Cauchy–Schwarz. */
const struct mpb_param_spec mpb_ozaki2_int8_params[] = OZ2_PARAMS("15");
const struct mpb_param_spec mpb_ozaki2_int8_sp_params[] = OZ2_PARAMS("8");

bool mpb_oz2_is_auto(const double *params)
{
    return isnan(params[MPB_OZ2_MODULI]);
}

int mpb_oz2_moduli_most(const double *params)
{
    return mpb_oz2_is_auto(params) ? MPB_OZ2_MAX_MODULI : (int)params[MPB_OZ2_MODULI];
}

/* The auto tiles: rows not blocked, columns as every INT8 scheme blocks them
 * (mpb_int8_block_cols). The nblock/mblock sweep behind that choice is
 * results/h200/fp64-emulation/ozaki2-tiles.csv. */
int64_t mpb_oz2_block_cols(const double *params, int64_t n)
{
    int64_t nb = (int64_t)params[MPB_OZ2_NBLOCK];
    if (nb == 0)
        nb = mpb_int8_block_cols(n);
    return nb < n ? nb : n;
}

int64_t mpb_oz2_block_rows(const double *params, int64_t m)
{
    int64_t mb = (int64_t)params[MPB_OZ2_MBLOCK];
    if (mb == 0)
        mb = m;
    return mb < m ? mb : m;
}

int64_t mpb_oz2_padded_k(int64_t k)
{
    return (k + 31) / 32 * 32;
}

int64_t mpb_oz2_chunk_most(int64_t k)
{
    return k <= MPB_OZ2_MAX_K ? mpb_oz2_padded_k(k) : MPB_CRT_CHUNK_K;
}

/* Whether the engine can run this case on dev (why says why not). */
static bool engine_fits(const struct mpb_gemm *g, const struct mpb_device_info *dev, char *why, size_t why_len)
{
    /* one INT32 sum per product: the engine reduces it modulo m_t in its epilogue */
    if (g->k > MPB_OZ2_MAX_K) {
        snprintf(why, why_len, "gemm=engine needs k <= %d (k=%lld: use gemm=calls)", MPB_OZ2_MAX_K,
                 (long long)g->k);
        return false;
    }
    return tc_scheme_problem_supported(g->m, g->n, mpb_oz2_padded_k(g->k), dev, why, why_len);
}

enum mpb_oz2_gemm mpb_oz2_gemm_used(const double *params, const struct mpb_gemm *g,
                                    const struct mpb_device_info *dev)
{
    if (params[MPB_OZ2_GEMM] != MPB_OZ2_GEMM_AUTO)
        return (enum mpb_oz2_gemm)params[MPB_OZ2_GEMM];
    char why[256];
    return dev && mpb_int8_auto_wants_engine(g) && engine_fits(g, dev, why, sizeof why) ? MPB_OZ2_GEMM_ENGINE
                                                                                       : MPB_OZ2_GEMM_CALLS;
}

bool mpb_oz2_check(const double *params, const struct mpb_gemm *g,
                   const struct mpb_device_info *dev, char *why, size_t why_len)
{
    double tol = params[MPB_OZ2_TOL];
    char shown[32];
    mpb_format_double(tol, shown, sizeof shown);
    /* the parser keeps tol in [0, 1]; values set by a program are checked here */
    if (!(tol >= 0 && tol <= 1)) {
        snprintf(why, why_len, "tol=%s: tol must be a number in 0..1 (0 = the native GEMM's target)", shown);
        return false;
    }
    if (tol > 0 && !mpb_oz2_is_auto(params)) {
        snprintf(why, why_len, "tol=%s needs moduli=auto (moduli=%d is a fixed count; tol picks the count)",
                 shown, (int)params[MPB_OZ2_MODULI]);
        return false;
    }
    if (!dev)
        return true;
    if (params[MPB_OZ2_GEMM] == MPB_OZ2_GEMM_ENGINE && !engine_fits(g, dev, why, why_len))
        return false;
    /* k is split into chunks of at most MPB_CRT_CHUNK_K, but the residues'
     * leading dimension is the padded k. */
    struct mpb_gemm padded = *g;
    padded.k = mpb_oz2_padded_k(g->k);
    return mpb_cublas_int_dims(&padded, "cublasGemmStridedBatchedEx", why, why_len);
}

/* Mirrors ozaki2_host.c's allocations (per row/column three statistics and
 * a scale, residues, INT32 products; accurate mode's digits; moduli=auto's
 * sums per index of k and, in ozaki2_auto.c, two ints per row/column) and
 * ozaki2.cu's alloc_all (residues over the padded k; N INT32 planes, and N
 * more for the chunk sums when k is split; the per-row/column vectors;
 * auto's per-k sums), N the most moduli a call may use. */
int64_t mpb_oz2_engine_ldc(int64_t m)
{
    return (m + 15) / 16 * 16;
}

size_t mpb_ozaki2_workspace(const double *params, const struct mpb_gemm *g, bool on_device)
{
    size_t nm = (size_t)mpb_oz2_moduli_most(params);
    bool accurate = params[MPB_OZ2_MODE] == MPB_OZ2_ACCURATE, autom = mpb_oz2_is_auto(params);
    int64_t vecs = g->m + g->n;
    size_t per_vec = on_device ? 6 * sizeof(uint64_t) : 3 * sizeof(uint64_t) + 3 * sizeof(int);
    size_t bytes = mpb_size_add(mpb_size_matrix(vecs, 1, per_vec), 256);
    if (autom)
        bytes = mpb_size_add(bytes, mpb_size_matrix(g->k + 1, 4, sizeof(uint64_t)));
    /* gemm=auto may take either where the shape wants the engine (the
     * device decides): the larger of the two */
    if (on_device && params[MPB_OZ2_GEMM] == MPB_OZ2_GEMM_AUTO) {
        double one[MPB_OZ2_N_PARAMS];
        for (int i = 0; i < MPB_OZ2_N_PARAMS; i++)
            one[i] = params[i];
        one[MPB_OZ2_GEMM] = MPB_OZ2_GEMM_CALLS;
        size_t calls = mpb_ozaki2_workspace(one, g, true);
        if (!mpb_int8_auto_wants_engine(g))
            return calls;
        one[MPB_OZ2_GEMM] = MPB_OZ2_GEMM_ENGINE;
        size_t engine = mpb_ozaki2_workspace(one, g, true);
        return engine > calls ? engine : calls;
    }
    if (on_device && params[MPB_OZ2_GEMM] == MPB_OZ2_GEMM_ENGINE) {
        /* residues; modulus 256's INT32 plane and N−1 byte planes of ldc
         * rows; accurate mode's INT32 bound product */
        bytes = mpb_size_add(bytes, mpb_size_mul(nm, mpb_size_matrix(vecs, mpb_oz2_padded_k(g->k), 1)));
        bytes = mpb_size_add(bytes, mpb_size_mul(nm + 3, mpb_size_matrix(mpb_oz2_engine_ldc(g->m), g->n, 1)));
        return mpb_size_add(bytes, accurate ? mpb_size_matrix(g->m, g->n, sizeof(int32_t)) : 0);
    }
    size_t planes = nm;
    if (on_device) {
        bytes = mpb_size_add(bytes, mpb_size_mul(nm, mpb_size_matrix(vecs, mpb_oz2_padded_k(g->k), 1)));
        if (g->k > MPB_OZ2_MAX_K)
            planes *= 2;
    } else {
        bytes = mpb_size_add(bytes, mpb_size_mul(nm, mpb_size_matrix(vecs, g->k, 1)));
        if (accurate)
            bytes = mpb_size_add(bytes, mpb_size_matrix(vecs, g->k, 1));
    }
    return mpb_size_add(bytes, mpb_size_mul(planes, mpb_size_matrix(g->m, g->n, sizeof(int32_t))));
}

/* The bound, row/column-wise (a fixed-point scheme has no componentwise one:
 * an entry far below its row maximum is truncated to zero).
 * A' = 2^mu·A − Δ with |Δ_il| < 1 (0 where no truncation), so in the
 * scaled domain |A'B' − 2^(mu+nu)AB|_ij ≤ ‖Δ_i‖₂‖B'_j‖₂ + 2^mu‖a_i‖₂‖Δ_j‖₂
 * ≤ √k(2^nu‖b_j‖₂ + 2^mu‖a_i‖₂) (Cauchy–Schwarz), and X = (A'B')_ij is
 * recovered exactly. Both modes give mu ≥ L/2 − e − log2(k)/2 − 1
 * (ozaki2_arith.h: bitlen(S) ≤ 31 + log2 k, bitlen(umax) ≤ 13 + log2 k), and
 * 2^(e−1) ≤ max|a_il| ≤ ‖a_i‖₂, so 2^-mu ≤ 4√k·2^(−L/2)‖a_i‖₂ (or, where
 * the cap mu = 104 − e applies, 2^-mu ≤ 2^-103‖a_i‖₂, inside the slack). Unscaled:
 * |Ĉ − C|_ij ≤ 8k·2^(−L/2)‖a_i‖₂‖b_j‖₂ + rounding of the result
 * (≤ 2u|C_ij| ≤ 2u‖a_i‖₂‖b_j‖₂, u of the target; the reconstruction's own
 * rounding, ≤ 2^-75 relative to M, is inside the slack). */
static double bound(const double *params, int64_t k, double u)
{
    struct mpb_oz2_crt tab;
    /* moduli=auto bounds ‖Ĉ−C‖_F, not this row/column form: a priori only
     * the fewest count it may choose bounds every entry */
    int nm = mpb_oz2_is_auto(params) ? MPB_OZ2_MIN_MODULI : (int)params[MPB_OZ2_MODULI];
    if (!mpb_oz2_crt_init(nm, &tab))
        return INFINITY;
    return 8.0 * (double)k * ldexp(1.0, -tab.budget / 2) + 2.0 * u;
}

double mpb_ozaki2_bound(const double *params, int64_t k)
{
    return bound(params, k, 0x1p-53);
}

double mpb_ozaki2_sp_bound(const double *params, int64_t k)
{
    return bound(params, k, 0x1p-24);
}
