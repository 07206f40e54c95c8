public import CrateCore
import CrateDomain
import Hummingbird
import Logging
import ServiceLifecycle

/// The OpenSubsonic API (Docs/SUBSONIC.md) under /rest/ on a listener of its own: phone apps such as Symfonium,
/// DSub and Tempo browse, stream and star with an account of the household (`crate users`). It reads the `subsonic`
/// block (`subsonic.address`, `subsonic.max_connections`); when its port is taken crated runs on without it.
public enum SubsonicFrontEnd {
    public static let registration = FrontEndRegistration(
        name: "subsonic", keys: SubsonicSettings.keys,
        check: { block in _ = try SubsonicSettings(block) },
        start: start)

    static func start(_ context: FrontEndContext) async throws -> FrontEndStart {
        let settings = try SubsonicSettings(context.settings)
        guard settings.enabled else { return .off("subsonic.address is off") }
        let logger = context.logger
        // Served all the same (accounts can be added while crated runs), but nobody can sign in yet: say how.
        if (try? context.runtime.accounts.accounts().isEmpty) ?? true {
            logger.notice("subsonic: no accounts: add one with crate users add NAME --admin --password-stdin")
        }
        let app = Application(
            router: SubsonicAPI.router(runtime: context.runtime, jobs: context.jobs, player: context.player, logger: logger,
                                       settings: settings),
            // A connection idle for a minute is closed (apps open a new one when they come back).
            server: .http1(configuration: .init(idleTimeout: .seconds(60))),
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "crated",
                                 availableConnectionsDelegate: .maximum(settings.maxConnections, logger: logger)),
            logger: logger)
        // Listening starts when the service runs: a port already taken (Navidrome's own?) turns this front end off
        // and crated runs on.
        let service = ClosureService {
            do {
                try await app.run()
            } catch {
                let why = "cannot listen on \(settings.address) (\(ErrorText.describe(error)); is Navidrome running?)"
                logger.warning("subsonic: front end off: \(why)")
                context.report(running: false, "off: \(why)")
            }
        }
        return .serving(service, where: settings.address)
    }
}
