#include "record/dump.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool mpb_dump_check(const char *dir, char *why, size_t why_len)
{
    struct stat st;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(why, why_len, "--dump %s: cannot create it: %s", dir, strerror(errno));
        return false;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(why, why_len, "--dump %s: not a folder", dir);
        return false;
    }
    /* the one way to know that each case's folder can be made in it */
    char probe[4096];
    snprintf(probe, sizeof probe, "%s/.mpbench-probe-XXXXXX", dir);
    int fd = mkstemp(probe);
    if (fd < 0) {
        snprintf(why, why_len, "--dump %s: cannot write in it: %s", dir, strerror(errno));
        return false;
    }
    close(fd);
    unlink(probe);
    return true;
}

static bool make_dir(const char *path, char *why, size_t why_len)
{
    if (mkdir(path, 0777) == 0 || errno == EEXIST)
        return true;
    snprintf(why, why_len, "--dump: cannot create %s: %s", path, strerror(errno));
    return false;
}

static bool write_case_text(const char *path, const struct mpb_case *c)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    fprintf(f, "mpbench run %s\n", c->text);
    return fclose(f) == 0;
}

/* The reference columns as separate vectors; complex values (`parts` 2:
 * v holds each entry's two parts) as complex128 vectors. */
static bool dump_reference(const char *base, const struct mpb_ref_entry *e, const struct mpb_ref_value *v,
                           int64_t n, int parts)
{
    int64_t *idx = malloc(sizeof *idx * (size_t)n);
    double *val = malloc(sizeof *val * (size_t)(n * parts));
    bool ok = idx && val;
    char path[4200];
    for (int which = 0; ok && which < 5; which++) {
        static const char *const names[5] = {"ref_i", "ref_j", "ref_hi", "ref_lo", "ref_rounded"};
        for (int64_t p = 0; p < n; p++) {
            if (which < 2)
                idx[p] = which == 0 ? e[p].i : e[p].j;
            else
                for (int q = 0; q < parts; q++) {
                    const struct mpb_ref_value *w = &v[p * parts + q];
                    val[p * parts + q] = which == 2 ? w->hi : which == 3 ? w->lo : w->rounded;
                }
        }
        snprintf(path, sizeof path, "%s/%s.npy", base, names[which]);
        ok = mpb_npy_write(path, which < 2 ? "<i8" : parts == 2 ? "<c16" : "<f8",
                           which < 2 ? (void *)idx : (void *)val, n, 0);
    }
    free(idx);
    free(val);
    return ok;
}

bool mpb_dump_case(const char *dir, const struct mpb_case *c, const struct mpb_result *res,
                   const struct mpb_ref_entry *e, const struct mpb_ref_value *v, int64_t n,
                   char *why, size_t why_len)
{
    char base[4096], path[4200];
    snprintf(base, sizeof base, "%s/%s", dir, c->id);
    if (!make_dir(dir, why, why_len) || !make_dir(base, why, why_len))
        return false;
    bool cplx = c->scheme->field == MPB_FIELD_COMPLEX;
    const char *descr = c->scheme->target == MPB_TARGET_FP64 ? (cplx ? "<c16" : "<f8") : (cplx ? "<c8" : "<f4");
    bool ok = true;
    snprintf(path, sizeof path, "%s/case.txt", base);
    ok = ok && write_case_text(path, c);
    snprintf(path, sizeof path, "%s/A.npy", base);
    ok = ok && mpb_npy_write(path, descr, res->a, c->m, c->k);
    snprintf(path, sizeof path, "%s/B.npy", base);
    ok = ok && mpb_npy_write(path, descr, res->b, c->k, c->n);
    snprintf(path, sizeof path, "%s/C.npy", base);
    ok = ok && mpb_npy_write(path, descr, res->c, c->m, c->n);
    if (ok && n > 0)
        ok = dump_reference(base, e, v, n, mpb_field_parts(c->scheme->field));
    if (!ok)
        snprintf(why, why_len, "--dump: writing %s failed: %s", base, strerror(errno));
    return ok;
}
