import CrateCore
import CrateDomain
import Synchronization

/// The daemon's events as MPD's idle subsystems, worked out once per event and handed to every connection's input.
/// Each connection used to hold an event subscription of its own and a task that turned every event into
/// subsystems: with 200 clients in `idle`, one change woke 200 tasks to do the same work before any answer was
/// written (Benchmarks/mpd.sh, issue 30). One subscription for the front end also keeps the playlist version and
/// the database snapshot current before any client hears of the change.
final class MPDIdleHub: Sendable {
    private struct Inputs {
        var next: UInt64 = 0
        var feeds: [UInt64: AsyncStream<MPDInput>.Continuation] = [:]
    }

    private let inputs = Mutex(Inputs())

    /// Hands the changes to `feed` until `remove` is called with the answer.
    func add(_ feed: AsyncStream<MPDInput>.Continuation) -> UInt64 {
        inputs.withLock { s in
            s.next += 1
            s.feeds[s.next] = feed
            return s.next
        }
    }

    func remove(_ id: UInt64) {
        _ = inputs.withLock { $0.feeds.removeValue(forKey: id) }
    }

    /// Runs until the task is cancelled: `before` sees each event first (versions, caches), then every connection
    /// gets its subsystems.
    func run(_ events: EventBus, before: (CrateEvent, [String]) -> Void) async {
        for await event in events.subscribe() {
            let subsystems = MPDSession.subsystems(of: event)
            before(event, subsystems)
            guard !subsystems.isEmpty else { continue }
            let feeds = inputs.withLock { Array($0.feeds.values) }
            for feed in feeds {
                for subsystem in subsystems { feed.yield(.changed(subsystem)) }
            }
        }
    }
}
