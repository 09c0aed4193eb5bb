/* libFuzzer harness: the VALUES grammar (src/case/values.c, mpb_values_parse).
 * Input: one VALUES string as typed after an option (corpus/values/). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_util.h"
#include "case/values.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    struct mpb_values v;
    char why[256];
    why[0] = '\0';
    if (mpb_values_parse(text, &v, why, sizeof why)) {
        FUZZ_CHECK(v.n >= 1 && v.n <= MPB_VALUES_MAX);
        for (int i = 0; i < v.n; i++)
            FUZZ_CHECK(v.items[i] && v.items[i][0]);
        mpb_values_free(&v);
        FUZZ_CHECK(v.n == 0 && v.items == NULL);
    } else {
        /* A refusal always says why, and leaves nothing to free. */
        FUZZ_CHECK(why[0] != '\0' && memchr(why, '\0', sizeof why));
        FUZZ_CHECK(v.n == 0 && v.items == NULL);
    }
    free(text);
    return 0;
}
