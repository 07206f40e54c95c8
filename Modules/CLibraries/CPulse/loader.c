#include "CPulse.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

/* The simple API's library; it needs libpulse.so.0 (pa_strerror), which dlopen loads with it and dlsym searches. */
static const char soname[] = "libpulse-simple.so.0";

#define CRATE_PULSE_FUNCTIONS(X) \
    X(pa_simple_new) \
    X(pa_simple_free) \
    X(pa_simple_write) \
    X(pa_simple_drain) \
    X(pa_simple_flush) \
    X(pa_strerror)

static struct {
#define CRATE_PULSE_FIELD(name) __typeof__(name) *name;
    CRATE_PULSE_FUNCTIONS(CRATE_PULSE_FIELD)
} lib;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int ready;
static char failure[512];

static void load(void) {
    /* Never closed: streams may live as long as the process. */
    void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(failure, sizeof failure, "%s", reason ? reason : soname);
        return;
    }
    void *symbol;
#define CRATE_PULSE_RESOLVE(name) \
    symbol = dlsym(library, #name); \
    if (symbol == NULL) { \
        snprintf(failure, sizeof failure, "%s has no function %s", soname, #name); \
        return; \
    } \
    lib.name = (__typeof__(name) *)symbol;
    CRATE_PULSE_FUNCTIONS(CRATE_PULSE_RESOLVE)
    ready = 1;
}

int crate_pulse_load(char *error, size_t error_size) {
    pthread_once(&once, load);
    if (!ready && error != NULL && error_size > 0) snprintf(error, error_size, "%s", failure);
    return ready;
}

pa_simple *crate_pa_simple_new(const char *server, const char *name, pa_stream_direction_t direction,
                               const char *device, const char *stream_name, const pa_sample_spec *spec,
                               const pa_channel_map *map, const pa_buffer_attr *attr, int *error) {
    return lib.pa_simple_new(server, name, direction, device, stream_name, spec, map, attr, error);
}
void crate_pa_simple_free(pa_simple *stream) { lib.pa_simple_free(stream); }
int crate_pa_simple_write(pa_simple *stream, const void *data, size_t bytes, int *error) {
    return lib.pa_simple_write(stream, data, bytes, error);
}
int crate_pa_simple_drain(pa_simple *stream, int *error) { return lib.pa_simple_drain(stream, error); }
int crate_pa_simple_flush(pa_simple *stream, int *error) { return lib.pa_simple_flush(stream, error); }
const char *crate_pa_strerror(int error) { return lib.pa_strerror(error); }
