/* The VALUES grammar of the command line (DESIGN.md "Command line"):
 * a comma list of items; an item is a number, a word, an inclusive range
 * a:b[:step], a geometric range a:b:*f, or 2^e (also as a range end).
 * Expansion gives strings: numbers in their shortest form, words as typed. */
#ifndef MPB_VALUES_H
#define MPB_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MPB_VALUES_MAX 100000

struct mpb_values {
    int n;
    char **items;
};

/* false with a sentence in `why` (naming the offending item) on bad input. */
bool mpb_values_parse(const char *text, struct mpb_values *out, char *why, size_t why_len);
void mpb_values_free(struct mpb_values *v);

/* A decimal integer as mpbench writes one: an optional '-' and digits,
 * nothing else (no blanks, '+' or base prefix), read at full width; false
 * when it is not one or does not fit in 64 bits. */
bool mpb_int_parse(const char *s, int64_t *out);
/* The same on the first `len` characters of s. */
bool mpb_int_parse_n(const char *s, size_t len, int64_t *out);

#endif
