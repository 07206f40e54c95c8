import Foundation

/// Catalog answers (charts, search, genres, albums) kept in memory for the client's lifetime, so
/// browsing back and forth does not ask Apple again. Keyed by the full request URL plus whether a
/// user token was present. Entries age out after `lifetime`; the oldest go first past the budget.
struct ResponseCache: Sendable {
    let lifetime: Double
    let maxBytes: Int
    private var entries: [String: (data: Data, stored: ContinuousClock.Instant)] = [:]
    private var order: [String] = []
    private var bytes = 0

    init(lifetime: Double, maxBytes: Int = 32 << 20) {
        self.lifetime = lifetime
        self.maxBytes = maxBytes
    }

    var isEnabled: Bool { lifetime > 0 }

    static func key(url: String, withUserToken: Bool) -> String {
        (withUserToken ? "u " : "- ") + url
    }

    mutating func get(_ key: String, now: ContinuousClock.Instant = .now) -> Data? {
        guard let entry = entries[key] else { return nil }
        if now - entry.stored > .seconds(lifetime) {
            remove(key)
            return nil
        }
        return entry.data
    }

    mutating func put(_ key: String, _ data: Data, now: ContinuousClock.Instant = .now) {
        guard isEnabled, data.count <= maxBytes else { return }
        remove(key)
        entries[key] = (data, now)
        order.append(key)
        bytes += data.count
        while bytes > maxBytes, let oldest = order.first { remove(oldest) }
    }

    mutating func removeAll() {
        entries = [:]
        order = []
        bytes = 0
    }

    var count: Int { entries.count }

    private mutating func remove(_ key: String) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        bytes -= entry.data.count
        order.removeAll { $0 == key }
    }
}
