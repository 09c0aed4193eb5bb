/* Matrix Market's dense format (NIST, "The Matrix Market Exchange
 * Formats", 1996): the banner "%%MatrixMarket matrix array FIELD SYMMETRY"
 * (words case-insensitive), comment lines starting with '%', a size line
 * "M N", then the M·N entries column by column, a complex one as two
 * numbers (real, imaginary). Entries are read as whitespace-separated
 * numbers, so one per line and several per line both read. */
#include "mat_read.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MPB_MM_DIM_MAX (INT64_C(1) << 31)

struct scan {
    const uint8_t *buf;
    size_t len, at;
    int64_t line; /* of buf[at], from 1 */
    char *why;
    size_t why_len;
};

static bool fail(struct scan *s, int64_t line, const char *fmt, ...)
{
    va_list ap;
    int used = snprintf(s->why, s->why_len, "line %lld: ", (long long)line);
    va_start(ap, fmt);
    if (used >= 0 && (size_t)used < s->why_len)
        vsnprintf(s->why + used, s->why_len - (size_t)used, fmt, ap);
    va_end(ap);
    return false;
}

static bool is_space(uint8_t ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\f' || ch == '\v';
}

/* The next whitespace-separated token into tok (NUL-terminated, cut at
 * tok_len − 1 bytes: a longer one is no number mpbench reads); its line in
 * *line; false at the end of the file. Stops at a line break when
 * `in_line` (the banner and the size line are one line each). */
static bool next_token(struct scan *s, bool in_line, char *tok, size_t tok_len, int64_t *line)
{
    while (s->at < s->len && is_space(s->buf[s->at])) {
        if (s->buf[s->at] == '\n') {
            if (in_line)
                return false;
            s->line++;
        }
        s->at++;
    }
    if (s->at >= s->len)
        return false;
    *line = s->line;
    size_t n = 0;
    while (s->at < s->len && !is_space(s->buf[s->at])) {
        if (n + 1 < tok_len)
            tok[n++] = (char)s->buf[s->at];
        s->at++;
    }
    tok[n] = '\0';
    return true;
}

static void next_line(struct scan *s)
{
    while (s->at < s->len && s->buf[s->at] != '\n')
        s->at++;
    if (s->at < s->len) {
        s->at++;
        s->line++;
    }
}

static bool read_banner(struct scan *s, enum mpb_field *field)
{
    static const char *const names[] = {"banner", "object", "format", "field", "symmetry"};
    char w[5][32];
    int64_t line = 1;
    for (int i = 0; i < 5; i++)
        if (!next_token(s, true, w[i], sizeof w[i], &line))
            return fail(s, 1, "the banner ends before its %s word (%%%%MatrixMarket matrix array real|complex "
                              "general)", names[i]);
    if (strcmp(w[0], MPB_MM_BANNER))
        return fail(s, 1, "not a Matrix Market file (the first line does not begin with %s)", MPB_MM_BANNER);
    if (strcasecmp(w[1], "matrix"))
        return fail(s, 1, "object '%s': mpbench reads 'matrix'", w[1]);
    if (!strcasecmp(w[2], "coordinate"))
        return fail(s, 1, "format 'coordinate' is sparse: mpbench reads dense 'array' files");
    if (strcasecmp(w[2], "array"))
        return fail(s, 1, "format '%s': mpbench reads dense 'array' files", w[2]);
    if (strcasecmp(w[3], "real") && strcasecmp(w[3], "complex"))
        return fail(s, 1, "field '%s': mpbench reads 'real' and 'complex'", w[3]);
    if (strcasecmp(w[4], "general"))
        return fail(s, 1, "symmetry '%s': mpbench reads 'general' (every entry stored)", w[4]);
    char extra[32];
    if (next_token(s, true, extra, sizeof extra, &line))
        return fail(s, 1, "'%s' after the banner's five words", extra);
    *field = strcasecmp(w[3], "complex") ? MPB_FIELD_REAL : MPB_FIELD_COMPLEX;
    next_line(s);
    return true;
}

