import CrateAudio
public import CrateDomain
import CrateStorage
import Foundation
import Logging

/// Loudness normalisation (`player.replaygain`): each item handed to the engine carries its gain, chosen here from
/// the library's values (a current scan, else the file's ReplayGain/R128 tags) by the mode:
/// - `off`: none; `track`: the track gain; `album`: the album gain (each falls back to the other when missing);
/// - `auto`: the album gain while the track plays as part of its album — queued by play-album (its entries carry
///   `albumLock`, which shuffle never reorders), or, with shuffle off, next to another track of its album in the
///   queue — and the track gain otherwise (a mixed queue, shuffle).
/// The pre-amp is added, and with clipping prevention the gain is lowered so the known peak stays at full scale.
/// A gain is fixed per item when it is handed over; the engine applies it exactly from the item's first sample.
extension PlayerService {
    /// The configured policy with the mode chosen while running (MPD's `replay_gain_mode`), when one was.
    public var loudnessPolicy: LoudnessPolicy {
        var policy = runtime.settings.loudness
        if let mode = modes.loudness { policy.mode = mode }
        return policy
    }

    /// Chooses the loudness mode while running (nil: back to `player.replaygain`); it applies from the next track
    /// handed to the engine, the current one keeping its gain.
    public func setLoudnessMode(_ mode: LoudnessMode?) throws {
        modes.loudness = mode
        try optionsChanged()
    }

    func loudnessDecision(for entry: QueueEntry) throws -> LoudnessDecision {
        let policy = loudnessPolicy
        guard policy.mode != .off, entry.track.ref.source == TrackRef.fileScheme else {
            return policy.decide(TrackLoudness(), inAlbumOrder: false)
        }
        let values = try store.loudness(trackID: entry.track.id)
        let inOrder = policy.mode == .auto ? try playsAsAlbum(entry) : false
        return policy.decide(values, inAlbumOrder: inOrder)
    }

    /// The decision, or no gain when the library cannot be read (said in the log): playback goes on either way.
    func loudnessDecisionOrNone(for entry: QueueEntry) -> LoudnessDecision {
        do {
            return try loudnessDecision(for: entry)
        } catch {
            logger.warning("loudness of \(entry.track.title): \(ErrorText.describe(error)); played without a gain")
            return loudnessPolicy.decide(TrackLoudness(), inAlbumOrder: false)
        }
    }

    /// Whether `entry` plays as part of its album (see above).
    func playsAsAlbum(_ entry: QueueEntry) throws -> Bool {
        if entry.albumLock { return true }
        guard !modes.shuffle else { return false }
        for direction in [-1, 1] {
            if let neighbour = try store.queueNeighbour(of: entry.id, direction: direction),
               neighbour.track.albumID == entry.track.albumID, neighbour.track.id != entry.track.id {
                return true
            }
        }
        return false
    }

    /// The gain of the item at the output, or what the current entry (`entry`, as read now) would get when nothing plays.
    func currentLoudness(entry: QueueEntry?) throws -> LoudnessDecision? {
        if let token = currentToken, let decision = applied[token] { return decision }
        return try entry.map(loudnessDecision(for:))
    }
}
