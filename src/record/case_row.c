#include "record/case_row.h"

#include <inttypes.h>
#include <math.h>

#include "record/version.h"

static void set_device(struct mpb_row *row, const struct mpb_device_info *d)
{
    mpb_row_set(row, MPB_COL_gpu_name, d->name);
    mpb_row_set(row, MPB_COL_gpu_uuid, d->uuid[0] ? d->uuid : NULL);
    if (d->driver_string[0])
        mpb_row_set(row, MPB_COL_driver_version, d->driver_string);
    else
        mpb_row_setf(row, MPB_COL_driver_version, "cuda-%d.%d", d->driver_version / 1000,
                     d->driver_version % 1000 / 10);
    mpb_row_setf(row, MPB_COL_cuda_runtime, "%d.%d", d->runtime_version / 1000,
                 d->runtime_version % 1000 / 10);
    mpb_row_setf(row, MPB_COL_cublas_version, "%d.%d.%d", d->cublas_version / 10000,
                 d->cublas_version / 100 % 100, d->cublas_version % 100);
}

static void set_accuracy(struct mpb_row *row, const struct mpb_metrics *acc)
{
    mpb_row_set_int(row, MPB_COL_ref_entries, acc->entries);
    mpb_row_set_double(row, MPB_COL_err_fro_rel, acc->err_fro_rel);
    mpb_row_set_double(row, MPB_COL_err_max_rel, acc->err_max_rel);
    mpb_row_set_double(row, MPB_COL_err_median_rel, acc->err_median_rel);
    mpb_row_set_double(row, MPB_COL_rho_a_max, acc->rho_a_max);
    mpb_row_set_double(row, MPB_COL_rho_b_max, acc->rho_b_max);
    mpb_row_set_double(row, MPB_COL_rho_c_max, acc->rho_c_max);
    mpb_row_set(row, MPB_COL_grade, acc->grade[0] ? acc->grade : NULL);
    mpb_row_set_double(row, MPB_COL_ref_check, acc->ref_check);
    mpb_row_set_double(row, MPB_COL_rho_a_re_max, acc->rho_a_re_max);
    mpb_row_set_double(row, MPB_COL_rho_a_im_max, acc->rho_a_im_max);
    if (acc->cr_mismatch >= 0)
        mpb_row_set_int(row, MPB_COL_cr_mismatch, acc->cr_mismatch);
}

void mpb_case_row(struct mpb_row *row, const struct mpb_row_context *ctx, const struct mpb_case *c,
                  const struct mpb_result *res, const struct mpb_metrics *acc)
{
    char buf[512];
    mpb_row_set_int(row, MPB_COL_schema_version, MPB_CSV_SCHEMA_VERSION);
    mpb_row_set_double(row, MPB_COL_max_abs_vs_native, res->max_abs_vs_native);
    mpb_row_set_double(row, MPB_COL_power_w, res->power_w);
    mpb_row_set_double(row, MPB_COL_joules_per_call, res->joules_per_call);
    mpb_row_set_double(row, MPB_COL_gflops_per_w, mpb_result_gflops_per_w(res, mpb_gemm_flops(c->m, c->n, c->k, c->scheme->field)));
    mpb_row_set(row, MPB_COL_run_id, ctx->run_id);
    mpb_row_set(row, MPB_COL_case_id, c->id);
    mpb_row_set(row, MPB_COL_scheme, c->scheme->name);
    mpb_row_set_int(row, MPB_COL_scheme_version, c->scheme->version);
    mpb_case_params(c, buf, sizeof buf);
    mpb_row_set(row, MPB_COL_params, buf);
    mpb_row_set(row, MPB_COL_target, mpb_target_name(c->scheme->target));
    mpb_row_set(row, MPB_COL_field, mpb_field_name(c->scheme->field));
    mpb_row_set(row, MPB_COL_impl, mpb_impl_name(c->impl));
    mpb_row_set_int(row, MPB_COL_m, c->m);
    mpb_row_set_int(row, MPB_COL_n, c->n);
    mpb_row_set_int(row, MPB_COL_k, c->k);
    mpb_row_set(row, MPB_COL_gen, c->gen->name);
    mpb_case_gen_params(c, buf, sizeof buf);
    mpb_row_set(row, MPB_COL_gen_params, buf);
    mpb_row_setf(row, MPB_COL_seed, "%" PRIu64, c->seed);
    mpb_row_set_int(row, MPB_COL_warmup, ctx->warmup);
    mpb_row_set_int(row, MPB_COL_reps, ctx->reps);
    mpb_row_set_double(row, MPB_COL_time_ms_median, res->time_ms.median);
    mpb_row_set_double(row, MPB_COL_time_ms_min, res->time_ms.min);
    mpb_row_set_double(row, MPB_COL_time_ms_max, res->time_ms.max);
    mpb_row_set_double(row, MPB_COL_noise_pct, res->time_ms.noise_pct);
    mpb_row_set_double(row, MPB_COL_tflops, res->tflops);
    mpb_row_set_double(row, MPB_COL_split_ms, res->phase_ms[MPB_PHASE_SPLIT]);
    mpb_row_set_double(row, MPB_COL_gemm_ms, res->phase_ms[MPB_PHASE_GEMM]);
    mpb_row_set_double(row, MPB_COL_accum_ms, res->phase_ms[MPB_PHASE_ACCUM]);
    if (res->info.slices >= 0)
        mpb_row_set_int(row, MPB_COL_slices, res->info.slices);
    if (res->info.fallback >= 0)
        mpb_row_set_int(row, MPB_COL_fallback, res->info.fallback);
    mpb_row_set(row, MPB_COL_ref, acc ? ctx->ref : "none");
    if (acc)
        set_accuracy(row, acc);
    if (res->have_output) {
        mpb_row_set_int(row, MPB_COL_nonfinite, res->nonfinite);
        mpb_row_setf(row, MPB_COL_out_hash, "%016" PRIx64, res->out_hash);
    }
    mpb_row_set(row, MPB_COL_status, mpb_status_name(res->status));
    if (res->note[0] || res->energy_note[0])
        mpb_row_setf(row, MPB_COL_note, "%s%s%s", res->note, res->note[0] && res->energy_note[0] ? "; " : "",
                     res->energy_note);
    if (ctx->dev)
        set_device(row, ctx->dev);
    mpb_row_set(row, MPB_COL_mpbench_version, MPB_VERSION);
    mpb_row_set(row, MPB_COL_git_sha, mpb_git_sha);
    mpb_row_set(row, MPB_COL_settings, res->info.settings[0] ? res->info.settings : NULL);
    mpb_row_set(row, MPB_COL_case, c->text);
    bool tagged = ctx->tags && *ctx->tags;
    if (c->added)
        mpb_row_setf(row, MPB_COL_tags, "%s%s" MPB_TAG_ADDED, tagged ? ctx->tags : "", tagged ? ";" : "");
    else
        mpb_row_set(row, MPB_COL_tags, tagged ? ctx->tags : NULL);
}
