import CrateDomain
import CrateTestSupport
import FIFOOutput
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The read end of a named pipe on a thread of its own, as snapserver holds it: everything read is kept. Opened
/// non-blocking, so it is there before any writer (as snapserver is); `stalled` reads nothing until `resume`.
final class PipeReader: Sendable {
    private struct State {
        var bytes: [UInt8] = []
        var stop = false
        var stalled: Bool
    }
    private let state: Mutex<State>
    private let done = DispatchSemaphore(value: 0)
    let fd: Int32

    init(_ path: String, stalled: Bool = false) throws {
        fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw Fixture.ToolError(description: "cannot open \(path) to read: \(String(cString: strerror(errno)))") }
        state = Mutex(State(stalled: stalled))
        WorkerThread.start(name: "test-fifo-reader") { [self] in run() }
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let (stop, stalled) = state.withLock { ($0.stop, $0.stalled) }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if stalled {
                if stop { break }
                _ = poll(nil, 0, 5)
                continue
            }
            _ = poll(&poller, 1, 5)
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                state.withLock { $0.bytes += buffer[0..<n] }
            } else if stop {
                // Asked to stop and the pipe is empty (EAGAIN) or has no writer left (0).
                break
            } else if n == 0 {
                // No writer: poll reports the hang-up at once; wait a little instead of spinning.
                _ = poll(nil, 0, 2)
            }
        }
        close(fd)
        done.signal()
    }

    var bytes: [UInt8] { state.withLock { $0.bytes } }

    func resume() { state.withLock { $0.stalled = false } }

    /// Reads what is left, closes the read end and answers everything read.
    func finish() throws -> [UInt8] {
        state.withLock { $0.stop = true }
        guard done.wait(timeout: .now() + 10) == .success else {
            throw Fixture.ToolError(description: "the pipe's reader did not stop")
        }
        return bytes
    }

    /// The pipe's capacity, as the writer set it.
    var capacity: Int32 { fcntl(fd, 1032 /* F_GETPIPE_SZ */) }
}

@Suite struct FIFOOutputTests {
    private func folder() throws -> URL { try Fixture.temporaryDirectory("crate-fifo") }

    /// A named pipe made beforehand, as snapserver (`mode=create`) makes it, so a reader can hold it before crated writes.
    private func pipe(_ name: String = "snapfifo") throws -> String {
        let path = try folder().appendingPathComponent(name).path
        guard mkfifo(path, 0o600) == 0 else { throw Fixture.ToolError(description: "mkfifo \(path): \(String(cString: strerror(errno)))") }
        return path
    }

    /// The first byte where `a` and `b` differ (or where the shorter ends); nil when they are equal. Keeps a failure's
    /// message short: the arrays hold hundreds of thousands of bytes.
    private func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> Int? {
        if let index = zip(a.indices, b.indices).first(where: { a[$0.0] != b[$0.1] })?.0 { return index }
        return a.count == b.count ? nil : min(a.count, b.count)
    }

    private func output(_ path: String, format: String = "48000:16:2") throws -> FIFOAudioOutput {
        let settings = PluginSettings(block: "outputs.fifo", values: ["path": path, "format": format],
                                      dataDirectory: URL(fileURLWithPath: "/nonexistent"))
        let plugin = try #require(FIFOOutputPlugin.registration.parts(settings).outputs.first)
        #expect(plugin.checkStatus() == .available)
        return try #require(try plugin.makeOutput() as? FIFOAudioOutput)
    }

    /// Writes `samples` in the player's chunks. `keepingUp` waits (a bound, not a pace) before each chunk until the
    /// reader has taken all but 32 KiB, as a reader at the sample clock would with a player at the sample clock: the
    /// output then never needs to drop, and what arrives can be compared sample for sample.
    private func write(_ output: FIFOAudioOutput, _ samples: [Float], chunkFrames: Int = 4096, channels: Int = 2,
                       keepingUp: Bool = false) throws {
        var start = 0
        while start < samples.count {
            if keepingUp { try waitUntil("the reader to keep up", seconds: 10) { (output.queuedBytes ?? 0) <= 32768 } }
            let end = min(start + chunkFrames * channels, samples.count)
            try samples[start..<end].withUnsafeBufferPointer { try output.write($0) }
            start = end
        }
    }

