/* A stand-in for libnvidia-ml.so.1 (src/core/mpb_nvml.c loads it through
 * MPBENCH_NVML_LIB): one GPU with fixed clocks and a 700 W power limit, so
 * that the CPU suite sees what NVML's readings become. Read at every call:
 * FAKE_NVML_POWER_MW is the board power (default 250000);
 * FAKE_NVML_ENERGY_STEP_MJ, when set, makes the energy counter readable and
 * grow by that many mJ at each reading; FAKE_NVML_ENERGY_UPDATE_MS, when
 * set instead, makes it a counter as coarse as a real one: the energy at
 * that power up to the last multiple of that many ms of CLOCK_MONOTONIC. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FAKE_UUID "GPU-00000000-1111-2222-3333-444444444444"

typedef struct fake_dev *nvmlDevice_t;
static struct fake_dev {
    int unused;
} the_gpu;
static unsigned long long counter_mj = 1000000;

int nvmlInit_v2(void)
{
    return 0;
}

const char *nvmlErrorString(int r)
{
    return r == 3 ? "Not Supported" : "Unknown Error";
}

int nvmlSystemGetDriverVersion(char *buf, unsigned len)
{
    snprintf(buf, len, "999.1.2");
    return 0;
}

int nvmlDeviceGetCount_v2(unsigned *n)
{
    *n = 1;
    return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *d)
{
    *d = &the_gpu;
    return i == 0 ? 0 : 2; /* 2: NVML_ERROR_INVALID_ARGUMENT */
}

int nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *d)
{
    *d = &the_gpu;
    return strcmp(uuid, FAKE_UUID) ? 6 : 0; /* 6: NVML_ERROR_NOT_FOUND */
}

int nvmlDeviceGetName(nvmlDevice_t d, char *buf, unsigned len)
{
    (void)d;
    snprintf(buf, len, "Fake H200");
    return 0;
}

int nvmlDeviceGetUUID(nvmlDevice_t d, char *buf, unsigned len)
{
    (void)d;
    snprintf(buf, len, FAKE_UUID);
    return 0;
}

int nvmlDeviceGetMemoryInfo(nvmlDevice_t d, unsigned long long *mem) /* nvmlMemory_t: total, free, used */
{
    (void)d;
    mem[0] = 150000000000ULL;
    mem[1] = mem[0];
    mem[2] = 0;
    return 0;
}

int nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned *mhz)
{
    (void)d;
    *mhz = type == 1 ? 1755 : 2619; /* NVML_CLOCK_SM, NVML_CLOCK_MEM */
    return 0;
}

int nvmlDeviceGetMaxClockInfo(nvmlDevice_t d, int type, unsigned *mhz)
{
    (void)d;
    *mhz = type == 1 ? 1980 : 3201;
    return 0;
}

int nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned *mw)
{
    (void)d;
    *mw = 700000;
    return 0;
}

static unsigned power_mw(void)
{
    const char *p = getenv("FAKE_NVML_POWER_MW");
    return p ? (unsigned)strtoul(p, NULL, 10) : 250000;
}

int nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned *mw)
{
    (void)d;
    *mw = power_mw();
    return 0;
}

int nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t d, unsigned long long *mj)
{
    (void)d;
    const char *step = getenv("FAKE_NVML_ENERGY_STEP_MJ"), *update = getenv("FAKE_NVML_ENERGY_UPDATE_MS");
    if (update && *update) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        unsigned long long ms = (unsigned long long)t.tv_sec * 1000 + (unsigned long long)t.tv_nsec / 1000000;
        unsigned long long every = strtoull(update, NULL, 10);
        *mj = ms / every * every * power_mw() / 1000; /* mW · ms = µJ */
        return 0;
    }
    if (!step || !*step)
        return 3; /* NVML_ERROR_NOT_SUPPORTED */
    *mj = counter_mj;
    counter_mj += strtoull(step, NULL, 10);
    return 0;
}

int nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned *c)
{
    (void)d;
    (void)sensor;
    *c = 41;
    return 0;
}

int nvmlDeviceGetPerformanceState(nvmlDevice_t d, int *p)
{
    (void)d;
    *p = 0;
    return 0;
}
