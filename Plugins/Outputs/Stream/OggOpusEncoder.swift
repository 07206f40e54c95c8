import COgg
import COpus
import CrateDomain
import Foundation

/// Ogg Opus for a live stream (RFC 7845), with libopus and libogg: 48 kHz stereo in 20-ms frames, pages flushed every
/// `packetsPerPage` packets (100 ms) so a listener hears the music within a fraction of a second.
///
/// Each track is its own chained Ogg stream (a new serial number with its own OpusHead and OpusTags carrying title,
/// artist and album), which is how players learn what plays. The encoder itself runs on across the chain, so the
/// sound does not break at a track change: the old stream ends (EOS) with the first whole frame after the change, and
/// the new one's pre-skip drops what the encoder's look-ahead still held of it.
final class OggOpusEncoder {
    static let rate = 48_000
    static let channels = 2
    static let frameSize = 960
    static let packetsPerPage = 5
    static let maxPacketBytes = 4000

    private let encoder: OpaquePointer
    private let preSkip: Int
    private var ogg = ogg_stream_state()
    private var hasStream = false
    private var serial: Int32
    private var packetNumber: Int64 = 0
    /// Samples (per channel) in this link's packets so far, pre-skip included: the next granule position's base.
    private var granule: Int64 = 0
    private var packetsSincePage = 0
    /// Interleaved samples waiting to fill a frame.
    private var pending: [Float] = []
    /// Tags of the track that starts with the next frame; its stream begins then.
    private var nextTags: NowPlayingTags?
    private(set) var tags: NowPlayingTags?
    private var packet = [UInt8](repeating: 0, count: OggOpusEncoder.maxPacketBytes)
    /// The current stream's header pages (OpusHead, OpusTags), for listeners who join now.
    private(set) var headers = Data()

    /// `bitRate` in kbit/s.
    init(bitRate: Int) throws {
        var error: Int32 = 0
        guard let made = opus_encoder_create(Int32(Self.rate), Int32(Self.channels), OPUS_APPLICATION_AUDIO, &error), error == OPUS_OK else {
            throw OutputError(output: "stream", reason: "libopus cannot make an encoder (\(String(cString: opus_strerror(error))))")
        }
        encoder = made
        guard crate_opus_set_bitrate(made, Int32(bitRate * 1000)) == OPUS_OK else {
            opus_encoder_destroy(made)
            throw OutputError(output: "stream", reason: "libopus refuses the bit rate \(bitRate) kbit/s (outputs.stream.bitrate)")
        }
        _ = crate_opus_set_signal_music(made)
        preSkip = Int(crate_opus_lookahead(made))
        serial = Int32.random(in: 1...Int32.max)
    }

    deinit {
        if hasStream { ogg_stream_clear(&ogg) }
        opus_encoder_destroy(encoder)
    }

    /// The next track: its stream starts with the next whole frame. The same tags again (the output reopened for a
    /// seek) change nothing.
    func announce(_ tags: NowPlayingTags) {
        if nextTags == nil, tags == self.tags, hasStream { return }
        nextTags = tags
    }

    /// What comes out, in order: a new stream's header pages (which every listener needs first), and audio pages.
    enum Output: Equatable {
        case headers(Data)
        case pages(Data)
    }

    /// Encodes interleaved 48 kHz stereo; answers what is ready, in order (often nothing).
    func encode(_ samples: UnsafeBufferPointer<Float>) throws -> [Output] {
        pending.append(contentsOf: samples)
        var out: [Output] = []
        var audio = Data()
        let frameSamples = Self.frameSize * Self.channels
        var start = 0
        while pending.count - start >= frameSamples {
            if !hasStream {
                if let next = nextTags {
                    tags = next
                    nextTags = nil
                }
                if !audio.isEmpty { out.append(.pages(audio)) }
                audio = Data()
                out.append(.headers(beginStream()))
            }
            let length = try pending.withUnsafeBufferPointer { p -> Int in
                guard let base = p.baseAddress else { return 0 }
                let n = opus_encode_float(encoder, base + start, Int32(Self.frameSize), &packet, Int32(packet.count))
                guard n >= 0 else {
                    throw OutputError(output: "stream", reason: "libopus cannot encode (\(String(cString: opus_strerror(n))))")
                }
                return Int(n)
            }
            start += frameSamples
            // A new track waits: this frame ends the old stream, and the next frame begins the new one.
            let last = nextTags != nil
            audio.append(submit(length, endOfStream: last))
            if last { endStream() }
        }
        pending.removeFirst(start)
        if !audio.isEmpty { out.append(.pages(audio)) }
        return out
    }

