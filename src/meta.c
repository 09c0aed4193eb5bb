#include "meta.h"

#include <errno.h>
#include <gmp.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "accuracy.h"
#include "csv.h"
#include "hash.h"
#include "version.h"

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

char *mpb_meta_previous_runs(const char *path, char *why, size_t why_len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return strdup("");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    char *text = malloc((size_t)size + 1);
    size_t got = text ? fread(text, 1, (size_t)size, f) : 0;
    fclose(f);
    if (!text || got != (size_t)size) {
        free(text);
        snprintf(why, why_len, "%s: cannot read it", path);
        return NULL;
    }
    text[size] = '\0';
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

/* First "model name" of /proc/cpuinfo, or "". */
static void cpu_model(char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            snprintf(buf, len, "%s", colon + 2);
            buf[strcspn(buf, "\n")] = '\0';
            break;
        }
    }
    fclose(f);
}

/* Clocks, power and persistence as nvidia-smi reports them now (it is the
 * only source without linking NVML); "" when it is absent. */
static void gpu_state(const char *uuid, char *buf, size_t len)
{
    char cmd[256];
    buf[0] = '\0';
    snprintf(cmd, sizeof cmd,
             "nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.limit,"
             "temperature.gpu,persistence_mode,pstate --format=csv,noheader -i %s 2>/dev/null",
             uuid);
    FILE *p = popen(cmd, "r");
    if (!p)
        return;
    if (!fgets(buf, (int)len, p))
        buf[0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    pclose(p);
}

static void write_device(FILE *f, const struct mpb_device_info *d)
{
    char state[256];
    gpu_state(d->uuid, state, sizeof state);
    fprintf(f, ",\n  \"gpu\": {\"name\": ");
    mpb_json_string(f, d->name);
    fprintf(f, ", \"uuid\": ");
    mpb_json_string(f, d->uuid);
    fprintf(f, ", \"compute_capability\": \"%d.%d\", \"sm_count\": %d, \"total_mem_bytes\": %zu, "
               "\"l2_bytes\": %d, \"max_sm_clock_khz\": %d, \"max_mem_clock_khz\": %d, "
               "\"mem_bus_width\": %d,\n   \"nvidia_smi_now\": ",
            d->cc_major, d->cc_minor, d->sm_count, d->total_mem, d->l2_bytes, d->clock_khz,
            d->mem_clock_khz, d->mem_bus_width);
    mpb_json_string(f, state);
    fprintf(f, ", \"nvidia_smi_fields\": \"clocks.sm, clocks.max.sm, clocks.mem, clocks.max.mem, "
               "power.limit, temperature.gpu, persistence_mode, pstate\"},\n");
    fprintf(f, "  \"driver\": {\"release\": ");
    mpb_json_string(f, d->driver_string);
    fprintf(f, ", \"cuda_driver_api\": %d, \"cuda_runtime\": %d, \"cublas\": %d}", d->driver_version,
            d->runtime_version, d->cublas_version);
}

static void write_host(FILE *f)
{
    struct utsname u;
    char host[256] = "", cpu[256];
    gethostname(host, sizeof host);
    cpu_model(cpu, sizeof cpu);
    if (uname(&u) != 0)
        memset(&u, 0, sizeof u);
    fprintf(f, ",\n  \"host\": {\"hostname\": ");
    mpb_json_string(f, host);
    fprintf(f, ", \"os\": ");
    char os[600];
    snprintf(os, sizeof os, "%s %s %s", u.sysname, u.release, u.machine);
    mpb_json_string(f, os);
    fprintf(f, ", \"cpu\": ");
    mpb_json_string(f, cpu);
    fprintf(f, ", \"cpus\": %ld, \"mem_bytes\": %lld}", sysconf(_SC_NPROCESSORS_ONLN),
            (long long)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE));
}

static void write_build(FILE *f)
{
    fprintf(f, ",\n  \"mpbench\": {\"version\": \"%s\", \"git_sha\": ", MPB_VERSION);
    mpb_json_string(f, mpb_git_sha);
    fprintf(f, ", \"cuda_archs\": \"%s\", \"c_compiler\": ", MPB_CUDA_ARCHS);
    mpb_json_string(f, MPB_C_COMPILER);
    fprintf(f, ", \"cuda_compiler\": ");
    mpb_json_string(f, MPB_CUDA_COMPILER);
    fprintf(f, ", \"flags\": \"-ffp-contract=off, nvcc -fmad=false\", \"csv_schema_version\": %d},\n",
            MPB_CSV_SCHEMA_VERSION);
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
    fprintf(f, "],\n  \"backend\": \"%s\", \"warmup\": %d, \"warmup_ms\": %d, \"reps\": %d, \"ref\": \"%s\", "
               "\"ref_samples\": %lld, \"ref_full_below_products\": %lld, \"shard\": \"%d/%d\", \"tags\": {",
            mpb_impl_name(m->impl), m->warmup, m->plan->warmup_ms, m->reps, mpb_ref_name(m->plan->ref),
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
    write_host(f);
    write_build(f);
    if (m->dev)
        write_device(f, m->dev);
    fputs("}", f);
}

bool mpb_meta_check(const char *path, char *why, size_t why_len)
{
    struct stat st;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(why, why_len, "cannot write %s: it is a folder", path);
        return false;
    }
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
        fprintf(f, "%s,\n", previous);
    write_run(f, m);
    fputs(META_TAIL, f);
    bool ok = fclose(f) == 0;
    return ok && rename(tmp, path) == 0;
}
