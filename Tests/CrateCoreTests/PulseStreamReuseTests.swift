import CrateCore
import CrateDomain
import CrateTestSupport
import Foundation
import Testing

/// Issue 17 item 3: the PulseAudio output keeps its stream across plays, seeks and stops of the same format, so a
/// play command does not pay for a new connection (each new stream is a new sink input on the server, with a new
/// index: the indexes tell whether Crate reconnected).
@Suite(.serialized, .promptly) struct PulseStreamReuseTests {
    static func sinkInputs(_ server: PulseTestServer) throws -> [String] {
        try Fixture.run("pactl", ["--server", server.server, "list", "short", "sink-inputs"])
            .split(separator: "\n").compactMap { $0.split(separator: "\t").first.map(String.init) }
    }

    @Test func playSeekStopAndPlayAgainUseOneStream() async throws {
        let server = try PulseTestServer()
        defer { server.stop() }
        let fixture = try PlayerServiceTests()
        let (runtime, a, b) = try fixture.runtime(seconds: 20, pulse: server)
        let player = try await PlayerService.start(runtime: runtime, output: "pulse")
        try await player.playAlbum(a[0].albumID)
        try await fixture.waitFor(player) { $0.state == .playing && $0.elapsed > 0.2 }
        let first = try Self.sinkInputs(server)
        #expect(first.count == 1, "sink inputs: \(first)")

        try await player.seek(to: 10)
        try await fixture.waitFor(player) { $0.state == .playing && $0.elapsed > 10.1 }
        await player.stop()
        try await player.playAlbum(b[0].albumID)
        let again = try await fixture.waitFor(player) { $0.state == .playing && $0.elapsed > 0.2 }
        #expect(again.entry?.track.title == "B1")
        #expect(try Self.sinkInputs(server) == first, "a new stream was opened")
        await player.shutdown()
    }
}
