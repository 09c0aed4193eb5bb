/* Host-side descriptor parts of `adp`: parameter table, check(), bound and
 * the settings/note text shared by both backends. */
#include "adp/adp.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/cublas_util.h"
#include "common/int8_gemm_auto.h"
#include "mpb_size.h"
#include "tc/tc_engine.h"

static const char *const fallback_choices[] = {"on", "off", NULL};
static const char *const decision_choices[] = {"auto", "eager", NULL};
static const char *const engine_choices[] = {"crt", "slices", NULL};
static const char *const gemm_choices[] = {"calls", "engine", "auto", NULL};

const struct mpb_param_spec mpb_adp_params[] = {
    [MPB_ADP_MAX_BITS] = {.name = "max_bits", .kind = MPB_PARAM_INT, .def = "200", .lo = 7,
                          .hi = 255,
                          .help = "most fixed-point bits (53 + ESC) emulated; above it: native "
                                  "DGEMM (fallback=on) or capped (off)"},
    [MPB_ADP_FALLBACK] = {.name = "fallback", .kind = MPB_PARAM_CHOICE, .def = "on",
                          .choices = fallback_choices,
                          .help = "on: native DGEMM when the bits exceed max_bits/fixed_bits or "
                                  "(auto) native is faster; NaN/Inf/subnormal input always "
                                  "runs native"},
    [MPB_ADP_DECISION] = {.name = "decision", .kind = MPB_PARAM_CHOICE, .def = "auto",
                          .choices = decision_choices,
                          .help = "auto: native when predicted faster (H200 crossover table, "
                                  "adp_arith.h); eager: emulate whenever the bits fit"},
    [MPB_ADP_BLOCK] = {.name = "block", .kind = MPB_PARAM_INT, .def = "64", .lo = 1,
                       .hi = 65536,
                       .help = "ESC coarsening: block length along k of the exponent summaries "
                               "(64: half the ESC time of 32, 1-2 bits more; H200, n=8192: "
                               "engine=slices gets one slice fewer on phi=0.5 with 32)"},
    [MPB_ADP_FIXED_BITS] = {.name = "fixed_bits", .kind = MPB_PARAM_INT, .def = "0", .lo = 0,
                            .hi = 255,
                            .help = "0: bits = 53 + ESC; else always this many bits (55 = the "
                                    "paper's 55-bit runs); fallback=on still falls back when "
                                    "53 + ESC exceeds it"},
    [MPB_ADP_ENGINE] = {.name = "engine", .kind = MPB_PARAM_CHOICE, .def = "crt",
                        .choices = engine_choices,
                        .help = "crt: one INT8 GEMM per CRT modulus (N <= 25, 2*bits + log2 k "
                                "within their product), the slices above; slices: Ozaki-I "
                                "digits, s(s+1)/2 slice products"},
    [MPB_ADP_GEMM] = {.name = "gemm", .kind = MPB_PARAM_CHOICE, .def = "auto", .choices = gemm_choices,
                      .help = "the CRT engine's INT8 GEMMs: calls = one cublasGemmEx per modulus; "
                              "engine = all moduli in one launch of mpbench's INT8 engine (sm_90a, "
                              "engine=crt, k <= 131071); auto = engine up to m*n*k = 8192^3 where "
                              "it runs, else calls (settings say which)"},
};

/* Slices the GPU state holds: enough for the most bits any decision picks. */
static int slices_max(const double *params)
{
    int fixed = (int)params[MPB_ADP_FIXED_BITS], most = (int)params[MPB_ADP_MAX_BITS];
    return adp_slices_for_bits(fixed > most ? fixed : most);
}

