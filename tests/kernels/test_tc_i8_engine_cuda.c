/* The engine's plain INT8 GEMM (tc_i8.h) on the GPU against its host model
 * (tc_i8_host), bit for bit, every entry: batches of products of awkward
 * shapes (1, 7, 33, 127, 1000, non-square, k not a multiple of the 128-byte
 * k-block), INT32 C and residues modulo several p in one launch, without
 * and with the 2-CTA cluster, with the deepest pipeline and with two stages;
 * a batch with more tiles than the grid has CTAs (the persistent loop
 * crosses products); -128 and 127 everywhere with k past 2^31 / 128^2 (the
 * sums wrap at 2^32); junk in the operands' rows past k. C's padding rows
 * (ldc > m) are poisoned with the host's buffers and compared too: nothing
 * is written outside C. Exits 77
 * without an sm_90 GPU. `--quick`: the shapes up to 300 only (for
 * compute-sanitizer). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cuda_env.h"
#include "cuda_open.h"
#include "rng.h"
#include "tc/tc_engine_host.h"

/* FILL_JUNK_PAD: random values, and the bytes of each row past k (ld > k)
 * set to 0x5A: the engine must read no value past k. */
enum fill { FILL_RANDOM, FILL_EXTREME, FILL_JUNK_PAD };

struct shape {
    int64_t m, n, k;
    int gemms;
    enum fill fill;
};

struct config {
    int cluster, max_stages;
};

/* Residue moduli cycled over the odd products (even ones take INT32 C). */
static const int mods[] = {255, 2, 251, 128, 3, 173, 193};

struct batch {
    struct tc_i8_args host, dev; /* the same problem with host and device pointers */
    size_t a_bytes, b_bytes, c_bytes;
};

static int8_t value(enum fill fill, int g, bool is_a)
{
    if (fill == FILL_EXTREME) /* products 2 and 3 mod 4 get 127 in B: negative sums */
        return !is_a && g % 4 >= 2 ? 127 : -128;
    return (int8_t)((int)(rng_next() % 256) - 128);
}

static bool make_batch(struct mpb_cuda_env *env, const struct shape *s, struct batch *x)
{
    memset(x, 0, sizeof *x);
    const int64_t ld = (s->k + 15) / 16 * 16 + 16, ldc = (s->m + 15) / 16 * 16 + 16;
    x->host = (struct tc_i8_args){.m = s->m, .n = s->n, .k = s->k, .ld = ld, .ldc = ldc, .n_gemms = s->gemms};
    x->a_bytes = (size_t)(s->m * ld);
    x->b_bytes = (size_t)(s->n * ld);
    x->c_bytes = (size_t)(s->n * ldc) * sizeof(int32_t);
    x->dev = x->host;
    bool ok = true;
    for (int g = 0; g < s->gemms && ok; g++) {
        int8_t *a = calloc(x->a_bytes, 1), *b = calloc(x->b_bytes, 1);
        void *c = malloc(x->c_bytes);
        void *da = NULL, *db = NULL, *dc = NULL;
        x->host.gemms[g] = (struct tc_i8_gemm){.a = a, .b = b, .c = c, .mod = g % 2 ? mods[g / 2 % 7] : 0};
        ok = a && b && c;
        for (int64_t i = 0; ok && i < s->m; i++)
            for (int64_t l = 0; l < ld; l++)
                a[i * ld + l] = l < s->k ? value(s->fill, g, true) : s->fill == FILL_JUNK_PAD ? 0x5A : 0;
        for (int64_t j = 0; ok && j < s->n; j++)
            for (int64_t l = 0; l < ld; l++)
                b[j * ld + l] = l < s->k ? value(s->fill, g, false) : s->fill == FILL_JUNK_PAD ? 0x5A : 0;
        if (ok)
            memset(c, 0xA5, x->c_bytes);
        ok = ok && !mpb_cuda_alloc(env, &da, x->a_bytes) && !mpb_cuda_alloc(env, &db, x->b_bytes) &&
             !mpb_cuda_alloc(env, &dc, x->c_bytes) && !mpb_cuda_upload(env, da, a, x->a_bytes) &&
             !mpb_cuda_upload(env, db, b, x->b_bytes);
        x->dev.gemms[g] = (struct tc_i8_gemm){.a = da, .b = db, .c = dc, .mod = x->host.gemms[g].mod};
    }
    CHECK(ok, "setting up %lldx%lldx%lld: %s", (long long)s->m, (long long)s->n, (long long)s->k,
          mpb_cuda_last_error(env));
    if (ok)
        tc_i8_host(&x->host);
    return ok;
}

static void free_batch(struct mpb_cuda_env *env, struct batch *x)
{
    for (int g = 0; g < x->host.n_gemms; g++) {
        free((void *)x->host.gemms[g].a);
        free((void *)x->host.gemms[g].b);
        free(x->host.gemms[g].c);
        mpb_cuda_free(env, (void *)x->dev.gemms[g].a);
        mpb_cuda_free(env, (void *)x->dev.gemms[g].b);
        mpb_cuda_free(env, x->dev.gemms[g].c);
    }
}

