public import CrateDomain
import Synchronization

/// What each front end is doing, for `GET /api/v1/health` (and so `crate plugins`): set once each has started or
/// declined, and again when one stops.
public final class FrontEndBoard: Sendable {
    private let states = Mutex<[FrontEndStatus]>([])

    public init() {}

    public func set(_ name: String, running: Bool, _ detail: String) {
        states.withLock { list in
            if let i = list.firstIndex(where: { $0.name == name }) {
                list[i] = FrontEndStatus(name: name, running: running, detail: detail)
            } else {
                list.append(FrontEndStatus(name: name, running: running, detail: detail))
            }
        }
    }

    public var all: [FrontEndStatus] { states.withLock { $0 } }
}
