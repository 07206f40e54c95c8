#include <opus.h>  /* pkg-config: -I/usr/include/opus */

/* opus_encoder_ctl is variadic, which Swift cannot call: one small function per request the stream output makes. */
static inline int crate_opus_set_bitrate(OpusEncoder *enc, opus_int32 bitsPerSecond) {
    return opus_encoder_ctl(enc, OPUS_SET_BITRATE(bitsPerSecond));
}
static inline int crate_opus_set_complexity(OpusEncoder *enc, opus_int32 complexity) {
    return opus_encoder_ctl(enc, OPUS_SET_COMPLEXITY(complexity));
}
static inline int crate_opus_set_signal_music(OpusEncoder *enc) {
    return opus_encoder_ctl(enc, OPUS_SET_SIGNAL(OPUS_SIGNAL_MUSIC));
}
static inline opus_int32 crate_opus_lookahead(OpusEncoder *enc) {
    opus_int32 samples = 0;
    if (opus_encoder_ctl(enc, OPUS_GET_LOOKAHEAD(&samples)) != OPUS_OK) return 312;
    return samples;
}
