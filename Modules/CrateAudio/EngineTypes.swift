public import CrateDomain
public import Foundation

/// One thing for the engine to play. `token` is unique per hand-over, so events can be matched
/// even when the same track is queued twice.
public struct EngineItem: Sendable, Hashable {
    public var token: UInt64
    public var entryID: Int64
    public var trackID: Int64
    public var url: URL
    /// Where decoding starts (resume, seek).
    public var startFrame: Int64
    /// The item's own gain (loudness normalisation), linear: multiplied into the volume for every sample of this
    /// item and no other. It takes effect exactly at the item's first sample, without a ramp, so an album's
    /// gapless border stays sample-exact; only volume changes are ramped.
    public var gain: Float
    /// What the item is, for outputs that tell their listeners (the stream output's tags).
    public var tags: NowPlayingTags?

    public init(token: UInt64, entryID: Int64, trackID: Int64, url: URL, startFrame: Int64 = 0, gain: Float = 1,
                tags: NowPlayingTags? = nil) {
        self.token = token
        self.tags = tags
        self.entryID = entryID
        self.trackID = trackID
        self.url = url
        self.startFrame = startFrame
        self.gain = gain
    }
}

/// What the engine reports, in order, through `PlaybackEngine.events`.
public enum EngineEvent: Sendable {
    /// The decoder moved on to `item` (gapless pre-decoding): the controller should say what follows it.
    case decoding(EngineItem)
    /// Sound of `item` reached the output: its start, or the place a play, resume or seek began at.
    case started(EngineItem, StreamInfo)
    /// The last sample of `item` was written: it played to the end.
    case finished(EngineItem)
    /// `item` could not be opened or decoded; the engine went on with the next one.
    case failed(EngineItem, reason: String)
    /// Nothing is left to play; the output was drained and closed.
    case idle
    /// The output failed; playback stopped. `item` and `frame`: what was at the output and how far it had got, so
    /// playback can resume there when the output is back.
    case outputFailed(String, item: EngineItem?, frame: Int64)
    /// A stream's in-band metadata changed (an internet radio's title).
    case streamMetadata(EngineItem, StreamMetadata)
}

/// A decoded piece of one item on its way to the output.
struct Chunk {
    var item: EngineItem
    var info: StreamInfo
    var samples: [Float]
    /// Frame offset of the chunk's first frame within its item.
    var startFrame: Int64
    var isFirst: Bool
    /// An end marker: `item` ended here (`failed` when decoding broke off).
    var isLast: Bool
    var failed = false
    /// The output generation it was decoded for; chunks of an older one are stale.
    var generation: UInt64

    var frames: Int { info.channels > 0 ? samples.count / info.channels : 0 }
    var endFrame: Int64 { startFrame + Int64(frames) }
}
