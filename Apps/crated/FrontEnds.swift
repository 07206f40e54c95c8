import CrateDomain
import Synchronization

/// What each front end is doing, for `GET /api/v1/health` (and so `crate plugins`): set once each has started or
/// declined.
final class FrontEnds: Sendable {
    private let states = Mutex<[FrontEndStatus]>([])

    func set(_ name: String, running: Bool, _ detail: String) {
        states.withLock { list in
            list.removeAll { $0.name == name }
            list.append(FrontEndStatus(name: name, running: running, detail: detail))
        }
    }

    var all: [FrontEndStatus] { states.withLock { $0 } }
}
