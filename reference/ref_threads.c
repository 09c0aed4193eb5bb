#include "ref_threads.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

struct chunk {
    void *ctx;
    bool (*work)(void *ctx, int64_t begin, int64_t end);
    int64_t begin, end;
    bool ok;
};

static void *chunk_run(void *arg)
{
    struct chunk *c = arg;
    c->ok = c->work(c->ctx, c->begin, c->end);
    return NULL;
}

bool mpb_ref_parallel(int64_t count, int threads, void *ctx,
                      bool (*work)(void *ctx, int64_t begin, int64_t end))
{
    if (threads <= 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        threads = online > 0 ? (int)online : 1;
    }
    if (threads > count)
        threads = count > 0 ? (int)count : 1;
    struct chunk *chunks = calloc((size_t)threads, sizeof *chunks);
    pthread_t *tids = calloc((size_t)threads, sizeof *tids);
    bool *started = calloc((size_t)threads, sizeof *started);
    bool ok = chunks && tids && started;
    for (int t = 0; ok && t < threads; t++) {
        chunks[t] = (struct chunk){ctx, work, count * t / threads, count * (t + 1) / threads, false};
        if (t > 0)
            started[t] = pthread_create(&tids[t], NULL, chunk_run, &chunks[t]) == 0;
    }
    if (ok) {
        for (int t = 0; t < threads; t++)
            if (!started[t])
                chunk_run(&chunks[t]);
        for (int t = 1; t < threads; t++)
            if (started[t])
                pthread_join(tids[t], NULL);
        for (int t = 0; t < threads; t++)
            ok = ok && chunks[t].ok;
    }
    free(chunks);
    free(tids);
    free(started);
    return ok;
}
