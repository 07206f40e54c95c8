import CrateDomain
import Foundation

/// One entry to play: what to show and where to read it.
public struct PlaybackItem: Sendable, Hashable {
    public var title: String
    public var artist: String
    public var url: URL
    public var trackNumber: Int?

    public init(title: String, artist: String, url: URL, trackNumber: Int? = nil) {
        self.title = title
        self.artist = artist
        self.url = url
        self.trackNumber = trackNumber
    }
}

/// What a playback run reports as it goes.
public enum PlaybackEvent: Sendable {
    /// The output was (re)opened for a new stream format.
    case outputOpened(format: PCMFormat, destination: String)
    case trackStarted(index: Int, item: PlaybackItem, info: StreamInfo)
    /// A track that could not be opened or decoded; playback goes on with the next.
    case trackSkipped(index: Int, item: PlaybackItem, reason: String)
    case trackFinished(index: Int, item: PlaybackItem, frames: Int64)
}

public enum PlaybackOutcome: Sendable, Equatable {
    case finished
    case stopped
}
