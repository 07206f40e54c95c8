import CrateDomain
import Foundation

/// Fans events out to every subscriber (the front ends, tests). A slow subscriber keeps
/// only its newest 256 events rather than holding everyone up.
public final class EventBus: @unchecked Sendable {
    private let lock = NSLock()
    private var subscribers: [UUID: AsyncStream<CrateEvent>.Continuation] = [:]

    public init() {}

    public func subscribe() -> AsyncStream<CrateEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: CrateEvent.self, bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        lock.withLock { subscribers[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.lock.withLock { self.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Core's services alone publish (front ends only subscribe): each after the write it tells of.
    func publish(_ event: CrateEvent) {
        let targets = lock.withLock { Array(subscribers.values) }
        for t in targets { t.yield(event) }
    }
}