/* One launch of the batch under `cfg`, every product's whole C buffer
 * (padding rows included) compared with the host's. */
static bool run_config(struct mpb_cuda_env *env, struct batch *x, const struct config *cfg, unsigned char *got)
{
    x->dev.cluster = cfg->cluster;
    x->dev.max_stages = cfg->max_stages;
    bool ok = true;
    for (int g = 0; g < x->dev.n_gemms && ok; g++)
        ok = !mpb_cuda_memset(env, x->dev.gemms[g].c, 0xA5, x->c_bytes);
    struct tc_i8_plan *plan = NULL;
    char why[256] = "", desc[128] = "";
    int err = ok ? tc_i8_plan_create(&x->dev, &plan, why, sizeof why) : -1;
    if (!err) {
        tc_i8_plan_describe(plan, desc, sizeof desc);
        err = tc_i8_plan_launch(plan, mpb_cuda_stream(env));
    }
    ok = ok && !err && !mpb_cuda_sync(env);
    CHECK(ok, "%lldx%lldx%lld cluster=%d stages<=%d: %s (error %d) %s", (long long)x->dev.m, (long long)x->dev.n,
          (long long)x->dev.k, cfg->cluster, cfg->max_stages, why, err, mpb_cuda_last_error(env));
    tc_i8_plan_destroy(plan);
    for (int g = 0; g < x->dev.n_gemms && ok; g++) {
        if (mpb_cuda_download(env, got, x->dev.gemms[g].c, x->c_bytes)) {
            CHECK(false, "download: %s", mpb_cuda_last_error(env));
            return false;
        }
        const int esize = x->host.gemms[g].mod ? 1 : 4;
        const unsigned char *want = x->host.gemms[g].c;
        int64_t bad = 0, first = -1;
        for (int64_t e = 0; e < x->host.n * x->host.ldc; e++)
            if (memcmp(got + e * esize, want + e * esize, (size_t)esize)) {
                bad++;
                first = first < 0 ? e : first;
            }
        CHECK(bad == 0,
              "%lldx%lldx%lld product %d (mod %d) [%s]: %lld entries differ from the host model, the first at "
              "(%lld, %lld)",
              (long long)x->host.m, (long long)x->host.n, (long long)x->host.k, g, x->host.gemms[g].mod, desc,
              (long long)bad, (long long)(first % x->host.ldc), (long long)(first / x->host.ldc));
        ok = bad == 0;
    }
    return ok;
}

int main(int argc, char **argv)
{
    const bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    struct mpb_cuda_env *env = test_cuda_open_or_skip();
    const struct mpb_device_info *dev = mpb_cuda_device(env);
    if (!(dev->cc_major == 9 && dev->cc_minor == 0)) {
        printf("test_tc_i8_engine_cuda: skipped: the engine is built for sm_90a, this is sm_%d%d\n", dev->cc_major,
               dev->cc_minor);
        mpb_cuda_close(env);
        return 77;
    }
    static const struct shape shapes[] = {
        {1, 1, 1, 2, FILL_RANDOM},        {7, 7, 7, 4, FILL_RANDOM},         {33, 33, 33, 3, FILL_RANDOM},
        {127, 127, 127, 4, FILL_RANDOM},  {1, 300, 77, 2, FILL_RANDOM},      {300, 1, 200, 2, FILL_RANDOM},
        {200, 300, 77, 3, FILL_RANDOM},   {129, 257, 1000, 5, FILL_RANDOM},  {257, 513, 129, 3, FILL_RANDOM},
        {1000, 1000, 1000, 2, FILL_RANDOM}, {300, 600, 200, 20, FILL_RANDOM}, {5, 3, 132200, 4, FILL_EXTREME},
        {256, 512, 1000, 4, FILL_EXTREME},    {33, 65, 77, 2, FILL_JUNK_PAD},
    };
    static const struct config configs[] = {{1, 0}, {2, 0}, {1, 2}, {2, 2}};
    int cases = 0, failed = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        if (quick && (shapes[s].m > 300 || shapes[s].n > 300 || shapes[s].k > 300))
            continue;
        struct batch x;
        unsigned char *got = NULL;
        if (make_batch(env, &shapes[s], &x)) {
            got = malloc(x.c_bytes);
            CHECK(got, "out of host memory");
        }
        for (size_t c = 0; got && c < sizeof configs / sizeof *configs; c++) {
            cases++;
            const bool ok = run_config(env, &x, &configs[c], got);
            failed += !ok;
            /* one line a case, flushed: a hang shows where */
            printf("%s %lldx%lldx%lld x%d cluster=%d stages<=%d\n", ok ? "ok  " : "FAIL", (long long)x.host.m,
                   (long long)x.host.n, (long long)x.host.k, x.host.n_gemms, configs[c].cluster, configs[c].max_stages);
            fflush(stdout);
        }
        free(got);
        free_batch(env, &x);
    }
    printf("test_tc_i8_engine_cuda: %d cases, %d differ from the host model\n", cases, failed);
    mpb_cuda_close(env);
    return check_report("test_tc_i8_engine_cuda");
}
