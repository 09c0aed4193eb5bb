/* libFuzzer harness: the file generator's readers, mpb_npy_parse (the .npy
 * header's dict literal, the version, the data's size) and mpb_mm_parse
 * (Matrix Market arrays) (generators/npy_read.c, mm_read.c). Input: a
 * matrix file (corpus/mat_read/); both parsers read every input. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fuzz/fuzz_util.h"
#include "mat_read.h"

static void check(bool ok, struct mpb_mat *m, const char *why, const char *where)
{
    if (!ok) {
        /* a refusal says where, and leaves nothing to free */
        FUZZ_CHECK(!strncmp(why, where, strlen(where)) && m->v == NULL);
        return;
    }
    FUZZ_CHECK(m->rows >= 1 && m->rows <= (INT64_C(1) << 31) && m->cols >= 1 && m->cols <= (INT64_C(1) << 31));
    int64_t count = m->rows * m->cols * mpb_field_parts(m->field);
    for (int64_t i = 0; i < count; i++)
        FUZZ_CHECK(isfinite(m->v[i]));
    FUZZ_CHECK(m->not_fp32 >= -1 && m->not_fp32 < count);
    FUZZ_CHECK(m->precision == MPB_TARGET_FP64 || m->not_fp32 == -1);
    mpb_mat_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mpb_mat m;
    char why[512] = "";
    check(mpb_npy_parse(data, size, &m, why, sizeof why), &m, why, "byte ");
    why[0] = '\0';
    check(mpb_mm_parse(data, size, &m, why, sizeof why), &m, why, "line ");
    return 0;
}
