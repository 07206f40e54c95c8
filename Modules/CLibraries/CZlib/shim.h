#include <zlib.h>

// deflateInit2 is a macro Swift cannot call: one whole gzip member in C instead. Returns Z_OK, or the error;
// *out_len is the capacity on the way in and the length on the way out.
static inline int crate_gzip(const unsigned char *in, unsigned long n, unsigned char *out, unsigned long *out_len) {
    z_stream s = {0};
    int r = deflateInit2(&s, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    if (r != Z_OK) return r;
    s.next_in = (unsigned char *)in;
    s.avail_in = (uInt)n;
    s.next_out = out;
    s.avail_out = (uInt)*out_len;
    r = deflate(&s, Z_FINISH);
    *out_len = s.total_out;
    deflateEnd(&s);
    return r == Z_STREAM_END ? Z_OK : Z_BUF_ERROR;
}

// Room enough for any input of n bytes, gzip header and trailer included.
static inline unsigned long crate_gzip_bound(unsigned long n) { return compressBound(n) + 32; }
