import CrateAudio
import CrateDomain
import CrateTestSupport
import FLACDecoder
import Foundation
import NullOutput
import Testing
import WAVDecoder
import WAVFileOutput

@Suite struct PlaybackRunTests {
    let dir: URL
    let decoders: DecoderRegistry

    init() throws {
        dir = try Fixture.temporaryDirectory("crate-playback")
        decoders = try DecoderRegistry([FLACDecoderPlugin(), WAVDecoderPlugin()])
    }

    func item(_ url: URL) -> PlaybackItem { PlaybackItem(title: url.lastPathComponent, artist: "Test", url: url) }

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

    @Test func flacAlbumRendersAsTheExactConcatenationOfItsTracks() throws {
        // One continuous sine cut at odd frame counts: any gap, overlap or lost sample breaks equality.
        let lengths = [44100 + 17, 30011, 1, 52_919]
        var offset = 0
        var files: [URL] = []
        for (i, n) in lengths.enumerated() {
            files.append(try Fixture.encode(.flac, to: dir.appendingPathComponent("\(i).flac"), frames: n, offset: offset))
            offset += n
        }
        let outURL = dir.appendingPathComponent("render.wav")
        let output = try WAVFileOutputPlugin(path: outURL).makeOutput()
        var opened = 0
        let outcome = try PlaybackRun(decoders: decoders, output: output).play(files.map(item), stop: StopSignal()) {
            if case .outputOpened = $0 { opened += 1 }
        }
        #expect(outcome == .finished && opened == 1)

        let rendered = try decodeAll(outURL)
        let separately = try files.flatMap(decodeAll)
        let source = Fixture.sine(frames: offset).map { Float($0) / 32768 }
        #expect(rendered.count == offset * 2)
        #expect(rendered == separately)
        #expect(rendered == source)
    }

    @Test func formatChangeReopensTheOutputAtTheBorder() throws {
        let a = try Fixture.encode(.flac, to: dir.appendingPathComponent("a.flac"), frames: 1000)
        let b = try Fixture.encode(.wav, to: dir.appendingPathComponent("b.wav"), frames: 800, sampleRate: 48000, channels: 1)
        let counter = FrameCounter()
        var formats: [PCMFormat] = []
        _ = try PlaybackRun(decoders: decoders, output: try NullOutputPlugin(counter: counter).makeOutput())
            .play([item(a), item(b)], stop: StopSignal()) {
                if case .outputOpened(let format, _) = $0 { formats.append(format) }
            }
        #expect(formats == [PCMFormat(sampleRate: 44100, channels: 2), PCMFormat(sampleRate: 48000, channels: 1)])
        #expect(counter.frames == 1800)
    }

    @Test func unreadableTrackIsSkippedAndPlaybackGoesOn() throws {
        let a = try Fixture.encode(.flac, to: dir.appendingPathComponent("a.flac"), frames: 1000)
        let broken = dir.appendingPathComponent("broken.flac")
        try Data().write(to: broken)
        let c = try Fixture.encode(.flac, to: dir.appendingPathComponent("c.flac"), frames: 500)
        let counter = FrameCounter()
        var skipped: [String] = []
        let outcome = try PlaybackRun(decoders: decoders, output: try NullOutputPlugin(counter: counter).makeOutput())
            .play([item(a), item(broken), item(c)], stop: StopSignal()) {
                if case .trackSkipped(_, let item, let reason) = $0 { skipped.append("\(item.title): \(reason)") }
            }
        #expect(outcome == .finished && counter.frames == 1500)
        #expect(skipped.count == 1 && skipped[0].hasPrefix("broken.flac: "))
    }

    @Test func stopSignalEndsPlayback() throws {
        let a = try Fixture.encode(.flac, to: dir.appendingPathComponent("a.flac"), frames: 1000)
        let stop = StopSignal()
        var started = 0
        let outcome = try PlaybackRun(decoders: decoders, output: try NullOutputPlugin().makeOutput())
            .play([item(a), item(a), item(a)], stop: stop) {
                if case .trackFinished = $0 { stop.raise() }
                if case .trackStarted = $0 { started += 1 }
            }
        #expect(outcome == .stopped && started == 1)
    }
}
