/* The `file` generator's operands (file_gen.h). */
#include "file_gen.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sha256.h"

const char *const mpb_gen_files_keys[] = {"a", "b", "c", "a_sha256", "b_sha256", "c_sha256", "trace", "call", NULL};
enum { KEY_TRACE = 2 * MPB_FILE_COUNT, KEY_CALL };

static const char *const operand_names[MPB_FILE_COUNT] = {"a", "b", "c"};

bool mpb_gen_files_arg(struct mpb_gen_files *fs, const char *key, const char *value, char *why, size_t why_len)
{
    int which = -1;
    for (int i = 0; mpb_gen_files_keys[i]; i++)
        if (!strcmp(key, mpb_gen_files_keys[i]))
            which = i;
    if (which < 0) {
        snprintf(why, why_len, "no key '%s' (it takes a=PATH, b=PATH, c=PATH, a_sha256=HEX, b_sha256=HEX, "
                 "c_sha256=HEX, trace=PATH, call=N)", key);
        return false;
    }
    struct mpb_gen_file *f = &fs->f[which % MPB_FILE_COUNT];
    size_t len = strlen(value);
    if (which == KEY_CALL) {
        if (len < 1 || len >= sizeof fs->call || strspn(value, "0123456789") != len) {
            snprintf(why, why_len, "call '%s': expected a call index (digits)", value);
            return false;
        }
        memcpy(fs->call, value, len + 1);
        return true;
    }
    if (which >= MPB_FILE_COUNT && which < KEY_TRACE) {
        if (len < 1 || len > 64 || strspn(value, "0123456789abcdefABCDEF") != len) {
            snprintf(why, why_len, "%s '%s': expected 1 to 64 hex digits (the start of the file's SHA-256, as "
                     "sha256sum prints it)", key, value);
            return false;
        }
        for (size_t i = 0; i <= len; i++)
            f->want_sha[i] = (char)tolower((unsigned char)value[i]);
        return true;
    }
    /* the path is a word of the case string and of the gen_params cell */
    for (const char *p = value; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f || *p == '"' || *p == '\'' || *p == '\\') {
            snprintf(why, why_len, "%s '%s': a path with a space, a quote, a backslash or a control character "
                     "cannot be written in the case string: rename the file or link to it", key, value);
            return false;
        }
    if (len < 1 || len > MPB_FILE_PATH_MAX) {
        snprintf(why, why_len, "%s: a path of 1 to %d characters (this one has %zu): use a shorter relative path "
                 "or a link", key, MPB_FILE_PATH_MAX, len);
        return false;
    }
    memcpy(which == KEY_TRACE ? fs->trace : f->path, value, len + 1);
    return true;
}

/* The whole of a regular file. */
static uint8_t *read_whole(const char *path, size_t *len, char *why, size_t why_len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(why, why_len, "cannot open it: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, why_len, "not a regular file");
        close(fd);
        return NULL;
    }
    size_t size = (size_t)st.st_size, got = 0;
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        snprintf(why, why_len, "out of memory for its %zu bytes", size);
    while (buf && got < size) {
        ssize_t r = read(fd, buf + got, size - got);
        if (r <= 0) {
            snprintf(why, why_len, "reading it failed at byte %zu: %s", got, r < 0 ? strerror(errno) : "it shrank");
            free(buf);
            buf = NULL;
        } else {
            got += (size_t)r;
        }
    }
    close(fd);
    *len = size;
    return buf;
}

