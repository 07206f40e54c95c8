import CrateDomain
import CrateTestSupport
import FFmpegSupport
import Testing

@Suite struct PCMResamplerTests {
    /// Feeds `samples` in 4096-frame chunks, as the player writes, then flushes.
    private func convertAll(_ resampler: PCMResampler, _ samples: [Float], chunkFrames: Int = 4096) throws -> [Float] {
        var out: [Float] = []
        let step = chunkFrames * resampler.input.channels
        var start = 0
        while start < samples.count {
            let end = min(start + step, samples.count)
            out += try samples[start..<end].withUnsafeBufferPointer { try resampler.convert($0) }
            start = end
        }
        return out + (try resampler.flush())
    }

    @Test func resamples44100To48000KeepingLengthAndPitch() throws {
        let resampler = try PCMResampler(from: PCMFormat(sampleRate: 44100, channels: 2), toRate: 48000, toChannels: 2)
        let tone = SignalAnalysis.sine(frames: 44100, sampleRate: 44100, channels: 2, frequency: 440)
        let out = try convertAll(resampler, tone)
        #expect(out.count % 2 == 0)
        let frames = out.count / 2
        // One second in is one second out: 48000 frames, give or take the filter's rounding.
        #expect(abs(frames - 48000) <= 2, "\(frames) frames")
        let left = SignalAnalysis.channel(0, of: out, channels: 2)
        let frequency = try #require(SignalAnalysis.dominantFrequency(left[1000..<47000], sampleRate: 48000))
        #expect(abs(frequency - 440) < 0.5, "\(frequency) Hz")
        // The level is kept (a sine of 0.5 has an RMS of 0.354).
        #expect(abs(SignalAnalysis.rms(left[1000..<47000]) - 0.5 / 2.0.squareRoot()) < 0.01)
        #expect(SignalAnalysis.channel(1, of: out, channels: 2) == left)
    }

    @Test func matchingFormatsPassThroughExactly() throws {
        let resampler = try PCMResampler(from: PCMFormat(sampleRate: 48000, channels: 2), toRate: 48000, toChannels: 2)
        let tone = SignalAnalysis.sine(frames: 10_000, sampleRate: 48000, channels: 2, frequency: 1000, amplitude: 0.9)
        #expect(try convertAll(resampler, tone, chunkFrames: 1000) == tone)
        #expect(try resampler.flush().isEmpty)
    }

    @Test func monoIsDuplicatedAndStereoAveraged() throws {
        let up = try PCMResampler(from: PCMFormat(sampleRate: 48000, channels: 1), toRate: 48000, toChannels: 2)
        let mono: [Float] = [0.5, -0.25, 1, -1]
        #expect(try mono.withUnsafeBufferPointer { try up.convert($0) } == [0.5, 0.5, -0.25, -0.25, 1, 1, -1, -1])

        let down = try PCMResampler(from: PCMFormat(sampleRate: 48000, channels: 2), toRate: 48000, toChannels: 1)
        let stereo: [Float] = [1, 1, 0.5, -0.5, 1, 0]
        #expect(try stereo.withUnsafeBufferPointer { try down.convert($0) } == [1, 0, 0.5])
    }

    /// Mono at 44.1 kHz to stereo at 48 kHz: both steps at once, the tone at full level on both sides.
    @Test func monoResampledToStereo() throws {
        let resampler = try PCMResampler(from: PCMFormat(sampleRate: 44100, channels: 1), toRate: 48000, toChannels: 2)
        let tone = SignalAnalysis.sine(frames: 22050, sampleRate: 44100, channels: 1, frequency: 660)
        let out = try convertAll(resampler, tone)
        #expect(abs(out.count / 2 - 24000) <= 2)
        let left = SignalAnalysis.channel(0, of: out, channels: 2)
        #expect(SignalAnalysis.channel(1, of: out, channels: 2) == left)
        let frequency = try #require(SignalAnalysis.dominantFrequency(left[500..<23500], sampleRate: 48000))
        #expect(abs(frequency - 660) < 0.5, "\(frequency) Hz")
        #expect(abs(SignalAnalysis.rms(left[500..<23500]) - 0.5 / 2.0.squareRoot()) < 0.01)
    }

    /// After a flush the next stream starts clean: its length is its own, nothing of the last one leaks in.
    @Test func flushStartsAFreshStream() throws {
        let resampler = try PCMResampler(from: PCMFormat(sampleRate: 44100, channels: 2), toRate: 48000, toChannels: 2)
        let tone = SignalAnalysis.sine(frames: 4410, sampleRate: 44100, channels: 2, frequency: 440)
        let first = try convertAll(resampler, tone)
        let silence = [Float](repeating: 0, count: 4410 * 2)
        let second = try convertAll(resampler, silence)
        #expect(abs(first.count - second.count) <= 4)
        #expect(second.allSatisfy { $0 == 0 }, "the tone leaked into the next stream")
    }

    @Test func refusesPartialFramesAndNonsense() throws {
        let resampler = try PCMResampler(from: PCMFormat(sampleRate: 44100, channels: 2), toRate: 48000, toChannels: 2)
        let odd: [Float] = [0, 0, 0]
        #expect(throws: ResampleError.self) { try odd.withUnsafeBufferPointer { try resampler.convert($0) } }
        #expect(throws: ResampleError.self) { try PCMResampler(from: PCMFormat(sampleRate: 0, channels: 2), toRate: 48000, toChannels: 2) }
    }
}
