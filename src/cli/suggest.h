/* "did you mean ...": the known word nearest a mistyped one, by edit
 * distance, offered only when close enough to be a typo. */
#ifndef MPB_SUGGEST_H
#define MPB_SUGGEST_H

#include <stddef.h>

struct mpb_suggest {
    const char *word; /* what was typed */
    const char *best; /* nearest candidate so far, NULL while none is close */
    size_t best_len;
    int best_distance;
};

void mpb_suggest_init(struct mpb_suggest *s, const char *word);
/* Consider the first `len` characters of `candidate`. */
void mpb_suggest_try(struct mpb_suggest *s, const char *candidate, size_t len);
/* "; did you mean 'X'?", or "" when no candidate was close. */
void mpb_suggest_format(const struct mpb_suggest *s, char *buf, size_t len);

#endif
