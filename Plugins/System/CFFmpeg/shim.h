#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswresample/swresample.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/opt.h>

/* FFmpeg's error codes and "no timestamp" are function-like macros, which Swift does not import. */
static inline int crate_averror_eof(void) { return AVERROR_EOF; }
static inline int crate_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int crate_averror_eio(void) { return AVERROR(EIO); }
static inline int crate_averror_enomem(void) { return AVERROR(ENOMEM); }
static inline int crate_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int crate_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int crate_averror_stream_not_found(void) { return AVERROR_STREAM_NOT_FOUND; }
static inline int64_t crate_av_nopts_value(void) { return AV_NOPTS_VALUE; }
