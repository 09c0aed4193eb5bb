#include "cli/suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Longer words than this are never close to a known one. */
#define MAX_WORD 64

/* Optimal string alignment distance, case folded: insertions, deletions,
 * substitutions and swaps of neighbours cost 1 each. */
static int distance(const char *a, size_t la, const char *b, size_t lb)
{
    int d[MAX_WORD + 1][MAX_WORD + 1];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int ai = tolower((unsigned char)a[i - 1]), bj = tolower((unsigned char)b[j - 1]);
            int best = d[i - 1][j - 1] + (ai != bj);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == bj && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

/* A typo: one edit in a word under 5 characters, two under 9, else three. */
static int close_enough(size_t len)
{
    return len < 5 ? 1 : len < 9 ? 2 : 3;
}

void mpb_suggest_init(struct mpb_suggest *s, const char *word)
{
    *s = (struct mpb_suggest){.word = word};
}

void mpb_suggest_try(struct mpb_suggest *s, const char *candidate, size_t len)
{
    size_t wl = strlen(s->word);
    if (wl > MAX_WORD || len > MAX_WORD)
        return;
    int d = distance(s->word, wl, candidate, len);
    if (d <= close_enough(wl) && (!s->best || d < s->best_distance)) {
        s->best = candidate;
        s->best_len = len;
        s->best_distance = d;
    }
}

void mpb_suggest_format(const struct mpb_suggest *s, char *buf, size_t len)
{
    if (s->best)
        snprintf(buf, len, "; did you mean '%.*s'?", (int)s->best_len, s->best);
    else if (len)
        buf[0] = '\0';
}
