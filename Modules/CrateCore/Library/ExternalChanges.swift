import CrateDomain
import CrateStorage
import Foundation

/// Notices library writes made by another process (an older `crate`, sqlite3, a script) and says so on the event
/// bus, so clients re-read. Crate's own CLI writes go through the daemon while it runs; this covers the rest.
public struct ExternalChanges: Sendable {
    let store: LibraryStore
    let events: EventBus

    /// Checks `PRAGMA data_version` every `interval` until the task is cancelled.
    public func watch(every interval: Duration = .seconds(2)) async {
        var last = try? store.externalDataVersion()
        while !Task.isCancelled {
            do { try await Task.sleep(for: interval) } catch { return }
            guard let now = try? store.externalDataVersion() else { continue }
            if let last, now != last { events.publish(.library(.externalChange)) }
            last = now
        }
    }
}

extension CrateRuntime {
    public var externalChanges: ExternalChanges { ExternalChanges(store: store, events: events) }
}
