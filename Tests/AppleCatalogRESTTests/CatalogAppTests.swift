import CrateDomain
import CrateTestSupport
import Foundation
import Testing

/// The real `crate` and `crated` binaries against the fake Apple on loopback: only the base URL and the
/// credentials come from the environment, as a user would set them.
@Suite(.serialized, .promptly) struct CatalogAppTests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The executables sit beside the test bundle in the build folder.
    static func binary(_ name: String) -> String {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for dir in [here, here.deletingLastPathComponent()] where FileManager.default.isExecutableFile(atPath: dir.appendingPathComponent(name).path) {
            return dir.appendingPathComponent(name).path
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/\(name)").path
    }

    /// A private home and data folder, and the catalog settings as environment variables.
    static func environment(_ home: URL, server: FakeAppleMusic?, keys: TestKeys?) -> [String: String] {
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("CRATE_") }
        env["HOME"] = home.path
        env["XDG_CONFIG_HOME"] = home.appendingPathComponent("config").path
        env["CRATE_DATA_DIRECTORY"] = home.appendingPathComponent("data").path
        env["CRATE_OUTPUT_PLUGIN"] = "null"
        env["CRATE_OUTPUTS_NULL_RENDER"] = "true"
        if let server, let keys {
            env["CRATE_SOURCES_APPLECATALOG_TEAM_ID"] = TestKeys.teamID
            env["CRATE_SOURCES_APPLECATALOG_KEY_ID"] = TestKeys.keyID
            env["CRATE_SOURCES_APPLECATALOG_KEY_PATH"] = keys.keyPath
            env["CRATE_SOURCES_APPLECATALOG_USER_TOKEN"] = FakeAppleMusic.goodUserToken
            env["CRATE_SOURCES_APPLECATALOG_BASE_URL"] = server.baseURL.absoluteString
        }
        return env
    }

    /// Runs blocking work (a child process, curl) on a thread of its own. Why not a detached task: it
    /// would still hold one of the cooperative pool's few threads (two on a 2-core machine), and the fake
    /// server in this process needs them to answer the very child being waited for; with two suites
    /// waiting at once, every catalog test in the process stalled into its timeout.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            WorkerThread.start(name: "test-off-pool") { continuation.resume(with: Result { try body() }) }
        }
    }

    /// `curl ARGS` off the cooperative pool.
    static func curl(_ arguments: [String]) async throws -> String {
        try await offPool { try Fixture.run("curl", arguments) }
    }

    /// Starts `crated` on a free port (set in `env`, so `crate` finds it too) and waits until it answers.
    static func startDaemon(_ env: inout [String: String], log: URL) async throws -> (ChildProcess, base: String) {
        let port = try Fixture.freePort()
        env["CRATE_HTTP_ADDRESS"] = "127.0.0.1:\(port)"
        let daemon = try ChildProcess([binary("crated")], environment: env, output: log)
        let base = "http://127.0.0.1:\(port)/api/v1/"
        for _ in 0..<200 {
            if (try? await curl(["-sf", base + "health"])) != nil { return (daemon, base) }
            try await Task.sleep(for: .milliseconds(50))
        }
        daemon.stop(signal: SIGKILL)
        throw Fixture.ToolError(description: "crated did not answer on \(base) within 10 s; see \(log.path)")
    }

    /// Runs `crate ARGS` off the cooperative pool (the fake server shares this process).
    static func crate(_ arguments: [String], env: [String: String]) async throws -> Run {
        try await offPool {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary("crate"))
            process.arguments = arguments
            process.environment = env
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Run(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
        }
    }

    /// Issue 16, item 16: liking a catalog album without catalog credentials keeps the like (it failed) and says it
    /// will be sent; once credentials exist, the next like sends it too, with the album's details fetched then.
    @Test func aLikeWithoutCredentialsIsKeptAndSentLater() async throws {
        let home = try Fixture.temporaryDirectory("crate-catalog-offline")
        defer { try? FileManager.default.removeItem(at: home) }
        let offline = try await Self.crate(["like", "applemusic:\(FakeAppleMusicRoutes.detailedAlbumID)", "--json"],
                                           env: Self.environment(home, server: nil, keys: nil))
        #expect(offline.status == 0, "\(offline.stdout)\(offline.stderr)")
        #expect(offline.stdout.contains("\"opinion\" : \"favorite\"") && offline.stdout.contains("it will be sent to Apple Music"),
                "\(offline.stdout)")

        let keys = try TestKeys()
        defer { keys.remove() }
        let server = try await FakeAppleMusic.start(keys: keys)
        defer { Task { await server.stop() } }
        let online = try await Self.crate(["like", "applemusic:\(FakeAppleMusicRoutes.yearOnlyAlbumID)"],
                                          env: Self.environment(home, server: server, keys: keys))
        #expect(online.status == 0, "\(online.stdout)\(online.stderr)")
        // The kept like went too: its rating, library add and favorite.
        let rating = await server.log.requests(to: "/v1/me/ratings/albums/\(FakeAppleMusicRoutes.detailedAlbumID)")
        #expect(rating.map(\.method).contains("PUT"), "\(online.stderr)")
        #expect(online.stderr.contains("sent the favorite of"), "\(online.stderr)")
        // Nothing is left to send: a third like sends only its own album.
        let before = await server.log.requests(to: "/v1/me/ratings/albums/\(FakeAppleMusicRoutes.detailedAlbumID)").count
        _ = try await Self.crate(["like", "applemusic:\(FakeAppleMusicRoutes.yearOnlyAlbumID)"], env: Self.environment(home, server: server, keys: keys))
        #expect(await server.log.requests(to: "/v1/me/ratings/albums/\(FakeAppleMusicRoutes.detailedAlbumID)").count == before)
    }

    @Test func everyCatalogCommandWorksAgainstTheLoopbackServer() async throws {
        let keys = try TestKeys()
        defer { keys.remove() }
        let server = try await FakeAppleMusic.start(keys: keys)
        let home = try Fixture.temporaryDirectory("crate-catalog-app")
        let env = Self.environment(home, server: server, keys: keys)
        func crate(_ args: String...) async throws -> Run { try await Self.crate(args, env: env) }

        let auth = try await crate("catalog", "auth")
        #expect(auth.status == 0, "\(auth.stdout)\(auth.stderr)")
        #expect(try await crate("plugins").stdout.contains("applecatalog available"))
        #expect(try await crate("catalog", "genres", "--live").stdout.contains("Rock"))
        let charts = try await crate("catalog", "charts", "--genre", "rock", "--limit", "3")
        #expect(charts.stdout.split(separator: "\n").count == 3 && charts.stdout.contains("Chart 21 #1"), "\(charts.stdout)\(charts.stderr)")
        let browse = try await crate("catalog", "browse", "rock", "--json")
        #expect(browse.status == 0 && browse.stdout.contains("\"hasMore\" : true"), "\(browse.stderr)")
        let subs = try await crate("catalog", "browse", "rock", "indie rock", "punk")
        #expect(subs.status == 0 && subs.stdout.hasPrefix("Rock: Indie Rock + Punk"), "\(subs.stdout)\(subs.stderr)")
        let unknown = try await crate("catalog", "browse", "polka")
        #expect(unknown.status != 0 && unknown.stderr.contains("no genre 'polka'"))
        let search = try await crate("catalog", "search", "quartet")
        #expect(search.stdout.contains("Albums (") && search.stdout.contains("Tracks ("), "\(search.stdout)\(search.stderr)")
        let external = try await crate("search", "--scope", "external", "quartet")
        #expect(external.status == 0 && external.stdout.contains("applemusic:"), "\(external.stdout)\(external.stderr)")
        let album = try await crate("catalog", "album", "1500000001")
        #expect(album.status == 0 && album.stdout.contains("(preview)"), "\(album.stdout)\(album.stderr)")
        for signal in ["recent", "heavy", "recommendations", "library"] {
            let me = try await crate("catalog", "me", signal, "--limit", "5")
            #expect(me.status == 0 && !me.stdout.isEmpty, "\(signal): \(me.stderr)")
        }
        #expect(try await crate("catalog", "rate", "1500000001", "love").stdout.contains("love"))
        #expect(try await crate("catalog", "rate", "1500000001", "clear").status == 0)
        #expect(try await crate("catalog", "library-add", "1500000001").stdout.contains("Added 1"))
        let report = try await crate("catalog", "taxonomy-report")
        #expect(report.status == 0 && report.stdout.contains("Storefront us"), "\(report.stderr)")
        // Secrets never show.
        let config = try await crate("config")
        #expect(!config.stdout.contains(FakeAppleMusic.goodUserToken) && config.stdout.contains("(set)"))
        #expect(await server.log.requests(to: "/v1/me/ratings/albums/1500000001").map(\.method).contains("PUT"))

        // The daemon serves the same under /api/v1/catalog.
        var daemonEnv = env
        let (daemon, base) = try await Self.startDaemon(&daemonEnv, log: home.appendingPathComponent("crated.log"))
        defer { daemon.stop(signal: SIGKILL) }
        #expect(try await Self.curl(["-s", base + "catalog/charts?genre=jazz&limit=2"]).contains("Chart 11 #2"))
        #expect(try await Self.curl(["-s", base + "catalog/browse/jazz?page=1"]).contains("\"albums\""))
        #expect(try await Self.curl(["-s", base + "catalog/albums/1500000001"]).contains("\"previewURL\""))
        #expect(try await Self.curl(["-s", "-X", "PUT", "-H", "Content-Type: application/json", "-d", #"{"value":"dislike"}"#,
                                         base + "catalog/ratings/1500000001"]).contains("\"ok\""))
        #expect(try await Self.curl(["-s", base + "search?q=quartet&scope=external"]).contains("\"catalog\""))
        daemon.send(SIGTERM)
        _ = daemon.waitForExit(seconds: 30)
        await server.stop()
    }

    @Test func withoutCredentialsTheCatalogSaysWhyAndTheRestWorks() async throws {
        let home = try Fixture.temporaryDirectory("crate-catalog-none")
        let env = Self.environment(home, server: nil, keys: nil)
        let charts = try await Self.crate(["catalog", "charts"], env: env)
        #expect(charts.status != 0 && charts.stderr.contains("not configured: set sources.applecatalog.team_id"), "\(charts.stderr)")
        #expect(!charts.stderr.contains("warning"), "an unconfigured catalog is no warning: \(charts.stderr)")
        let plugins = try await Self.crate(["plugins"], env: env)
        #expect(plugins.stdout.contains("applecatalog unavailable"))
        let auth = try await Self.crate(["catalog", "auth"], env: env)
        #expect(auth.status != 0 && auth.stdout.contains("not configured"))
        let albums = try await Self.crate(["albums"], env: env)
        #expect(albums.status == 0 && albums.stdout.contains("The library is empty"))
        // A key readable by others is refused with the fix.
        let keys = try TestKeys()
        defer { keys.remove() }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keys.keyPath)
        var open = env
        open["CRATE_SOURCES_APPLECATALOG_TEAM_ID"] = TestKeys.teamID
        open["CRATE_SOURCES_APPLECATALOG_KEY_ID"] = TestKeys.keyID
        open["CRATE_SOURCES_APPLECATALOG_KEY_PATH"] = keys.keyPath
        let refused = try await Self.crate(["catalog", "auth"], env: open)
        #expect(refused.status != 0 && refused.stdout.contains("chmod 600"), "\(refused.stdout)\(refused.stderr)")
    }
}
