public import CrateDomain
import CrateStorage
import Foundation

/// Streams in the queue: a URL played as it is, and saved stations. Each is a track (see `Station`), so the queue,
/// history and favorites treat it like any other.
extension PlayerService {
    /// Replaces the queue with the stream at `url` and plays it.
    public func playURL(_ text: String) throws {
        try playList([try streamTrack(text)])
    }

    /// Plays the stream at `url` and waits, at most `seconds`, for its first sound: the status then, or
    /// `PlayerError.streamFailed` with the reason (`HTTP 404`, not audio, a TLS error…) or `.streamTimedOut`.
    public func playURL(_ text: String, waitSeconds seconds: Double) async throws -> PlayerStatus {
        let trackID = try streamTrack(text)
        try playList([trackID])
        try await waitForSound(of: trackID, url: text, seconds: seconds)
        return try status()
    }

    /// Plays a saved station and waits for its first sound, as `playURL(_:waitSeconds:)`.
    public func playStation(_ id: Int64, waitSeconds seconds: Double) async throws -> PlayerStatus {
        guard let station = try store.station(id: id) else { throw StationError.notFound(String(id)) }
        try playList([station.trackID])
        try await waitForSound(of: station.trackID, url: station.url, seconds: seconds)
        return try status()
    }

    /// Waits until the item just started for `trackID` sounds or fails (bounded by `seconds`).
    private func waitForSound(of trackID: Int64, url: String, seconds: Double) async throws {
        guard let token = currentToken, current?.track.id == trackID, state == .playing else {
            // Refused before the engine had it (say, no source can open the URL): the skip says why.
            let reason = lastSkip?.trackID == trackID ? lastSkip?.reason : nil
            throw PlayerError.streamFailed(url: url, reason: reason ?? "it did not start")
        }
        let timeout = Task { [weak self] in
            try await Task.sleep(for: .seconds(seconds))
            await self?.soundWaitTimedOut(token)
        }
        defer { timeout.cancel() }
        let outcome = await withCheckedContinuation { soundWaiters[token] = $0 }
        switch outcome {
        case .started: return
        case .failed(let reason): throw PlayerError.streamFailed(url: url, reason: reason)
        case .timedOut: throw PlayerError.streamTimedOut(url: url, seconds: seconds)
        }
    }

    private func soundWaitTimedOut(_ token: UInt64) {
        soundWaiters.removeValue(forKey: token)?.resume(returning: .timedOut)
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

/// How waiting for a stream's first sound ended.
enum SoundOutcome: Sendable {
    case started, failed(String), timedOut
}