static bool read_dim(struct scan *s, int64_t line, const char *tok, const char *what, int64_t *out)
{
    char *end;
    if (!*tok || strspn(tok, "0123456789") != strlen(tok) || strlen(tok) > 10 ||
        (*out = (int64_t)strtoll(tok, &end, 10)) < 1 || *out > MPB_MM_DIM_MAX)
        return fail(s, line, "the size line's %s '%s' is not an integer in 1..2^31", what, tok);
    return true;
}

/* Comment and blank lines, then "M N". */
static bool read_size(struct scan *s, int64_t *rows, int64_t *cols, int64_t *size_line)
{
    for (;;) {
        if (s->at >= s->len)
            return fail(s, s->line, "the file ends before the size line 'M N'");
        size_t at = s->at;
        while (at < s->len && (s->buf[at] == ' ' || s->buf[at] == '\t' || s->buf[at] == '\r'))
            at++;
        if (at < s->len && s->buf[at] != '%' && s->buf[at] != '\n')
            break;
        next_line(s);
    }
    char a[32], b[32], extra[32];
    int64_t line = s->line;
    *size_line = line;
    if (!next_token(s, true, a, sizeof a, &line) || !next_token(s, true, b, sizeof b, &line))
        return fail(s, *size_line, "the size line holds one number: an array's is 'M N'");
    if (next_token(s, true, extra, sizeof extra, &line))
        return fail(s, *size_line, "the size line holds three numbers (a coordinate file's): an array's is 'M N'");
    return read_dim(s, *size_line, a, "M", rows) && read_dim(s, *size_line, b, "N", cols);
}

bool mpb_mm_parse(const uint8_t *buf, size_t len, struct mpb_mat *out, char *why, size_t why_len)
{
    struct scan s = {.buf = buf, .len = len, .line = 1, .why = why, .why_len = why_len};
    memset(out, 0, sizeof *out);
    enum mpb_field field = MPB_FIELD_REAL;
    int64_t rows = 0, cols = 0, size_line = 0;
    if (!read_banner(&s, &field) || !read_size(&s, &rows, &cols, &size_line))
        return false;
    int parts = mpb_field_parts(field);
    uint64_t count = (uint64_t)rows * (uint64_t)cols * (uint64_t)parts;
    /* a number and a separator take two bytes at least */
    if (count > (len - s.at) / 2 + 1)
        return fail(&s, size_line, "too few values: the size line announces %lld x %lld entries (%llu values), "
                                   "more than the %zu bytes after it can hold", (long long)rows, (long long)cols,
                    (unsigned long long)count, len - s.at);
    out->v = malloc(sizeof *out->v * (size_t)count);
    if (!out->v)
        return fail(&s, size_line, "out of memory for %llu values", (unsigned long long)count);
    out->rows = rows;
    out->cols = cols;
    out->field = field;
    out->precision = MPB_TARGET_FP64;
    out->dtype = field == MPB_FIELD_COMPLEX ? "complex" : "real";
    for (uint64_t at = 0; at < count; at++) {
        char tok[64];
        int64_t line = s.line, e = (int64_t)(at / (uint64_t)parts);
        long long i = (long long)(e % rows) + 1, j = (long long)(e / rows) + 1;
        const char *part = parts == 1 ? "" : at % 2 ? " (imaginary part)" : " (real part)";
        if (!next_token(&s, false, tok, sizeof tok, &line)) {
            mpb_mat_free(out);
            return fail(&s, s.line, "the file ends after %llu of the %llu values that the size line (line %lld) "
                                    "announces", (unsigned long long)at, (unsigned long long)count,
                        (long long)size_line);
        }
        char *end;
        double x = strtod(tok, &end);
        if (end == tok || *end) {
            mpb_mat_free(out);
            return fail(&s, line, "entry (%lld, %lld)%s: '%s' is not a number", i, j, part, tok);
        }
        if (!isfinite(x)) {
            mpb_mat_free(out);
            return fail(&s, line, "entry (%lld, %lld)%s is %s: the values must be finite", i, j, part, tok);
        }
        out->v[at] = x;
    }
    char extra[64];
    int64_t line;
    if (next_token(&s, false, extra, sizeof extra, &line)) {
        mpb_mat_free(out);
        return fail(&s, line, "'%s': more values than the %lld x %lld that the size line (line %lld) announces",
                    extra, (long long)rows, (long long)cols, (long long)size_line);
    }
    mpb_mat_find_not_fp32(out);
    return true;
}
