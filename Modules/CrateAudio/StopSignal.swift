import Synchronization

/// A flag another thread (a signal handler's queue, an HTTP request) raises to stop playback.
public final class StopSignal: Sendable {
    private let raised = Atomic<Bool>(false)

    public init() {}

    public func raise() { raised.store(true, ordering: .releasing) }
    public var isRaised: Bool { raised.load(ordering: .acquiring) }
}
