#include <alsa/asoundlib.h>

/* libasound prints its own errors to stderr ("ALSA lib pcm.c:...: Unknown PCM hw:9,0"); Crate reports them with
   context instead. The handler is variadic, which Swift cannot define: it lives here. */
static void crate_alsa_silent(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

static inline void crate_alsa_quiet(void) {
    snd_lib_error_set_handler(crate_alsa_silent);
}
