public import CrateDomain
public import Logging

/// What a front end is given when it starts: the runtime and the daemon's services, its own settings block, and the
/// board where it says how it is doing.
public struct FrontEndContext: Sendable {
    public let name: String
    public let runtime: CrateRuntime
    public let player: PlayerService
    public let jobs: LibraryJobs
    public let feeds: FeedService
    /// Its own block (`mpd.*`), as the config file and the environment set it.
    public let settings: PluginSettings
    /// Every front end's state, for health; `report` sets this front end's.
    public let board: FrontEndBoard
    public let logger: Logger

    /// Where Core publishes what changed: front ends subscribe and derive what they need.
    public var events: EventBus { runtime.events }

    /// Sets this front end's line in health and `crate plugins` (for one that stops or recovers while serving).
    public func report(running: Bool, _ detail: String) { board.set(name, running: running, detail) }
}
