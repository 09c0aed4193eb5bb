#include "record/meta.h"

#include <errno.h>
#include <math.h>
#include <gmp.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "case/accuracy.h"
#include "record/csv.h"
#include "record/env.h"
#include "case/hash.h"
#include "record/outpath.h"
#include "record/version.h"

#define META_HEAD "{\"schema_version\": 1, \"runs\": [\n"
#define META_TAIL "\n]}\n"

void mpb_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

void mpb_utc_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void mpb_make_run_id(char *buf, size_t len)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
    uint64_t salt = (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
    snprintf(buf, len, "%s-%06x", stamp, (unsigned)(mpb_hash_bytes(&salt, sizeof salt) & 0xffffff));
}

/* The whole of an open file, NUL-terminated; NULL when it cannot be read. */
static char *read_all(FILE *f, long *size)
{
    char *text = NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (*size = ftell(f)) >= 0) {
        rewind(f);
        text = malloc((size_t)*size + 1);
        if (text && fread(text, 1, (size_t)*size, f) != (size_t)*size) {
            free(text);
            text = NULL;
        }
    }
    fclose(f);
    if (text)
        text[*size] = '\0';
    return text;
}

char *mpb_meta_previous_runs(const char *path, char *why, size_t why_len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return strdup("");
    long size;
    char *text = read_all(f, &size);
    if (!text) {
        snprintf(why, why_len, "%s: cannot read it", path);
        return NULL;
    }
    size_t head = strlen(META_HEAD), tail = strlen(META_TAIL);
    if ((size_t)size < head + tail || strncmp(text, META_HEAD, head) != 0 ||
        strcmp(text + size - tail, META_TAIL) != 0) {
        free(text);
        snprintf(why, why_len, "%s: not an mpbench meta.json; move it away to resume", path);
        return NULL;
    }
    text[size - tail] = '\0';
    memmove(text, text + head, (size_t)size - tail - head + 1);
    return text;
}

/* A number, or null for NaN (JSON has no NaN). */
static void json_number(FILE *f, double x)
{
    if (isnan(x))
        fputs("null", f);
    else
        fprintf(f, "%.17g", x);
}

/* NVML's view of the GPU now (env.h); null where NVML does not see it. */
static void write_gpu_state(FILE *f, const struct mpb_env_gpu *g)
{
    const struct mpb_nvml_gpu *s = &g->nvml;
    if (!g->have_nvml) {
        fputs("null", f);
        return;
    }
    fprintf(f, "{\"sm_clock_mhz\": %d, \"max_sm_clock_mhz\": %d, \"mem_clock_mhz\": %d, \"max_mem_clock_mhz\": %d, "
               "\"power_limit_w\": ", s->sm_clock_mhz, s->max_sm_clock_mhz, s->mem_clock_mhz, s->max_mem_clock_mhz);
    json_number(f, s->power_limit_w);
    fputs(", \"power_w\": ", f);
    json_number(f, s->power_w);
    fprintf(f, ", \"temperature_c\": %d, \"pstate\": %d, \"energy_counter\": %s}", s->temperature_c, s->pstate,
            s->energy_counter ? "true" : "false");
}

static void write_device(FILE *f, const struct mpb_env_gpu *g)
{
    const struct mpb_device_info *d = &g->cuda;
    fprintf(f, ",\n  \"gpu\": {\"name\": ");
    mpb_json_string(f, d->name);
    fprintf(f, ", \"uuid\": ");
    mpb_json_string(f, d->uuid);
    fprintf(f, ", \"compute_capability\": \"%d.%d\", \"sm_count\": %d, \"total_mem_bytes\": %zu, "
               "\"l2_bytes\": %d, \"max_sm_clock_khz\": %d, \"max_mem_clock_khz\": %d, "
               "\"mem_bus_width\": %d,\n   \"nvml_now\": ",
            d->cc_major, d->cc_minor, d->sm_count, d->total_mem, d->l2_bytes, d->clock_khz,
            d->mem_clock_khz, d->mem_bus_width);
    write_gpu_state(f, g);
    fprintf(f, "},\n");
    fprintf(f, "  \"driver\": {\"release\": ");
    mpb_json_string(f, d->driver_string);
    fprintf(f, ", \"cuda_driver_api\": %d, \"cuda_runtime\": %d, \"cublas\": %d}", d->driver_version,
            d->runtime_version, d->cublas_version);
}

