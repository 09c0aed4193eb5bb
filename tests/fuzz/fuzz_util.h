/* Helpers shared by the libFuzzer harnesses (tests/fuzz/README.md). */
#ifndef MPB_FUZZ_UTIL_H
#define MPB_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Arguments of an argv corpus file: split on NUL bytes when the input holds
 * one, else on newlines (one argument per line; a last newline ends the last
 * argument). argv[0] is `argv0`; argv[argc] is NULL. Free with
 * fuzz_argv_free. */
struct fuzz_argv {
    int argc;
    char **argv;
    char *buf;
};

static inline void fuzz_argv_split(const uint8_t *data, size_t size, const char *argv0, struct fuzz_argv *a)
{
    char sep = memchr(data, '\0', size) ? '\0' : '\n';
    a->buf = malloc(size + 1);
    memcpy(a->buf, data, size);
    a->buf[size] = '\0';
    size_t n = 2;
    for (size_t i = 0; i < size; i++)
        n += a->buf[i] == sep;
    a->argv = malloc(sizeof *a->argv * (n + 1));
    a->argc = 0;
    a->argv[a->argc++] = (char *)argv0;
    if (size) {
        char *start = a->buf;
        for (size_t i = 0; i <= size; i++) {
            if (i == size || a->buf[i] == sep) {
                a->buf[i] = '\0';
                /* a last separator ends the last argument rather than
                 * starting an empty one */
                if (i < size || start < a->buf + size)
                    a->argv[a->argc++] = start;
                start = a->buf + i + 1;
            }
        }
    }
    a->argv[a->argc] = NULL;
}

static inline void fuzz_argv_free(struct fuzz_argv *a)
{
    free(a->argv);
    free(a->buf);
}

/* A scratch path of this process: $TMPDIR (or /tmp)/mpb-fuzz-<pid>-<tag>. */
static inline void fuzz_path(char *buf, size_t len, const char *tag)
{
    const char *dir = getenv("TMPDIR");
    snprintf(buf, len, "%s/mpb-fuzz-%ld-%s", dir && *dir ? dir : "/tmp", (long)getpid(), tag);
}

static inline void fuzz_write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        abort();
    }
    if (size && fwrite(data, 1, size, f) != size) {
        perror(path);
        abort();
    }
    if (fclose(f) != 0) {
        perror(path);
        abort();
    }
}

/* The sanitizers' report channel: it stays open when libFuzzer closes the
 * harness's stderr (-close_fd_mask=2). */
void __sanitizer_report_error_summary(const char *error_summary);

/* The harness's own check failed: a bug libFuzzer reports as a crash. */
#define FUZZ_CHECK(cond)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            char fuzz_msg_[512];                                                \
            snprintf(fuzz_msg_, sizeof fuzz_msg_, "fuzz check failed: %s:%d: %s", \
                     __FILE__, __LINE__, #cond);                                \
            fprintf(stderr, "%s\n", fuzz_msg_);                                 \
            __sanitizer_report_error_summary(fuzz_msg_);                        \
            abort();                                                            \
        }                                                                       \
    } while (0)

#endif
