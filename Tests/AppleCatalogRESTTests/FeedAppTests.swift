import CrateTestSupport
import Foundation
import Testing

/// The Crate Wall, genre feeds and the like loop through the real `crate` and `crated`, on a catalog-only
/// install, a library-only one and both, with the fake Apple on loopback.
@Suite(.serialized, .promptly) struct FeedAppTests {
    typealias Run = CatalogAppTests.Run

    /// A small real library: six albums in three genres, imported by `crate import`.
    static func importLibrary(_ home: URL, env: [String: String]) async throws {
        let music = home.appendingPathComponent("music")
        for (n, genre) in ["Indie Rock", "Indie Rock", "Jazz", "Jazz", "Techno", "Punk"].enumerated() {
            let folder = music.appendingPathComponent("album\(n)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            _ = try Fixture.encode(.flac, to: folder.appendingPathComponent("01.flac"), frames: 4410,
                                   tags: ["title": "Song \(n)", "artist": "Local \(n / 2)", "album": "Local Album \(n)",
                                          "genre": genre, "date": "200\(n)", "track": "1"])
        }
        let imported = try await CatalogAppTests.crate(["import", music.path], env: env)
        #expect(imported.status == 0, "\(imported.stderr)")
    }

    static func sources(_ wall: Run) -> Set<String> {
        Set(wall.stdout.split(separator: "\n").compactMap { line in
            line.hasSuffix(", local") ? "local" : line.hasSuffix(", catalog") ? "catalog" : nil
        })
    }

    @Test func catalogOnlyLibraryOnlyAndBlendedWalls() async throws {
        let keys = try TestKeys()
        defer { keys.remove() }
        let server = try await FakeAppleMusic.start(keys: keys)
        let home = try Fixture.temporaryDirectory("crate-feeds-app")
        let env = CatalogAppTests.environment(home, server: server, keys: keys)
        func crate(_ args: String...) async throws -> Run { try await CatalogAppTests.crate(args, env: env) }

        // Catalog only: nothing imported yet.
        let catalogOnly = try await crate("wall")
        #expect(catalogOnly.status == 0, "\(catalogOnly.stderr)")
        #expect(Self.sources(catalogOnly) == ["catalog"], "\(catalogOnly.stdout)")
        #expect(catalogOnly.stdout.contains("applemusic:") && catalogOnly.stdout.contains("Crate Wall — Mixed Crate: 40 albums"),
                "\(catalogOnly.stdout)")
        let genre = try await crate("genre", "rock")
        #expect(genre.status == 0 && genre.stdout.hasPrefix("Rock — Mixed Crate"), "\(genre.stdout)\(genre.stderr)")
        #expect(Self.sources(genre) == ["catalog"])

        // Both: the library joins the same signals.
        try await Self.importLibrary(home, env: env)
        let blended = try await crate("wall", "--json")
        #expect(blended.status == 0, "\(blended.stderr)")
        let page = try JSONSerialization.jsonObject(with: Data(blended.stdout.utf8)) as? [String: Any]
        let entries = page?["entries"] as? [[String: Any]] ?? []
        #expect(Set(entries.compactMap { $0["source"] as? String }) == ["local", "catalog"])
        #expect(entries.allSatisfy { $0["signal"] is String && $0["title"] is String && $0["id"] is String })
        let signals = Set(entries.compactMap { $0["signal"] as? String })
        #expect(signals.count >= 4, "a varied wall draws on most signals: \(signals)")
        #expect(entries.contains { ($0["artworkURL"] as? String)?.contains("300x300") ?? false })   // catalog art at the size asked

        // A local genre feed works offline too: Jazz from the tags, catalog Jazz beside it.
        let jazz = try await crate("genre", "jazz")
        #expect(jazz.stdout.contains("Local Album 2") || jazz.stdout.contains("Local Album 3"), "\(jazz.stdout)")
        let unknown = try await crate("genre", "polka")
        #expect(unknown.status != 0 && unknown.stderr.contains("no genre 'polka'"))

