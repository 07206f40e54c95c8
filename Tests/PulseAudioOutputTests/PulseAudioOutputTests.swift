import CrateDomain
import CrateTestSupport
import Foundation
import PulseAudioOutput
import Testing

/// Plays through a real, private PulseAudio server and checks the sound recorded from its null sink's monitor.
/// Serialized: each test runs its own server, and on 2 cores parallel servers would disturb the timing.
@Suite(.serialized) struct PulseAudioOutputTests {
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

    /// Records the monitor while `body` plays, with some silence either side, and returns channel 0.
    static func record(_ server: PulseTestServer, _ body: () throws -> Void) throws -> [Float] {
        let recording = try server.record(to: server.directory.appendingPathComponent("rec.wav"))
        try body()
        usleep(300_000)
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

        let rms = SignalAnalysis.rms(left)
        #expect(rms > 0.1, "recording RMS \(rms)")
        let active = SignalAnalysis.activeRange(left)
        let seconds = Double(active.count) / 44100
        #expect(seconds > 1.4 && seconds < 1.7, "\(seconds) s of sound")
        let frequency = try #require(SignalAnalysis.dominantFrequency(left[active], sampleRate: 44100))
        #expect(abs(frequency - 440) <= 5, "dominant frequency \(frequency) Hz")
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
        // Different tones tell the two streams apart; a wrong rate on the second would shift its 660 Hz.
        let active = SignalAnalysis.activeRange(left)
        let seconds = Double(active.count) / 44100
        #expect(seconds > 1.3 && seconds < 1.7, "\(seconds) s of sound")
        let first = left[active.lowerBound + 2205 ..< active.lowerBound + 22050]       // 0.05 - 0.5 s
        let second = left[active.upperBound - 26460 ..< active.upperBound - 2205]      // the last 0.6 - 0.05 s
        let f1 = try #require(SignalAnalysis.dominantFrequency(first, sampleRate: 44100))
        let f2 = try #require(SignalAnalysis.dominantFrequency(second, sampleRate: 44100))
        #expect(abs(f1 - 440) <= 5, "first part \(f1) Hz")
        #expect(abs(f2 - 660) <= 5, "second part (48 kHz mono) \(f2) Hz")
        #expect(SignalAnalysis.rms(second) > 0.1)
    }

    /// close() flushes what is buffered; the output opens again afterwards.
    /// (How quickly stop takes effect is measured in Benchmarks/, not asserted here.)
    @Test func closeThenReopenPlays() throws {
        let server = try PulseTestServer()
        defer { server.stop() }
        let output = try PulseAudioOutputPlugin(server: server.server, sink: server.sink).makeOutput()
        let format = PCMFormat(sampleRate: 44100, channels: 2)
        try output.open(format)
        try Self.play(output, format: format, frequency: 440, seconds: 0.5)
        output.close()
        try output.open(format)
        try Self.play(output, format: format, frequency: 440, seconds: 0.1)
        try output.drain()
        output.close()
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
