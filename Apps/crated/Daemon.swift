import ArgumentParser
import CrateCore
import CrateDomain
import CratePlugins
import Foundation
import Hummingbird
import Logging

@main
struct Crated: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crated",
        abstract: "The Crate daemon: owns the library and the player; serves the web page and the HTTP API, MPD clients and MPRIS.",
        discussion: """
            Listens on 127.0.0.1:6610 (http.address) for the web page and the HTTP API, on 127.0.0.1:6600 (mpd.address) for \
            MPD clients, and owns org.mpris.MediaPlayer2.crate on the session bus when there is one. `crate plugins` shows \
            which of these serve and why not; `crate config` shows every setting. Run it as a systemd user service: \
            systemctl --user enable --now crated.
            """,
        version: CrateVersion.string)

    @Option(help: "Config file (default: $CRATE_CONFIG or ~/.config/crate/config.yaml).") var config: String?
    @Option(help: "Listen address HOST:PORT (overrides http.address).") var httpAddress: String?

    func run() async throws {
        let runtime: CrateRuntime
        let lock: LibraryLock
        do {
            var settings = try await SettingsLoader.load(configPath: config, plugins: CratePlugins.list)
            if let address = try httpAddress.map({ try SettingsLoader.parseAddress($0) }) { (settings.httpHost, settings.httpPort) = address }
            try settings.checkHTTPExposure()
            try settings.mpd.checkExposure()
            // The library's single writer, taken before the database is opened: a second crated stops here.
            do {
                lock = try LibraryLock.acquire(dataDirectory: settings.dataDirectory)
            } catch StoreError.heldByDaemon(_, let pid) {
                FileHandle.standardError.write(Data("crated: crated is already running\(pid.map { " (pid \($0))" } ?? "") on this library (\(settings.dataDirectory.path))\n".utf8))
                throw ExitCode(75)
            }
            runtime = try CrateRuntime.open(settings: settings, plugins: CratePlugins.list)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            // Config and database problems end start-up with one clear line and EX_CONFIG.
            FileHandle.standardError.write(Data("crated: \(ErrorText.describe(error))\n".utf8))
            throw ExitCode(78)
        }
        let logger = runtime.logger
        logger.info("crated \(CrateVersion.string): config \(runtime.settings.configFile?.path ?? "(none, defaults)"), data \(runtime.settings.dataDirectory.path)")
        for p in runtime.pluginDescriptors() {
            logger.info("plugin \(p.kind.rawValue) \(p.name): \(p.available ? "live" : "unavailable (\(p.reason ?? "unknown"))")")
        }
        let player: PlayerService
        do {
            player = try await PlayerService.start(runtime: runtime)
        } catch {
            throw ValidationError(ErrorText.describe(error))
        }
        // Launch-time library work (import folder, rescan roots, missing files, artwork repair) runs in the
        // background: the API answers and music plays meanwhile.
        let jobs = LibraryJobs(library: runtime.library, events: runtime.events)
        do { try jobs.launch() } catch { logger.warning("library: \(ErrorText.describe(error))") }
        // The wall is composed at start-up in the background and kept until a dial change or a regenerate.
        let feeds = runtime.feeds()
        // Writes by other processes become `library` events.
        let watcher = Task { await runtime.externalChanges.watch() }
        defer { watcher.cancel() }
        Task {
            // Likes and dislikes kept while the catalog could not take them go first.
            await feeds.sendUnsent()
            let wall = await feeds.regenerateWall(reason: "start-up")
            logger.info("feeds: wall of \(wall.entries.count) albums on \(wall.dial)\(wall.failures.isEmpty ? "" : ", \(wall.failures.count) signals failed (see `crate feed diagnose`)")")
        }
        let http = runtime.settings.http
        let frontEnds = FrontEnds()
        frontEnds.set("http", running: true, "\(runtime.settings.httpHost):\(runtime.settings.httpPort)\(http.token != nil ? ", a token is required" : "")")
        let mpd = await startMPD(runtime: runtime, player: player, jobs: jobs, frontEnds: frontEnds, logger: logger)
        defer { mpd?.cancel() }
        let mpris = startMPRIS(runtime: runtime, player: player, frontEnds: frontEnds, logger: logger)
        defer { mpris?.cancel() }
        if http.token != nil { logger.info("http: a token is required for every request") }
        let web = WebAssets.load()
        if let problem = web.problem {
            logger.warning("web page: \(problem)")
        } else {
            logger.info("web page: http://\(runtime.settings.httpHost):\(runtime.settings.httpPort)/")
        }
        let app = Application(
            router: APIRouter.make(runtime: runtime, player: player, jobs: jobs, feeds: feeds, web: web, frontEnds: frontEnds),
            // A connection without a complete request for idle_timeout seconds is closed (slow and idle clients).
            server: .http1(configuration: .init(idleTimeout: .seconds(Int64(http.idleTimeoutSeconds)))),
            configuration: .init(address: .hostname(runtime.settings.httpHost, port: runtime.settings.httpPort),
                                 serverName: "crated",
                                 availableConnectionsDelegate: .maximum(http.maxConnections, logger: logger)),
            logger: logger)
        try await app.runService()
        // The queue pointer, position, modes and volume are saved for the next start.
        await player.shutdown()
        withExtendedLifetime(lock) {}   // held until here: the library has no other writer while crated runs
        logger.info("crated stopped")
    }

    /// The MPRIS front end on the session bus, unless `mpris.enabled: false`; without a bus (a server, CI) it
    /// declines and says why.
    private func startMPRIS(runtime: CrateRuntime, player: PlayerService, frontEnds: FrontEnds, logger: Logger) -> Task<Void, Never>? {
        guard runtime.settings.mprisEnabled else {
            frontEnds.set("mpris", running: false, "off: mpris.enabled is false")
            return nil
        }
        let bus: SessionBus
        do {
            bus = try SessionBus.connect(name: MPRISServer.busName)
        } catch {
            logger.info("mpris: off: \(error)")
            frontEnds.set("mpris", running: false, "off: \(error)")
            return nil
        }
        let mimeTypes = Array(Set(runtime.decoders.plugins.flatMap(\.mimeTypes))).sorted()
        let server = MPRISServer(bus: bus, player: player, collection: runtime.collection, library: runtime.library,
                                 mimeTypes: mimeTypes, logger: logger)
        logger.info("mpris: \(MPRISServer.busName) on the session bus")
        frontEnds.set("mpris", running: true, "\(MPRISServer.busName) on the session bus")
        return Task {
            do { try await server.serve() } catch {
                logger.warning("mpris: stopped: \(ErrorText.describe(error))")
                frontEnds.set("mpris", running: false, "off: \(ErrorText.describe(error))")
            }
        }
    }

    /// The MPD protocol front end, unless `mpd.address: off`. When its port is taken (MPD itself may run there)
    /// crated runs on without it and says why.
    private func startMPD(runtime: CrateRuntime, player: PlayerService, jobs: LibraryJobs, frontEnds: FrontEnds, logger: Logger) async -> Task<Void, Never>? {
        let settings = runtime.settings.mpd
        guard settings.enabled else {
            logger.info("mpd: off (mpd.address: off)")
            frontEnds.set("mpd", running: false, "off: mpd.address is off")
            return nil
        }
        let server = MPDServer(settings: settings,
                               commands: MPDCommands(player: player, library: runtime.library, collection: runtime.collection,
                                                     jobs: jobs, decoders: runtime.decoders.plugins,
                                                     database: MPDDatabase(collection: runtime.collection, library: runtime.library),
                                                     playlistVersion: MPDPlaylistVersion(), updates: MPDUpdateCounter()),
                               events: player.events, logger: logger, maxConnections: runtime.settings.http.maxConnections)
        do {
            let listener = try await server.bind()
            logger.info("mpd: MPD clients can connect to \(settings.address)")
            frontEnds.set("mpd", running: true, "\(settings.address)\(settings.password != nil ? ", a password is required" : "")")
            return Task { await server.serve(listener) }
        } catch {
            let why = "cannot listen on \(settings.address) (\(ErrorText.describe(error)); is MPD running?)"
            logger.warning("mpd: the MPD front end is off: \(why)")
            frontEnds.set("mpd", running: false, "off: \(why)")
            return nil
        }
    }
}
