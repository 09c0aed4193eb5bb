/* What both matrix parsers share (mat_read.h). */
#include "mat_read.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

void mpb_mat_find_not_fp32(struct mpb_mat *m)
{
    int64_t count = m->rows * m->cols * mpb_field_parts(m->field);
    m->not_fp32 = -1;
    if (m->precision == MPB_TARGET_FP32)
        return;
    for (int64_t i = 0; i < count; i++)
        /* the range test first: converting a double beyond FLT_MAX to float is undefined */
        if (!(fabs(m->v[i]) <= FLT_MAX) || (double)(float)m->v[i] != m->v[i]) {
            m->not_fp32 = i;
            return;
        }
}

void mpb_mat_free(struct mpb_mat *m)
{
    free(m->v);
    m->v = NULL;
}