struct adp_config mpb_adp_config(const double *params, const struct mpb_gemm *g)
{
    return (struct adp_config){
        .max_bits = (int)params[MPB_ADP_MAX_BITS],
        .fixed_bits = (int)params[MPB_ADP_FIXED_BITS],
        .fallback = params[MPB_ADP_FALLBACK] == MPB_ADP_FALLBACK_ON,
        .auto_mode = params[MPB_ADP_DECISION] == MPB_ADP_AUTO,
        .block = (int)params[MPB_ADP_BLOCK],
        .crt = params[MPB_ADP_ENGINE] == MPB_ADP_ENGINE_CRT,
        .gemm_engine = params[MPB_ADP_GEMM] == MPB_ADP_GEMM_ENGINE, /* auto: setup decides (the device) */
        .slices_unfit = !adp_slices_fit(slices_max(params), g->k),
        .m = g->m,
        .n = g->n,
        .k = g->k,
    };
}

/* Whether the engine can run this case's CRT products on dev (why says why not). */
static bool engine_fits(const double *params, const struct mpb_gemm *g, const struct mpb_device_info *dev,
                        char *why, size_t why_len)
{
    if (params[MPB_ADP_ENGINE] != MPB_ADP_ENGINE_CRT) {
        snprintf(why, why_len, "gemm=engine runs the CRT engine's products: it needs engine=crt (or use gemm=calls)");
        return false;
    }
    /* one INT32 sum per modulus: no chunk fold between launches */
    if (g->k > ADP_MAX_TERMS) {
        snprintf(why, why_len, "gemm=engine needs k <= %d (k=%lld: use gemm=calls)", ADP_MAX_TERMS,
                 (long long)g->k);
        return false;
    }
    return tc_scheme_problem_supported(g->m, g->n, adp_padded_k(g->k), dev, why, why_len);
}

bool mpb_adp_gemm_engine_used(const double *params, const struct mpb_gemm *g,
                              const struct mpb_device_info *dev)
{
    if (params[MPB_ADP_GEMM] != MPB_ADP_GEMM_AUTO)
        return params[MPB_ADP_GEMM] == MPB_ADP_GEMM_ENGINE;
    char why[256];
    return dev && mpb_int8_auto_wants_engine(g) && engine_fits(params, g, dev, why, sizeof why);
}

bool mpb_adp_check(const double *params, const struct mpb_gemm *g,
                   const struct mpb_device_info *dev, char *why, size_t why_len)
{
    if (!dev)
        return true;
    if (params[MPB_ADP_GEMM] == MPB_ADP_GEMM_ENGINE && !engine_fits(params, g, dev, why, why_len))
        return false;
    /* k beyond ADP_MAX_TERMS is split into chunks; the residues' leading
     * dimension is the padded k */
    struct mpb_gemm padded = *g;
    padded.k = adp_padded_k(g->k);
    return mpb_cublas_int_dims(&padded, "cublasGemmEx", why, why_len);
}

/* The most CRT moduli a decision can pick: the count grows with the bits,
 * up to the largest of max_bits and fixed_bits (0 when engine=slices). */
int mpb_adp_moduli_max(const struct adp_config *c)
{
    int most = 0, top = adp_imax(c->max_bits, c->fixed_bits);
    for (int bits = 1; c->crt && bits <= top; bits++)
        most = adp_imax(most, adp_crt_moduli(bits, c->k));
    return most;
}

/* The bytes of the emulated path beyond A, B and C, whatever the decision:
 * mirrors adp_host.c (scan summaries, then the slices or residues of the
 * most planes a decision can pick) and adp.cu's buffers_alloc (int8 planes
 * over the padded k, INT32 planes, the accumulator's low parts, summaries,
 * cuBLAS's workspace). */
