import CrateCore
import CrateDomain
import NIOCore
import Synchronization

/// The daemon's events as MPD's idle subsystems, worked out once per event and handed to every connection's
/// `MPDIdle`, which answers a waiting client there and then. One subscription for the front end also keeps the
/// playlist version and the database snapshot current before any client hears of the change.
final class MPDIdleHub: Sendable {
    private struct Idles {
        var next: UInt64 = 0
        var all: [UInt64: MPDIdle] = [:]
    }

    private let idles = Mutex(Idles())

    /// Hands the changes to `idle` until `remove` is called with the answer.
    func add(_ idle: MPDIdle) -> UInt64 {
        idles.withLock { s in
            s.next += 1
            s.all[s.next] = idle
            return s.next
        }
    }

    func remove(_ id: UInt64) {
        _ = idles.withLock { $0.all.removeValue(forKey: id) }
    }

    /// Runs until the task is cancelled: `before` sees each event first (versions, caches), then every connection
    /// gets its subsystems.
    func run(_ events: EventBus, before: (CrateEvent, [String]) -> Void) async {
        for await event in events.subscribe() {
            let subsystems = MPDSession.subsystems(of: event)
            before(event, subsystems)
            guard !subsystems.isEmpty else { continue }
            let all = idles.withLock { Array($0.all.values) }
            var answers: [Set<String>: ByteBuffer] = [:]
            for idle in all { idle.changed(subsystems, answers: &answers) }
        }
    }
}
