/* The environment: gathered once, printed as `key: value` lines (env.h). */
#include "record/env.h"

#include <gmp.h>
#include <math.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "case/result.h"
#include "record/version.h"

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

static void gather_host(struct mpb_env *e)
{
    struct utsname u;
    if (gethostname(e->hostname, sizeof e->hostname) != 0)
        e->hostname[0] = '\0';
    cpu_model(e->cpu, sizeof e->cpu);
    if (uname(&u) == 0)
        snprintf(e->os, sizeof e->os, "%s %s %s", u.sysname, u.release, u.machine);
    e->cpus = sysconf(_SC_NPROCESSORS_ONLN);
    e->mem_bytes = (long long)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
}

void mpb_env_gather(struct mpb_env *e, const struct mpb_device_info *devs, int n)
{
    memset(e, 0, sizeof *e);
    gather_host(e);
    mpb_cuda_library_versions(&e->cuda_runtime, &e->cublas);
    e->nvml = mpb_nvml_available(e->nvml_why, sizeof e->nvml_why);
    if (!e->nvml || !mpb_nvml_driver(e->driver, sizeof e->driver))
        snprintf(e->driver, sizeof e->driver, "%s", n ? devs[0].driver_string : "");
    if (n > MPB_ENV_MAX_GPUS)
        n = MPB_ENV_MAX_GPUS;
    for (int i = 0; i < n; i++) {
        struct mpb_env_gpu *g = &e->gpus[e->n_gpus++];
        g->have_cuda = true;
        g->cuda = devs[i];
        g->have_nvml = mpb_nvml_gpu_find(devs[i].uuid, &g->nvml);
    }
    for (int i = 0; !n && i < mpb_nvml_gpu_count() && e->n_gpus < MPB_ENV_MAX_GPUS; i++) {
        struct mpb_env_gpu *g = &e->gpus[e->n_gpus];
        g->have_nvml = mpb_nvml_gpu_at(i, &g->nvml);
        e->n_gpus += g->have_nvml;
    }
}

void mpb_env_build(char *buf, size_t len)
{
    snprintf(buf, len, "%s build%s%s, %s, %s, gpu_archs %s, %s", MPB_BUILDTYPE,
             strcmp(MPB_SANITIZE, "none") ? ", sanitize=" : "", strcmp(MPB_SANITIZE, "none") ? MPB_SANITIZE : "",
             MPB_C_COMPILER, MPB_CUDA_COMPILER, MPB_CUDA_ARCHS, MPB_BUILD_FLAGS);
}

/* "13.0" from 13000 (the CUDA version encoding), "unknown" from 0. */
static void cuda_version(char *buf, size_t len, int v)
{
    if (v > 0)
        snprintf(buf, len, "%d.%d", v / 1000, v % 1000 / 10);
    else
        snprintf(buf, len, "unknown");
}

/* " 1980 of 1980 MHz": now and the most, "?" where NVML does not say. */
static void clock_pair(FILE *f, const char *what, int now, int max)
{
    char a[16] = "?", b[16] = "?";
    if (now >= 0)
        snprintf(a, sizeof a, "%d", now);
    if (max >= 0)
        snprintf(b, sizeof b, "%d", max);
    fprintf(f, "%s %s of %s MHz", what, a, b);
}

static void print_gpu(FILE *f, const char *prefix, int i, const struct mpb_env_gpu *g)
{
    char mem[64];
    const char *name = g->have_cuda ? g->cuda.name : g->nvml.name, *uuid = g->have_cuda ? g->cuda.uuid : g->nvml.uuid;
    mpb_format_bytes(mem, sizeof mem, g->have_cuda ? g->cuda.total_mem : (size_t)g->nvml.mem_bytes, false);
    fprintf(f, "%sgpu%d: %s, %s, %s", prefix, i, name, uuid, mem);
    if (g->have_cuda)
        fprintf(f, ", %d SMs, compute capability %d.%d", g->cuda.sm_count, g->cuda.cc_major, g->cuda.cc_minor);
    fputc('\n', f);
    if (!g->have_nvml) {
        fprintf(f, "%sgpu%d state: unknown (NVML does not see it)\n", prefix, i);
        return;
    }
    const struct mpb_nvml_gpu *s = &g->nvml;
    fprintf(f, "%sgpu%d clocks: ", prefix, i);
    clock_pair(f, "SM", s->sm_clock_mhz, s->max_sm_clock_mhz);
    clock_pair(f, ", memory", s->mem_clock_mhz, s->max_mem_clock_mhz);
    char limit[32] = "?", now[32] = "?";
    if (!isnan(s->power_limit_w))
        snprintf(limit, sizeof limit, "%.0f W", s->power_limit_w);
    if (!isnan(s->power_w))
        snprintf(now, sizeof now, "%.0f W", s->power_w);
    fprintf(f, "\n%sgpu%d power: limit %s, now %s", prefix, i, limit, now);
    if (s->temperature_c >= 0)
        fprintf(f, ", %d C", s->temperature_c);
    if (s->pstate >= 0)
        fprintf(f, ", P%d", s->pstate);
    fprintf(f, ", energy counter %s\n", s->energy_counter ? "yes" : "no (power sampled)");
}

void mpb_env_print(FILE *f, const struct mpb_env *e, const char *prefix)
{
    char build[512], rt[16], mem[64];
    mpb_env_build(build, sizeof build);
    cuda_version(rt, sizeof rt, e->cuda_runtime);
    mpb_format_bytes(mem, sizeof mem, e->mem_bytes > 0 ? (size_t)e->mem_bytes : 0, false);
    fprintf(f, "%smpbench: %s (%s)\n", prefix, MPB_VERSION, mpb_git_sha);
    fprintf(f, "%sbuild: %s\n", prefix, build);
    fprintf(f, "%slibraries: MPFR %s, GMP %s, CUDA runtime %s, cuBLAS %d.%d.%d\n", prefix, mpfr_get_version(),
            gmp_version, rt, e->cublas / 10000, e->cublas / 100 % 100, e->cublas % 100);
    fprintf(f, "%shost: %s, %s, %ld CPUs, %s, %s\n", prefix, e->hostname, e->cpu[0] ? e->cpu : "CPU unknown",
            e->cpus, mem, e->os);
    if (e->nvml)
        fprintf(f, "%sdriver: %s\n", prefix, e->driver[0] ? e->driver : "unknown");
    else
        fprintf(f, "%sdriver: no NVIDIA driver (%s)\n", prefix, e->nvml_why);
    if (e->n_gpus && e->gpus[0].have_cuda) {
        char drv[16];
        cuda_version(drv, sizeof drv, e->gpus[0].cuda.driver_version);
        fprintf(f, "%scuda driver API: %s\n", prefix, drv);
    }
    if (!e->n_gpus)
        fprintf(f, "%sgpus: none\n", prefix);
    for (int i = 0; i < e->n_gpus; i++)
        print_gpu(f, prefix, e->gpus[i].have_cuda ? e->gpus[i].cuda.ordinal : i, &e->gpus[i]);
}

void mpb_env_header(FILE *f, const struct mpb_device_info *dev)
{
    struct mpb_env *e = malloc(sizeof *e); /* large: a slot per GPU */
    if (!e)
        return;
    mpb_env_gather(e, dev, dev ? 1 : 0);
    mpb_env_print(f, e, "# ");
    fflush(f);
    free(e);
}
