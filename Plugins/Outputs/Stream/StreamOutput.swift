public import CrateDomain
import Foundation

/// What the player plays, as Ogg Opus (libopus) for browsers, phones and players on the network — MPD's httpd
/// output. crated serves it at `/stream.opus` behind the same door as its API (the token or the web page's sign-in off
/// loopback). One encoder, many listeners; each track a chained Ogg stream whose tags name it; silence while paused;
/// a listener that falls behind is let go, never waited for.
public struct StreamOutputPlugin: BroadcastOutput {
    public static let path = "/stream.opus"
    public let name = "stream"
    public let broadcast: Broadcast
    let station: StreamStation
    /// A setting that could not be read: the output is unavailable, saying why.
    public let problem: String?

    /// `bitRate` in kbit/s.
    public init(bitRate: Int = 128, maxListeners: Int = 100, problem: String? = nil) {
        // Two seconds of the stream: a listener further behind than its (small) socket buffers and this is let go.
        broadcast = Broadcast(path: Self.path, contentType: "audio/ogg", lagLimit: max(24 * 1024, bitRate * 1000 / 8 * 2),
                              maxListeners: maxListeners)
        station = StreamStation(broadcast: broadcast, bitRate: bitRate)
        self.problem = problem
    }

    public func checkStatus() -> PluginStatus {
        if let problem { return .unavailable(reason: problem) }
        return .available
    }

    public func makeOutput() throws -> any AudioOutput {
        if let problem { throw OutputError(output: name, reason: problem) }
        return StreamAudioOutput(station: station)
    }
}

/// The player's side of the station: takes each write as it comes (it keeps no time of its own; a sound card or the
/// player's clock paces it).
final class StreamAudioOutput: AudioOutput {
    let station: StreamStation

    init(station: StreamStation) { self.station = station }

    var destination: String { "stream at \(StreamOutputPlugin.path) (Ogg Opus, \(station.bitRate) kbit/s)" }
    var keepsTime: Bool { false }

    func open(_ format: PCMFormat) throws { try station.open(format) }
    func write(_ samples: UnsafeBufferPointer<Float>) throws { try station.write(samples) }
    func drain() throws {}
    func close() {}
    /// Nothing is held back to drop: pages go out as they are made.
    func flush() -> Bool { true }
    func nowPlaying(_ tags: NowPlayingTags) { station.nowPlaying(tags) }
}
