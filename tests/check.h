/* Minimal test support: CHECK records a failure with its location and goes
 * on, so one run reports every broken assertion; the test's exit code is
 * the verdict (meson: 0 pass, 77 skip, other fail). */
#ifndef MPB_TEST_CHECK_H
#define MPB_TEST_CHECK_H

#include <stdio.h>

static int check_failures;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            check_failures++;                                                   \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
        }                                                                       \
    } while (0)

static inline int check_report(const char *name)
{
    if (check_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
    else
        printf("%s: all checks passed\n", name);
    return check_failures ? 1 : 0;
}

#endif
