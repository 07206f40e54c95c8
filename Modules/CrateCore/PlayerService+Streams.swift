import CrateDomain
import CrateStorage
import Foundation

/// Streams in the queue: a URL played as it is, and saved stations. Each is a track (see `Station`), so the queue,
/// history and favorites treat it like any other.
extension PlayerService {
    /// Replaces the queue with the stream at `url` and plays it.
    public func playURL(_ text: String) throws {
        try playList([try streamTrack(text)])
    }

    /// The track that stands for the stream at `url` (made on first use), to queue it without playing.
    public func streamTrack(_ text: String) throws -> Int64 {
        let url = try Station.streamURL(text)
        return try store.streamTrack(url: url, title: try store.stations().first { $0.url == url.absoluteString }?.name ?? url.absoluteString)
    }

    public func playStation(_ id: Int64) throws {
        guard let station = try store.station(id: id) else { throw StationError.notFound(String(id)) }
        try playList([station.trackID])
    }
}
