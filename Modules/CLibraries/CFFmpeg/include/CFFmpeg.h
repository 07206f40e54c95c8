#ifndef CRATE_CFFMPEG_H
#define CRATE_CFFMPEG_H

/* FFmpeg's headers for its types and constants; its functions are reached through `CrateFFmpeg`, a table filled
   by `crate_ffmpeg_load`. Linking the libraries would load them (about 130 shared objects) into every process,
   60 ms of start-up for each `crate` command; loaded on first use, only a process that decodes through FFmpeg
   pays that. */
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswresample/swresample.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/opt.h>
#include <stddef.h>

/* Every FFmpeg function Crate calls, with its library. */
#define CRATE_FFMPEG_FUNCTIONS(X) \
    X(avutil, av_log_set_level) \
    X(avutil, av_strerror) \
    X(avutil, av_malloc) \
    X(avutil, av_free) \
    X(avutil, av_freep) \
    X(avutil, av_dict_get) \
    X(avutil, av_dict_set) \
    X(avutil, av_dict_free) \
    X(avutil, av_frame_alloc) \
    X(avutil, av_frame_free) \
    X(avutil, av_frame_unref) \
    X(avutil, av_rescale_q_rnd) \
    X(avutil, av_get_sample_fmt_name) \
    X(avutil, av_frame_get_buffer) \
    X(avutil, av_channel_layout_default) \
    X(avutil, av_channel_layout_copy) \
    X(avutil, av_channel_layout_uninit) \
    X(swresample, swr_alloc_set_opts2) \
    X(swresample, swr_init) \
    X(swresample, swr_convert) \
    X(swresample, swr_free) \
    X(avcodec, avcodec_version) \
    X(avcodec, avcodec_find_decoder) \
    X(avcodec, avcodec_get_name) \
    X(avcodec, avcodec_descriptor_get) \
    X(avcodec, avcodec_alloc_context3) \
    X(avcodec, avcodec_parameters_to_context) \
    X(avcodec, avcodec_open2) \
    X(avcodec, avcodec_free_context) \
    X(avcodec, avcodec_send_packet) \
    X(avcodec, avcodec_receive_frame) \
    X(avcodec, av_packet_alloc) \
    X(avcodec, av_packet_unref) \
    X(avcodec, av_packet_free) \
    X(avcodec, avcodec_find_encoder_by_name) \
    X(avcodec, avcodec_send_frame) \
    X(avcodec, avcodec_receive_packet) \
    X(avcodec, avcodec_parameters_from_context) \
    X(avcodec, av_packet_rescale_ts) \
    X(avformat, avformat_version) \
    X(avformat, avformat_alloc_context) \
    X(avformat, avformat_open_input) \
    X(avformat, avformat_find_stream_info) \
    X(avformat, avformat_close_input) \
    X(avformat, avformat_index_get_entry) \
    X(avformat, av_find_input_format) \
    X(avformat, av_find_best_stream) \
    X(avformat, av_probe_input_buffer2) \
    X(avformat, av_read_frame) \
    X(avformat, av_seek_frame) \
    X(avformat, avio_alloc_context) \
    X(avformat, avio_context_free) \
    X(avformat, avformat_alloc_output_context2) \
    X(avformat, avformat_new_stream) \
    X(avformat, avformat_write_header) \
    X(avformat, av_interleaved_write_frame) \
    X(avformat, av_write_trailer) \
    X(avformat, avformat_free_context)

/* One pointer per function, typed as FFmpeg declares it; all set once `crate_ffmpeg_load` succeeded. */
typedef struct CrateFFmpeg {
#define CRATE_FFMPEG_MEMBER(library, name) __typeof__(name) *_Nonnull name;
    CRATE_FFMPEG_FUNCTIONS(CRATE_FFMPEG_MEMBER)
#undef CRATE_FFMPEG_MEMBER
} CrateFFmpeg;

/* Loads libavutil, libswresample, libavcodec and libavformat (the major versions these headers are for) and returns
   the filled table, or NULL with the loader's reason in `error` (a missing library, a missing function). Not
   thread-safe: call it once (the Swift side does, from a lazily initialised static). */
const CrateFFmpeg *_Nullable crate_ffmpeg_load(char *_Nonnull error, size_t error_size);

/* FFmpeg's error codes and "no timestamp" are function-like macros, which Swift does not import. */
static inline int crate_averror_eof(void) { return AVERROR_EOF; }
static inline int crate_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int crate_averror_eio(void) { return AVERROR(EIO); }
static inline int crate_averror_enomem(void) { return AVERROR(ENOMEM); }
static inline int crate_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int crate_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int crate_averror_stream_not_found(void) { return AVERROR_STREAM_NOT_FOUND; }
static inline int64_t crate_av_nopts_value(void) { return AV_NOPTS_VALUE; }

#endif
