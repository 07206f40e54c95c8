import CrateDomain
import Logging
import ServiceLifecycle
public import UnixSignals

/// The daemon over a runtime: the player, the library jobs and the feeds started, each listed front end started, and
/// all of it run in one `ServiceGroup` until SIGTERM or SIGINT (or until the calling task is cancelled).
///
/// Shutdown is ordered: the front ends stop accepting first (the last listed first), then the daemon's own work
/// ends and the player saves its queue pointer, position, modes and volume for the next start.
public struct CrateDaemon: Sendable {
    public let runtime: CrateRuntime
    public let frontEnds: [FrontEndRegistration]

    public init(runtime: CrateRuntime, frontEnds: [FrontEndRegistration]) {
        self.runtime = runtime
        self.frontEnds = frontEnds
    }

    public func run(signals: [UnixSignal] = [.sigterm, .sigint]) async throws {
        let logger = runtime.logger
        let player: PlayerService
        do { player = try await PlayerService.start(runtime: runtime) } catch { throw DaemonError.playerFailed(ErrorText.describe(error)) }
        // Launch-time library work (import folder, rescan roots, missing files, artwork repair) runs in the
        // background: the front ends answer and music plays meanwhile.
        let jobs = LibraryJobs(library: runtime.library, events: runtime.events)
        do { try jobs.launch() } catch { logger.warning("library: \(ErrorText.describe(error))") }
        let feeds = runtime.feeds()
        // The wall is composed before any front end serves: a client's first page finds it (or waits for it) rather
        // than hearing a late `wall` event redraw what it shows.
        let library = runtime.library
        let coverSize = runtime.settings.thumbnailSize
        let wall = Task { [feeds, logger, library] in
            // Likes and dislikes kept while the catalog could not take them go first.
            await feeds.sendUnsent()
            let wall = await feeds.regenerateWall(reason: "start-up")
            logger.info("feeds: wall of \(wall.entries.count) albums on \(wall.dial)\(wall.failures.isEmpty ? "" : ", \(wall.failures.count) signals failed (see `crate feed diagnose`)")")
            // Its covers at the page's size (artwork.thumbnail_size), made now (after a restart or an import they are
            // not yet).
            var made = 0
            for hash in await feeds.wallArtworkHashes() where !Task.isCancelled {
                made += library.makeThumbnails([hash], size: coverSize)
            }
            if made > 0 { logger.debug("feeds: \(made) wall thumbnails made") }
        }
        let board = FrontEndBoard()
        // First in the list, so last to stop: it saves the player once every front end has stopped.
        var services = [ServiceGroupConfiguration.ServiceConfiguration(
            service: DaemonWork(runtime: runtime, player: player, wall: wall))]
        for registration in frontEnds {
            let context = FrontEndContext(name: registration.name, runtime: runtime, player: player, jobs: jobs, feeds: feeds,
                                          settings: runtime.settings.plugin(registration.settings.block), board: board,
                                          logger: logger)
            do {
                switch try await registration.start(context) {
                case .serving(let service, let place):
                    logger.info("\(registration.name): serving \(place)")
                    board.set(registration.name, running: true, place)
                    services.append(.init(service: service, successTerminationBehavior: .ignore,
                                          failureTerminationBehavior: registration.essential ? .gracefullyShutdownGroup : .ignore))
                case .off(let why):
                    logger.notice("\(registration.name): front end off: \(why)")
                    board.set(registration.name, running: false, "off: \(why)")
                }
            } catch {
                logger.warning("\(registration.name): front end off: \(ErrorText.describe(error))")
                board.set(registration.name, running: false, "off: \(ErrorText.describe(error))")
                if registration.essential { throw error }
            }
        }
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: services, gracefulShutdownSignals: signals,
                                                                           logger: logger))
        try await group.run()
    }
}

/// Why the daemon could not start.
public enum DaemonError: Error, CustomStringConvertible {
    case playerFailed(String)

    public var description: String {
        switch self {
        case .playerFailed(let why): "the player cannot start: \(why)"
        }
    }
}

/// The daemon's own work beside the front ends: writes by other processes watched, and at shutdown the start-up wall
/// left and the player's state saved.
private struct DaemonWork: Service {
    let runtime: CrateRuntime
    let player: PlayerService
    let wall: Task<Void, Never>

    func run() async throws {
        // Writes by other processes become `library` events.
        let watcher = Task { await runtime.externalChanges.watch() }
        try? await gracefulShutdown()
        watcher.cancel()
        wall.cancel()
        await player.shutdown()
    }
}
