import Synchronization

/// Caps the event-stream (SSE) clients served at once (`http.max_event_clients`): each holds a connection for as
/// long as it likes, so past the cap a new one gets 503 and the daemon keeps its connections for everything else.
final class EventClients: Sendable {
    let limit: Int
    private let count = Mutex(0)

    init(limit: Int) { self.limit = limit }

    var connected: Int { count.withLock { $0 } }

    /// A place for one client, or nil when all are taken. The place is given back when the slot is released,
    /// whether the stream ran to its end or was never started.
    func reserve() -> Slot? {
        let taken = count.withLock { n -> Bool in
            guard n < limit else { return false }
            n += 1
            return true
        }
        return taken ? Slot(self) : nil
    }

    fileprivate func release() { count.withLock { $0 -= 1 } }

    final class Slot: Sendable {
        private let owner: EventClients
        fileprivate init(_ owner: EventClients) { self.owner = owner }
        deinit { owner.release() }
    }
}
