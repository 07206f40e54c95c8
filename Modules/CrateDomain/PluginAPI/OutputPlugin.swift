/// An output provider, chosen by name from config ("pulse", "wav", "null") or by `auto`.
public protocol OutputPlugin: Sendable {
    var name: String { get }
    /// Checks now whether the output can work here (a server answers, a folder is writable).
    func checkStatus() -> PluginStatus
    func makeOutput() throws -> any AudioOutput
    /// True for a sound card in this room (PulseAudio, ALSA): what "Listen here" may mute while a browser listens.
    var isDevice: Bool { get }
}

extension OutputPlugin {
    public var isDevice: Bool { false }
}

/// An output heard over the network: crated serves what it broadcasts to listeners (the stream output at
/// `/stream.opus`). Core finds these among the configured outputs and hands their broadcasts to the front ends.
public protocol BroadcastOutput: OutputPlugin {
    var broadcast: Broadcast { get }
}

/// What plays now, for outputs that tell their listeners (the stream output's Ogg tags).
public struct NowPlayingTags: Sendable, Hashable {
    public var title: String
    public var artist: String?
    public var album: String?

    public init(title: String, artist: String? = nil, album: String? = nil) {
        self.title = title
        self.artist = artist
        self.album = album
    }
}

/// A sink for PCM. Owned by one playback thread; `write` may block while the device catches up.
public protocol AudioOutput: AnyObject {
    /// Where the sound goes, for the user: "PulseAudio (default sink)", "/data/crate-output.wav".
    var destination: String { get }
    /// Opens (or reopens) for `format`. Called again when the stream format changes.
    func open(_ format: PCMFormat) throws
    /// Writes interleaved float samples in the opened format.
    func write(_ samples: UnsafeBufferPointer<Float>) throws
    /// Blocks until everything written has been played or stored.
    func drain() throws
    /// Releases the device; anything not drained is dropped.
    func close()
    /// Drops what the device still holds, so the next write is heard at once, and keeps the device open: a play,
    /// seek or stop then costs no reconnection. False when this output cannot (the default): the engine closes it
    /// and opens it again instead.
    func flush() -> Bool
    /// Whether `write` returns at the pace the sound is heard (a sound card; a WAV or null output at the sample clock).
    /// Several outputs at once take their pace from the first that does (`OutputGroup`).
    var keepsTime: Bool { get }
    /// A new track starts with the next write (not called again for a seek or resume within it).
    func nowPlaying(_ tags: NowPlayingTags)
}

extension AudioOutput {
    public func flush() -> Bool { false }
    public var keepsTime: Bool { true }
    public func nowPlaying(_ tags: NowPlayingTags) {}
}
