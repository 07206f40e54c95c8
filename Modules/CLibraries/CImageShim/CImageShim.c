#include "CImageShim.h"

#include <setjmp.h>
#include <stdio.h> // jpeglib.h needs FILE declared first
#include <stdlib.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>
#include <png.h>

// Standard progressive scripts use about ten scans; hundreds only appear in files crafted to make the
// decoder redo the whole image per scan and burn CPU.
#define CRATE_MAX_SCANS 256
#define CRATE_STRING(x) CRATE_STRING2(x)
#define CRATE_STRING2(x) #x

static void set_message(crate_image_info *info, const char *text) {
    snprintf(info->message, sizeof info->message, "%s", text);
}

// MARK: libjpeg error handling

// libjpeg's default error_exit prints and calls exit(); ours records the message and jumps back to the
// function that set `jump`, which destroys the codec object and frees what it allocated.
struct crate_jpeg_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    crate_image_status status;
    // A truncated file makes the source insert a fake end marker and warn; the rows after the cut come out
    // grey. Refuse that rather than cache a half-grey thumbnail.
    int eof_is_fatal;
    char message[CRATE_IMAGE_MESSAGE_MAX];
};

static void crate_jpeg_error_exit(j_common_ptr cinfo) {
    struct crate_jpeg_error *err = (struct crate_jpeg_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    switch (err->pub.msg_code) {
    // Valid JPEG kinds this libjpeg-turbo build does not decode (lossless, 12-bit...): say so, not "damaged".
    case JERR_SOF_UNSUPPORTED:
    case JERR_BAD_PRECISION:
    case JERR_ARITH_NOTIMPL:
    case JERR_NOT_COMPILED:
    case JERR_CONVERSION_NOTIMPL:
    case JERR_COMPONENT_COUNT:
        err->status = CRATE_IMAGE_UNSUPPORTED;
        snprintf(err->message, sizeof err->message, "a JPEG that libjpeg-turbo cannot decode (%s)", text);
        break;
    default:
        snprintf(err->message, sizeof err->message, "%s", text);
    }
    longjmp(err->jump, 1);
}

static void crate_jpeg_fail(j_common_ptr cinfo, crate_image_status status, const char *text) {
    struct crate_jpeg_error *err = (struct crate_jpeg_error *)cinfo->err;
    err->status = status;
    snprintf(err->message, sizeof err->message, "%s", text);
    longjmp(err->jump, 1);
}

static void crate_jpeg_emit_message(j_common_ptr cinfo, int level) {
    struct crate_jpeg_error *err = (struct crate_jpeg_error *)cinfo->err;
    if (level >= 0) return; // trace messages
    if (err->pub.msg_code == JWRN_JPEG_EOF && err->eof_is_fatal) {
        crate_jpeg_fail(cinfo, CRATE_IMAGE_UNDECODABLE, "the JPEG data ends early (the file is truncated)");
    }
    // Other warnings (stray bytes before a marker and the like) are common in real covers that display fine.
    err->pub.num_warnings++;
}

// A library must not write to the daemon's stderr.
static void crate_jpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void crate_jpeg_init_error(struct crate_jpeg_error *err) {
    memset(err, 0, sizeof *err);
    jpeg_std_error(&err->pub);
    err->pub.error_exit = crate_jpeg_error_exit;
    err->pub.emit_message = crate_jpeg_emit_message;
    err->pub.output_message = crate_jpeg_output_message;
    err->status = CRATE_IMAGE_UNDECODABLE;
    err->eof_is_fatal = 1;
}

static void crate_jpeg_report(const struct crate_jpeg_error *err, crate_image_info *info) {
    set_message(info, err->message);
}

static void crate_jpeg_scan_limit(j_common_ptr cinfo) {
    if (cinfo->is_decompressor && ((j_decompress_ptr)cinfo)->input_scan_number > CRATE_MAX_SCANS) {
        crate_jpeg_fail(cinfo, CRATE_IMAGE_UNDECODABLE, "the JPEG has more than " CRATE_STRING(CRATE_MAX_SCANS) " progressive scans");
    }
}

// MARK: JPEG decoding

// Reads the header and refuses what the thumbnailer cannot or will not decode; longjmps on failure.
static void crate_jpeg_start(j_decompress_ptr cinfo, const uint8_t *data, size_t size, uint64_t max_pixels,
                             crate_image_info *info) {
    jpeg_create_decompress(cinfo);
    jpeg_mem_src(cinfo, data, (unsigned long)size);
    jpeg_read_header(cinfo, TRUE);
    info->width = (int)cinfo->image_width;
    info->height = (int)cinfo->image_height;
    if ((uint64_t)cinfo->image_width * cinfo->image_height > max_pixels) {
        crate_jpeg_fail((j_common_ptr)cinfo, CRATE_IMAGE_TOO_LARGE, "the JPEG is too large");
    }
    switch (cinfo->jpeg_color_space) {
    case JCS_GRAYSCALE:
    case JCS_YCbCr:
    case JCS_RGB:
        // libjpeg-turbo converts these three to RGB itself.
        cinfo->out_color_space = JCS_EXT_RGB;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        // libjpeg can only undo YCCK to CMYK; the thumbnailer converts CMYK to RGB row by row.
        cinfo->out_color_space = JCS_CMYK;
        break;
    default: {
        char text[JMSG_LENGTH_MAX];
        snprintf(text, sizeof text, "a JPEG with %d colour components in a colour space Crate does not know",
                 cinfo->num_components);
        crate_jpeg_fail((j_common_ptr)cinfo, CRATE_IMAGE_UNSUPPORTED, text);
    }
    }
}

crate_image_status crate_jpeg_read_header(const uint8_t *data, size_t size, crate_image_info *info) {
    struct jpeg_decompress_struct cinfo;
    struct crate_jpeg_error err;
    memset(info, 0, sizeof *info);
    // Zeroed first so that destroying after an early failure sees no stale memory manager.
    memset(&cinfo, 0, sizeof cinfo);
    crate_jpeg_init_error(&err);
    cinfo.err = &err.pub;
    if (setjmp(err.jump)) {
        crate_jpeg_report(&err, info);
        jpeg_destroy_decompress(&cinfo);
        // The size is known even when it is too large: the header was read.
        return err.status;
    }
    crate_jpeg_start(&cinfo, data, size, UINT64_MAX, info);
    jpeg_destroy_decompress(&cinfo);
    return CRATE_IMAGE_OK;
}

// Inverted CMYK as Photoshop stores it (Adobe marker): each byte is 255 minus the ink, so a channel is the
// product of the colour's and black's bytes. Without the marker the bytes are the inks themselves. A naive
// conversion without the ICC profile, good enough for a thumbnail.
static void crate_cmyk_to_rgb(const JSAMPLE *cmyk, uint8_t *rgb, JDIMENSION width, int inverted) {
    for (JDIMENSION x = 0; x < width; x++, cmyk += 4, rgb += 3) {
        unsigned k = inverted ? cmyk[3] : 255u - cmyk[3];
        for (int c = 0; c < 3; c++) {
            unsigned v = inverted ? cmyk[c] : 255u - cmyk[c];
            rgb[c] = (uint8_t)((v * k + 127) / 255);
        }
    }
}

crate_image_status crate_jpeg_decode(const uint8_t *data, size_t size, int min_width, int min_height,
                                     uint64_t max_pixels, crate_image_info *info, crate_image_pixels *out) {
    struct jpeg_decompress_struct cinfo;
    struct crate_jpeg_error err;
    struct jpeg_progress_mgr progress;
    // volatile: assigned after setjmp and freed on the longjmp path.
    uint8_t *volatile pixels = NULL;
    memset(info, 0, sizeof *info);
    memset(out, 0, sizeof *out);
    memset(&cinfo, 0, sizeof cinfo);
    memset(&progress, 0, sizeof progress);
    crate_jpeg_init_error(&err);
    cinfo.err = &err.pub;
    if (setjmp(err.jump)) {
        crate_jpeg_report(&err, info);
        jpeg_destroy_decompress(&cinfo);
        free(pixels);
        return err.status;
    }
    crate_jpeg_start(&cinfo, data, size, max_pixels, info);
    progress.progress_monitor = crate_jpeg_scan_limit;
    cinfo.progress = &progress;

    // Scaling in the DCT domain skips most of the work for big covers; the caller averages the rest away.
    cinfo.scale_denom = 8;
    cinfo.scale_num = 8;
    if (min_width > 0 && min_height > 0) {
        for (unsigned num = 1; num <= 8; num++) {
            cinfo.scale_num = num;
            jpeg_calc_output_dimensions(&cinfo);
            if (cinfo.output_width >= (JDIMENSION)min_width && cinfo.output_height >= (JDIMENSION)min_height) break;
        }
    }
    jpeg_start_decompress(&cinfo);

    JDIMENSION width = cinfo.output_width, height = cinfo.output_height;
    size_t stride = (size_t)width * 3;
    pixels = malloc(stride * height);
    if (pixels == NULL) crate_jpeg_fail((j_common_ptr)&cinfo, CRATE_IMAGE_NO_MEMORY, "no memory for the decoded JPEG");
    int cmyk = cinfo.out_color_space == JCS_CMYK;
    // From libjpeg's pool: released by jpeg_destroy_decompress on every path.
    JSAMPARRAY cmyk_row = cmyk ? (*cinfo.mem->alloc_sarray)((j_common_ptr)&cinfo, JPOOL_IMAGE, width * 4, 1) : NULL;
    while (cinfo.output_scanline < height) {
        uint8_t *row = pixels + stride * cinfo.output_scanline;
        JSAMPROW target = cmyk ? cmyk_row[0] : row;
        // The memory source never suspends, so 0 rows means something is badly wrong.
        if (jpeg_read_scanlines(&cinfo, &target, 1) != 1) {
            crate_jpeg_fail((j_common_ptr)&cinfo, CRATE_IMAGE_UNDECODABLE, "libjpeg returned no rows");
        }
        if (cmyk) crate_cmyk_to_rgb(cmyk_row[0], row, width, cinfo.saw_Adobe_marker);
    }
    // Every row is in: what follows the last scan (a missing end marker, trailing junk) does not matter,
    // so skip jpeg_finish_decompress and its checks.
    out->pixels = pixels;
    out->width = (int)width;
    out->height = (int)height;
    jpeg_destroy_decompress(&cinfo);
    return CRATE_IMAGE_OK;
}

// MARK: JPEG encoding

// A growing malloc buffer of our own: jpeg_mem_dest's buffer may be freed and replaced behind our back,
// which makes cleaning up after an error unsafe.
struct crate_jpeg_destination {
    struct jpeg_destination_mgr pub;
    uint8_t *buffer;
    size_t capacity;
    size_t size;
};

static void crate_dest_init(j_compress_ptr cinfo) {
    struct crate_jpeg_destination *dest = (struct crate_jpeg_destination *)cinfo->dest;
    dest->capacity = 64 * 1024;
    dest->buffer = malloc(dest->capacity);
    if (dest->buffer == NULL) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 1);
    dest->pub.next_output_byte = dest->buffer;
    dest->pub.free_in_buffer = dest->capacity;
}

