/* Parameter tables, recipes, check() and error bounds of the FP32 split
 * family (fp32split.h). */
#include "fp32split/fp32split.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mpb_size.h"

static const char *const accum_choices[] = {"tc", "rn", NULL};
static const char *const scale_choices[] = {"rowcol", "none", NULL};
static const char *const engine_choices[] = {"fused", "cublas", NULL};
/* (t1, t2, t3): A_hi*B_lo, A_lo*B_hi, A_lo*B_lo on top of A_hi*B_hi. */
static const char *const tau_choices[] = {"000", "001", "010", "011", "100", "101", "110", "111", NULL};

#define P_TERMS                                                                                    \
    {.name = "terms", .kind = MPB_PARAM_INT, .def = "4", .lo = 3, .hi = 4,                        \
     .help = "products per k-step: 4 = lo*lo, lo*hi, hi*lo, hi*hi; 3 drops lo*lo"}
#define P_ACCUM                                                                                    \
    {.name = "accum", .kind = MPB_PARAM_CHOICE, .def = "tc", .choices = accum_choices,            \
     .help = "tc = one tensor-core accumulator through every MMA (the papers'); rn = flush it "   \
             "every flush_k into an FP32 sum with round-to-nearest adds"}
#define P_FLUSH                                                                                    \
    {.name = "flush_k", .kind = MPB_PARAM_INT, .def = "256", .lo = 32, .hi = 1 << 20,             \
     .help = "accum=rn: k per flush, a multiple of 32"}
#define P_SCALE                                                                                    \
    {.name = "scale", .kind = MPB_PARAM_CHOICE, .def = "rowcol", .choices = scale_choices,        \
     .help = "rowcol = a power of two per row of A and column of B puts each maximum at "          \
             "2^14 (undone exactly); none = the paper's unscaled split (losses in note)"}

const struct mpb_param_spec mpb_egemm_params[MPB_EGEMM_N_PARAMS] = {
    P_TERMS,
    P_ACCUM,
    P_FLUSH,
    P_SCALE,
    {.name = "engine", .kind = MPB_PARAM_CHOICE, .def = "fused", .choices = engine_choices,
     .help = "fused = mpbench's tensor-core engine; cublas = the paper's cuBLAS-TC-Emulation: "
             "one cublasGemmEx per product over all of k, beta = 1"},
};

const struct mpb_param_spec mpb_markidis_params[MPB_MARKIDIS_N_PARAMS] = {P_TERMS, P_ACCUM, P_FLUSH, P_SCALE};

const struct mpb_param_spec mpb_refine_fp16_params[MPB_REFINE_FP16_N_PARAMS] = {
    {.name = "tau", .kind = MPB_PARAM_CHOICE, .def = "110", .choices = tau_choices,
     .help = "correction products t1 t2 t3 = A_hi*B_lo, A_lo*B_hi, A_lo*B_lo (000 = plain FP16 "
             "inputs, FP32 accumulation; 110 = moTuner's middle level)"},
    P_ACCUM,
    P_FLUSH,
    P_SCALE,
};

const struct mpb_param_spec mpb_tf32x3_params[MPB_TF32X3_N_PARAMS] = {P_ACCUM, P_FLUSH};

const struct mpb_param_spec mpb_ape_bf16x3_params[MPB_APE_BF16X3_N_PARAMS] = {P_ACCUM, P_FLUSH};

static const struct mpb_param_spec *table_of(enum fs_scheme s, int *n)
{
    switch (s) {
    case FS_EGEMM: *n = MPB_EGEMM_N_PARAMS; return mpb_egemm_params;
    case FS_MARKIDIS: *n = MPB_MARKIDIS_N_PARAMS; return mpb_markidis_params;
    case FS_REFINE: *n = MPB_REFINE_FP16_N_PARAMS; return mpb_refine_fp16_params;
    case FS_TF32X3: *n = MPB_TF32X3_N_PARAMS; return mpb_tf32x3_params;
    case FS_APE: *n = MPB_APE_BF16X3_N_PARAMS; return mpb_ape_bf16x3_params;
    }
    *n = 0;
    return NULL;
}

/* The value of parameter `name` (a choice as its index), or `absent`. */
static int param(enum fs_scheme s, const double *params, const char *name, int absent)
{
    int n;
    const struct mpb_param_spec *t = table_of(s, &n);
    int i = mpb_param_find(t, n, name);
    return i < 0 ? absent : (int)params[i];
}

static void push(struct fs_recipe *r, int a, int b)
{
    r->pairs[r->n_pairs++] = (struct tc_pair){a, b};
    r->a_planes = a + 1 > r->a_planes ? a + 1 : r->a_planes;
    r->b_planes = b + 1 > r->b_planes ? b + 1 : r->b_planes;
}

