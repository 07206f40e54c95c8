#ifndef CRATE_CLAZYLIBRARY_H
#define CRATE_CLAZYLIBRARY_H

#include <pthread.h>
#include <stddef.h>

/* A shared library loaded on first use, once per process: the C targets whose libraries are not linked (CCurl,
   CPulse) keep one of these and call crate_lazy_load before their first call into the library. */
typedef struct CrateLazyLibrary {
    pthread_mutex_t lock;
    int state; /* 0 not tried yet, 1 ready, -1 failed (the reason in `failure`) */
    char failure[512];
} CrateLazyLibrary;

#define CRATE_LAZY_LIBRARY_INIT { PTHREAD_MUTEX_INITIALIZER, 0, "" }

/* Opens `soname` (RTLD_NOW | RTLD_LOCAL, never closed: what it makes may live as long as the process), looks up
   `count` functions by their `names` into `functions`, then runs `start` (a library's own initialisation; may be
   NULL), all the first time only; any thread may call it, any number of times. Returns 1 when the library is ready;
   0 when it is not, with the reason (dlerror's words, a function missing, what `start` wrote) in `error`. */
int crate_lazy_load(CrateLazyLibrary *library, const char *soname, const char *const *names, void **functions,
                    size_t count, int (*start)(char *failure, size_t failure_size), char *error, size_t error_size);

#endif
