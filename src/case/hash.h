/* 64-bit FNV-1a (Fowler–Noll–Vo): case_id over the canonical case string,
 * and out_hash over the output matrix bytes. Not cryptographic; it only
 * has to tell equal from different. */
#ifndef MPB_HASH_H
#define MPB_HASH_H

#include <stddef.h>
#include <stdint.h>

#define MPB_FNV_OFFSET 0xcbf29ce484222325ULL
#define MPB_FNV_PRIME 0x100000001b3ULL

uint64_t mpb_hash_bytes(const void *data, size_t len);
/* Word-wise variant for large buffers: 8 bytes per multiply (the tail is
 * zero-padded); the same bytes give the same hash on any backend. */
uint64_t mpb_hash_words(const void *data, size_t len);

#endif