    // MARK: Ogg

    private func beginStream() -> Data {
        serial = serial == Int32.max ? 1 : serial + 1
        ogg_stream_init(&ogg, serial)
        hasStream = true
        packetNumber = 0
        granule = 0
        packetsSincePage = 0
        var bytes = Data()
        Self.opusHead(preSkip: preSkip).withUnsafeBufferPointer { packetIn($0, granule: 0, first: true) }
        bytes.append(flush())
        Self.opusTags(tags).withUnsafeBufferPointer { packetIn($0, granule: 0) }
        bytes.append(flush())
        headers = bytes
        return bytes
    }

    private func endStream() {
        ogg_stream_clear(&ogg)
        hasStream = false
    }

    /// One audio packet into the stream; a page (or none) out.
    private func submit(_ length: Int, endOfStream: Bool) -> Data {
        granule += Int64(Self.frameSize)
        packet.withUnsafeBufferPointer { packetIn(UnsafeBufferPointer(rebasing: $0[0..<length]), granule: granule, last: endOfStream) }
        packetsSincePage += 1
        guard endOfStream || packetsSincePage >= Self.packetsPerPage else { return Data() }
        packetsSincePage = 0
        return flush()
    }

    /// One packet into the stream. libogg copies the bytes (ogg_stream_packetin), so they are lent, not copied here;
    /// its `packet` field is not const, though it is only read.
    private func packetIn(_ bytes: UnsafeBufferPointer<UInt8>, granule: Int64, first: Bool = false, last: Bool = false) {
        var op = ogg_packet()
        op.packet = bytes.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
        op.bytes = bytes.count
        op.b_o_s = first ? 1 : 0
        op.e_o_s = last ? 1 : 0
        op.granulepos = ogg_int64_t(granule)
        op.packetno = ogg_int64_t(packetNumber)
        ogg_stream_packetin(&ogg, &op)
        packetNumber += 1
    }

    /// Every page the stream holds, written out now.
    private func flush() -> Data {
        var out = Data()
        var page = ogg_page()
        while ogg_stream_flush(&ogg, &page) != 0 {
            out.append(page.header, count: page.header_len)
            out.append(page.body, count: page.body_len)
        }
        return out
    }

    // MARK: Headers (RFC 7845 §5)

    static func opusHead(preSkip: Int) -> [UInt8] {
        var b = Array("OpusHead".utf8)
        b.append(1)                                   // version
        b.append(UInt8(channels))
        b += le16(preSkip)
        b += le32(rate)                               // the rate fed to the encoder
        b += le16(0)                                  // output gain
        b.append(0)                                   // mapping family 0: mono or stereo
        return b
    }

    static func opusTags(_ tags: NowPlayingTags?) -> [UInt8] {
        let vendor = Array("Crate (\(String(cString: opus_get_version_string())))".utf8)
        var comments: [[UInt8]] = []
        if let tags {
            comments.append(Array("TITLE=\(tags.title)".utf8))
            if let artist = tags.artist { comments.append(Array("ARTIST=\(artist)".utf8)) }
            if let album = tags.album { comments.append(Array("ALBUM=\(album)".utf8)) }
        }
        var b = Array("OpusTags".utf8)
        b += le32(vendor.count) + vendor
        b += le32(comments.count)
        for c in comments { b += le32(c.count) + c }
        return b
    }

    private static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
    private static func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
}