static bool load_one(struct mpb_gen_file *f, const char *name, char *why, size_t why_len)
{
    char what[400];
    size_t len = 0;
    uint8_t *buf = read_whole(f->path, &len, what, sizeof what);
    bool ok = buf != NULL;
    if (ok) {
        mpb_sha256_hex(buf, len, f->sha, 64);
        if (len >= 6 && !memcmp(buf, MPB_NPY_MAGIC, 6))
            ok = mpb_npy_parse(buf, len, &f->mat, what, sizeof what);
        else if ((f->mm = len >= strlen(MPB_MM_BANNER) && !memcmp(buf, MPB_MM_BANNER, strlen(MPB_MM_BANNER))))
            ok = mpb_mm_parse(buf, len, &f->mat, what, sizeof what);
        else {
            snprintf(what, sizeof what, "byte 0: neither a .npy file (\\x93NUMPY) nor a Matrix Market file (%s)",
                     MPB_MM_BANNER);
            ok = false;
        }
    }
    free(buf);
    if (ok && f->want_sha[0] && strncmp(f->sha, f->want_sha, strlen(f->want_sha))) {
        snprintf(what, sizeof what, "its SHA-256 begins %.16s, not %s as %s_sha256 says: the file changed since the "
                 "case was written", f->sha, f->want_sha, name);
        mpb_mat_free(&f->mat);
        ok = false;
    }
    if (!ok)
        snprintf(why, why_len, "%s=%s: %s", name, f->path, what);
    return ok;
}

static void size_text(const struct mpb_gen_file *f, char *buf, size_t len)
{
    snprintf(buf, len, "%lld x %lld %s", (long long)f->mat.rows, (long long)f->mat.cols, f->mat.dtype);
}

static bool check_shapes(const struct mpb_gen_files *fs, char *why, size_t why_len)
{
    const struct mpb_gen_file *a = &fs->f[MPB_FILE_A], *b = &fs->f[MPB_FILE_B], *c = &fs->f[MPB_FILE_C];
    char sa[96], sb[96], sc[96];
    size_text(a, sa, sizeof sa);
    size_text(b, sb, sizeof sb);
    if (a->mat.field != b->mat.field) {
        snprintf(why, why_len, "a=%s is %s and b=%s is %s: A and B must both be real or both complex", a->path, sa,
                 b->path, sb);
        return false;
    }
    if (a->mat.cols != b->mat.rows) {
        snprintf(why, why_len, "a=%s is %s and b=%s is %s: A's columns (%lld) must equal B's rows (%lld)", a->path,
                 sa, b->path, sb, (long long)a->mat.cols, (long long)b->mat.rows);
        return false;
    }
    if (!c->path[0])
        return true;
    size_text(c, sc, sizeof sc);
    if (c->mat.rows != a->mat.rows || c->mat.cols != b->mat.cols || c->mat.field != a->mat.field) {
        snprintf(why, why_len, "c=%s is %s: C = A·B is %lld x %lld %s (a=%s, b=%s)", c->path, sc,
                 (long long)a->mat.rows, (long long)b->mat.cols,
                 a->mat.field == MPB_FIELD_COMPLEX ? "complex" : "real", a->path, b->path);
        return false;
    }
    return true;
}

bool mpb_gen_files_load(struct mpb_gen_files *fs, char *why, size_t why_len)
{
    for (int i = 0; i < MPB_FILE_COUNT; i++)
        if (fs->f[i].want_sha[0] && !fs->f[i].path[0]) {
            snprintf(why, why_len, "%s_sha256 without %s=PATH", operand_names[i], operand_names[i]);
            return false;
        }
    if (!fs->f[MPB_FILE_A].path[0] || !fs->f[MPB_FILE_B].path[0]) {
        snprintf(why, why_len, "give -a a=PATH and -a b=PATH (C = A·B, A m x k, B k x n; .npy or Matrix Market "
                 "array files)");
        return false;
    }
    for (int i = 0; i < MPB_FILE_COUNT; i++)
        if (fs->f[i].path[0] && !load_one(&fs->f[i], operand_names[i], why, why_len)) {
            mpb_gen_files_free(fs);
            return false;
        }
    if (!check_shapes(fs, why, why_len)) {
        mpb_gen_files_free(fs);
        return false;
    }
    fs->loaded = true;
    return true;
}

void mpb_gen_files_free(struct mpb_gen_files *fs)
{
    for (int i = 0; i < MPB_FILE_COUNT; i++)
        mpb_mat_free(&fs->f[i].mat);
    fs->loaded = false;
}

