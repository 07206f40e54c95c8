import CrateDomain
import CrateTestSupport
import Foundation
import PulseAudioOutput
import Testing

/// Plays through a real, private PulseAudio server and checks the sound recorded from its null sink's monitor.
/// Serialized: each test runs its own server, and on 2 cores parallel servers would disturb the timing.
@Suite(.serialized, .promptly) struct PulseAudioOutputTests {
    /// Writes `seconds` of a sine in 100 ms pieces, as a player would.
    static func play(_ output: any AudioOutput, format: PCMFormat, frequency: Double, seconds: Double) throws {
        let total = Int(seconds * Double(format.sampleRate))
        let piece = format.sampleRate / 10
        var at = 0
        while at < total {
            let n = min(piece, total - at)
            let samples = SignalAnalysis.sine(frames: n, sampleRate: format.sampleRate, channels: format.channels,
                                              frequency: frequency, amplitude: 0.5, offset: at)
            try samples.withUnsafeBufferPointer { try output.write($0) }
            at += n
        }
    }

    /// Records the monitor while `body` plays, with silence before and 0.3 s after, and returns channel 0.
    static func record(_ server: PulseTestServer, _ body: () throws -> Void) throws -> [Float] {
        let recording = try server.record(to: server.directory.appendingPathComponent("rec.wav"))
        try body()
        try recording.recordMore(frames: 13_230)
        recording.stop()
        let wav = try Fixture.readWAV16(recording.url)
        #expect(wav.sampleRate == 44100 && wav.channels == 2)
        return SignalAnalysis.channel(0, of: wav.samples, channels: wav.channels)
    }

    @Test func playsASine() throws {
        let server = try PulseTestServer()
        defer { server.stop() }
        let plugin = PulseAudioOutputPlugin(server: server.server, sink: server.sink)
        #expect(plugin.name == "pulse")
        #expect(plugin.checkStatus() == .available)
        let output = try plugin.makeOutput()
        #expect(output.destination == "PulseAudio (server \(server.server), sink crate_test)")

        let format = PCMFormat(sampleRate: 44100, channels: 2)
        let left = try Self.record(server) {
            try output.open(format)
            try Self.play(output, format: format, frequency: 440, seconds: 1.5)
            try output.drain()
            output.close()
        }

        // Every sample written, in order, nothing dropped or repeated (16-bit rounding aside), and silence after.
        let found = Self.find(Self.tone(440, seconds: 1.5), in: left)   // (kept out of #require, which would print every sample)
        let end = try #require(found, "the 1.5 s sine is not in the recording")
        #expect(SignalAnalysis.activeRange(Array(left[end...])).isEmpty, "sound after the sine ended")
    }

    /// Channel 0 of `sine(frequency, seconds)` at 44.1 kHz, as written by `play`.
    static func tone(_ frequency: Double, seconds: Double, rate: Int = 44100) -> [Float] {
        SignalAnalysis.sine(frames: Int(seconds * Double(rate)), sampleRate: rate, channels: 1, frequency: frequency)
    }

    /// Where `sound` ends in `recording` when all of it but its first 50 ms is there sample for sample; nil otherwise.
    /// A monitor misses the start of a new stream: the sink has rendered its next block (20 ms here) before the stream
    /// arrives and rewinds to mix it in, but a monitor cannot take back what it already passed on.
    static func find(_ sound: [Float], in recording: [Float]) -> Int? {
        let skipped = 2205
        return SignalAnalysis.locate(Array(sound[skipped...]), in: recording).map { $0 + sound.count - skipped }
    }

    @Test func formatChangeReopensAndStillPlays() throws {
        let server = try PulseTestServer()
        defer { server.stop() }
        let output = try PulseAudioOutputPlugin(server: server.server, sink: server.sink).makeOutput()
        let stereo = PCMFormat(sampleRate: 44100, channels: 2), mono = PCMFormat(sampleRate: 48000, channels: 1)
        let left = try Self.record(server) {
            try output.open(stereo)
            try Self.play(output, format: stereo, frequency: 440, seconds: 0.6)
            try output.open(mono)
            try Self.play(output, format: mono, frequency: 660, seconds: 0.8)
            try output.drain()
            output.close()
        }
        // The first stream plays sample-exact; the second is resampled by the server from 48 kHz, so it is checked by
        // its pitch (a wrong rate would shift its 660 Hz) and its length in recorded samples (0.8 s = 35,280 at
        // 44.1 kHz, less the start a monitor may miss (see `find`); a resampler's edges blur a few ms).
        let found = Self.find(Self.tone(440, seconds: 0.6), in: left)
        let end = try #require(found, "the 44.1 kHz stereo part is not in the recording")
        let rest = Array(left[end...])
        let active = SignalAnalysis.activeRange(rest)
        #expect((35_280 - 2205 - 441 ... 35_280 + 441).contains(active.count), "the 48 kHz mono part has \(active.count) samples of sound")
        let f2 = try #require(SignalAnalysis.dominantFrequency(rest[active], sampleRate: 44100))
        #expect(abs(f2 - 660) <= 5, "second part (48 kHz mono) \(f2) Hz")
        #expect(SignalAnalysis.rms(rest[active]) > 0.3)
    }

    /// close() ends the stream; the output opens again afterwards and plays the next sound whole.
    /// (How quickly stop takes effect is measured in Benchmarks/, not asserted here.)
    @Test func closeThenReopenPlays() throws {
        let server = try PulseTestServer()
        defer { server.stop() }
        let output = try PulseAudioOutputPlugin(server: server.server, sink: server.sink).makeOutput()
        let format = PCMFormat(sampleRate: 44100, channels: 2)
        let left = try Self.record(server) {
            try output.open(format)
            try Self.play(output, format: format, frequency: 440, seconds: 0.5)
            output.close()
            try output.open(format)
            try Self.play(output, format: format, frequency: 660, seconds: 0.3)
            try output.drain()
            output.close()
        }
        let found = Self.find(Self.tone(660, seconds: 0.3), in: left)
        let end = try #require(found, "the tone played after reopening is not recorded whole")
        let before = left[..<(end - 13_230)]
        #expect(SignalAnalysis.dominantFrequency(before[SignalAnalysis.activeRange(Array(before))], sampleRate: 44100)
                    .map { abs($0 - 440) <= 5 } == true, "the first tone is not recorded before the reopened one")
    }

    @Test func unreachableServerIsUnavailableWithAReason() throws {
        let address = "unix:/nonexistent/crate-\(UUID().uuidString.prefix(8))/native"
        let plugin = PulseAudioOutputPlugin(server: address)
        let reason = try #require(plugin.checkStatus().reason)
        #expect(reason.contains(address))
        #expect(reason.contains("Connection refused"))
        #expect(reason.contains("no PulseAudio server answers"))
        #expect(throws: OutputError.self) {
            try plugin.makeOutput().open(PCMFormat(sampleRate: 44100, channels: 2))
        }
    }

    @Test func unknownSinkIsUnavailable() throws {
        let server = try PulseTestServer()
        defer { server.stop() }
        let reason = try #require(PulseAudioOutputPlugin(server: server.server, sink: "no_such_sink").checkStatus().reason)
        #expect(reason.contains("no sink 'no_such_sink'"))
    }
}
