import CrateDomain
import Foundation

/// A file whose ID3v2 tag declares more bytes than the file holds (a tagger's bug) sends libmpg123 past the end
/// before it looks for audio: "no MPEG audio frames". Here the first real MPEG frame after the tag's header is
/// found (a header whose next frame, at the length it declares, is a header of the same stream), and the decoder
/// reads from there. The tag itself is lost (it is damaged); the audio plays.
enum MP3Resync {
    /// The stream's first MPEG frame after a damaged ID3v2 header, or nil when the stream does not start with one
    /// whose size is past its end, or no frame is found in the first `window` bytes.
    static func audioStart(of stream: any ByteStream, window: Int = 1 << 20) throws -> Int64? {
        guard stream.isSeekable, let size = stream.size else { return nil }
        try stream.seek(to: 0)
        var head = [UInt8](repeating: 0, count: Int(min(Int64(window), size)))
        let n = try head.withUnsafeMutableBytes { try stream.readFully(into: $0) }
        head.removeLast(head.count - n)
        guard head.count >= 10, head[0] == 0x49, head[1] == 0x44, head[2] == 0x33 else { return nil }
        let declared = Int(head[6] & 0x7F) << 21 | Int(head[7] & 0x7F) << 14 | Int(head[8] & 0x7F) << 7 | Int(head[9] & 0x7F)
        guard Int64(10 + declared) > size else { return nil }
        var at = 10
        while at + 4 <= head.count {
            if let length = frameLength(head, at), at + length + 4 <= head.count, frameLength(head, at + length) != nil,
               sameStream(head, at, at + length) {
                return Int64(at)
            }
            at += 1
        }
        return nil
    }

    /// The byte length of the MPEG audio frame whose header is at `at`, nil when it is not a valid header.
    static func frameLength(_ b: [UInt8], _ at: Int) -> Int? {
        guard at + 4 <= b.count, b[at] == 0xFF, b[at + 1] & 0xE0 == 0xE0 else { return nil }
        let version = (b[at + 1] >> 3) & 3, layer = (b[at + 1] >> 1) & 3
        let bitrateIndex = Int(b[at + 2] >> 4), rateIndex = Int((b[at + 2] >> 2) & 3), padding = Int((b[at + 2] >> 1) & 1)
        guard version != 1, layer != 0, bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else { return nil }
        let mpeg1 = version == 3
        let rates = [44100, 48000, 32000][rateIndex] / (mpeg1 ? 1 : version == 2 ? 2 : 4)
        let kbps: [Int]
        switch (mpeg1, layer) {
        case (true, 3): kbps = [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]       // layer I
        case (true, 2): kbps = [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]          // layer II
        case (true, _): kbps = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]           // layer III
        case (false, 3): kbps = [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
        default: kbps = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        }
        let bitrate = kbps[bitrateIndex] * 1000
        if layer == 3 { return (12 * bitrate / rates + padding) * 4 }
        return (layer == 1 && !mpeg1 ? 72 : 144) * bitrate / rates + padding
    }

    /// Version, layer and sample rate agree: two headers of one stream, not a stray pair of sync bytes.
    private static func sameStream(_ b: [UInt8], _ a: Int, _ c: Int) -> Bool {
        b[a + 1] & 0xFE == b[c + 1] & 0xFE && b[a + 2] & 0x0C == b[c + 2] & 0x0C
    }
}

/// A stream seen from `offset` on: what a decoder reads as byte 0 is the base's byte `offset`.
final class OffsetByteStream: ByteStream {
    private let base: any ByteStream
    private let offset: Int64

    init(_ base: any ByteStream, from offset: Int64) throws {
        self.base = base
        self.offset = offset
        try base.seek(to: offset)
    }

    var name: String { base.name }
    var contentType: String? { base.contentType }
    var suffixHint: String? { base.suffixHint }
    var size: Int64? { base.size.map { $0 - offset } }
    var isSeekable: Bool { base.isSeekable }
    var position: Int64 { base.position - offset }
    var localFile: URL? { nil }
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int { try base.read(into: buffer) }
    func seek(to target: Int64) throws { try base.seek(to: target + offset) }
}