void fs_recipe_of(enum fs_scheme s, const double *params, struct fs_recipe *r)
{
    memset(r, 0, sizeof *r);
    r->accum = param(s, params, "accum", 0) ? TC_ACCUM_RN : TC_ACCUM_TC;
    r->flush_k = param(s, params, "flush_k", 256);
    r->scale = param(s, params, "scale", 1) == 0;
    r->cublas = param(s, params, "engine", 0) == 1;
    /* Plane 0 is the leading part (hi, big), 1 the next (lo, small, mid), 2 APE's lo. */
    switch (s) {
    case FS_EGEMM:
    case FS_MARKIDIS:
        r->split = s == FS_EGEMM ? FS_ROUND16 : FS_TRUNC16;
        r->fmt = TC_IN_FP16;
        if (param(s, params, "terms", 4) == 4)
            push(r, 1, 1);
        push(r, 1, 0);
        push(r, 0, 1);
        push(r, 0, 0);
        break;
    case FS_REFINE: {
        int tau = param(s, params, "tau", 6); /* index = t1 t2 t3 read as binary */
        r->split = FS_ROUND16;
        r->fmt = TC_IN_FP16;
        if (tau & 1)
            push(r, 1, 1);
        if (tau & 2)
            push(r, 1, 0);
        if (tau & 4)
            push(r, 0, 1);
        push(r, 0, 0);
        break;
    }
    case FS_TF32X3:
        r->split = FS_TF32;
        r->fmt = TC_IN_TF32;
        r->scale = false;
        push(r, 1, 0);
        push(r, 0, 1);
        push(r, 0, 0);
        break;
    case FS_APE:
        r->split = FS_BF16X3;
        r->fmt = TC_IN_BF16;
        r->scale = false;
        push(r, 2, 0);
        push(r, 1, 1);
        push(r, 0, 2);
        push(r, 1, 0);
        push(r, 0, 1);
        push(r, 0, 0);
        break;
    }
}

void fs_recipe_describe(const struct fs_recipe *r, char *buf, size_t len)
{
    static const char *const split_names[] = {"round16", "trunc16", "tf32", "bf16x3"};
    static const char *const fmt_names[] = {"fp16", "bf16", "tf32"};
    static const char *const plane_names[] = {"hi", "lo", "lo2"};
    static const char *const ape_names[] = {"hi", "mid", "lo"};
    const char *const *names = r->split == FS_BF16X3 ? ape_names : plane_names;
    size_t used = (size_t)snprintf(buf, len, "split=%s fmt=%s pairs=", split_names[r->split], fmt_names[r->fmt]);
    for (int q = 0; q < r->n_pairs && used < len; q++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s*%s", q ? "," : "", names[r->pairs[q].a],
                                 names[r->pairs[q].b]);
    if (used < len)
        snprintf(buf + used, len - used, " scale=%s engine=%s accum=%s", r->scale ? "rowcol" : "none",
                 r->cublas ? "cublas" : "fused", r->accum == TC_ACCUM_RN ? "rn" : "tc");
}

int64_t fs_plane_ld(const struct fs_recipe *r, int64_t k)
{
    return tc_plane_ld(r->fmt, k);
}

static bool check(enum fs_scheme s, const double *params, const struct mpb_gemm *g,
                  const struct mpb_device_info *dev, char *why, size_t why_len)
{
    struct fs_recipe r;
    fs_recipe_of(s, params, &r);
    if (r.accum == TC_ACCUM_RN && r.flush_k % 32 != 0) {
        snprintf(why, why_len, "flush_k = %d: must be a multiple of 32", r.flush_k);
        return false;
    }
    if (r.cublas && r.accum == TC_ACCUM_RN) {
        snprintf(why, why_len, "accum=rn needs engine=fused (engine=cublas accumulates inside cuBLAS)");
        return false;
    }
    return tc_scheme_problem_supported(g->m, g->n, g->k, dev, why, why_len);
}

bool mpb_egemm_check(const double *p, const struct mpb_gemm *g, const struct mpb_device_info *d, char *w,
                     size_t l)
{
    return check(FS_EGEMM, p, g, d, w, l);
}
bool mpb_markidis_check(const double *p, const struct mpb_gemm *g, const struct mpb_device_info *d, char *w,
                        size_t l)
{
    return check(FS_MARKIDIS, p, g, d, w, l);
}
bool mpb_refine_fp16_check(const double *p, const struct mpb_gemm *g, const struct mpb_device_info *d, char *w,
                           size_t l)
{
    return check(FS_REFINE, p, g, d, w, l);
}
bool mpb_tf32x3_check(const double *p, const struct mpb_gemm *g, const struct mpb_device_info *d, char *w,
                      size_t l)
{
    return check(FS_TF32X3, p, g, d, w, l);
}
bool mpb_ape_bf16x3_check(const double *p, const struct mpb_gemm *g, const struct mpb_device_info *d, char *w,
                          size_t l)
{
    return check(FS_APE, p, g, d, w, l);
}

/* Error bounds f (kernels/fp32split/README.md has the derivation in words):
 * the engine's accumulation (tc_accum_bound), plus the products the recipe
 * leaves out and the split's remainder. */
static double accumulation(const struct fs_recipe *r, int64_t k)
{
    return tc_accum_bound(r->fmt, r->n_pairs, k);
}

/* FP16 schemes, row/column-wise (bound_rowcol): values far below their
 * row's (column's) maximum lose bits to FP16's subnormal grid, at most
 * 2^-25 in units where the maximum is >= 2^14, i.e. 2^-39 of the maximum:
 * summed over k that is 2^-39 sqrt(k) ||A(i,:)||_2 ||B(:,j)||_2 per operand. */
