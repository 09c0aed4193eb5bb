/* NVML through dlopen (mpb_nvml.h). The prototypes are declared here, as
 * NVML documents them, so that no NVML header or library is needed to
 * build; NVML itself is thread-safe, which the power sampler relies on. */
#include "mpb_nvml.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int nvml_return;          /* nvmlReturn_t: 0 is NVML_SUCCESS */
typedef struct nvml_dev *nvml_device; /* nvmlDevice_t */
struct nvml_memory {              /* nvmlMemory_t */
    unsigned long long total, free, used;
};
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMPERATURE_GPU = 0, NVML_BUFFER = 96 };

/* Every NVML function mpbench calls, resolved once. */
static struct {
    nvml_return (*init)(void);
    nvml_return (*driver_version)(char *, unsigned);
    nvml_return (*count)(unsigned *);
    nvml_return (*by_index)(unsigned, nvml_device *);
    nvml_return (*by_uuid)(const char *, nvml_device *);
    nvml_return (*name)(nvml_device, char *, unsigned);
    nvml_return (*uuid)(nvml_device, char *, unsigned);
    nvml_return (*memory)(nvml_device, struct nvml_memory *);
    nvml_return (*clock)(nvml_device, int, unsigned *);
    nvml_return (*max_clock)(nvml_device, int, unsigned *);
    nvml_return (*power_limit)(nvml_device, unsigned *);    /* mW */
    nvml_return (*power)(nvml_device, unsigned *);          /* mW */
    nvml_return (*energy)(nvml_device, unsigned long long *); /* mJ since the driver loaded */
    nvml_return (*temperature)(nvml_device, int, unsigned *);
    nvml_return (*pstate)(nvml_device, int *);
    const char *(*error_string)(nvml_return);
} nvml;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static bool loaded;
static char load_why[256];

static void nvml_load(void)
{
    const char *path = getenv("MPBENCH_NVML_LIB");
    if (!path || !*path)
        path = "libnvidia-ml.so.1";
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(load_why, sizeof load_why, "%s", dlerror());
        return;
    }
    const struct {
        void **fn;
        const char *symbol;
    } symbols[] = {
        {(void **)&nvml.init, "nvmlInit_v2"},
        {(void **)&nvml.driver_version, "nvmlSystemGetDriverVersion"},
        {(void **)&nvml.count, "nvmlDeviceGetCount_v2"},
        {(void **)&nvml.by_index, "nvmlDeviceGetHandleByIndex_v2"},
        {(void **)&nvml.by_uuid, "nvmlDeviceGetHandleByUUID"},
        {(void **)&nvml.name, "nvmlDeviceGetName"},
        {(void **)&nvml.uuid, "nvmlDeviceGetUUID"},
        {(void **)&nvml.memory, "nvmlDeviceGetMemoryInfo"},
        {(void **)&nvml.clock, "nvmlDeviceGetClockInfo"},
        {(void **)&nvml.max_clock, "nvmlDeviceGetMaxClockInfo"},
        {(void **)&nvml.power_limit, "nvmlDeviceGetEnforcedPowerLimit"},
        {(void **)&nvml.power, "nvmlDeviceGetPowerUsage"},
        {(void **)&nvml.energy, "nvmlDeviceGetTotalEnergyConsumption"},
        {(void **)&nvml.temperature, "nvmlDeviceGetTemperature"},
        {(void **)&nvml.pstate, "nvmlDeviceGetPerformanceState"},
        {(void **)&nvml.error_string, "nvmlErrorString"},
    };
    for (size_t i = 0; i < sizeof symbols / sizeof *symbols; i++)
        if (!(*symbols[i].fn = dlsym(lib, symbols[i].symbol))) {
            snprintf(load_why, sizeof load_why, "%s: no %s (a driver older than NVML 11?)", path,
                     symbols[i].symbol);
            dlclose(lib);
            return;
        }
    nvml_return r = nvml.init();
    if (r != 0) {
        snprintf(load_why, sizeof load_why, "nvmlInit: %s", nvml.error_string(r));
        dlclose(lib);
        return;
    }
    loaded = true; /* the library stays loaded for the life of the process */
}

bool mpb_nvml_available(char *why, size_t why_len)
{
    pthread_once(&load_once, nvml_load);
    if (!loaded && why)
        snprintf(why, why_len, "%s", load_why);
    return loaded;
}

bool mpb_nvml_driver(char *buf, size_t len)
{
    char v[NVML_BUFFER];
    if (!mpb_nvml_available(NULL, 0) || nvml.driver_version(v, sizeof v) != 0)
        return false;
    snprintf(buf, len, "%s", v);
    return true;
}

int mpb_nvml_gpu_count(void)
{
    unsigned n;
    return mpb_nvml_available(NULL, 0) && nvml.count(&n) == 0 ? (int)n : 0;
}

static int clock_mhz(nvml_return (*fn)(nvml_device, int, unsigned *), nvml_device d, int which)
{
    unsigned v;
    return fn(d, which, &v) == 0 ? (int)v : -1;
}

