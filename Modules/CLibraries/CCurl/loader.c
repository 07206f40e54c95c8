#include "CCurl.h"
#include "CLazyLibrary.h"
#include <stdio.h>

/* libcurl's soname has been libcurl.so.4 since 2006 (curl 7.16), for the 7.x and 8.x versions alike. */
static const char soname[] = "libcurl.so.4";

/* The functions Crate calls, with their types from the header. */
#define CRATE_CURL_FUNCTIONS(X) \
    X(curl_global_init) \
    X(curl_easy_init) \
    X(curl_easy_cleanup) \
    X(curl_easy_reset) \
    X(curl_easy_perform) \
    X(curl_easy_setopt) \
    X(curl_easy_getinfo) \
    X(curl_easy_strerror) \
    X(curl_slist_append) \
    X(curl_slist_free_all)

#define CRATE_CURL_NAME(name) #name,
static const char *const names[] = { CRATE_CURL_FUNCTIONS(CRATE_CURL_NAME) };

/* The functions, typed from the header, over the untyped pointers crate_lazy_load fills in the list's order
   (POSIX gives function and data pointers one representation). */
static union {
    struct {
#define CRATE_CURL_FIELD(name) __typeof__(name) *name;
        CRATE_CURL_FUNCTIONS(CRATE_CURL_FIELD)
    };
    void *pointers[sizeof names / sizeof names[0]];
} lib;
_Static_assert(sizeof lib == sizeof lib.pointers, "one pointer per listed function");

static CrateLazyLibrary library = CRATE_LAZY_LIBRARY_INIT;

static int start(char *failure, size_t failure_size) {
    CURLcode code = lib.curl_global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) snprintf(failure, failure_size, "libcurl did not start: %s", lib.curl_easy_strerror(code));
    return code == CURLE_OK;
}

int crate_curl_load(char *error, size_t error_size) {
    return crate_lazy_load(&library, soname, names, lib.pointers, sizeof names / sizeof names[0], start, error, error_size);
}

CURL *crate_curl_easy_init(void) { return lib.curl_easy_init(); }
void crate_curl_easy_cleanup(CURL *handle) { lib.curl_easy_cleanup(handle); }
void crate_curl_easy_reset(CURL *handle) { lib.curl_easy_reset(handle); }
CURLcode crate_curl_easy_perform(CURL *handle) { return lib.curl_easy_perform(handle); }
const char *crate_curl_easy_strerror(CURLcode code) { return lib.curl_easy_strerror(code); }
struct curl_slist *crate_curl_slist_append(struct curl_slist *list, const char *line) { return lib.curl_slist_append(list, line); }
void crate_curl_slist_free_all(struct curl_slist *list) { lib.curl_slist_free_all(list); }

CURLcode crate_curl_long(CURL *handle, CURLoption option, long value) { return lib.curl_easy_setopt(handle, option, value); }
CURLcode crate_curl_offset(CURL *handle, CURLoption option, curl_off_t value) { return lib.curl_easy_setopt(handle, option, value); }
CURLcode crate_curl_string(CURL *handle, CURLoption option, const char *value) { return lib.curl_easy_setopt(handle, option, value); }
CURLcode crate_curl_pointer(CURL *handle, CURLoption option, void *value) { return lib.curl_easy_setopt(handle, option, value); }
CURLcode crate_curl_list(CURL *handle, CURLoption option, struct curl_slist *value) { return lib.curl_easy_setopt(handle, option, value); }
CURLcode crate_curl_write(CURL *handle, CURLoption option, size_t (*function)(char *, size_t, size_t, void *)) {
    return lib.curl_easy_setopt(handle, option, function);
}
CURLcode crate_curl_progress(CURL *handle, int (*function)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t)) {
    return lib.curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, function);
}
long crate_curl_status(CURL *handle) {
    long code = 0;
    lib.curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &code);
    return code;
}
