/* SHA-256 (FIPS 180-4) of a byte buffer: the content hash that names a
 * matrix file in gen_params, so that `sha256sum FILE` checks a rerun. */
#ifndef MPB_SHA256_H
#define MPB_SHA256_H

#include <stddef.h>
#include <stdint.h>

void mpb_sha256(const void *data, size_t len, uint8_t digest[32]);

/* The first `digits` hex digits (lowercase) of the digest into buf
 * (digits + 1 bytes, digits <= 64). */
void mpb_sha256_hex(const void *data, size_t len, char *buf, int digits);

#endif
