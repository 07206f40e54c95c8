@testable import CrateCore
import CrateDomain
import Foundation
import NullOutput
import Testing

/// Several outputs at once (issue 29): the same samples to each, one turned off or failing without stopping the rest.
@Suite struct OutputGroupTests {
    /// An output that fails every write once `failing` is set.
    final class Flaky: AudioOutput {
        var failing = false
        var frames = 0
        var destination: String { "flaky" }
        var keepsTime: Bool { false }
        func open(_ format: PCMFormat) throws {}
        func write(_ samples: UnsafeBufferPointer<Float>) throws {
            if failing { throw OutputError(output: "flaky", reason: "unplugged") }
            frames += samples.count / 2
        }
        func drain() throws {}
        func close() {}
    }

    /// A plugin that hands out one output object (so the test can look at it).
    struct Fixed: OutputPlugin, @unchecked Sendable {
        let name: String
        let output: any AudioOutput
        func checkStatus() -> PluginStatus { .available }
        func makeOutput() throws -> any AudioOutput { output }
    }

    let format = PCMFormat(sampleRate: 44100, channels: 2)
    let block = [Float](repeating: 0.25, count: 4410 * 2)

    func write(_ group: OutputGroup, times: Int) throws {
        for _ in 0..<times { try block.withUnsafeBufferPointer { try group.write($0) } }
    }

    @Test func everyEnabledOutputGetsTheSameSamples() throws {
        let a = NullAudioOutput(), b = NullAudioOutput()
        let group = OutputGroup([Fixed(name: "a", output: a), Fixed(name: "b", output: b)])
        try group.open(format)
        try write(group, times: 3)
        #expect(a.framesWritten == 13230 && b.framesWritten == 13230)

        // Off: b hears nothing more, a goes on; on again: b takes up from there.
        #expect(group.setEnabled("b", false)?.enabled == false && group.setEnabled("nobody", false) == nil)
        try write(group, times: 2)
        #expect(a.framesWritten == 22050 && b.framesWritten == 13230)
        group.setEnabled("b", true)
        try write(group, times: 1)
        #expect(a.framesWritten == 26460 && b.framesWritten == 17640)
        #expect(group.states().map(\.enabled) == [true, true] && group.states().allSatisfy { $0.error == nil })
    }

    @Test func aFailingOutputIsSetAsideAndTheOthersGoOn() throws {
        let good = NullAudioOutput(), flaky = Flaky()
        let group = OutputGroup([Fixed(name: "null", output: good), Fixed(name: "flaky", output: flaky)])
        try group.open(format)
        try write(group, times: 1)
        flaky.failing = true
        try write(group, times: 2)   // no throw: one output still works
        #expect(good.framesWritten == 13230 && flaky.frames == 4410)
        #expect(group.states().first { $0.name == "flaky" }?.error?.contains("unplugged") == true)
        // Back at the next open (a new track, a seek).
        flaky.failing = false
        try group.open(format)
        try write(group, times: 1)
        #expect(flaky.frames == 8820 && group.states().allSatisfy { $0.error == nil })
    }

    @Test func whenEveryOutputFailsTheGroupFailsAndWithNoneEnabledItDoesNot() throws {
        let flaky = Flaky()
        let group = OutputGroup([Fixed(name: "flaky", output: flaky)])
        try group.open(format)
        flaky.failing = true
        #expect(throws: OutputError.self) { try write(group, times: 1) }
        group.setEnabled("flaky", false)
        try write(group, times: 1)   // nobody listens: the music goes on at the sample clock
    }

    @Test func switchesAndTroubleAreToldAndOutputsOffAtStartStayOff() throws {
        let told = Told()
        let flaky = Flaky(), quiet = NullAudioOutput()
        let group = OutputGroup([Fixed(name: "flaky", output: flaky), Fixed(name: "quiet", output: quiet)], disabled: ["quiet"]) {
            told.append($0)
        }
        try group.open(format)
        try write(group, times: 1)
        #expect(quiet.framesWritten == 0 && group.states().map(\.enabled) == [true, false])
        flaky.failing = true
        #expect(throws: OutputError.self) { try write(group, times: 1) }
        group.setEnabled("quiet", true)
        try write(group, times: 1)
        #expect(quiet.framesWritten == 4410)
        #expect(told.all.map(\.summary) == ["flaky failed: unplugged", "quiet on"])
    }

    /// Every change a client is told of gives the output a larger revision, so a client can tell a late, older state
    /// (an event overtaken by the answer to a later switch) from the current one.
    @Test func eachChangeToldHasALargerRevision() throws {
        let told = Told()
        let flaky = Flaky()
        let group = OutputGroup([Fixed(name: "flaky", output: flaky)]) { told.append($0) }
        try group.open(format)
        try write(group, times: 1)
        group.setEnabled("flaky", false)
        group.setEnabled("flaky", true)
        try write(group, times: 1)
        flaky.failing = true
        #expect(throws: OutputError.self) { try write(group, times: 1) }
        flaky.failing = false
        try group.open(format)
        #expect(told.all.map(\.summary) == ["flaky off", "flaky on", "flaky failed: unplugged", "flaky on"])
        #expect(told.all.map(\.revision) == [1, 2, 3, 4])
        // States read between changes carry the revision of the last one.
        #expect(group.states().map(\.revision) == [4])
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(group.states()[0])) as? [String: Any]
        #expect(json?["revision"] as? Int == 4)
    }

    @Test func aNewTrackIsToldToEveryOutputAndToOneOpenedLater() throws {
        final class Listening: AudioOutput {
            var heard: [String] = []
            var destination: String { "tags" }
            func open(_ format: PCMFormat) throws {}
            func write(_ samples: UnsafeBufferPointer<Float>) throws {}
            func drain() throws {}
            func close() {}
            func nowPlaying(_ tags: NowPlayingTags) { heard.append(tags.title) }
        }
        let first = Listening(), later = Listening()
        let group = OutputGroup([Fixed(name: "first", output: first), Fixed(name: "later", output: later)], disabled: ["later"])
        try group.open(format)
        group.nowPlaying(NowPlayingTags(title: "One"))
        group.setEnabled("later", true)
        try write(group, times: 1)
        #expect(first.heard == ["One"] && later.heard == ["One"])
    }
}

/// What a group told, collected across threads.
final class Told: @unchecked Sendable {
    private let lock = NSLock()
    private var states: [OutputState] = []
    func append(_ state: OutputState) { lock.withLock { states.append(state) } }
    var all: [OutputState] { lock.withLock { states } }
}
