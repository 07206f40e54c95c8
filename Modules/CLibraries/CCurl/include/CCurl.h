#ifndef CRATE_CCURL_H
#define CRATE_CCURL_H

/* libcurl's header for its types and constants; its functions are reached through the wrappers below, which call
   into the library `crate_curl_load` opened. Linked, libcurl brings 28 more shared objects (GnuTLS, Kerberos,
   LDAP, SSH, ...) into every process: 12 ms of each `crate` command's start and 5.6 MiB of an idle crated's memory,
   for the two plugins that use it only when a stream plays or the Apple Music API is asked. */
/* The functions are called through pointers: curl.h's type-checking macros for setopt and getinfo must not wrap them. */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include <stddef.h>

/* Opens libcurl and runs its global initialisation, once per process (any thread may call it, any number of
   times). Returns 1 when libcurl is ready; 0 when it cannot be loaded, with the reason in `error`. Every function
   below needs a successful load first. */
int crate_curl_load(char *error, size_t error_size);

CURL *crate_curl_easy_init(void);
void crate_curl_easy_cleanup(CURL *handle);
/* Clears the options of a handle for its next transfer; its open connections, DNS and TLS session caches stay. */
void crate_curl_easy_reset(CURL *handle);
CURLcode crate_curl_easy_perform(CURL *handle);
const char *crate_curl_easy_strerror(CURLcode code);
struct curl_slist *crate_curl_slist_append(struct curl_slist *list, const char *line);
void crate_curl_slist_free_all(struct curl_slist *list);

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed wrapper per kind. */
CURLcode crate_curl_long(CURL *handle, CURLoption option, long value);
CURLcode crate_curl_offset(CURL *handle, CURLoption option, curl_off_t value);
CURLcode crate_curl_string(CURL *handle, CURLoption option, const char *value);
CURLcode crate_curl_pointer(CURL *handle, CURLoption option, void *value);
CURLcode crate_curl_list(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode crate_curl_write(CURL *handle, CURLoption option, size_t (*function)(char *, size_t, size_t, void *));
CURLcode crate_curl_progress(CURL *handle, int (*function)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t));
/* The last response's HTTP status (0 before one arrived). */
long crate_curl_status(CURL *handle);

#endif