static double fp16_bound(enum fs_scheme s, const double *params, int64_t k)
{
    struct fs_recipe r;
    fs_recipe_of(s, params, &r);
    if (!r.scale)
        return NAN; /* unscaled: values outside FP16's range make any bound void */
    /* Split remainder per operand: 2^-22 |x| (round), 2^-21 |x| (truncation). */
    const double rem = r.split == FS_ROUND16 ? 0x1p-22 : 0x1p-21;
    const double hi_rel = r.split == FS_ROUND16 ? 0x1p-11 : 0x1p-10; /* |lo| <= hi_rel |x| */
    double missing = 2 * rem;
    bool has[2][2] = {{false, false}, {false, false}};
    for (int q = 0; q < r.n_pairs; q++)
        has[r.pairs[q].a][r.pairs[q].b] = true;
    if (!has[0][1])
        missing += hi_rel;
    if (!has[1][0])
        missing += hi_rel;
    if (!has[1][1])
        missing += hi_rel * hi_rel;
    return accumulation(&r, k) + missing * (1.0 + 0x1p-9) + 0x1p-38 * sqrt((double)k);
}

double mpb_egemm_bound(const double *params, int64_t k)
{
    return fp16_bound(FS_EGEMM, params, k);
}
double mpb_markidis_bound(const double *params, int64_t k)
{
    return fp16_bound(FS_MARKIDIS, params, k);
}
double mpb_refine_fp16_bound(const double *params, int64_t k)
{
    return fp16_bound(FS_REFINE, params, k);
}

/* 3xTF32, componentwise: |x - big - small| <= 2^-22 |x| for each operand,
 * small*small left out (<= 2^-22 |a||b|). */
double mpb_tf32x3_bound(const double *params, int64_t k)
{
    struct fs_recipe r;
    fs_recipe_of(FS_TF32X3, params, &r);
    return accumulation(&r, k) + 3 * 0x1p-22 * (1.0 + 0x1p-9);
}

/* APE, componentwise: the three planes hold x exactly; left out are
 * mid*lo, lo*mid and lo*lo, |mid| <= 2^-8 |x|, |lo| <= 2^-16 |x|. */
double mpb_ape_bf16x3_bound(const double *params, int64_t k)
{
    struct fs_recipe r;
    fs_recipe_of(FS_APE, params, &r);
    return accumulation(&r, k) + (2 * 0x1p-24 + 0x1p-32) * (1.0 + 0x1p-7);
}

void fs_loss_note(const int64_t lost[2][2], enum tc_input fmt, char *buf, size_t len)
{
    static const char *const fmt_names[] = {"FP16", "BF16", "TF32"};
    size_t used = 0;
    buf[0] = '\0';
    for (int side = 0; side < 2 && used < len; side++) {
        if (!lost[side][0] && !lost[side][1])
            continue;
        used += (size_t)snprintf(buf + used, len - used,
                                 "%ssplit of %s: %lld values overflowed %s, %lld lost bits below its normal range", used ? "; " : "",
                                 side ? "B" : "A", (long long)lost[side][0], fmt_names[fmt],
                                 (long long)lost[side][1]);
    }
}

/* What setup (device) or the host model allocates beyond A, B and C: the
 * planes, a maximum and a scale exponent per row and column, the loss
 * counters; on the host engine=cublas also one m x n partial product. */
static size_t workspace(enum fs_scheme scheme, const double *params, const struct mpb_gemm *g, bool on_device)
{
    struct fs_recipe r;
    fs_recipe_of(scheme, params, &r);
    const int64_t ld = fs_plane_ld(&r, g->k);
    size_t planes = mpb_size_mul((size_t)fs_planes(r.split),
                                 mpb_size_matrix(g->m + g->n, ld, (size_t)tc_plane_elem_bytes(r.fmt)));
    size_t bytes = mpb_size_add(planes, mpb_size_add(mpb_size_matrix(g->m + g->n, 1, 2 * sizeof(int32_t)), 256));
    if (!on_device && r.cublas)
        bytes = mpb_size_add(bytes, mpb_size_matrix(g->m, g->n, sizeof(float)));
    return bytes;
}

size_t mpb_egemm_workspace(const double *p, const struct mpb_gemm *g, bool d)
{
    return workspace(FS_EGEMM, p, g, d);
}
size_t mpb_markidis_workspace(const double *p, const struct mpb_gemm *g, bool d)
{
    return workspace(FS_MARKIDIS, p, g, d);
}
size_t mpb_refine_fp16_workspace(const double *p, const struct mpb_gemm *g, bool d)
{
    return workspace(FS_REFINE, p, g, d);
}
size_t mpb_tf32x3_workspace(const double *p, const struct mpb_gemm *g, bool d)
{
    return workspace(FS_TF32X3, p, g, d);
}
size_t mpb_ape_bf16x3_workspace(const double *p, const struct mpb_gemm *g, bool d)
{
    return workspace(FS_APE, p, g, d);
}
