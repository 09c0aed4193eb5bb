/* The .npy format (numpy.lib.format): the magic "\x93NUMPY", a version
 * (1.0: a 2-byte header length; 2.0, 3.0: 4 bytes), then the header, a
 * Python dict literal {'descr': '<f8', 'fortran_order': False, 'shape':
 * (3, 4), } padded with spaces and a newline, then the data. The header is
 * read as the literal it is, not evaluated. */
#include "mat_read.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MPB_NPY_DIM_MAX (INT64_C(1) << 31)

struct cursor {
    const uint8_t *buf;
    size_t at, end; /* the header: [at, end) */
    char *why;
    size_t why_len;
};

static bool fail(struct cursor *c, size_t at, const char *fmt, ...)
{
    va_list ap;
    int used = snprintf(c->why, c->why_len, "byte %zu: ", at);
    va_start(ap, fmt);
    if (used >= 0 && (size_t)used < c->why_len)
        vsnprintf(c->why + used, c->why_len - (size_t)used, fmt, ap);
    va_end(ap);
    return false;
}

static void skip_space(struct cursor *c)
{
    while (c->at < c->end && (c->buf[c->at] == ' ' || c->buf[c->at] == '\t' || c->buf[c->at] == '\n' ||
                              c->buf[c->at] == '\r'))
        c->at++;
}

static bool expect(struct cursor *c, char ch, const char *what)
{
    skip_space(c);
    if (c->at < c->end && c->buf[c->at] == (uint8_t)ch) {
        c->at++;
        return true;
    }
    return fail(c, c->at, "header: expected %s", what);
}

/* A quoted string without escapes, into out (at most out_len − 1 bytes). */
static bool read_string(struct cursor *c, char *out, size_t out_len, const char *what)
{
    skip_space(c);
    size_t start = c->at;
    if (c->at >= c->end || (c->buf[c->at] != '\'' && c->buf[c->at] != '"'))
        return fail(c, start, "header: expected %s as a quoted string", what);
    uint8_t quote = c->buf[c->at++];
    size_t n = 0;
    while (c->at < c->end && c->buf[c->at] != quote) {
        uint8_t ch = c->buf[c->at++];
        if (ch == '\\' || ch < 0x20 || ch >= 0x7f || n + 1 >= out_len)
            return fail(c, start, "header: %s is not a short plain string", what);
        out[n++] = (char)ch;
    }
    if (c->at >= c->end)
        return fail(c, start, "header: %s: unterminated string", what);
    c->at++;
    out[n] = '\0';
    return true;
}

static bool word_at(const struct cursor *c, const char *word)
{
    size_t len = strlen(word);
    return c->end - c->at >= len && !memcmp(c->buf + c->at, word, len);
}

static bool read_bool(struct cursor *c, bool *out)
{
    skip_space(c);
    if (word_at(c, "True") || word_at(c, "False")) {
        *out = c->buf[c->at] == 'T';
        c->at += *out ? 4 : 5;
        return true;
    }
    return fail(c, c->at, "header: fortran_order is not True or False");
}

/* (d0, d1, ...): the dimensions, at most 4 kept (more is refused later). */
static bool read_shape(struct cursor *c, int64_t *dims, int *n_dims)
{
    if (!expect(c, '(', "the shape tuple '('"))
        return false;
    *n_dims = 0;
    for (;;) {
        skip_space(c);
        if (c->at < c->end && c->buf[c->at] == ')') {
            c->at++;
            return true;
        }
        size_t start = c->at;
        int64_t d = 0;
        while (c->at < c->end && c->buf[c->at] >= '0' && c->buf[c->at] <= '9') {
            d = d * 10 + (c->buf[c->at++] - '0');
            if (d > MPB_NPY_DIM_MAX)
                return fail(c, start, "header: a dimension of the shape exceeds 2^31");
        }
        if (c->at == start)
            return fail(c, start, "header: the shape holds something other than non-negative integers");
        if (c->at < c->end && c->buf[c->at] == 'L') /* Python 2's long */
            c->at++;
        if (*n_dims < 4)
            dims[*n_dims] = d;
        (*n_dims)++;
        skip_space(c);
        if (c->at < c->end && c->buf[c->at] == ',')
            c->at++;
        else if (c->at >= c->end || c->buf[c->at] != ')')
            return fail(c, c->at, "header: expected ',' or ')' in the shape");
    }
}

