/* The VALUES grammar of the command line (DESIGN.md "Command line"):
 * a comma list of items; an item is a number, a word, an inclusive range
 * a:b[:step], a geometric range a:b:*f, or 2^e (also as a range end).
 * Expansion gives strings: numbers in their shortest form, words as typed. */
#ifndef MPB_VALUES_H
#define MPB_VALUES_H

#include <stdbool.h>
#include <stddef.h>

#define MPB_VALUES_MAX 100000

struct mpb_values {
    int n;
    char **items;
};

/* false with a sentence in `why` (naming the offending item) on bad input. */
bool mpb_values_parse(const char *text, struct mpb_values *out, char *why, size_t why_len);
void mpb_values_free(struct mpb_values *v);

#endif
