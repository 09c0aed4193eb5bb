/* Paths replaced by rename (outpath.h). */
#include "record/outpath.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

bool mpb_outpath_check(const char *path, char *why, size_t why_len)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return true;
        snprintf(why, why_len, "cannot write %s: %s", path, strerror(errno));
        return false;
    }
    if (S_ISREG(st.st_mode))
        return true;
    if (S_ISLNK(st.st_mode)) {
        snprintf(why, why_len, "cannot write %s: it is a symbolic link, which a new file would replace (mpbench "
                 "writes a temporary file and renames it over the path); give the path of its target", path);
        return false;
    }
    const char *what = S_ISDIR(st.st_mode)    ? "a folder"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    snprintf(why, why_len, "cannot write %s: it is %s, which a regular file would replace (mpbench writes a "
             "temporary file and renames it over the path); give a regular file or a new path", path, what);
    return false;
}