        // The dial moves the wall.
        let mystery = try await crate("wall", "--dial", "mystery")
        #expect(mystery.stdout.hasPrefix("Crate Wall — Mystery Crate"), "\(mystery.stdout)\(mystery.stderr)")
        #expect(try await crate("dial").stdout.contains("▶ 4  mystery"))
        let badDial = try await crate("dial", "loud")
        #expect(badDial.status != 0 && badDial.stderr.contains("no dial position 'loud'"))
        let diagnose = try await crate("feed", "diagnose")
        #expect(diagnose.status == 0 && diagnose.stdout.contains("Recommendations") && diagnose.stdout.contains("catalog"),
                "\(diagnose.stdout)\(diagnose.stderr)")

        // Library only: the same install with the catalog switched off.
        var localEnv = env
        localEnv["CRATE_SOURCES_ENABLED"] = "localfiles"
        let localOnly = try await CatalogAppTests.crate(["wall"], env: localEnv)
        #expect(Self.sources(localOnly) == ["local"], "\(localOnly.stdout)\(localOnly.stderr)")
        await server.stop()
    }

    /// Issue 16, item 18: a wall that comes out empty (a catalog-only dial with no catalog) says why on the
    /// terminal and exits 1 (it printed "No signal…" and exited 0, the reason only in the log).
    @Test func anEmptyWallSaysWhyAndFails() async throws {
        let home = try Fixture.temporaryDirectory("crate-empty-wall")
        defer { try? FileManager.default.removeItem(at: home) }
        let env = CatalogAppTests.environment(home, server: nil, keys: nil)
        let wall = try await CatalogAppTests.crate(["wall", "--dial", "mystery"], env: env)
        #expect(wall.status == 1, "\(wall.stdout)\(wall.stderr)")
        #expect(wall.stdout.contains("The catalog is unavailable:") && wall.stdout.contains("sources.applecatalog"), "\(wall.stdout)")
    }

    @Test func theDaemonKeepsTheWallAndRunsTheLikeLoop() async throws {
        let keys = try TestKeys()
        defer { keys.remove() }
        // Writes wait until all three of a like have arrived (or 10 s): concurrent writes pass at once, sequential
        // ones would hold the first for the full wait, and `together` would stay false.
        let barrier = WriteBarrier()
        var options = FakeAppleMusic.Options()
        options.override = { seen in
            let write = seen.method != "GET" && seen.path.hasPrefix("/v1/me/")
            guard write else { return nil }
            if seen.path == "/v1/me/favorites", seen.rawQuery.contains(FailingAlbum.id) {
                return .error(403, code: "40300", title: "Forbidden", detail: "favorites are off for this account")
            }
            await barrier.arrive(seen.path)
            return nil
        }
        let server = try await FakeAppleMusic.start(keys: keys, options)
        let home = try Fixture.temporaryDirectory("crate-feeds-daemon")
        var env = CatalogAppTests.environment(home, server: server, keys: keys)
        try await Self.importLibrary(home, env: env)
        let log = home.appendingPathComponent("crated.log")
        let (daemon, base) = try await CatalogAppTests.startDaemon(&env, log: log)
        defer { daemon.stop(signal: SIGKILL) }
        func curl(_ method: String, _ path: String, _ body: String? = nil) async throws -> [String: Any] {
            var args = ["-s", "-X", method, base + path]
            if let body { args += ["-H", "Content-Type: application/json", "-d", body] }
            return (try JSONSerialization.jsonObject(with: Data(try await CatalogAppTests.curl(args).utf8)) as? [String: Any]) ?? [:]
        }
        func ids(_ page: [String: Any]) -> [String] { (page["entries"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String } }

        let wall = try await curl("GET", "wall?artwork=120")
        let first = ids(wall)
        #expect(first.count == 40, "\(wall)")
        #expect(ids(try await curl("GET", "wall")) == first)                         // kept for the daemon's lifetime
        let more = try await curl("POST", "wall/more")
        // That page's albums only, none repeated.
        #expect(!ids(more).isEmpty && ids(more).count == more["newest"] as? Int && Set(ids(more)).isDisjoint(with: first))
        // The CLI uses the daemon's wall: --more continues it.
        let cliMore = try await CatalogAppTests.crate(["wall", "--more"], env: env)
        #expect(cliMore.status == 0 && cliMore.stdout.contains("more (page 3)"), "\(cliMore.stdout)\(cliMore.stderr)")

        #expect(try await curl("GET", "dial")["dial"] as? String == "mixed")
        #expect(try await curl("PUT", "dial", #"{"dial":"my"}"#)["dial"] as? String == "my")
        #expect(try await curl("PUT", "dial", #"{"dial":"sideways"}"#)["error"] != nil)
        var regenerated = false
        for _ in 0..<100 where !regenerated {
            try await Task.sleep(for: .milliseconds(100))
            regenerated = try await curl("GET", "wall")["dial"] as? String == "my"
        }
        #expect(regenerated)
        let genre = try await curl("GET", "genres/rock?sub=Indie%20Rock")
        #expect(genre["genre"] as? String == "Rock" && !ids(genre).isEmpty, "\(genre)")

        // Like a catalog album from the wall: liked here at once, three writes to Apple together.
        let catalogID = try #require(ids(try await curl("GET", "wall")).first { $0.hasPrefix("applemusic:") })
        let liked = try await curl("PUT", "likes/\(catalogID)")
        let writes = liked["writes"] as? [[String: Any]] ?? []
        #expect(writes.compactMap { $0["name"] as? String } == ["add to library", "love rating", "add to favorites"], "\(liked)")
        #expect(writes.allSatisfy { $0["ok"] as? Bool == true }, "\(writes)")
        let arrived = await barrier.arrived
        #expect(await barrier.together, "the three writes did not arrive together: \(arrived)")
        let albumID = String(catalogID.dropFirst("applemusic:".count))
        #expect(await server.log.requests(to: "/v1/me/ratings/albums/\(albumID)").map(\.method) == ["PUT"])
        let favorites = try await CatalogAppTests.curl(["-s", base + "favorites"])
        #expect(favorites.contains(albumID))

        // Dislike replaces the like and sends the dislike rating; taking it back sends nothing.
        let disliked = try await curl("PUT", "dislikes/albums/\(catalogID)")
        #expect(disliked["opinion"] as? String == "dislike" && (disliked["writes"] as? [[String: Any]])?.count == 1)
        let lists = try await curl("GET", "favorites")
        func externalIDs(_ key: String) -> [String] { (lists[key] as? [[String: Any]] ?? []).compactMap { $0["externalID"] as? String } }
        #expect(!externalIDs("albums").contains(albumID) && externalIDs("dislikedAlbums") == [albumID], "\(lists)")
        _ = try await curl("DELETE", "dislikes/albums/\(catalogID)")
        #expect(await server.log.requests(to: "/v1/me/ratings/albums/\(albumID)").map(\.method) == ["PUT", "PUT"])
        for _ in 0..<3 { #expect(!ids(try await curl("POST", "wall/regenerate")).isEmpty) }

        // A failing write is reported and logged; the like stays.
        let failing = try await CatalogAppTests.crate(["like", "applemusic:\(FailingAlbum.id)"], env: env)
        #expect(failing.status == 0, "\(failing.stderr)")
        #expect(failing.stdout.contains("add to favorites: FAILED") && failing.stdout.contains("the like is kept here"), "\(failing.stdout)")
        let kept = try await CatalogAppTests.crate(["fav"], env: env)
        #expect(kept.stdout.contains("applemusic:\(FailingAlbum.id)"), "\(kept.stdout)")
        daemon.send(SIGTERM)
        _ = daemon.waitForExit(seconds: 30)
        let logged = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(logged.contains("add to favorites for") && logged.contains("failed"), "\(logged.suffix(2000))")
        #expect(!logged.contains(FakeAppleMusic.goodUserToken))
        await server.stop()
    }
}

/// A catalog album the fake knows (fact sheet example ids) whose favorites write is refused.
enum FailingAlbum {
    static let id = "1500000001"
}

/// Holds each write until three have arrived (at most 10 s), and says whether they all met.
actor WriteBarrier {
    private(set) var arrived: [String] = []
    private(set) var together = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func arrive(_ path: String) async {
        arrived.append(path)
        if waiting.count == 2 {
            together = true
            for w in waiting { w.resume() }
            waiting = []
            return
        }
        guard !together else { return }
        await withCheckedContinuation { continuation in
            waiting.append(continuation)
            Task { try? await Task.sleep(for: .seconds(10)); self.release() }
        }
    }

    private func release() {
        for w in waiting { w.resume() }
        waiting = []
    }
}
