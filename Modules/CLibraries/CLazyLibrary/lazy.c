#include "CLazyLibrary.h"
#include <dlfcn.h>
#include <stdio.h>

static int open_library(const char *soname, const char *const *names, void **functions, size_t count,
                        char *failure, size_t failure_size) {
    void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(failure, failure_size, "%s", reason ? reason : soname);
        return 0;
    }
    for (size_t i = 0; i < count; i++) {
        functions[i] = dlsym(handle, names[i]);
        if (functions[i] == NULL) {
            snprintf(failure, failure_size, "%s has no function %s", soname, names[i]);
            return 0;
        }
    }
    return 1;
}

int crate_lazy_load(CrateLazyLibrary *library, const char *soname, const char *const *names, void **functions,
                    size_t count, int (*start)(char *failure, size_t failure_size), char *error, size_t error_size) {
    pthread_mutex_lock(&library->lock);
    if (library->state == 0) {
        int ok = open_library(soname, names, functions, count, library->failure, sizeof library->failure)
            && (start == NULL || start(library->failure, sizeof library->failure));
        library->state = ok ? 1 : -1;
    }
    int ready = library->state == 1;
    if (!ready && error != NULL && error_size > 0) snprintf(error, error_size, "%s", library->failure);
    pthread_mutex_unlock(&library->lock);
    return ready;
}
