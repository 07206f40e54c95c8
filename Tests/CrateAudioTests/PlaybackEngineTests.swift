import CrateAudio
import CrateDomain
import CrateTestSupport
import FLACDecoder
import Foundation
import MP3Decoder
import NullOutput
import OpusDecoder
import Testing
import VorbisDecoder
import WAVDecoder
import WAVFileOutput

/// Drives a `PlaybackEngine` the way the player does: hands items over, answers `.decoding` with
/// the following item, and collects events until the engine goes idle.
final class EngineDriver {
    let engine: PlaybackEngine
    let items: [EngineItem]

    init(_ engine: PlaybackEngine, files: [URL]) {
        self.engine = engine
        items = files.enumerated().map { EngineItem(token: UInt64($0 + 1), entryID: Int64($0 + 1), trackID: Int64($0 + 1), url: $1) }
    }

    /// Plays every item in order; returns the events up to `.idle`.
    func playAll() async throws -> [EngineEvent] {
        engine.play(items[0])
        engine.setNext(items.count > 1 ? items[1] : nil, after: 1)
        return try await engineEvents(engine) { event in
            if case .decoding(let item) = event {
                let next = Int(item.token)   // tokens are 1-based: items[token] follows item `token`
                engine.setNext(next < items.count ? items[next] : nil, after: item.token)
            }
            if case .idle = event { return true }
            return false
        }
    }
}

/// The engine's events, each handed to `handle` until it answers true (the events up to there). A hang guard ends the
/// wait after `seconds`: it shuts the engine down, which ends the stream, and the test fails with a clear message
/// instead of hanging.
func engineEvents(_ engine: PlaybackEngine, seconds: Double = 120,
                  _ handle: (EngineEvent) -> Bool = { if case .idle = $0 { true } else { false } }) async throws -> [EngineEvent] {
    let guardrail = Task { () -> Bool in
        do { try await Task.sleep(for: .seconds(seconds)) } catch { return false }
        engine.shutdown()
        return true
    }
    var seen: [EngineEvent] = []
    for await event in engine.events {
        seen.append(event)
        if handle(event) { break }
    }
    guardrail.cancel()
    if await guardrail.value {
        throw Fixture.ToolError(description: "the engine's events did not reach the awaited one within \(seconds) s: \(seen)")
    }
    return seen
}

@Suite(.promptly) struct PlaybackEngineTests {
    let dir: URL
    let decoders: DecoderRegistry

    init() throws {
        dir = try Fixture.temporaryDirectory("crate-engine")
        decoders = try DecoderRegistry([FLACDecoderPlugin(), VorbisDecoderPlugin(), OpusDecoderPlugin(), MP3DecoderPlugin(),
                                        WAVDecoderPlugin()])
    }

    func decodeAll(_ url: URL) throws -> [Float] {
        let decoder = try decoders.open(url)
        var out: [Float] = []
        var buffer = [Float](repeating: 0, count: 4096 * decoder.info.channels)
        while true {
            let n = try buffer.withUnsafeMutableBufferPointer { try decoder.read(into: $0) }
            if n == 0 { return out }
            out += buffer[0..<n * decoder.info.channels]
        }
    }

    /// An album of `lengths.count` tracks cut from one continuous sine.
    func album(_ codec: Fixture.Codec, lengths: [Int], sampleRate: Int) throws -> [URL] {
        var offset = 0
        return try lengths.enumerated().map { i, n in
            defer { offset += n }
            return try Fixture.encode(codec, to: dir.appendingPathComponent("\(codec.rawValue)-\(i).\(codec.suffix)"),
                                      frames: n, sampleRate: sampleRate, offset: offset)
        }
    }

    func render(_ files: [URL], name: String) async throws -> (samples: [Float], events: [EngineEvent]) {
        let out = dir.appendingPathComponent(name)
        let plugin = WAVFileOutputPlugin(path: out, render: true)
        let engine = PlaybackEngine(decoders: decoders) { try plugin.makeOutput() }
        let events = try await EngineDriver(engine, files: files).playAll()
        engine.shutdown()
        return (try decodeAll(out), events)
    }

