public import CrateDomain
import Foundation

/// One album on a feed, with the signal that chose it.
public struct WallEntry: Sendable, Hashable {
    public var album: Album
    public var signal: SignalID
    /// The implementation's `source` ("local", "catalog").
    public var source: String

    public init(album: Album, signal: SignalID, source: String) {
        self.album = album
        self.signal = signal
        self.source = source
    }

    /// The album's dedup key (`FeedKey.of`).
    public var key: String { FeedKey.of(album) }
}

/// How many albums one signal implementation put on the feed.
public struct SignalContribution: Sendable, Hashable {
    public var signal: SignalID
    public var source: String
    public var count: Int

    public init(signal: SignalID, source: String, count: Int) {
        self.signal = signal
        self.source = source
        self.count = count
    }
}

/// A signal implementation that threw, with its error's text.
public struct SignalFailure: Sendable, Hashable {
    public var signal: SignalID
    public var source: String
    public var message: String

    public init(signal: SignalID, source: String, message: String) {
        self.signal = signal
        self.source = source
        self.message = message
    }
}

/// A composed page of a feed: the interleaved albums and an account of where they came from.
public struct WallResult: Sendable, Hashable {
    /// The albums in display order.
    public var entries: [WallEntry]
    /// How many albums were asked for.
    public var requested: Int
    /// Implementations that put at least one album on the page, in `SignalID` order then source.
    public var contributions: [SignalContribution]
    /// Implementations that threw, in `SignalID` order then source.
    public var failures: [SignalFailure]

    /// How many signal implementations were asked.
    public var attemptedCount: Int

    public init(entries: [WallEntry], requested: Int, contributions: [SignalContribution], failures: [SignalFailure],
                attemptedCount: Int) {
        self.entries = entries
        self.requested = requested
        self.contributions = contributions
        self.failures = failures
        self.attemptedCount = attemptedCount
    }

    public var albums: [Album] { entries.map(\.album) }
    public var isFilled: Bool { entries.count >= requested }

    /// Albums per signal id, all sources together.
    public var countsBySignal: [SignalID: Int] {
        contributions.reduce(into: [:]) { $0[$1.signal, default: 0] += $1.count }
    }

    /// Why the page is short, when it is: what a front end shows instead of an empty wall.
    public var explanation: String? {
        guard !isFilled else { return nil }
        let failed = failures.map { "\($0.signal.title) (\($0.source)): \($0.message)" }.joined(separator: "; ")
        if entries.isEmpty, contributions.isEmpty, !failures.isEmpty, failures.count == attemptedCount {
            return "Every signal failed: \(failed)"
        }
        if attemptedCount == 0 {
            return "No signal to draw from (none given, or none has a weight on this dial)."
        }
        let ranOut = "The signals ran out of albums (\(entries.count) of \(requested))."
        return failures.isEmpty ? ranOut : "\(ranOut) Failed: \(failed)"
    }
}
