#ifndef CRATE_IMAGE_SHIM_H
#define CRATE_IMAGE_SHIM_H

// JPEG and PNG decoding and JPEG encoding for Crate's thumbnailer, in C because libjpeg reports errors
// by calling a function that must not return: only setjmp/longjmp can unwind it, and Swift has neither.
// Every function is reentrant (all state is on the caller's stack), so threads may call them at once.
// libjpeg and libpng types stay inside the .c file; Swift sees only this header.

#include <stddef.h>
#include <stdint.h>

/// Room for libjpeg's longest message (200) with a few words of ours around it.
#define CRATE_IMAGE_MESSAGE_MAX 256

typedef enum {
    CRATE_IMAGE_OK = 0,
    /// A JPEG or PNG of a kind this shim does not decode; `message` names it ("a JPEG with ...").
    CRATE_IMAGE_UNSUPPORTED = 1,
    /// Damaged, truncated or not an image at all; `message` holds the library's words.
    CRATE_IMAGE_UNDECODABLE = 2,
    /// The header claims more pixels than the caller allows; `width` and `height` are set.
    CRATE_IMAGE_TOO_LARGE = 3,
    CRATE_IMAGE_NO_MEMORY = 4,
} crate_image_status;

typedef struct {
    /// The stored image's size, from its header (0 when the header could not be read).
    int width;
    int height;
    /// A NUL-terminated explanation when the status is not CRATE_IMAGE_OK.
    char message[CRATE_IMAGE_MESSAGE_MAX];
} crate_image_info;

typedef struct {
    /// Packed 8-bit RGB rows (width * 3 bytes each), top row first; release with crate_image_free.
    uint8_t *pixels;
    int width;
    int height;
} crate_image_pixels;

/// Options of crate_jpeg_encode.
enum {
    CRATE_JPEG_PROGRESSIVE = 1,
    /// With 4 components: store YCCK instead of plain CMYK (both with the Adobe marker, inverted as Photoshop does).
    CRATE_JPEG_YCCK = 2,
};

/// Reads a JPEG's markers up to its first scan, without decoding pixels.
crate_image_status crate_jpeg_read_header(const uint8_t *data, size_t size, crate_image_info *info);

/// Decodes a JPEG to RGB at the smallest DCT scale (n/8) whose output is at least min_width x min_height
/// (0 and 0: full size). Grayscale, YCbCr, RGB, CMYK and YCCK, baseline or progressive.
crate_image_status crate_jpeg_decode(const uint8_t *data, size_t size, int min_width, int min_height,
                                     uint64_t max_pixels, crate_image_info *info, crate_image_pixels *out);

/// Reads a PNG's chunks up to its image data, without decoding pixels.
crate_image_status crate_png_read_header(const uint8_t *data, size_t size, crate_image_info *info);

/// Decodes any PNG (palette, grey, 16-bit, alpha, interlaced) to 8-bit sRGB, alpha composited on white.
crate_image_status crate_png_decode(const uint8_t *data, size_t size, uint64_t max_pixels, crate_image_info *info,
                                    crate_image_pixels *out);

/// Encodes packed rows of `components` bytes per pixel (1 grey, 3 RGB, 4 CMYK) as a JPEG, baseline unless
/// CRATE_JPEG_PROGRESSIVE, with optimised Huffman tables. *out is allocated here; release with crate_image_free.
crate_image_status crate_jpeg_encode(const uint8_t *pixels, int width, int height, int components, int quality,
                                     int options, crate_image_info *info, uint8_t **out, size_t *out_size);

void crate_image_free(void *pointer);

#endif
