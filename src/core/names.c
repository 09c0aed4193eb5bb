/* Printable names of the small enums shared across the program. */
#include "gemm.h"
#include "status.h"

const char *mpb_status_name(enum mpb_status s)
{
    switch (s) {
    case MPB_STATUS_OK: return "ok";
    case MPB_STATUS_INCORRECT: return "incorrect";
    case MPB_STATUS_NOT_SUPPORTED: return "not_supported";
    case MPB_STATUS_ERROR: return "error";
    case MPB_STATUS_SKIPPED: return "skipped";
    }
    return "?";
}

const char *mpb_target_name(enum mpb_target t)
{
    return t == MPB_TARGET_FP64 ? "fp64" : "fp32";
}

const char *mpb_field_name(enum mpb_field f)
{
    return f == MPB_FIELD_COMPLEX ? "complex" : "real";
}
