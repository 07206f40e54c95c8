import CrateAudio
import CrateDomain
import CrateTestSupport
import FFmpegDecoder
import FLACDecoder
import Foundation
import MP3Decoder
import OpusDecoder
import Testing
import VorbisDecoder
import WAVDecoder
import WAVFileOutput

/// AAC albums play gaplessly: tracks cut from one signal and encoded to M4A by ffmpeg, each with its encoder delay
/// and padding, render through the engine as that signal, with its exact length.
@Suite struct FFmpegAlbumTests {
    let dir: URL
    let decoders: DecoderRegistry

    init() throws {
        dir = try Fixture.temporaryDirectory("crate-ffmpeg-album")
        decoders = try DecoderRegistry([FLACDecoderPlugin(), VorbisDecoderPlugin(), OpusDecoderPlugin(), MP3DecoderPlugin(),
                                        WAVDecoderPlugin(), FFmpegDecoderPlugin()])
    }

    func decodeAll(_ url: URL) throws -> [Float] { try DecoderChecks.decodeAll(try decoders.open(url)) }

    @Test func aacAlbumRendersWithTheSourcesExactLengthAndNoGaps() async throws {
        defer { try? FileManager.default.removeItem(at: dir) }
        let lengths = [44100 + 1234, 22050 + 77, 44100 + 5, 14700]
        let total = lengths.reduce(0, +)
        var files: [URL] = []
        var offset = 0
        for (i, n) in lengths.enumerated() {
            let wav = dir.appendingPathComponent("part-\(i).wav"), m4a = dir.appendingPathComponent("track-\(i).m4a")
            try Fixture.writeWAV(Fixture.sine(frames: n, offset: offset), sampleRate: 44100, channels: 2, to: wav)
            try Fixture.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", wav.path, "-c:a", "aac", "-b:a", "192k", m4a.path])
            files.append(m4a)
            offset += n
        }

        let out = dir.appendingPathComponent("album.wav")
        let output = WAVFileOutputPlugin(path: out, render: true)
        let engine = PlaybackEngine(decoders: decoders) { try output.makeOutput() }
        let events = try await EngineDriver(engine, files: files).playAll()
        engine.shutdown()
        #expect(events.filter { if case .finished = $0 { true } else { false } }.count == lengths.count, "\(events)")
        let started = events.compactMap { if case let .started(_, info) = $0 { info } else { nil } }
        #expect(started.map(\.codec) == Array(repeating: "aac", count: 4))
        #expect(started.map(\.frames) == lengths.map { Int64($0) })

        // Exactly the source's length: no encoder delay, no padding, nothing dropped at a border.
        let rendered = try decodeAll(out)
        #expect(rendered.count == total * 2)
        #expect(DecoderChecks.firstMismatch(rendered, try files.flatMap(decodeAll)) == nil)

        // The signal is the source's, sample-aligned. AAC is lossy (ffmpeg's encoder at 192 kb/s: about -48 dB of
        // error on this sine) and each track was encoded alone, so its first and last milliseconds carry more error;
        // inside each track, one sample of misalignment would already make the error five times as large.
        let source = DecoderChecks.sourceFloats(frames: total)
        #expect(DecoderChecks.correlation(rendered, source) > 0.9999)
        let error = zip(rendered, source).map { $0 - $1 }
        #expect(SignalAnalysis.rms(error) < 0.01, "RMS error \(SignalAnalysis.rms(error))")
        var start = 0
        for (i, n) in lengths.enumerated() {
            let inside = error[((start + 2048) * 2)..<((start + n - 2048) * 2)]
            #expect(SignalAnalysis.rms(inside) < 0.008, "track \(i + 1): RMS error \(SignalAnalysis.rms(inside))")
            #expect(inside.allSatisfy { abs($0) < 0.05 }, "track \(i + 1): error up to \(inside.map(abs).max() ?? 0)")
            start += n
        }
        // And no click: the step between samples at a border is no larger than the steps inside.
        var borders: [Int] = []
        var at = 0
        for n in lengths.dropLast() { at += n; borders.append(at) }
        let left = SignalAnalysis.channel(0, of: rendered, channels: 2)
        func jump(_ i: Int) -> Float { abs(left[i] - left[i - 1]) }
        let inside = (1..<left.count).filter { i in !borders.contains { abs($0 - i) < 64 } }.map(jump).max() ?? 0
        for b in borders { #expect(jump(b) <= inside * 1.5 + 0.01, "border at \(b): \(jump(b)) vs \(inside) inside") }
    }
}
