import CrateAPI
import CrateClient
import CrateCore
import CrateDomain
import CratePlugins
import CrateTestSupport
import Foundation
import ServiceLifecycle
import Synchronization
import Testing

/// A front end that only listens, as a new front end starts: one registration, and one line in the daemon's list.
enum RecordingFrontEnd {
    static func registration(_ log: EventLog) -> FrontEndRegistration {
        FrontEndRegistration(name: "recorder") { context in
            let events = context.events.subscribe()   // subscribed before anything plays
            log.attach(context)
            return .serving(ClosureService {
                for await event in events.cancelOnGracefulShutdown() { log.append(event) }
            }, where: "in this process")
        }
    }
}

/// What the recording front end heard, and the context it was given.
final class EventLog: Sendable {
    private let state = Mutex<(events: [CrateEvent], context: FrontEndContext?)>(([], nil))
    func append(_ event: CrateEvent) { state.withLock { $0.events.append(event) } }
    func attach(_ context: FrontEndContext) { state.withLock { $0.context = context } }
    var events: [CrateEvent] { state.withLock { $0.events } }
    var context: FrontEndContext? { state.withLock { $0.context } }
}

/// The front-end seam, with the daemon in this process: Core's `CrateDaemon` runs the composition root's front ends
/// plus one more, and the added one hears the typed events of what the others did.
@Suite(.promptly) struct FrontEndSeamTests {
    @Test func aFrontEndAddedByOneLineHearsAPlayAFavoriteAndAPlaylistEditMadeThroughAnother() async throws {
        let runtime = try oneAlbumRuntime("crate-frontend") { settings in
            settings.httpPort = try Fixture.freePort()
            settings.setPluginValue("mpd.address", "off")
            settings.setPluginValue("subsonic.address", "off")
            settings.setPluginValue("mpris.enabled", "false")
        }
        let settings = runtime.settings
        let album = try #require(try runtime.collection.albums().first)
        let track = try #require(try runtime.collection.tracks(albumID: album.id).first)

        let log = EventLog()
        let frontEnds = CratePlugins.frontEnds + [RecordingFrontEnd.registration(log)]   // the one line
        let daemon = Task { try await CrateDaemon(runtime: runtime, frontEnds: frontEnds).run(signals: []) }
        defer { daemon.cancel() }
        try await waitUntilAsync("the recording front end to start", seconds: 60) { log.context != nil }
        let board = try #require(log.context?.board)
        #expect(board.all.contains { $0.name == "recorder" && $0.running && $0.detail == "in this process" }, "\(board.all)")
        #expect(board.all.contains { $0.name == "mpd" && !$0.running && $0.detail == "off: mpd.address is off" }, "\(board.all)")

        // Through the HTTP front end, as the web page and the CLI do.
        let client = DaemonClient(address: "127.0.0.1:\(settings.httpPort)", token: nil)
        try await waitUntilAsync("the HTTP front end to answer", seconds: 60) {
            (try? await client.send("GET", "health", as: DaemonClient.Ignored.self)) != nil
        }
        _ = try await client.send("POST", "queue/play-album", API.PlayAlbum(albumID: album.id), as: PlayerStatus.self)
        _ = try await client.send("PUT", "favorites/track/\(track.id)", as: API.OpinionState.self)
        let playlist = try #require(try await client.send("POST", "playlists", API.PlaylistName(name: "Seam"), as: API.PlaylistDetail.self).playlist)
        _ = try await client.send("POST", "playlists/\(playlist.id)/tracks", API.PlaylistAdd(trackIDs: [track.id]), as: API.PlaylistDetail.self)

        let wanted: [(String, (CrateEvent) -> Bool)] = [
            ("the queue replaced", { $0 == .queue(.replaced) }),
            ("a track playing", { if case .player(.track(.playing, "A1", false)) = $0 { true } else { false } }),
            ("the favorite", { $0 == .library(.opinion(kind: .track, id: String(track.id), .favorite)) }),
            ("the playlist made", { $0 == .library(.playlist(id: playlist.id, .created)) }),
            ("the playlist edit", { $0 == .library(.playlist(id: playlist.id, .added(count: 1))) }),
        ]
        for (what, matches) in wanted {
            try await waitUntilAsync("the recorder to hear \(what)", seconds: 60) { log.events.contains(where: matches) }
        }
        // The stream's JSON is derived from the same events, with the text clients read today.
        // Cancelled, the daemon stops its front ends, then saves the player: nothing of it outlives the test.
        daemon.cancel()
        _ = try await withHangGuard("the daemon to stop", seconds: 60) { await daemon.result.map { true } }
        let message = EventMessage(.library(.playlist(id: playlist.id, .added(count: 1))))
        #expect(message.subsystem == "library" && message.change == "playlist" && message.detail == "playlist \(playlist.id) added 1")
    }
}