static size_t emulation_workspace(const double *params, const struct mpb_gemm *g, bool on_device)
{
    struct adp_config c = mpb_adp_config(params, g);
    size_t bytes = on_device ? ADP_WORKSPACE_BYTES + 65536 : 0;
    int smax = c.slices_unfit ? 0 : slices_max(params), nmax = mpb_adp_moduli_max(&c);
    int planes = adp_imax(smax, nmax);
    int64_t vecs = g->m + g->n, blocks = (g->k + c.block - 1) / c.block;
    int64_t k = on_device ? adp_padded_k(g->k) : g->k;
    bytes = mpb_size_add(bytes, mpb_size_mul(mpb_size_matrix(vecs, k, 1), (size_t)planes));
    bytes = mpb_size_add(bytes, mpb_size_matrix(vecs, blocks, on_device ? 4 : 8));
    bytes = mpb_size_add(bytes, mpb_size_matrix(vecs, 1, 16));
    if (!on_device)
        return bytes;
    struct adp_gemm_plan plan = adp_gemm_plan_for(g->k, ADP_MAX_TERMS);
    int products = adp_imax(ADP_ACC_GROUP, nmax + (plan.chunks > 1));
    int64_t ldc = (g->m + 15) / 16 * 16;
    bytes = mpb_size_add(bytes, mpb_size_mul(mpb_size_matrix(ldc, g->n, sizeof(int32_t)), (size_t)products));
    return mpb_size_add(bytes, mpb_size_matrix(g->m, g->n, sizeof(double)));
}

int mpb_adp_shape_decision(const double *params, const struct mpb_gemm *g)
{
    struct adp_config c = mpb_adp_config(params, g);
    if (adp_native_by_shape(&c))
        return ADP_NATIVE_SHAPE;
    if (c.auto_mode && c.fallback && emulation_workspace(params, g, true) > ADP_AUTO_WORKSPACE_BYTES)
        return ADP_NATIVE_MEMORY;
    return ADP_EMULATED;
}

/* Nothing but cuBLAS's workspace when decision=auto decides native from the
 * shape alone. */
size_t mpb_adp_workspace(const double *params, const struct mpb_gemm *g, bool on_device)
{
    if (mpb_adp_shape_decision(params, g) != ADP_EMULATED)
        return on_device ? ADP_WORKSPACE_BYTES + 65536 : 0;
    return emulation_workspace(params, g, on_device);
}

/* Bound. Row i of A is held with W ≥ 53 + ESC bits below 2^E_i, E_i ≤ e_i + 2
 * (e_i = e(max|a_i:|)), so each entry's rounding error is ≤ 2^(E_i−W−1) ≤
 * 2^(e_i+1−W); likewise for B. For one product
 *   |ab − âb̂| ≤ |a||δb| + |b||δa| + |δa||δb| < 2^(e_i+e_j+3−W)(1 + 2^−W),
 * and W ≥ 53 + ESC ≥ 54 + e_i + e_j − z (z the exponent of the largest
 * product, ESC never underestimated, paper §4) makes it ≤ 4u·2^z(1 + 2^−W)
 * ≤ 4u·max_l |a_il b_lj|(1 + 2^−W). Over k products: ≤ 4k·u·(|A||B|)_ij. The
 * diagonals are exact integers summed in double-word and rounded once:
 * ≤ u·|Ĉ| plus a term of order s·u²·(|A||B|). The CRT engine holds the same
 * W-bit values and reconstructs their exact dot product X within
 * u·|X| + 2^(bitlen(M)−120) (adp_crt_finish), bitlen(M) < 2W + ⌈log2 k⌉ + 10
 * for the fewest moduli, against the largest product in the same units,
 * max_l |a_il b_lj|·2^(2W−E_i−E_j) ≥ 2^(2W−3−ESC): the ratio is below
 * 2^(⌈log2 k⌉ − 107 + ESC), and with ESC ≤ W − 53 and 2W + ⌈log2 k⌉ ≤ 190
 * (25 moduli) below 2^(⌈log2 k⌉/2 − 65): at most 2^−53·max_l |a_il b_lj|
 * up to k = 2^24, one u of the slack (the other covers the final
 * rounding); above, that term is added. A k split into chunks (k above
 * ADP_MAX_TERMS) changes none of this: the CRT engine folds the chunks
 * exactly, the slice engine adds one more exact integer term per chunk to
 * the double-word sum. Native fallback: γ_k ≤ that.
 * Hence f = (4k + 2)·u (+ 2^(⌈log2 k⌉/2 − 65) above k = 2^24). fallback=off
 * may emulate with too few bits: no bound. */
