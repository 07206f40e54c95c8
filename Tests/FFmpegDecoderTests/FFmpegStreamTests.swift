import CrateDomain
import CrateTestSupport
import FFmpegDecoder
import Foundation
import Testing
import URLStreamSource

/// The FFmpeg decoder reads through the byte-stream layer (AVIO callbacks): a file on a web server decodes as the
/// file on disk does and seeks over HTTP ranges; a stream that cannot seek plays when its index comes first.
@Suite struct FFmpegStreamTests {
    let plugin = FFmpegDecoderPlugin()
    let frames = 300_007

    /// The loopback web server serves `/file.aac` (as audio/aac) and so only names ending in `.aac`; the M4A files
    /// are served under such names too, which the bytes overrule (the registry sniffs them; here the plugin opens
    /// them directly).
    @Test(arguments: [FFmpegFixture.Format.alac, .aac, .aacFastStart, .adts])
    func aFileOverHTTPDecodesAsTheFileOnDisk(format: FFmpegFixture.Format) throws {
        let server = try RadioServer()
        let file = try FFmpegFixture.sine(format, in: server.folder, name: "made", frames: frames)
        let served = "file.\(format).aac"
        try FileManager.default.moveItem(at: file, to: server.folder.appendingPathComponent(served))
        let local = try plugin.open(server.folder.appendingPathComponent(served))
        let reference = try DecoderChecks.decodeAll(local)

        let remote = try plugin.open(stream: try HTTPByteStream(url: server.url("/\(served)")))
        #expect(remote.info == local.info)
        let samples = try DecoderChecks.decodeAll(remote)
        #expect(samples.count == reference.count && DecoderChecks.firstMismatch(samples, reference) == nil)

        // Through the registry, which picks the decoder by the bytes.
        let registry = try DecoderRegistry([plugin])
        #expect(try DecoderChecks.decodeAll(try registry.open(stream: try HTTPByteStream(url: server.url("/\(served)")))) == reference)

        // Seeking over HTTP ranges (raw AAC has no index: FFmpeg seeks by bytes there, so only the indexed formats).
        guard format != .adts else { return }
        let again = try plugin.open(stream: try HTTPByteStream(url: server.url("/\(served)")))
        let target = 123_457
        try again.seek(toFrame: Int64(target))
        let tail = try DecoderChecks.decodeAll(again)
        #expect(tail.count == reference.count - target * 2)
        // AAC's noise-coded bands differ after a seek (see FFmpegDecoderTests.aacWithNoiseCodingSeeksToTheExactFrame).
        let tolerance: Float = format == .alac ? 0 : 0.01
        #expect(DecoderChecks.firstMismatch(tail, Array(reference[(target * 2)...]), tolerance: tolerance) == nil)
    }

    /// A stream that cannot seek (radio): an MP4 with its index first plays whole with its exact length, raw AAC
    /// plays; an MP4 with its index after the audio cannot be played that way and says why; seeking is refused.
    @Test func aStreamThatCannotSeek() throws {
        let dir = try Fixture.temporaryDirectory("ffmpeg-live")
        defer { try? FileManager.default.removeItem(at: dir) }
        for format in [FFmpegFixture.Format.aacFastStart, .adts] {
            let file = try FFmpegFixture.sine(format, in: dir, frames: 50_000)
            let reference = try DecoderChecks.decodeAll(try plugin.open(file))
            let live = try plugin.open(stream: try LiveStream(file))
            #expect(live.info.frames == (format == .adts ? nil : 50_000))
            #expect(try DecoderChecks.decodeAll(live) == reference, "\(format)")
            let seek = #expect(throws: DecodeError.self) { try plugin.open(stream: try LiveStream(file)).seek(toFrame: 100) }
            #expect(seek?.reason.contains("cannot seek") == true, "\(String(describing: seek))")
        }
        // Ten seconds: more than FFmpeg's read buffer holds, so it cannot go back to the audio once it found the index.
        let indexLast = try FFmpegFixture.sine(.aac, in: dir, name: "index-last", frames: 441_000)
        let error = #expect(throws: DecodeError.self) { _ = try DecoderChecks.decodeAll(try plugin.open(stream: try LiveStream(indexLast))) }
        #expect(error?.path == "live:" + indexLast.path)
        #expect(error?.reason.contains("moov") == true, "\(String(describing: error))")
    }

    /// A download cut short (the index first, then half the audio; not a local file, so nothing looks at the file
    /// beforehand): what is there plays, then the read says the audio ends early.
    @Test func aStreamCutShortPlaysWhatThereIsThenSaysSo() throws {
        let dir = try Fixture.temporaryDirectory("ffmpeg-cut")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try FFmpegFixture.sine(.aacFastStart, in: dir, frames: 200_000)
        let whole = try Data(contentsOf: file)
        let decoder = try plugin.open(stream: DataStream(whole.prefix(whole.count / 2), name: "memory:cut.m4a"))
        #expect(decoder.info.frames == 200_000)
        var played = 0
        var buffer = [Float](repeating: 0, count: 4096 * 2)
        let error = #expect(throws: DecodeError.self) {
            while true {
                let n = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
                if n == 0 { break }
                played += n
            }
        }
        #expect(played > 50_000 && played < 150_000, "\(played) frames played")
        #expect(error?.path == "memory:cut.m4a")
        #expect(error?.reason.hasPrefix("truncated: the audio ends at frame") == true, "\(String(describing: error))")
    }
}

/// Bytes in memory as a seekable stream of known size that is no local file (as a file on a web server).
final class DataStream: ByteStream {
    private let data: Data
    let name: String
    private(set) var position: Int64 = 0
    init(_ data: Data, name: String) {
        self.data = Data(data)
        self.name = name
    }
    var contentType: String? { nil }
    var suffixHint: String? { nil }
    var size: Int64? { Int64(data.count) }
    var isSeekable: Bool { true }
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = min(buffer.count, data.count - Int(position))
        guard n > 0 else { return 0 }
        data.withUnsafeBytes { bytes in buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[Int(position)..<Int(position) + n])) }
        position += Int64(n)
        return n
    }
    func seek(to offset: Int64) throws {
        guard offset >= 0, offset <= Int64(data.count) else { throw ByteStreamError.readFailed(name: name, reason: "seek past the end") }
        position = offset
    }
}
