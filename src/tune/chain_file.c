/* A chain description file into a chain (chain_file.h). */
#include "tune/chain_file.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A description is a few dozen lines: a larger FILE is a wrong one (a
 * device, a data file), refused before it is read whole. */
#define MAX_BYTES 65536
/* The largest dimension at any n, and the largest INT of a dimension or a
 * scale, so that no product of two dimensions (a buffer's entries, its
 * bytes) comes near overflowing. */
#define MAX_DIM (INT64_C(1) << 20)
/* The most words of a statement ("gemm OUT = A B"). */
#define MAX_WORDS 5
#define NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789"
#define SUFFIX ".chain"

/* Every step writes a new buffer and the first one reads an input, so a
 * file reaches the buffer limit before the step limit. */
_Static_assert(MPB_TUNE_MAX_STEPS >= MPB_TUNE_MAX_BUFFERS - 1, "the buffer limit bounds the steps");

static const char *const step_words[] = {
    [MPB_TUNE_GEMM] = "gemm", [MPB_TUNE_BIAS] = "bias", [MPB_TUNE_BIAS_RELU] = "bias_relu"};
#define STEP_KINDS ((int)(sizeof step_words / sizeof *step_words))

/* Where a refusal points (line 0: the file as a whole) and where its
 * sentence goes. */
struct report {
    const char *path;
    int line;
    char *why;
    size_t why_len;
};

