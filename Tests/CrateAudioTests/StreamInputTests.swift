import CrateAudio
import CrateDomain
import CrateTestSupport
import FFmpegDecoder
import FLACDecoder
import Foundation
import MP3Decoder
import NullOutput
import OpusDecoder
import Testing
import URLStreamSource
import VorbisDecoder
import WAVDecoder
import WAVFileOutput

/// Every decoder reads through the byte-stream layer: decoders are picked by the bytes, not the name, and a file
/// on a web server or a radio stream decodes as the same file on disk does.
@Suite struct StreamInputTests {
    let dir: URL
    let decoders: DecoderRegistry

    init() throws {
        dir = try Fixture.temporaryDirectory("crate-streams")
        decoders = try DecoderRegistry([FLACDecoderPlugin(), VorbisDecoderPlugin(), OpusDecoderPlugin(), MP3DecoderPlugin(),
                                        WAVDecoderPlugin(), FFmpegDecoderPlugin()])
    }

    /// A file whose suffix lies plays by what its bytes are.
    @Test(arguments: [(Fixture.Codec.flac, "mp3"), (.opus, "ogg"), (.wav, "flac"), (.vorbis, "opus"), (.mp3, "wav")])
    func aFileNamedWrongPlaysByItsBytes(codec: Fixture.Codec, suffix: String) throws {
        let real = try Fixture.encode(codec, to: dir.appendingPathComponent("real.\(codec.suffix)"), frames: 8000)
        let named = dir.appendingPathComponent("named-wrong.\(suffix)")
        try FileManager.default.copyItem(at: real, to: named)
        let decoder = try decoders.open(stream: try FileByteStream(named))
        #expect(decoder.info.codec == (codec == .vorbis ? "vorbis" : codec.rawValue))
        let expected = try DecoderChecks.decodeAll(try decoders.open(real))
        #expect(try DecoderChecks.decodeAll(decoder) == expected)
    }

    @Test func garbageSaysWhatItIsNot() throws {
        var noise = SplitMix64(seed: 7)
        let bytes = Data((0..<20_000).map { _ in UInt8(truncatingIfNeeded: noise.next()) })
        let named = dir.appendingPathComponent("noise.mp3")
        try bytes.write(to: named)
        let mp3 = #expect(throws: DecodeError.self) { try decoders.open(stream: try FileByteStream(named)) }
        #expect(mp3?.path == named.path && mp3?.reason.contains("not an MP3 stream") == true, "\(String(describing: mp3))")
        let bare = dir.appendingPathComponent("noise")
        try bytes.write(to: bare)
        let unknown = #expect(throws: DecodeError.self) { try decoders.open(stream: try FileByteStream(bare)) }
        #expect(unknown?.reason.contains("no decoder recognises this data") == true, "\(String(describing: unknown))")
        let empty = dir.appendingPathComponent("empty.flac")
        try Data().write(to: empty)
        let none = #expect(throws: DecodeError.self) { try decoders.open(stream: try FileByteStream(empty)) }
        #expect(none?.reason == "the stream is empty")
    }

    /// Each codec from a loopback web server (length known, seekable) gives the samples of the same file on disk,
    /// and seeks sample-exactly over HTTP ranges.
    @Test(arguments: ["file.mp3", "file.ogg", "file.opus", "file.flac", "file.wav"])
    func everyCodecOverHTTPDecodesAsTheFile(_ name: String) throws {
        let server = try RadioServer()
        let local = try DecoderChecks.decodeAll(try decoders.open(server.folder.appendingPathComponent(name)))
        let remote = try decoders.open(stream: try HTTPByteStream(url: server.url("/\(name)")))
        #expect(remote.info.frames.map { Int($0) * remote.info.channels } == local.count)
        let samples = try DecoderChecks.decodeAll(remote)
        #expect(samples.count == local.count && DecoderChecks.firstMismatch(samples, local) == nil)

        let again = try decoders.open(stream: try HTTPByteStream(url: server.url("/\(name)")))
        let target = 123_457
        try again.seek(toFrame: Int64(target))
        let tail = try DecoderChecks.decodeAll(again)
        let channels = again.info.channels
        #expect(DecoderChecks.firstMismatch(tail, Array(local[(target * channels)...]), tolerance: name == "file.opus" ? 0.02 : 0) == nil)
    }

    /// Each codec played from the web server through the engine into the WAV file output, as the daemon plays a
    /// URL: the output holds exactly the samples of the same file decoded from disk.
    @Test(arguments: ["file.mp3", "file.ogg", "file.opus", "file.flac", "file.wav"])
    func everyCodecPlaysOverHTTPThroughTheEngine(_ name: String) async throws {
        let server = try RadioServer()
        let local = try DecoderChecks.decodeAll(try decoders.open(server.folder.appendingPathComponent(name)))
        let out = dir.appendingPathComponent("\(name).out.wav")
        let plugin = WAVFileOutputPlugin(path: out, render: true)
        let engine = PlaybackEngine(decoders: decoders, inputs: InputRegistry([HTTPInputProvider()])) { try plugin.makeOutput() }
        let events = try await EngineDriver(engine, files: [server.url("/\(name)")]).playAll()
        engine.shutdown()
        #expect(events.contains { if case .finished = $0 { true } else { false } }, "\(events)")
        let played = try DecoderChecks.decodeAll(try decoders.open(out))
        #expect(played.count == local.count && DecoderChecks.firstMismatch(played, local) == nil)
    }

