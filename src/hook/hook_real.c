/* The real routine behind an interposed symbol (hook.h, mpb_hook_real). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "hook/hook.h"

/* The names of the loaded objects, copied out of dl_iterate_phdr (which
 * holds the loader's lock, so dlopen cannot be called inside it). */
struct objects {
    char **names;
    int n, cap;
};

static int add_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct objects *o = arg;
    if (!info->dlpi_name || !info->dlpi_name[0])
        return 0; /* the main program: RTLD_NEXT has looked there */
    if (o->n == o->cap) {
        int cap = o->cap ? 2 * o->cap : 64;
        char **grown = realloc(o->names, sizeof *grown * (size_t)cap);
        if (!grown)
            return 1;
        o->names = grown;
        o->cap = cap;
    }
    if ((o->names[o->n] = strdup(info->dlpi_name)) != NULL)
        o->n++;
    return 0;
}

/* Python loads an extension module and the BLAS it needs with RTLD_LOCAL:
 * out of RTLD_NEXT's reach, but open to dlsym on its own handle. */
static void *search_loaded(const char *name, const void *self)
{
    struct objects o = {0};
    dl_iterate_phdr(add_object, &o);
    void *found = NULL;
    for (int i = 0; i < o.n; i++) {
        void *h = found ? NULL : dlopen(o.names[i], RTLD_LAZY | RTLD_NOLOAD);
        if (h) {
            void *p = dlsym(h, name);
            if (p && p != self)
                found = p;
            dlclose(h);
        }
        free(o.names[i]);
    }
    free(o.names);
    return found;
}

static pthread_mutex_t real_lock = PTHREAD_MUTEX_INITIALIZER;

void *mpb_hook_real(const char *name, void *volatile *slot, const void *self)
{
    void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (p)
        return p;
    pthread_mutex_lock(&real_lock);
    if (!(p = *slot)) {
        p = dlsym(RTLD_NEXT, name);
        if (!p || p == self)
            p = search_loaded(name, self);
        /* kept once found; a BLAS loaded later is looked for again */
        __atomic_store_n(slot, p, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&real_lock);
    return p;
}