double mpb_adp_bound(const double *params, int64_t k)
{
    if (params[MPB_ADP_FALLBACK] == MPB_ADP_FALLBACK_OFF)
        return INFINITY;
    double f = (4.0 * (double)k + 2.0) * 0x1p-53;
    if (k > (INT64_C(1) << 24))
        f += ldexp(1.0, (mpb_ceil_log2(k) + 1) / 2 - 65);
    return f;
}

static const char *reason_text(int reason)
{
    switch (reason) {
    case ADP_EMULATED: return "emulated";
    case ADP_NATIVE_SPECIAL: return "native DGEMM: NaN, Inf or subnormal input";
    case ADP_NATIVE_BITS: return "native DGEMM: 53 + ESC bits exceed the limit";
    case ADP_NATIVE_SPEED: return "native DGEMM: decision=auto predicts native faster";
    case ADP_NATIVE_SHAPE:
        return "native DGEMM: decision=auto predicts native faster even at the fewest bits "
               "any data can need for this shape (no scan or ESC run)";
    case ADP_NATIVE_MEMORY:
        return "native DGEMM: decision=auto: the emulated path would need more than 60 GiB of "
               "working memory for this shape (no scan or ESC run)";
    case ADP_NATIVE_LD:
        return "native DGEMM: the bits need the slice engine, whose INT8 GEMMs' leading dimension "
               "(slices x padded k) exceeds cuBLAS's int";
    default: return "unknown";
    }
}

void mpb_adp_describe(const struct adp_config *c, const struct adp_decision *d,
                      struct mpb_scheme_info *info)
{
    bool skipped = d->reason == ADP_NATIVE_SHAPE || d->reason == ADP_NATIVE_MEMORY;
    char esc[32] = "esc=skipped"; /* esc>=: the sampled rows' ESC, a lower bound */
    if (!skipped)
        snprintf(esc, sizeof esc, "esc%s%d", d->sampled ? ">=" : "=", d->esc);
    snprintf(info->settings, sizeof info->settings,
             "max_bits=%d fallback=%s decision=%s block=%d fixed_bits=%d engine=%s gemm=%s %s bits=%d",
             c->max_bits, c->fallback ? "on" : "off", c->auto_mode ? "auto" : "eager", c->block,
             c->fixed_bits, c->crt ? "crt" : "slices", c->gemm_engine ? "engine" : "calls", esc, d->bits);
    info->slices = d->moduli ? d->moduli : d->slices;
    info->fallback = d->native;
    if (d->native && d->reason == ADP_NATIVE_SPECIAL)
        snprintf(info->note, sizeof info->note, "%s (%lld of the %.17g entries of A and B)",
                 reason_text(d->reason), (long long)d->special,
                 (double)c->k * (double)(c->m + c->n));
    else if (d->native)
        snprintf(info->note, sizeof info->note, "%s", reason_text(d->reason));
    else if (d->moduli)
        snprintf(info->note, sizeof info->note,
                 "emulated: %d bits, CRT over %d moduli (%d INT8 products); ESC %d", d->bits,
                 d->moduli, d->moduli, d->esc);
    else
        snprintf(info->note, sizeof info->note,
                 "emulated: %d bits = %d INT8 slices, %d slice-pair products; ESC %d",
                 d->bits, d->slices, d->slices * (d->slices + 1) / 2, d->esc);
    size_t used = strlen(info->note);
    if (d->sampled && used + 1 < sizeof info->note)
        snprintf(info->note + used, sizeof info->note - used,
                 " (ESC over the first %d rows of A only, a lower bound: the decision did not "
                 "depend on the others')", ADP_ESC_SAMPLE_ROWS);
    struct adp_gemm_plan plan = adp_gemm_plan_for(c->k, ADP_MAX_TERMS);
    used = strlen(info->note);
    if (!d->native && plan.chunks > 1 && used + 1 < sizeof info->note)
        snprintf(info->note + used, sizeof info->note - used,
                 "; k split into %lld chunks of at most %lld (INT32-exact), one INT8 GEMM per "
                 "chunk of each product", (long long)plan.chunks, (long long)plan.len);
}
