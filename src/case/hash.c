#include "case/hash.h"

#include <string.h>

uint64_t mpb_hash_bytes(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = MPB_FNV_OFFSET;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= MPB_FNV_PRIME;
    }
    return h;
}

uint64_t mpb_hash_words(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = MPB_FNV_OFFSET;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h ^= w;
        h *= MPB_FNV_PRIME;
    }
    if (i < len) {
        uint64_t w = 0;
        memcpy(&w, p + i, len - i);
        h ^= w;
        h *= MPB_FNV_PRIME;
    }
    return h;
}
