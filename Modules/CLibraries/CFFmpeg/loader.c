#include "CFFmpeg.h"
#include <dlfcn.h>
#include <stdio.h>

#define CRATE_STRING_(x) #x
#define CRATE_STRING(x) CRATE_STRING_(x)

/* The sonames of the versions the headers describe: a table typed from these headers must not be filled from
   another major version, whose structures differ. */
static const char *const sonames[] = {
    "libavutil.so." CRATE_STRING(LIBAVUTIL_VERSION_MAJOR),
    "libswresample.so." CRATE_STRING(LIBSWRESAMPLE_VERSION_MAJOR),
    "libavcodec.so." CRATE_STRING(LIBAVCODEC_VERSION_MAJOR),
    "libavformat.so." CRATE_STRING(LIBAVFORMAT_VERSION_MAJOR),
};
enum { AVUTIL, SWRESAMPLE, AVCODEC, AVFORMAT, LIBRARIES };

static CrateFFmpeg loaded;

const CrateFFmpeg *crate_ffmpeg_load(char *error, size_t error_size) {
    CrateFFmpeg *table = &loaded;
    void *handles[LIBRARIES];
    for (int i = 0; i < LIBRARIES; i++) {
        /* Never closed: decoders hold FFmpeg's objects for the life of the process. */
        handles[i] = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
        if (handles[i] == NULL) {
            const char *reason = dlerror();
            snprintf(error, error_size, "%s", reason ? reason : sonames[i]);
            return NULL;
        }
    }
    void *symbol;
#define CRATE_FFMPEG_HANDLE_avutil handles[AVUTIL]
#define CRATE_FFMPEG_HANDLE_swresample handles[SWRESAMPLE]
#define CRATE_FFMPEG_HANDLE_avcodec handles[AVCODEC]
#define CRATE_FFMPEG_HANDLE_avformat handles[AVFORMAT]
#define CRATE_FFMPEG_RESOLVE(library, name) \
    symbol = dlsym(CRATE_FFMPEG_HANDLE_##library, #name); \
    if (symbol == NULL) { \
        snprintf(error, error_size, "lib%s has no function %s", #library, #name); \
        return NULL; \
    } \
    table->name = (__typeof__(name) *)symbol;
    CRATE_FFMPEG_FUNCTIONS(CRATE_FFMPEG_RESOLVE)
    return table;
}
