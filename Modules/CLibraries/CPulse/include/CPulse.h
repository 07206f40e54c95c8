#ifndef CRATE_CPULSE_H
#define CRATE_CPULSE_H

/* libpulse-simple's header for its types and constants; its functions are reached through the wrappers below, which
   call into the library `crate_pulse_load` opened. Linked, libpulse brings 14 shared objects (libpulsecommon,
   libsndfile, X11, systemd, ...) into every process: 3 ms of each `crate` command's start, 1.3 MiB of an idle
   crated's memory, though only the PulseAudio output uses it, and only when it plays or checks its server. */
#include <pulse/simple.h>
#include <pulse/error.h>
#include <stddef.h>

/* Opens libpulse-simple, once per process (any thread may call it, any number of times). Returns 1 when it is
   ready; 0 when it cannot be loaded, with the reason in `error`. Every function below needs a successful load. */
int crate_pulse_load(char *error, size_t error_size);

pa_simple *crate_pa_simple_new(const char *server, const char *name, pa_stream_direction_t direction,
                               const char *device, const char *stream_name, const pa_sample_spec *spec,
                               const pa_channel_map *map, const pa_buffer_attr *attr, int *error);
void crate_pa_simple_free(pa_simple *stream);
int crate_pa_simple_write(pa_simple *stream, const void *data, size_t bytes, int *error);
int crate_pa_simple_drain(pa_simple *stream, int *error);
int crate_pa_simple_flush(pa_simple *stream, int *error);
const char *crate_pa_strerror(int error);

#endif
