import CrateAPI
import CrateClient
import CrateCore
import CrateDomain
import CratePlugins
import CrateTestSupport
import Foundation
import Hummingbird
@testable import HTTPFrontEnd
import HTTPTestSupport
import Testing

/// The HTTP front end's routes and door in this process, served on 127.0.0.1 by a real Hummingbird server
/// (HTTPTestSupport), without a daemon. The daemon-level tests (CrateAppsTests, Tests/Browser) run crated for real.
@Suite(.promptly) struct HTTPRouterTests {
    @Test func routesAnswerBehindTheDoorAndEditsReachTheEventBus() async throws {
        let runtime = try oneAlbumRuntime("crate-http-router", tracks: 1, discSubtitle: "The Live Set") { settings in
            // The test server listens on a port of its own, not http.address's: the door lets 127.0.0.1 in on any port.
            settings.http.allowedHosts = ["127.0.0.1"]
        }
        let player = try await PlayerService.start(runtime: runtime)
        let board = FrontEndBoard()
        board.set("mpd", running: false, "off: mpd.address is off")
        let router = APIRouter.make(runtime: runtime, player: player, jobs: LibraryJobs(library: runtime.library, events: runtime.events),
                                    feeds: runtime.feeds(), web: WebAssets.load(), frontEnds: board)
        let events = runtime.events.subscribe()
        let json: HTTPFields = [.contentType: "application/json"]

        try await withLoopbackServer(router) { client in
            try await client.execute(uri: "/api/v1/health", method: .get) { response in
                #expect(response.status == .ok)
                let text = String(buffer: response.body)
                #expect(text.contains("\"frontEnds\"") && text.contains("mpd.address is off"), "\(text)")
            }
            // A track carries its disc's subtitle, for the album page's disc headings.
            let albumID = try #require(try runtime.collection.albums().first?.id)
            try await client.execute(uri: "/api/v1/albums/\(albumID)/tracks", method: .get) { response in
                #expect(response.status == .ok)
                let text = String(buffer: response.body)
                #expect(text.contains(#""discSubtitle":"The Live Set""#), "\(text)")
                let tracks = try DaemonClient.decoder.decode([Track].self, from: Data(text.utf8))
                #expect(tracks.map(\.discSubtitle) == ["The Live Set"])
            }
            // A state change from another site's page is refused before any route runs.
            try await client.execute(uri: "/api/v1/playlists", method: .post,
                                     headers: [.contentType: "application/json", .origin: "http://evil.example"],
                                     body: ByteBuffer(string: #"{"name":"Nope"}"#)) { response in
                #expect(response.status == .forbidden)
            }
            // A body that is not JSON is refused too.
            try await client.execute(uri: "/api/v1/playlists", method: .post, headers: [.contentType: "text/plain"],
                                     body: ByteBuffer(string: "name=Nope")) { response in
                #expect(response.status == .unsupportedMediaType)
            }
            // The request shape is CrateAPI's, decoded by the route; the answer is CrateAPI's too.
            let made = try await client.execute(uri: "/api/v1/playlists", method: .post, headers: json,
                                                body: ByteBuffer(string: String(decoding: try JSONEncoder().encode(API.PlaylistName(name: "Mine")), as: UTF8.self))) { response in
                #expect(response.status == .ok)
                return try DaemonClient.decoder.decode(API.PlaylistDetail.self, from: Data(String(buffer: response.body).utf8))
            }
            #expect(made.name == "Mine" && made.entries.isEmpty)
            let id = try #require(made.playlist?.id)
            // Core published the edit; the route built no event.
            let heard = try await withHangGuard("the playlist's created event", seconds: 30) {
                for await event in events where event == .library(.playlist(id: id, .created)) { return true }
                return false
            }
            #expect(heard)
        }
        #expect(try runtime.collection.playlists().map(\.name) == ["Mine"])
        await player.shutdown()
    }

    /// Query strings are read as forms write them: `+` is a space and `%2B` a plus (Python's urlencode, HTML forms and
    /// URLSearchParams send `q=a2+x`); a search for two words written so finds what `%20` finds.
    @Test func queryStringsAreReadAsFormsWriteThem() async throws {
        let query = FormQuery("q=a2+x&limit=3&sub=Indie+Rock&sub=R%26B&plus=1%2B1&empty=&flag")
        #expect(query.get("q") == "a2 x" && query.get("limit", as: Int.self) == 3 && query.getAll("sub") == ["Indie Rock", "R&B"])
        #expect(query.get("plus") == "1+1" && query.get("empty") == "" && query.get("flag") == "" && query.get("none") == nil)

        let runtime = try oneAlbumRuntime("crate-http-form", tracks: 2) { $0.http.allowedHosts = ["127.0.0.1"] }
        let player = try await PlayerService.start(runtime: runtime)
        let router = APIRouter.make(runtime: runtime, player: player, jobs: LibraryJobs(library: runtime.library, events: runtime.events),
                                    feeds: runtime.feeds(), web: WebAssets.load(), frontEnds: FrontEndBoard())
        try await withLoopbackServer(router) { client in
            for uri in ["/api/v1/search?q=a2+x&group=tracks", "/api/v1/search?q=a2%20x&group=tracks"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok)
                    let text = String(buffer: response.body)
                    #expect(text.contains(#""query":"a2 x""#) && text.contains(#""title":"A2""#) && !text.contains(#""title":"A1""#),
                            "\(uri): \(text)")
                }
            }
        }
        await player.shutdown()
    }
}
