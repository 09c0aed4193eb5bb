/* NPY 1.0 writer (npy_write.h). */
#include "npy_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool mpb_npy_write(const char *path, const char *descr, const void *data, int64_t rows, int64_t cols)
{
    /* NPY 1.0 (numpy.lib.format): magic, version, little-endian header length,
     * a Python dict literal padded with spaces and a newline so that the data
     * starts at a multiple of 64 bytes. */
    char dict[256], header[320];
    if (cols)
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': True, 'shape': (%lld, %lld), }", descr,
                 (long long)rows, (long long)cols);
    else
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%lld,), }", descr,
                 (long long)rows);
    size_t len = strlen(dict), total = (10 + len + 1 + 63) / 64 * 64;
    size_t hlen = total - 10;
    memset(header, ' ', sizeof header);
    memcpy(header, "\x93NUMPY\x01\x00", 8);
    header[8] = (char)(hlen & 0xff);
    header[9] = (char)(hlen >> 8);
    memcpy(header + 10, dict, len);
    header[total - 1] = '\n';
    size_t elem = (size_t)atoi(descr + 2), count = (size_t)rows * (size_t)(cols ? cols : 1);
    FILE *f = fopen(path, "wb");
    if (!f)
        return false;
    bool ok = fwrite(header, 1, total, f) == total && fwrite(data, elem, count, f) == count;
    return fclose(f) == 0 && ok;
}
