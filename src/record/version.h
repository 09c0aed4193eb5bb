#ifndef MPB_VERSION_H
#define MPB_VERSION_H
#include "mpb_build_config.h"
extern const char *const mpb_git_sha;
#endif
