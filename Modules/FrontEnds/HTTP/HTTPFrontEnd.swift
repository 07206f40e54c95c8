public import CrateCore
import CrateDomain
import Hummingbird
import Logging

/// The HTTP front end: the JSON API under /api/v1 with its event stream, and the web page (Docs/HTTP_API.md,
/// Docs/WEB.md), behind the door's rules (RequestGuard). Its settings are Core's `http.*`: the CLI reads the same
/// address and token to reach it. The daemon cannot do without it: when it cannot listen, crated stops.
public enum HTTPFrontEnd {
    public static let registration = FrontEndRegistration(name: "http", essential: true, start: start)

    static func start(_ context: FrontEndContext) async throws -> FrontEndStart {
        let runtime = context.runtime, settings = runtime.settings, http = settings.http, logger = context.logger
        if http.token != nil { logger.info("http: a token is required for every request") }
        let web = WebAssets.load()
        if let problem = web.problem {
            logger.warning("web page: \(problem)")
        } else {
            logger.info("web page: http://\(settings.httpHost):\(settings.httpPort)/")
        }
        let streamPaths = Set(context.player.broadcasts.map(\.path))
        let app = Application(
            router: APIRouter.make(runtime: runtime, player: context.player, jobs: context.jobs, feeds: context.feeds, web: web,
                                   frontEnds: context.board),
            // A connection without a complete request for idle_timeout seconds is closed (slow and idle clients).
            // Broadcast listeners get small socket buffers (ListenerSockets).
            server: .http1(configuration: .init(additionalChannelHandlers: [ListenerSockets(paths: streamPaths)],
                                                idleTimeout: .seconds(Int64(http.idleTimeoutSeconds)))),
            configuration: .init(address: .hostname(settings.httpHost, port: settings.httpPort),
                                 serverName: "crated",
                                 availableConnectionsDelegate: .maximum(http.maxConnections, logger: logger)),
            logger: logger)
        return .serving(EventLoopServing(base: app), where: "\(settings.httpHost):\(settings.httpPort)\(http.token != nil ? ", a token is required" : "")")
    }
}
