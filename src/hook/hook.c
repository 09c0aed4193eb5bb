/* The hook's modes (hook.h): the environment read once, an intercepted call
 * passed through, recorded or emulated, the hook's own errors logged once
 * and never passed on to the program. */
#define _GNU_SOURCE
#include "hook/hook.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "case/values.h"
#include "hook/emulate.h"
#include "hook/hook_cuda.h"
#include "hook/trace.h"
#include "schemes/registry.h"

enum mode { MODE_OFF, MODE_RECORD, MODE_EMULATE };

#define DEFAULT_BUDGET (256ull << 20)
#define DEFAULT_SAMPLE 10

static enum mode mode;
static struct mpb_hook_emulation emulation;
static int64_t sample_every = DEFAULT_SAMPLE;
/* cuBLAS calls timed on the device: events around the call on its stream,
 * the end waited for (MPBENCH_HOOK_SYNC=0: the host's time to enqueue). */
static bool device_times = true;
static pthread_once_t configured = PTHREAD_ONCE_INIT;
/* The trace and the call counter; operands are saved under it too. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int64_t next_index, next_emulated;
/* Inside an intercepted call on this thread: nested calls pass through. */
static _Thread_local int depth;
/* A byte count with an optional K, M or G (binary) suffix. */
static bool parse_bytes(const char *s, uint64_t *out)
{
    size_t len = strlen(s);
    int shift = 0;
    if (len && strchr("KMG", s[len - 1]))
        shift = s[--len] == 'K' ? 10 : s[len] == 'M' ? 20 : 30;
    int64_t v;
    if (!len || !mpb_int_parse_n(s, len, &v) || v < 0 || (uint64_t)v > (UINT64_MAX >> shift))
        return false;
    *out = (uint64_t)v << shift;
    return true;
}

/* The mode and its settings from the environment, or off with why. */
static enum mode read_config(struct mpb_trace_config *tc, char *why, size_t why_len)
{
    const char *m = getenv("MPBENCH_HOOK"), *dir = getenv("MPBENCH_HOOK_TRACE");
    const char *budget = getenv("MPBENCH_HOOK_BUDGET"), *sample = getenv("MPBENCH_HOOK_SAMPLE");
    const char *sync = getenv("MPBENCH_HOOK_SYNC");
    if (!m || !*m || !strcmp(m, "off"))
        return MODE_OFF;
    enum mode want = !strcmp(m, "record") ? MODE_RECORD : !strncmp(m, "emulate=", 8) ? MODE_EMULATE : MODE_OFF;
    *tc = (struct mpb_trace_config){dir, m, DEFAULT_BUDGET, DEFAULT_SAMPLE};
    if (want == MODE_OFF)
        snprintf(why, why_len, "MPBENCH_HOOK=%s: expected record or emulate=SCHEME[,KEY=VALUE...]", m);
    else if (want == MODE_RECORD && (!dir || !*dir))
        snprintf(why, why_len, "MPBENCH_HOOK=record needs MPBENCH_HOOK_TRACE=DIR, the trace folder");
    else if (budget && !parse_bytes(budget, &tc->budget))
        snprintf(why, why_len, "MPBENCH_HOOK_BUDGET=%s: expected a byte count, optionally with K, M or G", budget);
    else if (sample && (!mpb_int_parse(sample, &tc->sample_every) || tc->sample_every < 0))
        snprintf(why, why_len, "MPBENCH_HOOK_SAMPLE=%s: expected N >= 0 (every Nth emulated call checked "
                 "against the native one; 0: none)", sample);
    else if (sync && strcmp(sync, "0") && strcmp(sync, "1"))
        snprintf(why, why_len, "MPBENCH_HOOK_SYNC=%s: expected 1 (cuBLAS calls timed on the device, the default) or "
                 "0 (the host's time to enqueue them, the program left asynchronous)", sync);
    else if (want == MODE_EMULATE && !mpb_hook_emulation_parse(m + 8, &emulation, why, why_len))
        ;
    else
        return want;
    return MODE_OFF;
}

static void configure(void)
{
    struct mpb_trace_config tc = {.sample_every = DEFAULT_SAMPLE};
    char why[768] = "";
    mode = read_config(&tc, why, sizeof why);
    if (mode != MODE_OFF && tc.dir && *tc.dir && !mpb_trace_open(&tc, why, sizeof why))
        mode = MODE_OFF;
    if (why[0])
        mpb_hook_log_once(MPB_HOOK_LOG_CONFIG, "%s; every call passes through unchanged", why);
    sample_every = tc.sample_every;
    const char *sync = getenv("MPBENCH_HOOK_SYNC");
    device_times = !sync || strcmp(sync, "0");
}

