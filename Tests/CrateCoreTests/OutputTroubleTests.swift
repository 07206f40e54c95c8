import CrateCore
import CrateDomain
import CrateTestSupport
import Foundation
import Testing

/// Issue 17 item 4: output trouble is visible and survivable. A real PulseAudio server goes away in the middle of a
/// track and comes back; the player says so (status and events), keeps its place and resumes there by itself.
@Suite(.serialized, .promptly) struct OutputTroubleTests {
    @Test func aSoundServerThatGoesAwayIsReportedAndPlaybackResumesWhenItIsBack() async throws {
        let server = try PulseTestServer()
        defer { server.stop() }
        let fixture = try PlayerServiceTests()
        // Minute-long tracks: on a machine busy with the other suites the test may look late, but not a minute late.
        let (runtime, a, _) = try fixture.runtime(seconds: 60, pulse: server)
        let player = try await PlayerService.start(runtime: runtime, output: "pulse")
        let events = player.events.subscribe()
        try await player.playAlbum(a[0].albumID)
        try await fixture.waitFor(player) { $0.state == .playing && $0.elapsed > 0.5 }
        #expect(try await player.status().outputError == nil)

        let failedAt = Date()
        server.kill()
        let down = try await fixture.waitFor(player) { $0.outputError != nil }
        let trouble = try #require(down.outputError, "no outputError after the server went away")
        #expect(trouble.output == "pulse")
        #expect(trouble.since >= failedAt.addingTimeInterval(-1) && trouble.willResume && trouble.nextAttempt != nil)
        // Paused where it was: the track it was playing (A1, unless this test was kept waiting past it) and its place.
        let place = try #require(down.entry?.track.title)
        #expect(down.state == .paused && a.map(\.title).contains(place), "\(down.state) \(place)")
        #expect(down.elapsed > 0.4, "the place was lost: \(down.elapsed)")
        var seen: CrateEvent?
        for await event in events where event.outputError != nil {
            seen = event
            break
        }
        #expect(seen?.outputError?.output == "pulse" && seen?.subsystem == "player")

        try server.start()
        let back = try await fixture.waitFor(player) { $0.outputError == nil && $0.state == .playing }
        #expect(back.outputError == nil && back.state == .playing, "still \(back.state), \(String(describing: back.outputError))")
        #expect(back.entry?.track.title == place && back.elapsed >= down.elapsed - 0.01,
                "resumed at \(String(describing: back.entry?.track.title)) \(back.elapsed), not \(place) \(down.elapsed)")
        await player.shutdown()
    }

    /// A pause during the outage is the listener's choice: the output coming back does not start the music.
    @Test func aPauseDuringTheOutageIsKept() async throws {
        let server = try PulseTestServer()
        defer { server.stop() }
        let fixture = try PlayerServiceTests()
        let (runtime, a, _) = try fixture.runtime(seconds: 20, pulse: server)
        let player = try await PlayerService.start(runtime: runtime, output: "pulse")
        try await player.playAlbum(a[0].albumID)
        try await fixture.waitFor(player) { $0.state == .playing && $0.elapsed > 0.2 }
        server.kill()
        try await fixture.waitFor(player) { $0.outputError != nil }
        await player.pause()
        #expect(try await player.status().outputError?.willResume == false)
        try server.start()
        let back = try await fixture.waitFor(player) { $0.outputError == nil }
        #expect(back.outputError == nil && back.state == .paused)
        await player.shutdown()
    }

    /// Issue 29: with several outputs, one that fails is set aside and the others play on; it says why (its own state
    /// and an `output` event, not the player's outputError) and is taken back when it works again.
    @Test func oneOutputOfSeveralFailsAndTheOthersPlayOn() async throws {
        let server = try PulseTestServer()
        defer { server.stop() }
        let fixture = try PlayerServiceTests()
        let (runtime, a, _) = try fixture.runtime(seconds: 60, pulse: server)
        let player = try await PlayerService.start(runtime: runtime, output: "pulse,null")
        #expect(player.outputStates().map(\.name) == ["pulse", "null"])
        let events = player.events.subscribe()
        try await player.playAlbum(a[0].albumID)
        try await fixture.waitFor(player) { $0.state == .playing && $0.elapsed > 0.5 }

        server.kill()
        var told: OutputState?
        for await event in events {
            if case .output(let state) = event, state.name == "pulse", state.error != nil {
                told = state
                break
            }
        }
        #expect(told?.error?.isEmpty == false && told?.enabled == true)
        let during = try await player.status()
        #expect(during.state == .playing && during.outputError == nil, "\(during.state) \(String(describing: during.outputError))")
        let elapsed = during.elapsed
        try await fixture.waitFor(player) { $0.elapsed > elapsed + 1 }   // the null output plays on, in time
        #expect(player.outputStates().first { $0.name == "pulse" }?.error != nil)

        // Back: tried again within the retry delay (5 s) of the next writes.
        try server.start()
        try await waitUntilAsync("pulse to be taken back", seconds: 60) { player.outputStates().allSatisfy { $0.error == nil } }
        #expect(try await player.status().state == .playing)
        await player.shutdown()
    }

    /// An output that cannot be reached at start-up (the sound server is not up yet) does not stop the player.
    @Test func thePlayerStartsWithoutItsOutputAndSaysWhy() async throws {
        let fixture = try PlayerServiceTests()
        let (runtime, _, _) = try fixture.runtime(seconds: 0.2, pulse: nil, pulseServer: "unix:/nonexistent/crate-no-pulse")
        let player = try await PlayerService.start(runtime: runtime, output: "pulse")
        let status = try await player.status()
        let trouble = try #require(status.outputError)
        #expect(trouble.output == "pulse" && trouble.reason.contains("no PulseAudio server answers") && !trouble.willResume)
        await player.shutdown()
    }
}
