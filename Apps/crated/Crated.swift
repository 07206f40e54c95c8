import ArgumentParser
import CrateCore
import CrateDomain
import CratePlugins
import Foundation
import Logging

/// crated's start-up: settings read and checked, the library's single-writer lock taken, the runtime opened; then
/// Core's daemon runs the front ends the composition root lists (CratePlugins.frontEnds) until SIGTERM or SIGINT.
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
        let frontEnds = CratePlugins.frontEnds
        let runtime: CrateRuntime
        let lock: LibraryLock
        do {
            var settings = try await SettingsLoader.load(configPath: config, plugins: CratePlugins.list)
            if let address = try httpAddress.map({ try SettingsLoader.parseAddress($0) }) { (settings.httpHost, settings.httpPort) = address }
            try settings.checkHTTPExposure()
            for frontEnd in frontEnds { try frontEnd.check(settings) }
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
        for p in runtime.sources.descriptors + runtime.outputs.descriptors {
            logger.info("plugin \(p.kind.rawValue) \(p.name): \(p.available ? "live" : "unavailable (\(p.reason ?? "unknown"))")")
        }
        // Decoders and encoders are named, not asked: asking loads their libraries (FFmpeg's four and their
        // dependencies, ~15 MiB of the daemon's memory), which only a file that needs them should pay for.
        // `crate plugins` and GET /api/v1/plugins ask.
        for name in runtime.decoders.plugins.map(\.name) { logger.info("plugin decoder \(name): registered (checked when a file needs it)") }
        for name in runtime.encoders.plugins.map(\.name) { logger.info("plugin encoder \(name): registered (checked when a transcode needs it)") }
        do {
            try await CrateDaemon(runtime: runtime, frontEnds: frontEnds).run()
        } catch let error as DaemonError {
            throw ValidationError(error.description)
        }
        withExtendedLifetime(lock) {}   // held until here: the library has no other writer while crated runs
        logger.info("crated stopped")
    }
}