struct npy_dtype {
    const char *descr, *name;
    enum mpb_field field;
    enum mpb_target precision;
    size_t part_bytes;
};

static const struct npy_dtype dtypes[] = {
    {"<f8", "float64", MPB_FIELD_REAL, MPB_TARGET_FP64, 8},
    {"<f4", "float32", MPB_FIELD_REAL, MPB_TARGET_FP32, 4},
    {"<c16", "complex128", MPB_FIELD_COMPLEX, MPB_TARGET_FP64, 8},
    {"<c8", "complex64", MPB_FIELD_COMPLEX, MPB_TARGET_FP32, 4},
};

static bool find_dtype(struct cursor *c, size_t at, const char *descr, const struct npy_dtype **out)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
        if (!strcmp(descr, dtypes[i].descr)) {
            *out = &dtypes[i];
            return true;
        }
    const char *kinds = "; mpbench reads float64 '<f8', float32 '<f4', complex128 '<c16' and complex64 '<c8'";
    if (descr[0] == '>')
        for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes; i++)
            if (!strcmp(descr + 1, dtypes[i].descr + 1))
                return fail(c, at, "header: descr '%s' is big-endian%s (a.astype('%s'))", descr, kinds,
                            dtypes[i].descr);
    if (strchr(descr, 'O'))
        return fail(c, at, "header: descr '%s' is an array of Python objects%s", descr, kinds);
    return fail(c, at, "header: descr '%s' is not a type mpbench reads%s", descr, kinds);
}

/* The three keys, each once, in any order; nothing else. */
static bool read_header(struct cursor *c, const struct npy_dtype **dtype, bool *fortran, int64_t *dims,
                        int *n_dims)
{
    bool seen[3] = {false, false, false};
    if (!expect(c, '{', "the header dict '{'"))
        return false;
    for (;;) {
        skip_space(c);
        if (c->at < c->end && c->buf[c->at] == '}') {
            c->at++;
            break;
        }
        char key[32], descr[32];
        size_t key_at = c->at;
        if (!read_string(c, key, sizeof key, "a key") || !expect(c, ':', "':' after a key"))
            return false;
        int which = !strcmp(key, "descr") ? 0 : !strcmp(key, "fortran_order") ? 1 : !strcmp(key, "shape") ? 2 : -1;
        if (which < 0)
            return fail(c, key_at, "header: key '%s' is not one of descr, fortran_order, shape", key);
        if (seen[which])
            return fail(c, key_at, "header: key '%s' given twice", key);
        seen[which] = true;
        skip_space(c);
        size_t value_at = c->at;
        if (which == 0 && c->at < c->end && (c->buf[c->at] == '[' || c->buf[c->at] == '('))
            return fail(c, value_at, "header: descr is a structured dtype (a list of fields); mpbench reads "
                                     "plain float64, float32, complex128 and complex64 arrays");
        bool ok = which == 0   ? read_string(c, descr, sizeof descr, "descr") && find_dtype(c, value_at, descr, dtype)
                  : which == 1 ? read_bool(c, fortran)
                               : read_shape(c, dims, n_dims);
        if (!ok)
            return false;
        skip_space(c);
        if (c->at < c->end && c->buf[c->at] == ',')
            c->at++;
        else if (c->at >= c->end || c->buf[c->at] != '}')
            return fail(c, c->at, "header: expected ',' or '}' after the value of '%s'", key);
    }
    skip_space(c);
    if (c->at != c->end)
        return fail(c, c->at, "header: something after the dict's '}'");
    static const char *const names[3] = {"descr", "fortran_order", "shape"};
    for (int i = 0; i < 3; i++)
        if (!seen[i])
            return fail(c, c->end, "header: no '%s' key", names[i]);
    return true;
}

