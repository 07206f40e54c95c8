public import CrateDomain
import Foundation

/// A change clients should know about, by subsystem (as MPD's idle names them):
/// `player`, `queue`, `mixer`, `options`, `library`.
public struct CrateEvent: Sendable, Codable, Hashable {
    public var subsystem: String
    /// A short human-readable detail ("skipped 03.flac: not_found").
    public var detail: String?
    /// On `player` events about the output: the trouble as status shows it (nil once it is over).
    public var outputError: OutputErrorNotice?
    /// On `player` events about a catalog song's preview (playing, finished, skipped): true (see `CatalogPreview`).
    public var preview: Bool?

    public init(_ subsystem: String, _ detail: String? = nil, outputError: OutputErrorNotice? = nil, preview: Bool? = nil) {
        self.subsystem = subsystem
        self.detail = detail
        self.outputError = outputError
        self.preview = preview
    }
}

/// Fans events out to every subscriber (the HTTP event stream, tests). A slow subscriber keeps
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

    public func publish(_ event: CrateEvent) {
        let targets = lock.withLock { Array(subscribers.values) }
        for t in targets { t.yield(event) }
    }
}