// Called when the buffer is full (libjpeg requires the whole buffer to be taken, whatever next_output_byte says).
static boolean crate_dest_empty(j_compress_ptr cinfo) {
    struct crate_jpeg_destination *dest = (struct crate_jpeg_destination *)cinfo->dest;
    size_t used = dest->capacity;
    uint8_t *grown = realloc(dest->buffer, used * 2);
    if (grown == NULL) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 2);
    dest->buffer = grown;
    dest->capacity = used * 2;
    dest->pub.next_output_byte = grown + used;
    dest->pub.free_in_buffer = dest->capacity - used;
    return TRUE;
}

static void crate_dest_term(j_compress_ptr cinfo) {
    struct crate_jpeg_destination *dest = (struct crate_jpeg_destination *)cinfo->dest;
    dest->size = dest->capacity - dest->pub.free_in_buffer;
}

crate_image_status crate_jpeg_encode(const uint8_t *pixels, int width, int height, int components, int quality,
                                     int options, crate_image_info *info, uint8_t **out, size_t *out_size) {
    struct jpeg_compress_struct cinfo;
    struct crate_jpeg_error err;
    memset(info, 0, sizeof *info);
    *out = NULL;
    *out_size = 0;
    if (width <= 0 || height <= 0 || width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION) {
        set_message(info, "the image size is outside what JPEG can store");
        return CRATE_IMAGE_UNSUPPORTED;
    }
    J_COLOR_SPACE space;
    switch (components) {
    case 1: space = JCS_GRAYSCALE; break;
    case 3: space = JCS_RGB; break;
    case 4: space = JCS_CMYK; break;
    default:
        set_message(info, "JPEG pixels must have 1, 3 or 4 components");
        return CRATE_IMAGE_UNSUPPORTED;
    }
    // On the heap, and the pointer never changes after setjmp, so the longjmp path reliably sees the
    // buffer the callbacks last grew.
    struct crate_jpeg_destination *const dest = calloc(1, sizeof *dest);
    if (dest == NULL) {
        set_message(info, "no memory for the JPEG encoder");
        return CRATE_IMAGE_NO_MEMORY;
    }
    memset(&cinfo, 0, sizeof cinfo);
    crate_jpeg_init_error(&err);
    cinfo.err = &err.pub;
    if (setjmp(err.jump)) {
        crate_jpeg_report(&err, info);
        jpeg_destroy_compress(&cinfo);
        free(dest->buffer);
        free(dest);
        return err.status;
    }
    jpeg_create_compress(&cinfo);
    dest->pub.init_destination = crate_dest_init;
    dest->pub.empty_output_buffer = crate_dest_empty;
    dest->pub.term_destination = crate_dest_term;
    cinfo.dest = &dest->pub;
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = components;
    cinfo.in_color_space = space;
    jpeg_set_defaults(&cinfo);
    if (components == 4 && (options & CRATE_JPEG_YCCK)) jpeg_set_colorspace(&cinfo, JCS_YCCK);
    jpeg_set_quality(&cinfo, quality, TRUE);
    // Optimised tables keep the file baseline (SOF0) and make it a few percent smaller.
    cinfo.optimize_coding = TRUE;
    if (options & CRATE_JPEG_PROGRESSIVE) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    size_t stride = (size_t)width * (size_t)components;
    while (cinfo.next_scanline < cinfo.image_height) {
        // libjpeg does not write through the row pointer; the cast only drops const.
        JSAMPROW row = (JSAMPROW)(pixels + stride * cinfo.next_scanline);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    *out = dest->buffer;
    *out_size = dest->size;
    jpeg_destroy_compress(&cinfo);
    free(dest);
    return CRATE_IMAGE_OK;
}

// MARK: PNG

// libpng's words for a cut-off file are about its reader, not the file; say what happened instead.
static void crate_png_report(crate_image_info *info, const char *message) {
    if (strstr(message, "read beyond end of data") != NULL) {
        set_message(info, "the PNG data ends early (the file is truncated)");
    } else {
        set_message(info, message);
    }
}

// libpng's simplified API catches its own errors (it has its own setjmp inside) and never prints.
static crate_image_status crate_png_begin(png_image *image, const uint8_t *data, size_t size, crate_image_info *info) {
    memset(image, 0, sizeof *image);
    image->version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(image, data, size)) {
        crate_png_report(info, image->message);
        png_image_free(image);
        return CRATE_IMAGE_UNDECODABLE;
    }
    info->width = (int)image->width;
    info->height = (int)image->height;
    return CRATE_IMAGE_OK;
}