    /// A stream in a format no decoder reads, with a type some decoder claims (audio/aac: the FFmpeg decoder's), is
    /// refused with that decoder's reason: what the data is not. (Bytes no decoder claims by type, suffix or magic
    /// say "no decoder recognises this data": `garbageSaysWhatItIsNot`.)
    @Test func anUnreadableStreamSaysWhatItIsNot() throws {
        let server = try RadioServer()
        try DecoderChecks.randomBytes(count: 20_000, seed: 91).write(to: server.folder.appendingPathComponent("file.aac"))
        let error = #expect(throws: DecodeError.self) { try decoders.open(stream: try HTTPByteStream(url: server.url("/file.aac"))) }
        #expect(error?.path == server.url("/file.aac").absoluteString, "\(String(describing: error))")
        #expect(error?.reason.hasPrefix("not a format the ffmpeg decoder reads") == true, "\(String(describing: error))")
    }

    /// AAC as internet radio sends it (ADTS frames, audio/aac) plays from the web server through the engine: the
    /// output holds exactly the samples of the same file decoded from disk.
    @Test func anAACStreamPlaysThroughTheEngine() async throws {
        let server = try RadioServer()
        let file = server.folder.appendingPathComponent("file.aac")
        _ = try Fixture.run("ffmpeg", ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=3",
                                       "-ac", "2", "-c:a", "aac", file.path])
        let local = try DecoderChecks.decodeAll(try decoders.open(file))
        let out = dir.appendingPathComponent("aac.out.wav")
        let plugin = WAVFileOutputPlugin(path: out, render: true)
        let engine = PlaybackEngine(decoders: decoders, inputs: InputRegistry([HTTPInputProvider()])) { try plugin.makeOutput() }
        let events = try await EngineDriver(engine, files: [server.url("/file.aac")]).playAll()
        engine.shutdown()
        #expect(events.contains { if case let .started(_, info) = $0 { info.codec == "aac" } else { false } }, "\(events)")
        #expect(events.contains { if case .finished = $0 { true } else { false } }, "\(events)")
        let played = try DecoderChecks.decodeAll(try decoders.open(out))
        #expect(local.count >= 3 * 44100 * 2)
        #expect(played.count == local.count && DecoderChecks.firstMismatch(played, local) == nil)
    }

    /// Internet radio through the engine: a live MP3 stream (no length, not seekable) plays, its samples are the
    /// stream's, and the ICY titles arrive as events in the order they were sent.
    @Test func radioPlaysThroughTheEngineWithItsTitles() async throws {
        let server = try RadioServer()
        let out = dir.appendingPathComponent("radio.wav")
        // Paced as a device is: the stream never ends, and an output written as fast as the decoder runs wrote
        // gigabytes before the waits below ended on a loaded machine (and filled a CI machine's disk).
        let plugin = WAVFileOutputPlugin(path: out, render: false)
        let engine = PlaybackEngine(decoders: decoders, inputs: InputRegistry([HTTPInputProvider()])) { try plugin.makeOutput() }
        let item = EngineItem(token: 1, entryID: 1, trackID: 1, url: server.url("/radio.mp3"))
        // A live stream has no end: the wait ends once both titles were heard (or fails after the hang guard's bound).
        engine.play(item)
        var titles: [String] = []
        var started: StreamInfo?
        _ = try await engineEvents(engine, seconds: 60) { event in
            switch event {
            case let .started(_, info): started = info
            case let .streamMetadata(_, metadata):
                if let title = metadata.title, titles.last != title { titles.append(title) }
            case let .failed(_, reason): Issue.record("the stream failed: \(reason)")
            default: break
            }
            // Titles come from the decoder, which runs ahead of the output: wait for the sound's start too.
            return (titles.count >= 2 && started != nil) || { if case .failed = event { true } else { false } }()
        }
        // Three seconds of sound reached the output before it stops (the titles come from the decoder, ahead).
        try waitUntil("3 s of the stream played", seconds: 60) { (engine.position()?.frame ?? 0) >= 3 * 44100 }
        engine.shutdown()
        #expect(titles == ["First Song", "Second Song"])
        #expect(started?.codec == "mp3" && started?.frames == nil)
        // What was played is the stream's audio from its first sample.
        // At most its first 5 s are compared.
        let played = try Self.decode(try decoders.open(out), frames: 5 * 44100)
        let file = try DecoderChecks.decodeAll(try decoders.open(server.folder.appendingPathComponent("file.mp3")))
        let compared = min(played.count, file.count - 2 * 4096)
        #expect(compared >= 44100 * 3, "only \(played.count / 2) frames played")
        #expect(DecoderChecks.firstMismatch(Array(played.prefix(compared)), Array(file.prefix(compared))) == nil)
    }

    /// The first `frames` frames of `decoder` (fewer when it ends first).
    static func decode(_ decoder: any AudioDecoder, frames: Int) throws -> [Float] {
        let channels = decoder.info.channels
        var out: [Float] = []
        var buffer = [Float](repeating: 0, count: 4096 * channels)
        while out.count < frames * channels {
            let n = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
            if n == 0 { break }
            out += buffer[0..<n * channels]
        }
        return Array(out.prefix(frames * channels))
    }
}
