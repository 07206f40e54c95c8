import CrateDomain
import CrateTestSupport
import Foundation
import NullOutput
import Testing

@Suite struct NullOutputTests {
    private func write(_ output: any AudioOutput, samples count: Int) throws {
        let samples = [Float](repeating: 0.25, count: count)
        try samples.withUnsafeBufferPointer { try output.write($0) }
    }

    @Test func countsFramesAcrossOpensAndFormats() throws {
        let plugin = NullOutputPlugin(render: true)
        #expect(plugin.name == "null")
        #expect(plugin.checkStatus() == .available)
        let output = try #require(try plugin.makeOutput() as? NullAudioOutput)

        try output.open(PCMFormat(sampleRate: 44100, channels: 2))
        try write(output, samples: 2 * 1000)
        try write(output, samples: 2 * 24)
        try output.drain()
        #expect(output.framesWritten == 1024)

        // A format change counts frames in the new channel count and keeps the total.
        try output.open(PCMFormat(sampleRate: 48000, channels: 1))
        try write(output, samples: 500)
        output.close()
        try output.open(PCMFormat(sampleRate: 96000, channels: 6))
        try write(output, samples: 6 * 10)
        #expect(output.framesWritten == 1024 + 500 + 10)
        output.close()
    }

    @Test func sharedCounterSumsEveryOutput() throws {
        let counter = FrameCounter()
        let plugin = NullOutputPlugin(counter: counter, render: true)
        let a = try plugin.makeOutput(), b = try plugin.makeOutput()
        try a.open(PCMFormat(sampleRate: 44100, channels: 2))
        try b.open(PCMFormat(sampleRate: 44100, channels: 1))
        try write(a, samples: 200)
        try write(b, samples: 300)
        #expect(counter.frames == 100 + 300)
        counter.reset()
        #expect(counter.frames == 0)
    }

    /// Paced by default: a second of audio cannot be played (written and drained) in less than a second. Only this
    /// bound is checked here — a busy machine can make it longer, never shorter; how close to real time the pace is
    /// is measured in Benchmarks/outputs.sh.
    @Test func keepsTimeByDefault() throws {
        let output = try NullOutputPlugin().makeOutput()
        #expect(output.destination.contains("real time"))
        let started = ContinuousClock.now
        try output.open(PCMFormat(sampleRate: 44100, channels: 2))
        for _ in 0..<10 { try write(output, samples: 2 * 4410) }
        try output.drain()
        let took = ContinuousClock.now - started
        #expect(took >= .milliseconds(1000), "1 s of audio took \(took)")
    }

    /// `render: true` is as fast as written: 30 s of audio in far less than the 30 s a paced output needs.
    @Test func renderModeDoesNotWait() throws {
        let output = try NullOutputPlugin(render: true).makeOutput()
        let started = ContinuousClock.now
        try output.open(PCMFormat(sampleRate: 44100, channels: 2))
        for _ in 0..<300 { try write(output, samples: 2 * 4410) }
        try output.drain()
        let took = ContinuousClock.now - started
        #expect(took < .seconds(15), "30 s of audio took \(took) in render mode")
    }

    @Test func aBadRenderSettingMakesTheOutputUnavailable() {
        let settings = PluginSettings(block: "outputs.null", values: ["render": "sometimes"], dataDirectory: URL(fileURLWithPath: "/tmp"))
        let plugin = NullOutputPlugin.registration.parts(settings).outputs.first
        #expect(plugin?.checkStatus() == .unavailable(reason: "outputs.null.render has the invalid value 'sometimes'; accepted: true or false"))
    }

    @Test func writeBeforeOpenThrows() throws {
        let output = try NullOutputPlugin(render: true).makeOutput()
        #expect(throws: OutputError.self) { try write(output, samples: 2) }
    }

    /// The counter is read from another thread while the playback thread writes.
    @Test func counterIsReadableWhileWriting() async throws {
        let counter = FrameCounter()
        let plugin = NullOutputPlugin(counter: counter, render: true)
        let writer = Task.detached {
            let output = try plugin.makeOutput()
            try output.open(PCMFormat(sampleRate: 44100, channels: 2))
            let block = [Float](repeating: 0, count: 2 * 64)
            for _ in 0..<10_000 { try block.withUnsafeBufferPointer { try output.write($0) } }
        }
        // Bounded, so a failing writer cannot hang the test.
        var previous: Int64 = 0
        for _ in 0..<10_000 where previous < 640_000 {
            let now = counter.frames
            #expect(now >= previous)
            previous = now
            await Task.yield()
        }
        try await writer.value
        #expect(counter.frames == 640_000)
    }
}