void mpb_gen_files_shape(const struct mpb_gen_files *fs, int64_t *m, int64_t *n, int64_t *k)
{
    *m = fs->f[MPB_FILE_A].mat.rows;
    *k = fs->f[MPB_FILE_A].mat.cols;
    *n = fs->f[MPB_FILE_B].mat.cols;
}

bool mpb_gen_files_fit(const struct mpb_gen_files *fs, enum mpb_target target, enum mpb_field field,
                       char *why, size_t why_len)
{
    const struct mpb_gen_file *a = &fs->f[MPB_FILE_A];
    if (a->mat.field != field) {
        snprintf(why, why_len, field == MPB_FIELD_REAL
                                   ? "a=%s holds complex values (%s): a real scheme cannot take them; use a complex one"
                                   : "a=%s holds real values (%s): a complex scheme needs complex files "
                                     "(complex128, complex64, Matrix Market 'complex')",
                 a->path, a->mat.dtype);
        return false;
    }
    for (int i = MPB_FILE_A; target == MPB_TARGET_FP32 && i <= MPB_FILE_B; i++) {
        const struct mpb_mat *m = &fs->f[i].mat;
        if (m->not_fp32 < 0)
            continue;
        int parts = mpb_field_parts(m->field);
        int64_t e = m->not_fp32 / parts;
        long long r = (long long)(e % m->rows), c = (long long)(e / m->rows);
        char at[64], v[32];
        if (fs->f[i].mm)
            snprintf(at, sizeof at, "(%lld, %lld)", r + 1, c + 1);
        else
            snprintf(at, sizeof at, "[%lld, %lld]", r, c);
        snprintf(v, sizeof v, "%.17g", m->v[m->not_fp32]);
        snprintf(why, why_len, "%s=%s: entry %s%s = %s is not exact in float32, and an fp32 scheme would round it: "
                 "use an fp64 scheme, or save the matrix as float32", operand_names[i], fs->f[i].path, at,
                 parts == 1 ? "" : m->not_fp32 % 2 ? " (imaginary part)" : " (real part)", v);
        return false;
    }
    return true;
}

static size_t format_files(const struct mpb_gen_files *fs, bool as_args, char *buf, size_t len)
{
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    for (int i = 0; i < MPB_FILE_COUNT; i++) {
        if (!fs->f[i].path[0])
            continue;
        const char *sep = as_args ? " -a " : used ? " " : "";
        int w = snprintf(buf + (used < len ? used : len), used < len ? len - used : 0, "%s%s=%s%s%s_sha256=%.*s",
                         sep, operand_names[i], fs->f[i].path, as_args ? " -a " : " ", operand_names[i],
                         MPB_FILE_SHA_DIGITS, fs->f[i].sha);
        used += w > 0 ? (size_t)w : 0;
    }
    for (int i = KEY_TRACE; i <= KEY_CALL; i++) {
        const char *v = i == KEY_TRACE ? fs->trace : fs->call;
        int w = *v ? snprintf(buf + (used < len ? used : len), used < len ? len - used : 0, "%s%s=%s",
                              as_args ? " -a " : " ", mpb_gen_files_keys[i], v)
                   : 0;
        used += w > 0 ? (size_t)w : 0;
    }
    return used;
}

size_t mpb_gen_files_params(const struct mpb_gen_files *fs, char *buf, size_t len)
{
    return format_files(fs, false, buf, len);
}

size_t mpb_gen_files_case_args(const struct mpb_gen_files *fs, char *buf, size_t len)
{
    return format_files(fs, true, buf, len);
}

void mpb_gen_files_fill(const struct mpb_gen_files *fs, enum mpb_operand which, enum mpb_target target, void *dst)
{
    const struct mpb_mat *m = &fs->f[which == MPB_OPERAND_A ? MPB_FILE_A : MPB_FILE_B].mat;
    int64_t count = m->rows * m->cols * mpb_field_parts(m->field);
    if (target == MPB_TARGET_FP64)
        memcpy(dst, m->v, sizeof(double) * (size_t)count);
    else
        for (int64_t i = 0; i < count; i++)
            ((float *)dst)[i] = (float)m->v[i]; /* exact: mpb_gen_files_fit checked every value */
}