static void write_host(FILE *f, const struct mpb_env *e)
{
    fprintf(f, ",\n  \"host\": {\"hostname\": ");
    mpb_json_string(f, e->hostname);
    fprintf(f, ", \"os\": ");
    mpb_json_string(f, e->os);
    fprintf(f, ", \"cpu\": ");
    mpb_json_string(f, e->cpu);
    fprintf(f, ", \"cpus\": %ld, \"mem_bytes\": %lld}", e->cpus, e->mem_bytes);
}

static void write_build(FILE *f)
{
    fprintf(f, ",\n  \"mpbench\": {\"version\": \"%s\", \"git_sha\": ", MPB_VERSION);
    mpb_json_string(f, mpb_git_sha);
    fprintf(f, ", \"cuda_archs\": \"%s\", \"buildtype\": ", MPB_CUDA_ARCHS);
    mpb_json_string(f, MPB_BUILDTYPE);
    fprintf(f, ", \"sanitize\": ");
    mpb_json_string(f, MPB_SANITIZE);
    fprintf(f, ", \"c_compiler\": ");
    mpb_json_string(f, MPB_C_COMPILER);
    fprintf(f, ", \"cuda_compiler\": ");
    mpb_json_string(f, MPB_CUDA_COMPILER);
    fprintf(f, ", \"flags\": \"%s\", \"csv_schema_version\": %d},\n", MPB_BUILD_FLAGS, MPB_CSV_SCHEMA_VERSION);
    fprintf(f, "  \"libraries\": {\"mpfr\": \"%s\", \"gmp\": \"%s\"}", mpfr_get_version(), gmp_version);
}

static void write_run(FILE *f, const struct mpb_run_meta *m)
{
    fprintf(f, "{\"run_id\": \"%s\", \"started_utc\": \"%s\", \"finished_utc\": \"%s\",\n  \"argv\": [",
            m->run_id, m->started_utc, m->finished_utc);
    for (int i = 0; i < m->argc; i++) {
        if (i)
            fputs(", ", f);
        mpb_json_string(f, m->argv[i]);
    }
    fprintf(f, "],\n  \"backend\": \"%s\", \"warmup\": %d, \"warmup_ms\": %d, \"reps\": %d, "
               "\"energy_min_ms\": %d, \"energy_extend\": %s, \"ref\": \"%s\", "
               "\"ref_samples\": %lld, \"ref_full_below_products\": %lld, \"shard\": \"%d/%d\", \"tags\": {",
            mpb_impl_name(m->impl), m->warmup, m->plan->warmup_ms, m->reps, m->plan->energy_min_ms,
            m->plan->energy_no_extend ? "false" : "true", mpb_ref_name(m->plan->ref),
            (long long)m->plan->ref_samples, (long long)MPB_REF_FULL_LIMIT, m->plan->shard_index,
            m->plan->shard_count);
    for (int i = 0; i < m->plan->n_tags; i++) {
        const char *t = m->plan->tags[i], *eq = strchr(t, '=');
        char key[128];
        snprintf(key, sizeof key, "%.*s", (int)(eq - t), t);
        fputs(i ? ", " : "", f);
        mpb_json_string(f, key);
        fputs(": ", f);
        mpb_json_string(f, eq + 1);
    }
    fprintf(f, "},\n  \"cases\": {\"total\": %d, \"this_shard\": %d, \"already_in_csv\": %d, \"run\": %d",
            m->cases_total, m->cases_this_shard, m->cases_resumed, m->cases_run);
    for (int s = 0; s <= MPB_STATUS_SKIPPED; s++)
        fprintf(f, ", \"%s\": %d", mpb_status_name((enum mpb_status)s), m->status_counts[s]);
    fprintf(f, ", \"interrupted\": %s}", m->interrupted ? "true" : "false");
    struct mpb_env *e = malloc(sizeof *e); /* large: a slot per GPU */
    if (e) {
        mpb_env_gather(e, m->dev, m->dev ? 1 : 0);
        write_host(f, e);
    }
    write_build(f);
    if (e && m->dev)
        write_device(f, &e->gpus[0]);
    free(e);
    if (m->n_devices) {
        fputs(",\n  \"devices\": [", f);
        for (int d = 0; d < m->n_devices; d++) {
            fputs(d ? ", {\"name\": " : "{\"name\": ", f);
            mpb_json_string(f, m->devices[d].name);
            fputs(", \"uuid\": ", f);
            mpb_json_string(f, m->devices[d].uuid);
            fputs("}", f);
        }
        fputs("]", f);
    }
    fputs("}", f);
}