static bool describe(nvml_device d, struct mpb_nvml_gpu *g)
{
    struct nvml_memory mem;
    unsigned mw, temp;
    unsigned long long mj;
    int pstate;
    memset(g, 0, sizeof *g);
    if (nvml.name(d, g->name, sizeof g->name) != 0 || nvml.uuid(d, g->uuid, sizeof g->uuid) != 0)
        return false;
    g->mem_bytes = nvml.memory(d, &mem) == 0 ? mem.total : 0;
    g->sm_clock_mhz = clock_mhz(nvml.clock, d, NVML_CLOCK_SM);
    g->max_sm_clock_mhz = clock_mhz(nvml.max_clock, d, NVML_CLOCK_SM);
    g->mem_clock_mhz = clock_mhz(nvml.clock, d, NVML_CLOCK_MEM);
    g->max_mem_clock_mhz = clock_mhz(nvml.max_clock, d, NVML_CLOCK_MEM);
    g->power_limit_w = nvml.power_limit(d, &mw) == 0 ? mw * 1e-3 : NAN;
    g->power_w = nvml.power(d, &mw) == 0 ? mw * 1e-3 : NAN;
    g->temperature_c = nvml.temperature(d, NVML_TEMPERATURE_GPU, &temp) == 0 ? (int)temp : -1;
    g->pstate = nvml.pstate(d, &pstate) == 0 && pstate >= 0 && pstate <= 15 ? pstate : -1;
    g->energy_counter = nvml.energy(d, &mj) == 0;
    return true;
}

bool mpb_nvml_gpu_at(int index, struct mpb_nvml_gpu *g)
{
    nvml_device d;
    return mpb_nvml_available(NULL, 0) && index >= 0 && nvml.by_index((unsigned)index, &d) == 0 && describe(d, g);
}

bool mpb_nvml_gpu_find(const char *uuid, struct mpb_nvml_gpu *g)
{
    nvml_device d;
    return mpb_nvml_available(NULL, 0) && nvml.by_uuid(uuid, &d) == 0 && describe(d, g);
}

struct mpb_energy_meter {
    nvml_device dev;
    struct timespec t0;
    unsigned long long mj0; /* the counter at start (energy_counter) */
    bool energy_counter;
    /* the sampler (no energy counter): the sum and count of its readings */
    pthread_t thread;
    atomic_bool stop, failed;
    double sum_w;
    long samples;
};

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

/* One reading into the sum; a failed one ends the measurement (a mean over
 * part of the window would pass for the whole). */
static void sample(struct mpb_energy_meter *m)
{
    unsigned mw;
    if (nvml.power(m->dev, &mw) != 0) {
        atomic_store(&m->failed, true);
        return;
    }
    m->sum_w += mw * 1e-3;
    m->samples++;
}

static void *sampler(void *arg)
{
    struct mpb_energy_meter *m = arg;
    const struct timespec period = {0, MPB_NVML_SAMPLE_MS * 1000000L};
    while (!atomic_load(&m->stop) && !atomic_load(&m->failed)) {
        sample(m);
        nanosleep(&period, NULL);
    }
    return NULL;
}

struct mpb_energy_meter *mpb_energy_start(const char *uuid)
{
    struct mpb_energy_meter *m = calloc(1, sizeof *m);
    unsigned mw;
    if (!m || !mpb_nvml_available(NULL, 0) || nvml.by_uuid(uuid, &m->dev) != 0) {
        free(m);
        return NULL;
    }
    atomic_init(&m->stop, false);
    atomic_init(&m->failed, false);
    m->energy_counter = nvml.energy(m->dev, &m->mj0) == 0;
    if (!m->energy_counter && nvml.power(m->dev, &mw) != 0) {
        free(m);
        return NULL;
    }
    clock_gettime(CLOCK_MONOTONIC, &m->t0);
    if (!m->energy_counter && pthread_create(&m->thread, NULL, sampler, m) != 0) {
        free(m);
        return NULL;
    }
    return m;
}

double mpb_energy_elapsed(const struct mpb_energy_meter *m)
{
    return seconds_since(&m->t0);
}

bool mpb_energy_stop(struct mpb_energy_meter *m, double *joules, double *seconds)
{
    if (!m)
        return false;
    bool ok;
    if (m->energy_counter) {
        unsigned long long mj1;
        ok = nvml.energy(m->dev, &mj1) == 0 && mj1 > m->mj0; /* the counter only grows */
        *seconds = seconds_since(&m->t0);
        *joules = ok ? (double)(mj1 - m->mj0) * 1e-3 : NAN;
    } else {
        atomic_store(&m->stop, true);
        pthread_join(m->thread, NULL);
        *seconds = seconds_since(&m->t0);
        sample(m); /* the end of the window, so that a short one has a reading too */
        ok = !atomic_load(&m->failed) && m->samples > 0;
        *joules = ok ? m->sum_w / (double)m->samples * *seconds : NAN;
    }
    free(m);
    return ok && *seconds > 0;
}