    @Test func flacAlbumIsSampleExactAcrossBorders() async throws {
        let lengths = [44100 + 17, 30011, 1, 52_919, 7]
        let files = try album(.flac, lengths: lengths, sampleRate: 44100)
        let (rendered, events) = try await render(files, name: "flac.wav")
        let source = Fixture.sine(frames: lengths.reduce(0, +)).map { Float($0) / 32768 }
        #expect(rendered.count == source.count)
        #expect(DecoderChecks.firstMismatch(rendered, source) == nil)
        #expect(events.filter { if case .finished = $0 { true } else { false } }.count == lengths.count)
        // One format from start to end: the output was never reopened, so no file beside the first.
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("flac.2.wav").path))
    }

    /// Lossy albums: the render equals the tracks decoded one by one and joined, frame for frame
    /// (exact length, nothing dropped or repeated at a border), and the joins are as smooth as the rest.
    @Test(arguments: [(Fixture.Codec.vorbis, 44100), (.opus, 48000), (.mp3, 44100)])
    func lossyAlbumKeepsExactLengthAndNoBorderJumps(codec: Fixture.Codec, sampleRate: Int) async throws {
        let lengths = [sampleRate + 1234, sampleRate / 2 + 77, sampleRate + 5, sampleRate / 3]
        let files = try album(codec, lengths: lengths, sampleRate: sampleRate)
        let (rendered, _) = try await render(files, name: "\(codec.rawValue).wav")
        let separately = try files.map(decodeAll)
        #expect(rendered.count == lengths.reduce(0, +) * 2)
        #expect(DecoderChecks.firstMismatch(rendered, separately.flatMap { $0 }) == nil)

        let left = SignalAnalysis.channel(0, of: rendered, channels: 2)
        func jump(_ i: Int) -> Float { abs(left[i] - left[i - 1]) }
        var borders: [Int] = []
        var at = 0
        for n in lengths.dropLast() { at += n; borders.append(at) }
        let inside = (1..<left.count).filter { i in !borders.contains { abs($0 - i) < 64 } }.map(jump).max() ?? 0
        for b in borders { #expect(jump(b) <= inside * 1.5 + 0.01, "\(codec) border at \(b): \(jump(b)) vs \(inside) inside") }
    }

    @Test func formatChangeReopensTheOutputAtTheBorder() async throws {
        let a = try Fixture.encode(.flac, to: dir.appendingPathComponent("a.flac"), frames: 3000)
        let b = try Fixture.encode(.wav, to: dir.appendingPathComponent("b.wav"), frames: 2000, sampleRate: 48000, channels: 1)
        let counter = FrameCounter()
        let engine = PlaybackEngine(decoders: decoders) { try NullOutputPlugin(counter: counter, render: true).makeOutput() }
        let events = try await EngineDriver(engine, files: [a, b]).playAll()
        engine.shutdown()
        #expect(counter.frames == 5000)
        let started = events.compactMap { if case let .started(_, info) = $0 { info.pcmFormat } else { nil } }
        #expect(started == [PCMFormat(sampleRate: 44100, channels: 2), PCMFormat(sampleRate: 48000, channels: 1)])
    }

    @Test func unreadableItemIsReportedAndSkipped() async throws {
        let a = try Fixture.encode(.flac, to: dir.appendingPathComponent("a.flac"), frames: 1000)
        let gone = dir.appendingPathComponent("gone.flac")
        let c = try Fixture.encode(.flac, to: dir.appendingPathComponent("c.flac"), frames: 500)
        let counter = FrameCounter()
        let engine = PlaybackEngine(decoders: decoders) { try NullOutputPlugin(counter: counter, render: true).makeOutput() }
        let events = try await EngineDriver(engine, files: [a, gone, c]).playAll()
        engine.shutdown()
        #expect(counter.frames == 1500)
        let failed = events.compactMap { if case let .failed(item, reason) = $0 { (item.token, reason) } else { nil } }
        #expect(failed.count == 1 && failed.first?.0 == 2 && failed.first?.1.contains("no such file") == true)
    }

    @Test func seekStartsAtTheExactFrame() async throws {
        let file = try Fixture.encode(.flac, to: dir.appendingPathComponent("s.flac"), frames: 20_000)
        let out = dir.appendingPathComponent("seek.wav")
        let plugin = WAVFileOutputPlugin(path: out, render: true)
        let engine = PlaybackEngine(decoders: decoders) { try plugin.makeOutput() }
        var item = EngineItem(token: 1, entryID: 1, trackID: 1, url: file)
        item.startFrame = 12_345
        engine.play(item)
        engine.setNext(nil, after: 1)
        _ = try await engineEvents(engine)
        engine.shutdown()
        let rendered = try decodeAll(out)
        let source = Fixture.sine(frames: 20_000).map { Float($0) / 32768 }
        #expect(rendered.count == (20_000 - 12_345) * 2)
        #expect(DecoderChecks.firstMismatch(rendered, Array(source[(12_345 * 2)...])) == nil)
    }

    @Test func replacingAPreDecodedNextTrackPlaysTheNewOne() async throws {
        let a = try Fixture.encode(.flac, to: dir.appendingPathComponent("a.flac"), frames: 1000)
        let b = try Fixture.encode(.flac, to: dir.appendingPathComponent("b.flac"), frames: 2000)
        let c = try Fixture.encode(.flac, to: dir.appendingPathComponent("c.flac"), frames: 4000)
        let counter = FrameCounter()
        let engine = PlaybackEngine(decoders: decoders) { try NullOutputPlugin(counter: counter, render: true).makeOutput() }
        engine.pause()   // hold the output so the decoder runs ahead into b
        engine.play(EngineItem(token: 1, entryID: 1, trackID: 1, url: a))
        engine.pause()
        engine.setNext(EngineItem(token: 2, entryID: 2, trackID: 2, url: b), after: 1)
        var replaced = false
        var started: [UInt64] = []
        _ = try await engineEvents(engine) { event in
            if case .decoding(let item) = event, item.token == 2, !replaced {
                replaced = true
                engine.setNext(EngineItem(token: 3, entryID: 3, trackID: 3, url: c), after: 1)
                engine.setNext(nil, after: 3)
                engine.resume()
            }
            if case .started(let item, _) = event { started.append(item.token) }
            if case .idle = event { return true }
            return false
        }
        engine.shutdown()
        #expect(started == [1, 3])
        #expect(counter.frames == 5000)
    }

    @Test func volumeScalesSamples() async throws {
        let file = try Fixture.encode(.flac, to: dir.appendingPathComponent("v.flac"), frames: 44100)
        let out = dir.appendingPathComponent("volume.wav")
        let plugin = WAVFileOutputPlugin(path: out, render: true)
        let engine = PlaybackEngine(decoders: decoders) { try plugin.makeOutput() }
        engine.setVolume(50)
        engine.play(EngineItem(token: 1, entryID: 1, trackID: 1, url: file))
        engine.setNext(nil, after: 1)
        _ = try await engineEvents(engine)
        engine.shutdown()
        let rendered = try decodeAll(out)
        // 0.3535 RMS at full volume; the first chunk ramps from the previous gain, so measure after it.
        #expect(abs(SignalAnalysis.rms(rendered[(8192 * 2)...]) - 0.3535 / 2) < 0.002)
    }
}