bool mpb_hook_bypass(void)
{
    pthread_once(&configured, configure);
    return mode == MODE_OFF || depth > 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The call computed by the emulation; false (C untouched) when it is not
 * taken, said once. *err: against the real routine, on a sampled call. */
static bool emulate_call(const struct mpb_hook_routine *r, const struct mpb_hook_call *c, double *err)
{
    if (c->m == 0 || c->n == 0 || c->k == 0 || (c->alpha == 0 && c->alpha_im == 0))
        return false; /* BLAS's quick returns: nothing to emulate */
    if (c->device) {
        int64_t nth = __atomic_load_n(&next_emulated, __ATOMIC_RELAXED);
        char why[512] = "";
        bool sampled = sample_every > 0 && nth % sample_every == 0;
        bool ok = mpb_hook_cuda_emulate(&emulation, c, sampled ? err : NULL, why, sizeof why);
        if (ok)
            __atomic_fetch_add(&next_emulated, 1, __ATOMIC_RELAXED);
        else
            mpb_hook_log_once(MPB_HOOK_LOG_REFUSED, "%s: %s; such calls pass through to the real routine", r->name,
                              why);
        return ok;
    }
    size_t elem = c->target == MPB_TARGET_FP64 ? 8 : 4;
    void *a = mpb_hook_pack(c, 'A'), *b = mpb_hook_pack(c, 'B'), *p = malloc(elem * (size_t)(c->m * c->n));
    char why[512] = "out of memory for the packed operands";
    bool ok = a && b && p && mpb_hook_emulate(&emulation, c, a, b, p, why, sizeof why);
    if (!ok) {
        mpb_hook_log_once(MPB_HOOK_LOG_REFUSED, "%s: %s; such calls pass through to the real routine", r->name, why);
    } else {
        int64_t nth = __atomic_fetch_add(&next_emulated, 1, __ATOMIC_RELAXED);
        void *q = sample_every > 0 && nth % sample_every == 0 ? malloc(elem * (size_t)(c->m * c->n)) : NULL;
        if (q) {
            r->product(c->m, c->n, c->k, a, b, q);
            *err = mpb_hook_rel_err(c, p, q);
        }
        free(q);
        mpb_hook_store(c, p);
    }
    free(a);
    free(b);
    free(p);
    return ok;
}

void mpb_hook_gemm(const struct mpb_hook_routine *r, const struct mpb_hook_call *call, const void *args)
{
    depth++;
    bool valid = mpb_hook_call_valid(call);
    char stem[MPB_TRACE_STEM_MAX] = "";
    pthread_mutex_lock(&lock);
    int64_t index = next_index++;
    if (valid && !call->batched)
        mpb_trace_operands(r, call, index, stem);
    pthread_mutex_unlock(&lock);
    double err = NAN, t0 = now_s();
    struct mpb_hook_timer *timer = call->device && device_times ? mpb_hook_cuda_timer_start(call->stream) : NULL;
    bool emulated = mode == MODE_EMULATE && valid && !call->batched && emulate_call(r, call, &err);
    if (!emulated)
        r->pass(args);
    double seconds = now_s() - t0;
    if (timer)
        mpb_hook_cuda_timer_stop(timer, &seconds);
    struct mpb_trace_row row = {index, r->name, stem, emulated ? emulation.scheme->name : "native", seconds,
                                (long)syscall(SYS_gettid), err};
    pthread_mutex_lock(&lock);
    mpb_trace_row(call, &row);
    pthread_mutex_unlock(&lock);
    depth--;
}

void mpb_hook_no_real(const char *name, const struct mpb_hook_call *call)
{
    struct mpb_hook_emulation native = {mpb_scheme_native(call->target, MPB_FIELD_REAL), {0}};
    mpb_hook_log_once(MPB_HOOK_LOG_NO_REAL, "%s: no real routine is loaded; mpbench's %s host model computes it",
                      name, native.scheme->name);
    size_t elem = call->target == MPB_TARGET_FP64 ? 8 : 4;
    char why[256];
    if (!mpb_hook_call_valid(call) || call->m == 0 || call->n == 0)
        return;
    void *a = mpb_hook_pack(call, 'A'), *b = mpb_hook_pack(call, 'B'), *p = malloc(elem * (size_t)(call->m * call->n));
    if (a && b && p && (call->k == 0 ? memset(p, 0, elem * (size_t)(call->m * call->n)) != NULL
                                     : mpb_hook_emulate(&native, call, a, b, p, why, sizeof why)))
        mpb_hook_store(call, p);
    free(a);
    free(b);
    free(p);
}
