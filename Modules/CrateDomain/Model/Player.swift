public import Foundation

public enum PlaybackState: String, Sendable, Codable {
    case stopped, playing, paused
}

public enum RepeatMode: String, Sendable, Codable, CaseIterable {
    case off, all, one
}

/// Stopping when the playing track ends (MPD's `single` without repeat): never, after every track, or after this
/// one only (then the mode turns itself off, as MPD's `single oneshot`). Repeat one wins over it: the track repeats.
public enum StopAfterTrack: String, Sendable, Codable, CaseIterable {
    case off, always, once
}

/// Why a library entry cannot be played.
public enum MissingReason: String, Sendable, Codable, CaseIterable {
    case notFound = "not_found"
    case permission
    case invalidURI = "invalid_uri"
}

/// One entry of the play queue. The same track may appear many times.
public struct QueueEntry: Sendable, Hashable, Codable, Identifiable {
    public var id: Int64
    /// 1-based place in the queue.
    public var index: Int
    public var track: Track
    /// Queued by the album-play command: shuffle never reorders these.
    public var albumLock: Bool
    /// The playlist it was queued from, when playback started from a playlist.
    public var playlistID: Int64?

    public init(id: Int64, index: Int, track: Track, albumLock: Bool, playlistID: Int64? = nil) {
        self.id = id
        self.index = index
        self.track = track
        self.albumLock = albumLock
        self.playlistID = playlistID
    }
}

public struct HistoryEntry: Sendable, Hashable, Codable {
    public var track: Track
    public var playedAt: Date

    public init(track: Track, playedAt: Date) {
        self.track = track
        self.playedAt = playedAt
    }
}

/// The modes and volume the player keeps across restarts.
public struct PlayerModes: Sendable, Hashable, Codable {
    public var repeatMode: RepeatMode = .off
    public var shuffle = false
    public var stopAfterAlbum = false
    public var stopAfterTrack: StopAfterTrack = .off
    /// The loudness mode chosen while running (MPD's `replay_gain_mode`); nil follows `player.replaygain`.
    public var loudness: LoudnessMode?
    /// 0–100, software gain.
    public var volume = 100

    public init() {}

    enum CodingKeys: String, CodingKey {
        case repeatMode = "repeat", shuffle, stopAfterAlbum, stopAfterTrack, loudness, volume
    }

    /// Modes saved before a mode existed read as that mode's default.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        repeatMode = try c.decodeIfPresent(RepeatMode.self, forKey: .repeatMode) ?? .off
        shuffle = try c.decodeIfPresent(Bool.self, forKey: .shuffle) ?? false
        stopAfterAlbum = try c.decodeIfPresent(Bool.self, forKey: .stopAfterAlbum) ?? false
        stopAfterTrack = try c.decodeIfPresent(StopAfterTrack.self, forKey: .stopAfterTrack) ?? .off
        loudness = try c.decodeIfPresent(LoudnessMode.self, forKey: .loudness)
        volume = try c.decodeIfPresent(Int.self, forKey: .volume) ?? 100
    }
}

/// What the daemon saves so a restart resumes where it was (paused).
public struct PlayerSnapshot: Sendable, Hashable, Codable {
    public var currentEntryID: Int64?
    public var elapsed: Double
    public var modes: PlayerModes

    public init(currentEntryID: Int64?, elapsed: Double, modes: PlayerModes) {
        self.currentEntryID = currentEntryID
        self.elapsed = elapsed
        self.modes = modes
    }
}

/// The player as clients see it.
public struct PlayerStatus: Sendable, Hashable, Codable {
    public var state: PlaybackState
    public var entry: QueueEntry?
    public var elapsed: Double
    public var duration: Double?
    /// The stream being played, e.g. flac 44100 Hz 16-bit 2 ch.
    public var format: StreamInfo?
    public var modes: PlayerModes
    public var queueLength: Int
    /// The last entry skipped because it could not be played, and why.
    public var lastSkip: SkipNotice?
    /// What an internet radio stream says is playing now (ICY `StreamTitle`); nil for files.
    public var streamTitle: String?
    /// The output cannot play (a sound server gone, a device missing); nil when it works.
    public var outputError: OutputErrorNotice?
    /// The loudness gain applied to the entry (`player.replaygain`): mode, gain, which gain and from where, whether
    /// it was lowered to prevent clipping; nil without an entry.
    public var loudness: LoudnessDecision?
    /// True while the entry is a catalog song's 30-second preview (see `CatalogPreview`); absent otherwise.
    public var preview: Bool?
    /// The catalog album (`applemusic:ID`) whose previews play; absent otherwise.
    public var catalogAlbumID: String?

    public init(state: PlaybackState, entry: QueueEntry?, elapsed: Double, duration: Double?, format: StreamInfo?,
                modes: PlayerModes, queueLength: Int, lastSkip: SkipNotice?, streamTitle: String? = nil,
                outputError: OutputErrorNotice? = nil, loudness: LoudnessDecision? = nil) {
        self.state = state
        self.entry = entry
        self.elapsed = elapsed
        self.duration = duration
        self.format = format
        self.modes = modes
        self.queueLength = queueLength
        self.lastSkip = lastSkip
        self.streamTitle = streamTitle
        self.outputError = outputError
        self.loudness = loudness
    }
}

/// Why the output cannot play: which output, what went wrong, since when, and when it is tried again. The player
/// keeps its place and resumes by itself once the output works again.
public struct OutputErrorNotice: Sendable, Hashable, Codable {
    /// The output plugin's name: `pulse`, `alsa`, `wav`.
    public var output: String
    public var reason: String
    /// The first failure of this outage (later failures keep it).
    public var since: Date
    /// The next automatic attempt; nil when none is planned.
    public var nextAttempt: Date?
    /// Playback resumes at its place when the output is back (it was playing when it failed).
    public var willResume: Bool

    public init(output: String, reason: String, since: Date, nextAttempt: Date? = nil, willResume: Bool = false) {
        self.output = output
        self.reason = reason
        self.since = since
        self.nextAttempt = nextAttempt
        self.willResume = willResume
    }
}

public struct SkipNotice: Sendable, Hashable, Codable {
    public var trackID: Int64
    public var title: String
    public var reason: String
    public var missing: MissingReason?

    public init(trackID: Int64, title: String, reason: String, missing: MissingReason?) {
        self.trackID = trackID
        self.title = title
        self.reason = reason
        self.missing = missing
    }
}

/// Where added tracks go in the queue: after the current entry, or at the end.
public enum QueueAddMode: String, Sendable, Codable {
    case next, end
}
