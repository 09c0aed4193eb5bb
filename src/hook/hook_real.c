/* The real routine behind an interposed symbol (hook.h, mpb_hook_real). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
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

/* The object holding `addr`: its base address and, when it has one, its
 * name (the main program's is ""). */
static const void *object_of(const void *addr, const char **name)
{
    Dl_info info;
    struct link_map *map = NULL;
    if (!dladdr1(addr, &info, (void **)&map, RTLD_DL_LINKMAP) || !map)
        return NULL;
    *name = map->l_name;
    return info.dli_fbase;
}

/* `name` in the search list of the object called `object` (itself, then
 * what it needs, breadth first): what its references bind to when no
 * preloaded library comes first. NULL when none, or only `self`. */
static void *in_scope_of(const char *object, const char *name, const void *self)
{
    void *h = object[0] ? dlopen(object, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    void *p = h ? dlsym(h, name) : NULL;
    if (h)
        dlclose(h);
    return p == self ? NULL : p;
}

/* Resolved symbols by (call site, name): a call site binds to one library. */
#define SITES 1024
static struct site {
    const void *caller;
    const char *name;
    void *real;
} sites[SITES];

/* The site's entry (under real_lock): its symbol, or NULL with *free_at the
 * slot to fill (SITES when the table is full). */
static void *site_find(const void *caller, const char *name, size_t *free_at)
{
    size_t at = ((uintptr_t)caller >> 2 ^ (uintptr_t)name) % SITES;
    for (size_t i = 0; i < SITES; i++, at = (at + 1) % SITES) {
        if (!sites[at].caller) {
            *free_at = at;
            return NULL;
        }
        if (sites[at].caller == caller && sites[at].name == name)
            return sites[at].real;
    }
    *free_at = SITES;
    return NULL;
}

void *mpb_hook_real_for(const char *name, const void *caller, const void *self, const char *own)
{
    size_t at = SITES;
    pthread_mutex_lock(&real_lock);
    void *p = site_find(caller, name, &at);
    pthread_mutex_unlock(&real_lock);
    if (p)
        return p;
    const char *object = "", *mine = "";
    const void *base = object_of(caller, &object);
    if (base && base == object_of(self, &mine))
        p = in_scope_of(own, name, self); /* mpbench's own calls: the library the hook was linked with */
    else if (base)
        p = in_scope_of(object, name, self);
    if (!p) {
        void *slot = NULL;
        p = mpb_hook_real(name, &slot, self);
    }
    pthread_mutex_lock(&real_lock);
    if (p && !site_find(caller, name, &at) && at < SITES)
        sites[at] = (struct site){caller, name, p};
    pthread_mutex_unlock(&real_lock);
    return p;
}
