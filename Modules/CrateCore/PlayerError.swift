/// Why a player command cannot be done; the HTTP API maps these to 4xx answers.
public enum PlayerError: Error, Sendable, Equatable, CustomStringConvertible {
    case emptyQueue
    case noSuchEntry(index: Int, count: Int)
    case noSuchTrack(Int64)
    case noSuchAlbum(Int64)
    case nothingPlaying
    case invalidValue(String)
    case noSuchHistoryEntry(index: Int, count: Int)
    /// A queue entry id that is not (or no longer) in the queue.
    case noSuchEntryID(Int64)
    /// A stream that could not be played: the server's answer, not audio, no decoder…
    case streamFailed(url: String, reason: String)
    /// A stream that made no sound in time (it may still come).
    case streamTimedOut(url: String, seconds: Double)
    /// An output name the player does not have.
    case noSuchOutput(name: String, known: [String])

    public var description: String {
        switch self {
        case .emptyQueue: "the queue is empty"
        case let .noSuchEntry(index, count): "no queue entry \(index) (the queue has \(count))"
        case let .noSuchTrack(id): "no track with id \(id)"
        case let .noSuchAlbum(id): "no album with id \(id)"
        case .nothingPlaying: "nothing is playing"
        case let .invalidValue(text): text
        case let .noSuchHistoryEntry(index, count): "no history entry \(index) (history has \(count))"
        case let .noSuchEntryID(id): "no queue entry with id \(id)"
        case let .streamFailed(url, reason): reason.contains(url) ? "cannot play it: \(reason)" : "cannot play \(url): \(reason)"
        case let .streamTimedOut(url, seconds): "\(url) made no sound within \(Int(seconds)) s (it may still start: crate status tells)"
        case let .noSuchOutput(name, known):
            "no output named '\(name)'; the outputs are \(known.joined(separator: ", ")) (output.plugin in the config)"
        }
    }

    /// Not found vs. bad request, for the HTTP status.
    public var isNotFound: Bool {
        switch self {
        case .noSuchEntry, .noSuchTrack, .noSuchAlbum, .noSuchHistoryEntry, .noSuchEntryID, .noSuchOutput: true
        default: false
        }
    }
}