static bool refuse(const struct report *at, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool refuse(const struct report *at, const char *fmt, ...)
{
    int used = at->line ? snprintf(at->why, at->why_len, "%s:%d: ", at->path, at->line)
                        : snprintf(at->why, at->why_len, "%s: ", at->path);
    va_list ap;
    va_start(ap, fmt);
    if (used >= 0 && (size_t)used < at->why_len)
        vsnprintf(at->why + used, at->why_len - (size_t)used, fmt, ap);
    va_end(ap);
    return false;
}

bool mpb_tune_chain_file_word(const char *word)
{
    size_t len = strlen(word), suffix = strlen(SUFFIX);
    return strchr(word, '/') || (len >= suffix && !strcmp(word + len - suffix, SUFFIX));
}

/* ---- words ---------------------------------------------------------------- */

/* A decimal integer in 1..MAX_DIM at the start of s, digits only; *end
 * after it. */
static bool parse_count(const char *s, int64_t *value, const char **end)
{
    int64_t v = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9' && v <= MAX_DIM; p++)
        v = v * 10 + (*p - '0');
    *value = v;
    *end = p;
    return p > s && v >= 1 && v <= MAX_DIM;
}

/* INT, n, n*INT or n/INT. */
static bool parse_dim(const char *s, struct mpb_tune_file_dim *d)
{
    const char *end;
    if (s[0] != 'n') {
        d->kind = MPB_TUNE_DIM_NUMBER;
        return parse_count(s, &d->value, &end) && !*end;
    }
    d->kind = s[1] == '/' ? MPB_TUNE_DIM_N_OVER : MPB_TUNE_DIM_N_TIMES;
    d->value = 1;
    return !s[1] || ((s[1] == '*' || s[1] == '/') && parse_count(s + 2, &d->value, &end) && !*end);
}

/* The dimension as the file wrote it (n*1 as n). */
static void dim_text(const struct mpb_tune_file_dim *d, char *buf, size_t len)
{
    if (d->kind == MPB_TUNE_DIM_NUMBER)
        snprintf(buf, len, "%lld", (long long)d->value);
    else if (d->kind == MPB_TUNE_DIM_N_TIMES && d->value == 1)
        snprintf(buf, len, "n");
    else
        snprintf(buf, len, "n%c%lld", d->kind == MPB_TUNE_DIM_N_OVER ? '/' : '*', (long long)d->value);
}

/* A positive finite number (strtod's syntax) at the start of s. */
static bool parse_number(const char *s, double *value, const char **end)
{
    char *stop;
    errno = 0;
    *value = strtod(s, &stop);
    *end = stop;
    return stop != s && !errno && isfinite(*value) && *value > 0;
}

/* "D)" to the end of s, D n (0) or an INT. */
static bool parse_root_denominator(const char *s, int64_t *denom)
{
    const char *end;
    if (s[0] == 'n') {
        *denom = 0;
        end = s + 1;
    } else if (!parse_count(s, denom, &end)) {
        return false;
    }
    return !strcmp(end, ")");
}

/* NUM, NUM/sqrt(D) or sqrt(NUM/D). */
static bool parse_scale(const char *s, struct mpb_tune_file_scale *scale)
{
    const char *end;
    static const char sqrt_of[] = "sqrt(", over_sqrt[] = "/sqrt(";
    if (!strncmp(s, sqrt_of, strlen(sqrt_of))) {
        scale->form = MPB_TUNE_SCALE_SQRT_OF;
        return parse_number(s + strlen(sqrt_of), &scale->num, &end) && *end == '/' &&
               parse_root_denominator(end + 1, &scale->denom);
    }
    if (!parse_number(s, &scale->num, &end))
        return false;
    scale->form = *end ? MPB_TUNE_SCALE_OVER_SQRT : MPB_TUNE_SCALE_NUMBER;
    return !*end || (!strncmp(end, over_sqrt, strlen(over_sqrt)) &&
                     parse_root_denominator(end + strlen(over_sqrt), &scale->denom));
}

/* ---- load ----------------------------------------------------------------- */

struct loader {
    struct mpb_tune_chain_file *f;
    struct report at;
    int gemms, last_gemm_line, output_line;
    /* A written buffer's: the gemms up to its step, so that an elementwise
     * step can tell the output of the gemm before it (and its epilogue's). */
    int gemms_at[MPB_TUNE_MAX_BUFFERS];
};

static int find(const struct mpb_tune_chain_file *f, const char *name)
{
    for (int b = 0; b < f->n_buffers; b++)
        if (!strcmp(f->buffers[b].name, name))
            return b;
    return -1;
}

/* A buffer that an earlier line made. */
static bool known(struct loader *ld, const char *name, int *index)
{
    *index = find(ld->f, name);
    return *index >= 0 ||
           refuse(&ld->at, "unknown buffer '%s' (neither an input nor written by an earlier step)", name);
}

/* A new buffer named `name`: a valid name no buffer has yet, within the limit. */
static bool declare(struct loader *ld, const char *name, struct mpb_tune_file_buffer *b, int *index)
{
    struct mpb_tune_chain_file *f = ld->f;
    size_t len = strspn(name, NAME_CHARS);
    int old = find(f, name);
    if (name[len] || len >= sizeof b->name || (*name >= '0' && *name <= '9'))
        return refuse(&ld->at, "bad buffer name '%s' (a letter or _, then letters, digits or _, at most %zu)", name,
                      sizeof b->name - 1);
    if (old >= 0)
        return refuse(&ld->at, "'%s' already names the buffer of line %d (a step writes a new buffer)", name,
                      f->buffers[old].line);
    if (f->n_buffers == MPB_TUNE_MAX_BUFFERS)
        return refuse(&ld->at, "'%s' is a buffer beyond the %d a chain may have", name, MPB_TUNE_MAX_BUFFERS);
    memcpy(b->name, name, len + 1);
    *index = f->n_buffers;
    f->buffers[f->n_buffers++] = *b;
    return true;
}

/* input NAME ROWS COLS scale=SCALE */
static bool input_line(struct loader *ld, char **w, int n)
{
    static const char key[] = "scale=";
    struct mpb_tune_file_buffer b = {.line = ld->at.line, .input = true, .writer = -1};
    int index;
    if (n != 5 || strncmp(w[4], key, strlen(key)))
        return refuse(&ld->at, "expected 'input NAME ROWS COLS scale=SCALE'");
    for (int d = 2; d <= 3; d++)
        if (!parse_dim(w[d], d == 2 ? &b.rows : &b.cols))
            return refuse(&ld->at, "bad dimension '%s' (an INT, n, n*INT or n/INT, INT in 1..%lld)", w[d],
                          (long long)MAX_DIM);
    if (!parse_scale(w[4] + strlen(key), &b.scale))
        return refuse(&ld->at, "bad scale '%s' (NUM, NUM/sqrt(D) or sqrt(NUM/D): NUM a positive number, D n or an "
                      "INT in 1..%lld)", w[4] + strlen(key), (long long)MAX_DIM);
    return declare(ld, w[1], &b, &index);
}

/* KIND OUT = A B: a gemm reads any buffer made before it; an elementwise
 * step is the epilogue of the gemm before it, so it reads that gemm's
 * output or its epilogue's, and an input as the bias. problem.c runs such a
 * step again exactly when that gemm runs again. Before the first gemm
 * elementwise steps work on the inputs (once, at open). */
static bool step_line(struct loader *ld, enum mpb_tune_step_kind kind, char **w, int n)
{
    struct mpb_tune_chain_file *f = ld->f;
    bool gemm = kind == MPB_TUNE_GEMM;
    int a, b, out;
    if (n != 5 || strcmp(w[2], "="))
        return refuse(&ld->at, "expected '%s OUT = A %s'", step_words[kind], gemm ? "B" : "BIAS");
    if (!known(ld, w[3], &a) || !known(ld, w[4], &b))
        return false;
    if (gemm && ld->gemms == MPB_TUNE_MAX_OPS)
        return refuse(&ld->at, "a gemm beyond the %d a chain may have", MPB_TUNE_MAX_OPS);
    if (!gemm && !f->buffers[b].input)
        return refuse(&ld->at, "the bias '%s' is not an input", w[4]);
    if (!gemm && (f->buffers[a].input ? ld->gemms > 0 : ld->gemms_at[a] != ld->gemms))
        return refuse(&ld->at, "'%s' is neither the output of the gemm at line %d nor of an elementwise step after it "
                      "(an elementwise step is the epilogue of the gemm before it)", w[3], ld->last_gemm_line);
    struct mpb_tune_file_buffer written = {.line = ld->at.line, .writer = f->n_steps};
    if (!declare(ld, w[1], &written, &out))
        return false;
    if (gemm) {
        ld->gemms++;
        ld->last_gemm_line = ld->at.line;
    }
    ld->gemms_at[out] = ld->gemms;
    f->steps[f->n_steps++] = (struct mpb_tune_file_step){ld->at.line, kind, out, a, b};
    return true;
}

/* output NAME: a buffer that a gemm or its epilogue writes (what comes
 * before the first gemm no level changes). */
static bool output_line(struct loader *ld, char **w, int n)
{
    int out;
    if (n != 2)
        return refuse(&ld->at, "expected 'output NAME'");
    if (ld->output_line)
        return refuse(&ld->at, "a second output (the first is at line %d)", ld->output_line);
    if (!known(ld, w[1], &out))
        return false;
    if (ld->f->buffers[out].input)
        return refuse(&ld->at, "the output '%s' is an input (the output is a buffer that a step writes)", w[1]);
    if (ld->gemms_at[out] == 0)
        return refuse(&ld->at, "the output '%s' is written before the first gemm, so no level changes it", w[1]);
    ld->f->output = out;
    ld->output_line = ld->at.line;
    return true;
}

/* One line, its comment cut off. */
static bool load_line(struct loader *ld, char *line)
{
    char *w[MAX_WORDS + 1], *save, *hash = strchr(line, '#');
    int n = 0;
    if (hash)
        *hash = '\0';
    for (char *word = strtok_r(line, " \t\r\v\f", &save); word && n <= MAX_WORDS;
         word = strtok_r(NULL, " \t\r\v\f", &save))
        w[n++] = word;
    if (n == 0)
        return true;
    if (!strcmp(w[0], "input"))
        return input_line(ld, w, n);
    if (!strcmp(w[0], "output"))
        return output_line(ld, w, n);
    for (int k = 0; k < STEP_KINDS; k++)
        if (!strcmp(w[0], step_words[k]))
            return step_line(ld, (enum mpb_tune_step_kind)k, w, n);
    return refuse(&ld->at, "unknown word '%s' (input, gemm, bias, bias_relu or output)", w[0]);
}

/* The whole file, NUL-terminated, at most MAX_BYTES of text; NULL when
 * it is not (said in at). */
static char *read_text(const struct report *at)
{
    FILE *fp = fopen(at->path, "r");
    if (!fp) {
        refuse(at, "cannot read it: %s", strerror(errno));
        return NULL;
    }
    char *buf = malloc(MAX_BYTES + 1);
    size_t len = buf ? fread(buf, 1, MAX_BYTES + 1, fp) : 0;
    bool failed = !buf || ferror(fp);
    int err = errno;
    fclose(fp);
    if (failed || len > MAX_BYTES) {
        if (failed)
            refuse(at, "cannot read it: %s", strerror(err));
        else
            refuse(at, "more than %d bytes, which no chain description needs", MAX_BYTES);
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    if (strlen(buf) == len)
        return buf;
    struct report nul = *at; /* a binary file: say where, as for a line */
    nul.line = 1;
    for (const char *p = buf; *p; p++)
        nul.line += *p == '\n';
    refuse(&nul, "a NUL byte (a chain description is text)");
    free(buf);
    return NULL;
}

bool mpb_tune_chain_file_load(const char *path, struct mpb_tune_chain_file *f, char *why, size_t why_len)
{
    memset(f, 0, sizeof *f);
    f->path = path;
    f->output = -1;
    /* The name: the file's, without its folder and ".chain" (unless that is all). */
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    size_t len = strlen(base), suffix = strlen(SUFFIX);
    if (len > suffix && !strcmp(base + len - suffix, SUFFIX))
        len -= suffix;
    snprintf(f->name, sizeof f->name, "%.*s", (int)len, base);
    struct loader ld = {.f = f, .at = {path, 0, why, why_len}};
    char *text = read_text(&ld.at);
    if (!text)
        return false;
    bool ok = true;
    char *rest = text;
    for (char *line; ok && (line = strsep(&rest, "\n")) != NULL;) {
        ld.at.line++;
        ok = load_line(&ld, line);
    }
    free(text);
    ld.at.line = 0;
    if (ok && !ld.gemms)
        ok = refuse(&ld.at, "no gemm step (a chain tunes at least one)");
    if (ok && !ld.output_line)
        ok = refuse(&ld.at, "no 'output NAME' line (a chain has exactly one)");
    return ok;
}

/* ---- build ---------------------------------------------------------------- */

/* Buffer b's dimension d at n; `what` names it ("rows", "columns"). */
static bool dim_at(const struct mpb_tune_chain_file *f, int b, const char *what, const struct mpb_tune_file_dim *d,
                   int64_t n, int64_t *value, const struct report *at)
{
    char text[32];
    const char *name = f->buffers[b].name;
    dim_text(d, text, sizeof text);
    if (d->kind == MPB_TUNE_DIM_N_OVER && n % d->value != 0)
        return refuse(at, "%s's %s %s at n = %lld: %lld does not divide n", name, what, text, (long long)n,
                      (long long)d->value);
    if (d->kind == MPB_TUNE_DIM_N_TIMES && d->value > MAX_DIM / n)
        return refuse(at, "%s's %s %s at n = %lld: more than %lld", name, what, text, (long long)n,
                      (long long)MAX_DIM);
    *value = d->kind == MPB_TUNE_DIM_NUMBER ? d->value : d->kind == MPB_TUNE_DIM_N_TIMES ? n * d->value : n / d->value;
    return true;
}

/* Written as chain.c writes its scales (sqrt(3.0 / (double)n)), for the same bits. */
static double scale_at(const struct mpb_tune_file_scale *s, int64_t n)
{
    double d = (double)(s->denom ? s->denom : n);
    if (s->form == MPB_TUNE_SCALE_OVER_SQRT)
        return s->num / sqrt(d);
    if (s->form == MPB_TUNE_SCALE_SQRT_OF)
        return sqrt(s->num / d);
    return s->num;
}

/* The shape of a step's output from its operands', already in c. */
static bool step_shape(const struct mpb_tune_chain_file *f, const struct mpb_tune_file_step *st,
                       const struct mpb_tune_chain *c, int64_t *rows, int64_t *cols, const struct report *at)
{
    const struct mpb_tune_buffer *a = &c->buffers[st->a], *b = &c->buffers[st->b];
    const char *out_name = f->buffers[st->out].name, *a_name = f->buffers[st->a].name, *b_name = f->buffers[st->b].name;
    *rows = a->rows;
    *cols = st->kind == MPB_TUNE_GEMM ? b->cols : a->cols;
    if (st->kind == MPB_TUNE_GEMM && a->cols != b->rows)
        return refuse(at, "gemm %s = %s %s at n = %lld: %s is %lld x %lld and %s %lld x %lld, but %s's columns must "
                      "equal %s's rows", out_name, a_name, b_name, (long long)c->size, a_name, (long long)a->rows,
                      (long long)a->cols, b_name, (long long)b->rows, (long long)b->cols, a_name, b_name);
    if (st->kind != MPB_TUNE_GEMM && (b->rows != 1 || b->cols != a->cols))
        return refuse(at, "%s %s = %s %s at n = %lld: the bias %s is %lld x %lld, not 1 x %lld (a row of %s's columns)",
                      step_words[st->kind], out_name, a_name, b_name, (long long)c->size, b_name, (long long)b->rows,
                      (long long)b->cols, (long long)a->cols, a_name);
    return true;
}

bool mpb_tune_chain_file_build(const struct mpb_tune_chain_file *f, int64_t size, struct mpb_tune_chain *c, char *why,
                               size_t why_len)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", f->name);
    c->size = size;
    /* Buffers first, in the file's order; a written one's operands come
     * before it, so its shape follows from theirs. */
    for (int b = 0; b < f->n_buffers; b++) {
        const struct mpb_tune_file_buffer *fb = &f->buffers[b];
        struct report at = {f->path, fb->line, why, why_len};
        int64_t rows, cols;
        bool shaped = fb->input ? dim_at(f, b, "rows", &fb->rows, size, &rows, &at) &&
                                      dim_at(f, b, "columns", &fb->cols, size, &cols, &at)
                                : step_shape(f, &f->steps[fb->writer], c, &rows, &cols, &at);
        if (!shaped)
            return false;
        mpb_tune_chain_add_buffer(c, rows, cols, fb->input, fb->input ? scale_at(&fb->scale, size) : 0);
    }
    for (int s = 0; s < f->n_steps; s++)
        mpb_tune_chain_add_step(c, f->steps[s].kind, f->steps[s].out, f->steps[s].a, f->steps[s].b);
    c->output = f->output;
    return true;
}
