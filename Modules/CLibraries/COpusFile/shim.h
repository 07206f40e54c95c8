#include <opusfile.h>  /* also includes <opus_multistream.h> (pkg-config: -I/usr/include/opus) */

/* Fast path for mono and stereo Ogg Opus: decode each packet with opusfile's own stream-0 OpusDecoder
   (opus_decode_float) instead of through its OpusMSDecoder (opus_multistream_decode_float).
   Why: opus_multistream_decode_float calls opus_decoder_get_size 4 times per packet; in a libopus built
   with custom modes (Debian's) each call runs opus_select_arch(), two CPUID instructions, which trap to
   the hypervisor in a VM (about 4 us each): 45% of the decode time there.
   Same samples: a one-stream multistream decode is opus_decode_native on that same decoder plus a
   float copy, and since the decoder state is opusfile's, the header gain (OPUS_SET_GAIN reaches every
   stream), the reset on seek and the decoder rebuilt on a link change all still apply.
   Anything else (several streams, a non-identity channel mapping, 16-bit output) takes opusfile's
   default path. */
typedef struct CrateOpusFastPath {
    OggOpusFile *file;      /* for op_head() of the packet's link */
    OpusMSDecoder *cachedMS;  /* the (decoder, link) stream0 and channels belong to; NULL: none yet */
    int cachedLink;
    OpusDecoder *stream0;   /* stream 0 of cachedMS, or NULL when that link must take the default path */
    int channels;           /* the link's channel count (1 or 2) when stream0 is set */
    long long packets;      /* packets decoded by the fast path, for tests */
} CrateOpusFastPath;

/* An op_decode_cb_func: returns 0 having filled pcm with nsamples * nchannels floats, a negative
   libopus error (as opus_multistream_decode_float would have), or OP_DEC_USE_DEFAULT. */
static inline int crate_opus_decode_packet(void *ctx, OpusMSDecoder *ms, void *pcm, const ogg_packet *op,
                                           int nsamples, int nchannels, int format, int li) {
    CrateOpusFastPath *fast = (CrateOpusFastPath *)ctx;
    if (format != OP_DEC_FORMAT_FLOAT) return OP_DEC_USE_DEFAULT;
    if (ms != fast->cachedMS || li != fast->cachedLink) {
        /* Eligibility and the stream-0 pointer depend only on the link's header and the decoder, so they
           are worked out once per pair: the ctl itself costs two opus_decoder_get_size calls. */
        const OpusHead *head = op_head(fast->file, li);
        OpusDecoder *dec = NULL;
        int identity = head != NULL && head->channel_count >= 1 && head->channel_count <= 2
            && head->stream_count == 1 && head->coupled_count == head->channel_count - 1;
        for (int c = 0; identity && c < head->channel_count; c++) identity = head->mapping[c] == c;
        if (!identity || opus_multistream_decoder_ctl(ms, OPUS_MULTISTREAM_GET_DECODER_STATE(0, &dec)) != OPUS_OK)
            dec = NULL;
        fast->cachedMS = ms;
        fast->cachedLink = li;
        fast->stream0 = dec;
        fast->channels = dec != NULL ? head->channel_count : 0;
    }
    if (fast->stream0 == NULL || nchannels != fast->channels) return OP_DEC_USE_DEFAULT;
    int ret = opus_decode_float(fast->stream0, op->packet, (opus_int32)op->bytes, (float *)pcm, nsamples, 0);
    /* An error leaves the decoder as the multistream call would have (the packet is parsed before any
       state changes), so it is returned as is rather than decoded a second time by the default path. */
    if (ret < 0) return ret;
    /* Cannot happen (opusfile computes nsamples from the packet), but the callback must fill exactly that. */
    if (ret != nsamples) return OPUS_INTERNAL_ERROR;
    fast->packets++;
    return 0;
}

/* Installs the fast path on `file`; `fast` must stay valid until op_free(file). */
static inline void crate_opus_install_fast_path(OggOpusFile *file, CrateOpusFastPath *fast) {
    fast->file = file;
    fast->cachedMS = NULL;
    fast->cachedLink = -1;
    fast->stream0 = NULL;
    fast->channels = 0;
    fast->packets = 0;
    op_set_decode_callback(file, crate_opus_decode_packet, fast);
}
