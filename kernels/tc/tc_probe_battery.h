/* The probe's tests: inputs built to separate the hypotheses about one
 * tensor-core MMA (products exact? accumulator rounding? bits kept when
 * addends are aligned, relative to what? one fused sum per instruction or
 * several? subnormals? special values?), plus random ones. */
#ifndef MPB_TC_PROBE_BATTERY_H
#define MPB_TC_PROBE_BATTERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tc/tc_mma_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One floating test: d = c + sum a[l]*b[l] over k = tc_input_k(fmt). */
struct tc_ftest {
    const char *name; /* constructed tests: what it separates; random ones: "random" */
    float c, a[16], b[16];
    bool raw;         /* inputs not representable in the format (TF32 conversion test): not fitted */
};

struct tc_fbattery {
    enum tc_input fmt;
    int n;
    struct tc_ftest *t;
};

/* The constructed tests and `n_random` random ones from `seed`. false on
 * out of memory. */
bool tc_battery_build(struct tc_fbattery *b, enum tc_input fmt, int n_random, uint64_t seed);
void tc_battery_free(struct tc_fbattery *b);

/* One INT8 test: d = c + sum a[l]*b[l] over k = 32, in INT32. */
struct tc_itest {
    const char *name;
    int32_t c;
    int8_t a[32], b[32];
};

struct tc_ibattery {
    int n;
    struct tc_itest *t;
};

bool tc_ibattery_build(struct tc_ibattery *b, int n_random, uint64_t seed);
void tc_ibattery_free(struct tc_ibattery *b);

#ifdef __cplusplus
}
#endif

#endif
