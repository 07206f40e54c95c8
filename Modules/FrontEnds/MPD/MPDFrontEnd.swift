public import CrateCore
import CrateDomain
import NIOCore
import ServiceLifecycle

/// The MPD protocol front end (Docs/MPD.md): mpc, ncmpcpp, MPDroid and the rest drive the same player and library as
/// the HTTP API. It reads the `mpd` block (`mpd.address`, `mpd.password`); when its port is taken (MPD itself may
/// run there) crated runs on without it and says why.
public enum MPDFrontEnd {
    public static let registration = FrontEndRegistration(
        name: "mpd", keys: MPDSettings.keys,
        check: { block in try MPDSettings(block).checkExposure() },
        start: start)

    static func start(_ context: FrontEndContext) async throws -> FrontEndStart {
        let settings = try MPDSettings(context.settings)
        guard settings.enabled else { return .off("mpd.address is off") }
        let server = MPDServer(settings: settings, commands: commands(context.runtime, context.player, context.jobs),
                               events: context.events, logger: context.logger,
                               maxConnections: context.runtime.settings.http.maxConnections)
        let listener: MPDServer.Listener
        do {
            listener = try await server.bind()
        } catch {
            return .off("cannot listen on \(settings.address) (\(ErrorText.describe(error)); is MPD running?)")
        }
        let service = ClosureService {
            await withGracefulShutdownHandler { await server.serve(listener) } onGracefulShutdown: { listener.channel.close(promise: nil) }
        }
        return .serving(service, where: "\(settings.address)\(settings.password != nil ? ", a password is required" : "")")
    }

    /// The commands every connection shares, over the daemon's services.
    static func commands(_ runtime: CrateRuntime, _ player: PlayerService, _ jobs: LibraryJobs) -> MPDCommands {
        MPDCommands(player: player, library: runtime.library, collection: runtime.collection, jobs: jobs,
                    decoders: runtime.decoders.plugins,
                    database: MPDDatabase(collection: runtime.collection, library: runtime.library),
                    updates: MPDUpdateCounter())
    }
}
