#include "CPulse.h"
#include "CLazyLibrary.h"
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

#define CRATE_PULSE_NAME(name) #name,
static const char *const names[] = { CRATE_PULSE_FUNCTIONS(CRATE_PULSE_NAME) };

/* The functions, typed from the header, over the untyped pointers crate_lazy_load fills in the list's order
   (POSIX gives function and data pointers one representation). */
static union {
    struct {
#define CRATE_PULSE_FIELD(name) __typeof__(name) *name;
        CRATE_PULSE_FUNCTIONS(CRATE_PULSE_FIELD)
    };
    void *pointers[sizeof names / sizeof names[0]];
} lib;
_Static_assert(sizeof lib == sizeof lib.pointers, "one pointer per listed function");

static CrateLazyLibrary library = CRATE_LAZY_LIBRARY_INIT;

int crate_pulse_load(char *error, size_t error_size) {
    return crate_lazy_load(&library, soname, names, lib.pointers, sizeof names / sizeof names[0], NULL, error, error_size);
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