bool mpb_meta_check(const char *path, char *why, size_t why_len)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (!mpb_outpath_check(path, why, why_len) || !mpb_outpath_check(tmp, why, why_len))
        return false;
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(why, why_len, "cannot write %s: %s", tmp, strerror(errno));
        return false;
    }
    fclose(f);
    unlink(tmp);
    return true;
}

bool mpb_meta_write(const char *path, const char *previous, const struct mpb_run_meta *m)
{
    /* Write a new file and rename it over the old one, so a crash never
     * leaves a half-written sidecar. */
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return false;
    fputs(META_HEAD, f);
    if (previous && *previous)
        fprintf(f, m ? "%s,\n" : "%s", previous);
    if (m)
        write_run(f, m);
    fputs(META_TAIL, f);
    bool ok = fclose(f) == 0;
    return ok && rename(tmp, path) == 0;
}

/* Reading a sidecar back (mpbench merge): a small reader of the JSON that
 * write_run writes, which checks the syntax of the whole file but keeps
 * only the members merge needs. Values nest at most this deep. */
#define JSON_MAX_DEPTH 32

static const char *json_ws(const char *p)
{
    return p + strspn(p, " \t\r\n");
}

/* Past the JSON string at p (its opening quote); NULL when malformed. With
 * `out`, its value, decoded, in a new string. Escapes as mpb_json_string
 * writes them and the other short ones; \u only below 0x80 (mpbench writes
 * other characters as they are), never \u0000. */
static const char *json_string(const char *p, char **out)
{
    static const char escapes[] = "\"\\/bfnrtu", meaning[] = "\"\\/\b\f\n\r\t";
    if (*p != '"')
        return NULL;
    const char *start = ++p;
    char *s = out ? malloc(strlen(start) + 1) : NULL;
    size_t at = 0;
    if (out && !s)
        return NULL;
    for (; *p != '"'; p++) {
        char ch = *p;
        if ((unsigned char)ch < 0x20) /* the end of the text, or a raw control character */
            break;
        if (ch == '\\') {
            const char *esc = strchr(escapes, *++p);
            if (!*p || !esc)
                break;
            if (*p == 'u') {
                char hex[5] = {0};
                memcpy(hex, p + 1, strspn(p + 1, "0123456789abcdefABCDEF") >= 4 ? 4 : 0);
                unsigned long v = strtoul(hex, NULL, 16);
                if (!hex[0] || v == 0 || v >= 0x80)
                    break;
                ch = (char)v;
                p += 4;
            } else {
                ch = meaning[esc - escapes];
            }
        }
        if (s)
            s[at++] = ch;
    }
    if (*p != '"') {
        free(s);
        return NULL;
    }
    if (out) {
        s[at] = '\0';
        *out = s;
    }
    return p + 1;
}

/* Past one JSON value at p (after blanks); NULL when malformed. */
static const char *json_skip(const char *p, int depth)
{
    p = json_ws(p);
    if (*p == '"')
        return json_string(p, NULL);
    if (*p != '{' && *p != '[') {
        size_t n = strspn(p, "0123456789+-.eEtruefalsn"); /* numbers, true, false, null */
        return n ? p + n : NULL;
    }
    char close = *p == '{' ? '}' : ']';
    if (depth >= JSON_MAX_DEPTH)
        return NULL;
    p = json_ws(p + 1);
    if (*p == close)
        return p + 1;
    for (;;) {
        if (close == '}') {
            p = json_string(json_ws(p), NULL);
            if (!p || *(p = json_ws(p)) != ':')
                return NULL;
            p++;
        }
        if (!(p = json_skip(p, depth + 1)))
            return NULL;
        p = json_ws(p);
        if (*p == close)
            return p + 1;
        if (*p != ',')
            return NULL;
        p++;
    }
}

/* The value of member `key` of the (well-formed) object at p; NULL when it
 * has none. A key with escapes never equals the plain keys asked for. */
static const char *json_member(const char *p, const char *key)
{
    size_t len = strlen(key);
    p = json_ws(p);
    if (*p != '{')
        return NULL;
    for (p = json_ws(p + 1); *p == '"'; p = json_ws(json_ws(p) + 1)) {
        bool match = strncmp(p + 1, key, len) == 0 && p[1 + len] == '"';
        p = json_ws(json_ws(json_string(p, NULL)) + 1); /* past the key and ':' */
        if (match)
            return p;
        p = json_skip(p, 0);
        if (*json_ws(p) != ',')
            return NULL;
    }
    return NULL;
}

