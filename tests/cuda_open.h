/* The GPU tests' first step: device 0, or exit 77 (meson: skipped) with the
 * reason when there is none. */
#ifndef MPB_TEST_CUDA_OPEN_H
#define MPB_TEST_CUDA_OPEN_H

#include <stdio.h>
#include <stdlib.h>

#include "cuda_env.h"

static inline struct mpb_cuda_env *test_cuda_open_or_skip(void)
{
    char why[256];
    struct mpb_cuda_env *env = mpb_cuda_open(0, why, sizeof why);
    if (!env) {
        printf("skipped: %s\n", why);
        exit(77);
    }
    return env;
}

#endif