/* A little-endian IEEE value of `bytes` bytes at p. */
static double load_le(const uint8_t *p, size_t bytes)
{
    uint64_t u = 0;
    for (size_t i = 0; i < bytes; i++)
        u |= (uint64_t)p[i] << (8 * i);
    if (bytes == 8) {
        double d;
        memcpy(&d, &u, sizeof d);
        return d;
    }
    uint32_t w = (uint32_t)u;
    float f;
    memcpy(&f, &w, sizeof f);
    return f;
}

bool mpb_npy_parse(const uint8_t *buf, size_t len, struct mpb_mat *out, char *why, size_t why_len)
{
    struct cursor c = {.buf = buf, .why = why, .why_len = why_len};
    memset(out, 0, sizeof *out);
    if (len < 8 || memcmp(buf, MPB_NPY_MAGIC, 6))
        return fail(&c, 0, "not a .npy file (it does not begin with \\x93NUMPY)");
    if ((buf[6] != 1 && buf[6] != 2 && buf[6] != 3) || buf[7] != 0)
        return fail(&c, 6, "format version %d.%d: mpbench reads 1.0, 2.0 and 3.0", buf[6], buf[7]);
    size_t len_bytes = buf[6] == 1 ? 2 : 4, start = 8 + len_bytes;
    if (len < start)
        return fail(&c, 8, "the file ends inside the header length");
    size_t hlen = 0;
    for (size_t i = 0; i < len_bytes; i++)
        hlen |= (size_t)buf[8 + i] << (8 * i);
    if (hlen > len - start)
        return fail(&c, 8, "the header length %zu runs past the end of the file (%zu bytes)", hlen, len);
    c.at = start;
    c.end = start + hlen;
    const struct npy_dtype *dt = NULL;
    bool fortran = false;
    int64_t dims[4];
    int n_dims = 0;
    if (!read_header(&c, &dt, &fortran, dims, &n_dims))
        return false;
    if (n_dims != 2)
        return fail(&c, start, "the shape has %d dimension%s: A, B and C are 2-D arrays", n_dims,
                    n_dims == 1 ? "" : "s");
    if (dims[0] == 0 || dims[1] == 0)
        return fail(&c, start, "the shape (%lld, %lld) is empty", (long long)dims[0], (long long)dims[1]);
    /* both dimensions ≤ 2^31, so the counts below stay far from overflow */
    int parts = mpb_field_parts(dt->field);
    uint64_t count = (uint64_t)dims[0] * (uint64_t)dims[1], data_bytes = count * (uint64_t)parts * dt->part_bytes;
    size_t data = c.end, have = len - data;
    if (data_bytes > have)
        return fail(&c, data, "truncated: the shape (%lld, %lld) of %s needs %llu bytes of data, the file has %zu",
                    (long long)dims[0], (long long)dims[1], dt->descr, (unsigned long long)data_bytes, have);
    if (data_bytes < have)
        return fail(&c, data + (size_t)data_bytes, "%zu bytes after the data that the header describes",
                    have - (size_t)data_bytes);
    out->v = malloc(sizeof *out->v * (size_t)(count * (uint64_t)parts));
    if (!out->v)
        return fail(&c, data, "out of memory for %llu values", (unsigned long long)(count * (uint64_t)parts));
    out->rows = dims[0];
    out->cols = dims[1];
    out->field = dt->field;
    out->precision = dt->precision;
    out->dtype = dt->name;
    size_t elem = (size_t)parts * dt->part_bytes;
    for (int64_t j = 0; j < out->cols; j++)
        for (int64_t i = 0; i < out->rows; i++) {
            int64_t at = fortran ? i + j * out->rows : i * out->cols + j;
            for (int p = 0; p < parts; p++) {
                size_t off = data + (size_t)at * elem + (size_t)p * dt->part_bytes;
                double x = load_le(buf + off, dt->part_bytes);
                if (!isfinite(x)) {
                    mpb_mat_free(out);
                    return fail(&c, off, "entry [%lld, %lld]%s is %s: the values must be finite", (long long)i,
                                (long long)j, parts == 1 ? "" : p ? " (imaginary part)" : " (real part)",
                                isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
                }
                out->v[(i + j * out->rows) * parts + p] = x;
            }
        }
    mpb_mat_find_not_fp32(out);
    return true;
}