    private func int16s(_ bytes: [UInt8]) -> [Int16] {
        stride(from: 0, to: bytes.count - 1, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
    }

    private func s16le<C: Collection>(_ samples: C) -> [UInt8] where C.Element == Float {
        var out: [UInt8] = []
        Array(samples).withUnsafeBufferPointer { SampleConversion.convert($0, to: .s16le, into: &out) }
        return out
    }

    @Test func writesTheSamplesExactlyWhenTheMusicIsInThePipesFormat() throws {
        let path = try pipe()
        let out = try output(path)
        #expect(out.keepsTime == false)
        #expect(out.destination.contains(path) && out.destination.contains("48000:16:2"))
        let reader = try PipeReader(path)
        try out.open(PCMFormat(sampleRate: 48000, channels: 2))
        let tone = SignalAnalysis.sine(frames: 48000, sampleRate: 48000, channels: 2, frequency: 440, amplitude: 0.8)
        try write(out, tone, keepingUp: true)
        try out.drain()
        #expect(out.isConnected)
        out.close()
        let got = try reader.finish()
        let expected = s16le(tone)
        #expect(got.count == expected.count)
        #expect(firstDifference(got, expected) == nil)
        #expect(out.framesWritten == 48000 && out.framesDropped == 0)
    }

    @Test func resamples44100ToThePipesRateAtThePitchPlayed() throws {
        let path = try pipe()
        let out = try output(path)
        let reader = try PipeReader(path)
        try out.open(PCMFormat(sampleRate: 44100, channels: 2))
        // The pipe holds more than half a second of the pipe's format, so the player's lead fits without dropping.
        #expect(reader.capacity >= 96000, "pipe of \(reader.capacity) bytes")
        try write(out, SignalAnalysis.sine(frames: 44100, sampleRate: 44100, channels: 2, frequency: 440), keepingUp: true)
        try out.drain()
        out.close()
        let samples = int16s(try reader.finish()).map { Float($0) / 32767 }
        #expect(abs(samples.count / 2 - 48000) <= 2, "\(samples.count / 2) frames for 1 s")
        let left = SignalAnalysis.channel(0, of: samples, channels: 2)
        let frequency = try #require(SignalAnalysis.dominantFrequency(left[1000..<47000], sampleRate: 48000))
        #expect(abs(frequency - 440) < 0.5, "\(frequency) Hz")
    }

    /// Tracks of different formats one after the other: one continuous stream in the pipe's format, mono made stereo.
    @Test func aFormatChangeKeepsOneStream() throws {
        let path = try pipe()
        let out = try output(path)
        let reader = try PipeReader(path)
        try out.open(PCMFormat(sampleRate: 44100, channels: 2))
        try write(out, SignalAnalysis.sine(frames: 22050, sampleRate: 44100, channels: 2, frequency: 440), keepingUp: true)
        try out.open(PCMFormat(sampleRate: 48000, channels: 1))
        try write(out, SignalAnalysis.sine(frames: 24000, sampleRate: 48000, channels: 1, frequency: 660), channels: 1, keepingUp: true)
        try out.drain()
        out.close()
        let samples = int16s(try reader.finish()).map { Float($0) / 32767 }
        #expect(abs(samples.count / 2 - 48000) <= 2, "\(samples.count / 2) frames for 1 s")
        let left = SignalAnalysis.channel(0, of: samples, channels: 2)
        #expect(SignalAnalysis.channel(1, of: samples, channels: 2) == left)
        let first = try #require(SignalAnalysis.dominantFrequency(left[500..<23500], sampleRate: 48000))
        let second = try #require(SignalAnalysis.dominantFrequency(left[24500..<47500], sampleRate: 48000))
        #expect(abs(first - 440) < 0.5 && abs(second - 660) < 0.5, "\(first) Hz, then \(second) Hz")
    }

    @Test func writes24BitSamplesInFourBytesAndMono() throws {
        let widePath = try pipe("wide")
        let wide = try output(widePath, format: "48000:24:2")
        let wideReader = try PipeReader(widePath)
        try wide.open(PCMFormat(sampleRate: 48000, channels: 2))
        try write(wide, [0.5, -0.5, 1, -1])
        wide.close()
        #expect(try wideReader.finish() == [0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0xC0, 0xFF, 0xFF, 0xFF, 0x7F, 0x00, 0x01, 0x00, 0x80, 0xFF])

        let monoPath = try pipe("mono")
        let mono = try output(monoPath, format: "44100:16:1")
        let monoReader = try PipeReader(monoPath)
        try mono.open(PCMFormat(sampleRate: 44100, channels: 2))
        try write(mono, [0.5, 0.5, 0.5, -0.5])
        mono.close()
        #expect(int16s(try monoReader.finish()) == [16384, 0])
    }

    /// snapserver not running: nothing reads the pipe; the open neither blocks nor fails, writes never wait, and the
    /// pipe keeps only the latest half second (what a snapserver starting now would hear first).
    @Test func nobodyReadingNeverBlocks() throws {
        let path = try folder().appendingPathComponent("snapfifo").path
        let out = try output(path)
        let started = ContinuousClock.now
        try out.open(PCMFormat(sampleRate: 48000, channels: 2))
        // The output made the pipe, as it was missing.
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        // Ten seconds of music.
        let tone = SignalAnalysis.sine(frames: 480_000, sampleRate: 48000, channels: 2, frequency: 440)
        try write(out, tone)
        try out.drain()
        let took = ContinuousClock.now - started
        #expect(took < .seconds(3), "10 s of audio with nobody reading took \(took)")
        let queued = try #require(out.queuedBytes)
        #expect(queued <= 96000 && queued >= 96000 - 4096 * 4, "\(queued) bytes in the pipe")
        #expect(out.framesWritten == 480_000)
        #expect(out.framesWritten - out.framesDropped == Int64(queued / 4))

        // A reader that comes now gets the last of the music, whole frames, in order.
        let reader = try PipeReader(path)
        try waitUntil("the reader to empty the pipe", seconds: 10) { reader.bytes.count == queued }
        #expect(firstDifference(reader.bytes, s16le(tone[(tone.count - queued / 2)...])) == nil)
        out.close()
        _ = try reader.finish()
    }

    /// A reader that stops taking anything (snapserver hung) costs nothing either; when it reads again it hears the
    /// music of now, and the music flows on.
    @Test func aStalledReaderNeverHoldsThePlayerBack() throws {
        let path = try pipe()
        let out = try output(path)
        let reader = try PipeReader(path, stalled: true)
        try out.open(PCMFormat(sampleRate: 48000, channels: 2))
        #expect(out.isConnected)
        let started = ContinuousClock.now
        let tone = SignalAnalysis.sine(frames: 480_000, sampleRate: 48000, channels: 2, frequency: 440)
        try write(out, tone)
        let took = ContinuousClock.now - started
        #expect(took < .seconds(3), "10 s of audio into a pipe nobody empties took \(took)")
        #expect(out.framesDropped > 0)
        let held = Int(out.framesWritten - out.framesDropped)

        reader.resume()
        try waitUntil("the reader to empty the pipe", seconds: 10) { reader.bytes.count == held * 4 }
        #expect(firstDifference(reader.bytes, s16le(tone[(tone.count - held * 2)...])) == nil)
        let dropped = out.framesDropped
        try write(out, Array(tone[0..<9600]), keepingUp: true)
        #expect(out.framesDropped == dropped)
        out.close()
        #expect(try reader.finish().count == (held + 4800) * 4)
    }

    /// snapserver restarts: it closes the pipe and opens it again. The output holds the pipe meanwhile, so nothing
    /// fails, and the new snapserver hears the music.
    @Test func aRestartedReaderHearsTheMusicAgain() throws {
        let path = try pipe()
        let out = try output(path)
        let first = try PipeReader(path)
        try out.open(PCMFormat(sampleRate: 48000, channels: 2))
        let chunk = SignalAnalysis.sine(frames: 4800, sampleRate: 48000, channels: 2, frequency: 440)
        try write(out, chunk)
        try waitUntil("the first reader to read", seconds: 10) { first.bytes.count == 4800 * 4 }
        #expect(try first.finish().count == 4800 * 4)

        try write(out, chunk)  // nobody reads now: kept in the pipe
        #expect(out.isConnected && out.framesDropped == 0)
        let second = try PipeReader(path)
        try write(out, chunk)
        try waitUntil("the second reader to read both chunks", seconds: 10) { second.bytes.count == 2 * 4800 * 4 }
        out.close()
        #expect(firstDifference(try second.finish(), s16le(chunk + chunk)) == nil)
    }

    /// snapserver (or a clean-up of /tmp) removes the pipe and makes a new one: the output notices within a second
    /// of writing and writes to the new pipe.
    @Test func aPipeMadeAgainIsFoundAgain() throws {
        let path = try pipe()
        let out = try output(path)
        try out.open(PCMFormat(sampleRate: 48000, channels: 2))
        unlink(path)
        #expect(mkfifo(path, 0o600) == 0)
        let reader = try PipeReader(path)
        let chunk = SignalAnalysis.sine(frames: 2400, sampleRate: 48000, channels: 2, frequency: 440)
        try waitUntil("the output to write into the new pipe", seconds: 10) {
            try write(out, chunk)
            return !reader.bytes.isEmpty
        }
        out.close()
        _ = try reader.finish()
    }

    /// A seek or stop: what snapserver has not read yet of the old position is dropped, the pipe stays open.
    @Test func flushDropsWhatWaitsInThePipe() throws {
        let path = try pipe()
        let out = try output(path)
        let reader = try PipeReader(path, stalled: true)
        try out.open(PCMFormat(sampleRate: 44100, channels: 2))
        try write(out, SignalAnalysis.sine(frames: 4410, sampleRate: 44100, channels: 2, frequency: 440))
        #expect((out.queuedBytes ?? 0) > 0)
        #expect(out.flush())
        #expect(out.isConnected && out.queuedBytes == 0)
        let after = SignalAnalysis.sine(frames: 4410, sampleRate: 44100, channels: 2, frequency: 660)
        try write(out, after)
        try out.drain()
        reader.resume()
        out.close()
        // Only the new position's tenth of a second (at 48 kHz), with nothing of the old one's resampler in it.
        let samples = int16s(try reader.finish()).map { Float($0) / 32767 }
        #expect(abs(samples.count / 2 - 4800) <= 2, "\(samples.count / 2) frames")
        let frequency = try #require(SignalAnalysis.dominantFrequency(SignalAnalysis.channel(0, of: samples, channels: 2)[100..<4700], sampleRate: 48000))
        #expect(abs(frequency - 660) < 2, "\(frequency) Hz")
    }

    @Test func refusesAPathThatIsNotAPipe() throws {
        let dir = try folder()
        let file = dir.appendingPathComponent("snapfifo")
        try Data("not a pipe".utf8).write(to: file)
        let plugin = FIFOOutputPlugin(path: file.path)
        let reason = try #require(plugin.checkStatus().reason)
        #expect(reason.contains(file.path) && reason.contains("not a named pipe") && reason.contains("outputs.fifo.path"))
        #expect(throws: OutputError.self) { try plugin.makeOutput() }
        // Replaced by a regular file after the output was made: its open refuses too, rather than writing into it.
        let pipe = dir.appendingPathComponent("later").path
        let out = try output(pipe)
        try "x".write(toFile: pipe, atomically: false, encoding: .utf8)
        #expect(throws: OutputError.self) { try out.open(PCMFormat(sampleRate: 48000, channels: 2)) }
        #expect(try String(contentsOfFile: pipe, encoding: .utf8) == "x")
    }

    @Test func aMissingOrReadOnlyFolderIsUnavailable() throws {
        let missing = try folder().appendingPathComponent("no/such/folder/snapfifo").path
        let reason = try #require(FIFOOutputPlugin(path: missing).checkStatus().reason)
        #expect(reason.contains("does not exist") && reason.contains(missing))
        if getuid() != 0 {  // root writes anywhere
            let locked = try folder()
            chmod(locked.path, 0o555)
            defer { chmod(locked.path, 0o755) }
            let lockedReason = try #require(FIFOOutputPlugin(path: locked.appendingPathComponent("snapfifo").path).checkStatus().reason)
            #expect(lockedReason.contains("not writable"))
        }
    }

    @Test(arguments: ["44100:8:2", "48000:16:6", "48000:16", "fast", "0:16:2", "48000:16:2:1"])
    func aBadFormatNamesTheKey(_ format: String) throws {
        let settings = PluginSettings(block: "outputs.fifo", values: ["format": format], dataDirectory: URL(fileURLWithPath: "/tmp"))
        let plugin = try #require(FIFOOutputPlugin.registration.parts(settings).outputs.first)
        let reason = try #require(plugin.checkStatus().reason)
        #expect(reason.contains("outputs.fifo.format") && reason.contains(format))
    }

    @Test func defaultsAreSnapcastsOwn() throws {
        let settings = PluginSettings(block: "outputs.fifo", dataDirectory: URL(fileURLWithPath: "/tmp"))
        let plugin = try #require(FIFOOutputPlugin.registration.parts(settings).outputs.first as? FIFOOutputPlugin)
        #expect(plugin.name == "fifo" && plugin.path == "/tmp/snapfifo" && plugin.format.description == "48000:16:2")
        #expect(FIFOFormat("44100:32:1")?.frameBytes == 4 && FIFOFormat("48000:24:2")?.frameBytes == 8)
    }
}