/* A string member of the object at p, decoded into *out; false when it
 * has none, or it is not a string. */
static bool json_string_member(const char *p, const char *key, char **out)
{
    const char *v = json_member(p, key);
    return v && json_string(v, out);
}

/* A member that is an array of strings, into a new NULL-terminated array. */
static bool json_strings_member(const char *p, const char *key, char ***out, int *n)
{
    const char *v = json_member(p, key);
    *out = NULL;
    *n = 0;
    if (!v || *v != '[')
        return false;
    for (v = json_ws(v + 1); *v != ']'; v = json_ws(v)) {
        char **grown = realloc(*out, sizeof *grown * (size_t)(*n + 2));
        if (!grown)
            return false;
        *out = grown;
        (*out)[*n] = NULL;
        if (!(v = json_string(v, &(*out)[*n])))
            return false;
        (*out)[++*n] = NULL;
        v = json_ws(v);
        v += *v == ',';
    }
    return true;
}

static bool read_run(const char *p, struct mpb_meta_run *r)
{
    const char *build = json_member(p, "mpbench"), *schema = build ? json_member(build, "csv_schema_version") : NULL;
    char *end = NULL;
    r->csv_schema_version = schema ? strtol(schema, &end, 10) : 0;
    return json_string_member(p, "run_id", &r->run_id) && json_strings_member(p, "argv", &r->argv, &r->argc) &&
           json_string_member(p, "backend", &r->backend) && json_string_member(p, "shard", &r->shard) &&
           build && json_string_member(build, "version", &r->version) &&
           json_string_member(build, "git_sha", &r->git_sha) && end != schema;
}

bool mpb_meta_read(const char *path, struct mpb_meta_file *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    long size;
    errno = 0;
    if (!f || !(out->text = read_all(f, &size))) {
        int err = errno;
        snprintf(why, why_len, "%s: cannot read: %s", path, f && !err ? "read error" : strerror(err));
        errno = err == ENOMEM ? ENOMEM : EINVAL;
        return false;
    }
    const char *end = json_skip(out->text, 0), *runs = end && !*json_ws(end) ? json_member(out->text, "runs") : NULL;
    if (!runs || *runs != '[') {
        snprintf(why, why_len, "%s: not an mpbench meta.json", path);
        mpb_meta_file_free(out);
        errno = EINVAL;
        return false;
    }
    for (const char *p = json_ws(runs + 1); *p != ']'; p = json_ws(p)) {
        struct mpb_meta_run *grown = realloc(out->runs, sizeof *grown * (size_t)(out->n_runs + 1));
        if (!grown) {
            snprintf(why, why_len, "%s: out of memory", path);
            mpb_meta_file_free(out);
            errno = ENOMEM;
            return false;
        }
        out->runs = grown;
        struct mpb_meta_run *r = &out->runs[out->n_runs++];
        memset(r, 0, sizeof *r);
        r->text = p;
        p = json_skip(p, 0);
        r->len = (size_t)(p - r->text);
        errno = 0;
        if (!read_run(r->text, r)) {
            bool nomem = errno == ENOMEM; /* a string's malloc, in a record whose syntax was checked */
            if (nomem)
                snprintf(why, why_len, "%s: out of memory reading run record %d", path, out->n_runs);
            else
                snprintf(why, why_len, "%s: run record %d lacks what mpbench writes (run_id, argv, backend, shard, "
                         "mpbench version, git_sha, csv_schema_version)", path, out->n_runs);
            mpb_meta_file_free(out);
            errno = nomem ? ENOMEM : EINVAL;
            return false;
        }
        p = json_ws(p);
        p += *p == ',';
    }
    return true;
}

void mpb_meta_file_free(struct mpb_meta_file *m)
{
    for (int i = 0; i < m->n_runs; i++) {
        struct mpb_meta_run *r = &m->runs[i];
        for (int a = 0; a < r->argc; a++)
            free(r->argv[a]);
        free(r->argv);
        free(r->run_id);
        free(r->backend);
        free(r->shard);
        free(r->version);
        free(r->git_sha);
    }
    free(m->runs);
    free(m->text);
    memset(m, 0, sizeof *m);
}
