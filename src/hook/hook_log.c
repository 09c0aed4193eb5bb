/* The hook's own errors, each reason said once per process on stderr
 * (hook.h): the lowest file of the hook, used by all the others. */
#include "hook/hook.h"

#include <stdarg.h>
#include <stdio.h>

static int logged[MPB_HOOK_LOG_COUNT];

void mpb_hook_log_once(enum mpb_hook_log why, const char *fmt, ...)
{
    if (__atomic_exchange_n(&logged[why], 1, __ATOMIC_ACQ_REL))
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "mpbench hook: %s\n", msg);
}
