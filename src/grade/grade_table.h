/* `mpbench grade`'s verdict table for people (stdout): one aligned row per
 * configuration, labelled with its parameters, then each configuration's
 * counts, the sentence that explains its grade and its worst cases. */
#ifndef MPB_GRADE_TABLE_H
#define MPB_GRADE_TABLE_H

#include <stdio.h>
#include "grade/grade.h"

/* "scheme k=v ...": the scheme and the parameters not at their default
 * (two configurations of one scheme differ in at least one of those). */
void mpb_grade_label(const struct mpb_grade_config *cfg, char *buf, size_t len);

void mpb_grade_print_table(FILE *f, const struct mpb_grade_config *cfgs, const struct mpb_verdict *v, int n);

#endif