crate_image_status crate_png_read_header(const uint8_t *data, size_t size, crate_image_info *info) {
    png_image image;
    memset(info, 0, sizeof *info);
    crate_image_status status = crate_png_begin(&image, data, size, info);
    if (status == CRATE_IMAGE_OK) png_image_free(&image);
    return status;
}

crate_image_status crate_png_decode(const uint8_t *data, size_t size, uint64_t max_pixels, crate_image_info *info,
                                    crate_image_pixels *out) {
    png_image image;
    memset(info, 0, sizeof *info);
    memset(out, 0, sizeof *out);
    crate_image_status status = crate_png_begin(&image, data, size, info);
    if (status != CRATE_IMAGE_OK) return status;
    if ((uint64_t)image.width * image.height > max_pixels) {
        png_image_free(&image);
        set_message(info, "the PNG is too large");
        return CRATE_IMAGE_TOO_LARGE;
    }
    // 8-bit sRGB without alpha: libpng expands palettes and grey, reduces 16-bit samples and composites
    // alpha on the background below.
    image.format = PNG_FORMAT_RGB;
    size_t stride = (size_t)image.width * 3;
    uint8_t *pixels = malloc(stride * image.height);
    if (pixels == NULL) {
        png_image_free(&image);
        set_message(info, "no memory for the decoded PNG");
        return CRATE_IMAGE_NO_MEMORY;
    }
    // White: covers with transparency are mostly logos and line art drawn for a light page; black would
    // hide dark lines, and dropping alpha shows whatever colour the encoder left in transparent pixels.
    png_color white = {255, 255, 255};
    if (!png_image_finish_read(&image, &white, pixels, (png_int_32)stride, NULL)) {
        crate_png_report(info, image.message);
        png_image_free(&image);
        free(pixels);
        return CRATE_IMAGE_UNDECODABLE;
    }
    png_image_free(&image);
    out->pixels = pixels;
    out->width = (int)image.width;
    out->height = (int)image.height;
    return CRATE_IMAGE_OK;
}

void crate_image_free(void *pointer) { free(pointer); }
