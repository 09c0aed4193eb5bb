/* mpb_stop.h: the flag and its handler. The handler stores the signal and
 * writes one fixed line with write(2); a later signal restores the default
 * action and raises it: all async-signal-safe. */
#define _POSIX_C_SOURCE 200809L
#include "mpb_stop.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t stop_second; /* CLOCK_MONOTONIC second of the first signal */
static char stop_line[160];
static size_t stop_line_len;

static long monotonic_second(void)
{
    struct timespec t;
    return clock_gettime(CLOCK_MONOTONIC, &t) == 0 ? (long)t.tv_sec : 0;
}

/* A signal within a second of the first is the same request: `timeout`
 * sends SIGTERM to the process and then to its process group, and in a
 * process with several threads (the CUDA runtime's) the two can be
 * handled at once by two threads. Later, it stops at once. Everything
 * here is async-signal-safe (clock_gettime, write, signal, raise). */
static void on_stop(int sig)
{
    long now = monotonic_second();
    if (stop_signal) {
        if (now - (long)stop_second <= 1)
            return;
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    stop_second = (sig_atomic_t)now;
    stop_signal = sig;
    if (stop_line_len) {
        ssize_t ignored = write(STDERR_FILENO, stop_line, stop_line_len);
        (void)ignored; /* nothing to do in a handler if stderr is gone */
    }
}

int mpb_stop_install(const char *cmd)
{
    int n = snprintf(stop_line, sizeof stop_line,
                     "mpbench %s: stopping after the case in progress (signal again after a second to stop now)\n", cmd);
    stop_line_len = n > 0 && (size_t)n < sizeof stop_line ? (size_t)n : 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* on_stop decides what a second signal does */
    const int sigs[] = {SIGINT, SIGTERM};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) != 0)
            return -1;
        /* Ignored when we started (a shell's background job ignores SIGINT,
         * so that Ctrl-C at its terminal leaves it alone): stays ignored. */
        if (old.sa_handler != SIG_IGN && sigaction(sigs[i], &sa, NULL) != 0)
            return -1;
    }
    return 0;
}

int mpb_stop_requested(void)
{
    return stop_signal;
}

const char *mpb_stop_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}
