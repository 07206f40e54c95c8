public import CrateDomain
import Foundation
import CrateStorage
import CrateAudio

/// The queue rules:
/// - selecting a track in a list queues it and every following track of that list, replacing the queue;
/// - "play next" inserts after the current entry, "add to end" appends; duplicates are allowed;
/// - playing from history replaces only the current track;
/// - play-album replaces the queue with the album in order and turns shuffle off.
extension PlayerService {
    public typealias AddMode = QueueAddMode

    public func queue(offset: Int = 0, limit: Int = 1000) throws -> [QueueEntry] {
        try store.queue(offset: max(0, offset), limit: max(0, limit))
    }

    /// The queued entry `id` (with its place), or nil when it is no longer queued.
    public func entry(id: Int64) throws -> QueueEntry? {
        try store.queueEntry(id: id)
    }

    /// Starts `trackIDs[index...]` as the new queue (selecting a track inside an album, playlist or list).
    public func playList(_ trackIDs: [Int64], from index: Int = 0, albumLock: Bool = false, playlistID: Int64? = nil) throws {
        guard trackIDs.indices.contains(index) else {
            throw PlayerError.invalidValue("start index \(index + 1) is outside the list of \(trackIDs.count) tracks")
        }
        try checkTracks(trackIDs)
        engine.stop()
        try store.replaceQueue(with: Array(trackIDs[index...]), albumLock: albumLock, playlistID: playlistID)
        publish(.queue(.replaced))
        guard let first = try store.queueEntry(at: 1) else { throw PlayerError.emptyQueue }
        try start(first, at: 0)
    }

    /// Plays an album in album order from track `from` (1-based); shuffle goes off.
    public func playAlbum(_ albumID: Int64, from: Int = 1) throws {
        let tracks = try store.tracks(albumID: albumID)
        guard !tracks.isEmpty else { throw PlayerError.noSuchAlbum(albumID) }
        guard (1...tracks.count).contains(from) else {
            throw PlayerError.invalidValue("the album has \(tracks.count) tracks; from must be 1–\(tracks.count)")
        }
        if modes.shuffle {
            modes.shuffle = false
            publish(.options(.shuffleOffForAlbum))
        }
        try playList(tracks.map(\.id), from: from - 1, albumLock: true)
        try store.markAlbumPlayed(id: albumID)
        publish(.library(.recentAlbum(id: albumID)))
    }

    /// Plays a playlist in its manual order from track `from` (1-based), the "Favorites" pseudo-playlist
    /// when `playlistID` is nil. Only this sets a playlist's last-played time.
    public func playPlaylist(_ playlistID: Int64?, from: Int = 1) throws {
        let tracks = try playlistID.map { try store.playlistEntries(id: $0).map(\.track) } ?? store.favoriteTracks()
        guard !tracks.isEmpty else { throw PlayerError.invalidValue("the playlist is empty") }
        guard (1...tracks.count).contains(from) else {
            throw PlayerError.invalidValue("the playlist has \(tracks.count) tracks; from must be 1–\(tracks.count)")
        }
        try playList(tracks.map(\.id), from: from - 1, playlistID: playlistID)
        if let playlistID {
            try store.markPlaylistPlayed(id: playlistID)
            publish(.library(.playlist(id: playlistID, .played)))
        }
    }

    /// Adds tracks after the current entry (`next`) or at the end; or at 1-based `index` when given.
    @discardableResult
    public func add(_ trackIDs: [Int64], mode: AddMode = .end, at index: Int? = nil) throws -> [Int64] {
        try checkTracks(trackIDs)
        var position = index
        if position == nil, mode == .next, let current, let fresh = try store.queueEntry(id: current.id) {
            position = fresh.index + 1
        } else if position == nil, mode == .next {
            position = 1
        }
        let ids = try store.insertIntoQueue(trackIDs, at: position)
        try queueChanged(.added(count: ids.count))
        return ids
    }

    // By entry id (MPD's deleteid, moveid, playid, seekid): the id is turned into its place and acted on in one
    // step of the actor, so another client's change in between cannot make it act on a different entry.

    /// The entry's 1-based place now.
    func place(ofEntry id: Int64) throws -> Int {
        guard let entry = try entry(id: id) else { throw PlayerError.noSuchEntryID(id) }
        return entry.index
    }

    public func remove(entryID: Int64) throws { try remove(at: try place(ofEntry: entryID)) }

    public func move(entryID: Int64, to: Int) throws { try move(from: try place(ofEntry: entryID), to: to) }

    public func play(entryID: Int64) throws { try play(index: try place(ofEntry: entryID)) }

    /// Seeks within entry `entryID`, starting it first when another entry is current; a paused player stays paused
    /// (MPD's seekid).
    public func seek(entryID: Int64, to seconds: Double) throws {
        try seek(index: try place(ofEntry: entryID), to: seconds)
    }

    /// As `seek(entryID:to:)`, by 1-based place (MPD's seek).
    public func seek(index: Int, to seconds: Double) throws {
        if current.flatMap({ try? store.queueEntry(id: $0.id) })?.index != index {
            let wasPaused = state == .paused
            try play(index: index)
            if wasPaused { pause() }
        }
        try seek(to: seconds)
    }

    /// Removes the entry at 1-based `index`. Removing the playing entry goes on with the next.
    public func remove(at index: Int) throws {
        try remove(range: index...index)
    }

    /// Removes the entries at 1-based `range` in one transaction and one queue event (MPD's `delete START:END`).
    /// Removing the playing entry goes on with what follows the range.
    public func remove(range: ClosedRange<Int>) throws {
        let count = try store.queueCount()
        guard range.lowerBound >= 1, range.upperBound <= count else {
            throw PlayerError.noSuchEntry(index: range.lowerBound < 1 ? range.lowerBound : range.upperBound, count: count)
        }
        let entries = try store.queue(offset: range.lowerBound - 1, limit: range.count)
        let removed = Set(entries.map(\.id))
        let wasCurrent = current.map { removed.contains($0.id) } ?? false
        var after = wasCurrent ? try entries.last.flatMap { try following($0, manual: true) } : nil
        if let candidate = after, removed.contains(candidate.id) { after = nil }   // wrapped or shuffled into the range
        try store.removeQueueEntries(Array(removed))
        if wasCurrent {
            if state == .playing, let after, let fresh = try store.queueEntry(id: after.id) { try start(fresh, at: 0) } else { stop(); current = nil }
        }
        try queueChanged(range.count == 1 ? .removed(index: range.lowerBound) : .removedRange(range))
    }

    /// Moves the entry at `from` to `to` (both 1-based).
    public func move(from: Int, to: Int) throws {
        let entry = try entry(at: from)
        let count = try store.queueCount()
        guard (1...count).contains(to) else { throw PlayerError.noSuchEntry(index: to, count: count) }
        try store.moveQueueEntry(entry.id, to: to)
        try queueChanged(.moved(from: from, to: to))
    }

    /// Moves the entries at 1-based `range` as one block, so that its first entry ends up at `to` (MPD's
    /// `move START:END TO`): one transaction and one queue event.
    public func move(range: ClosedRange<Int>, to: Int) throws {
        let count = try store.queueCount()
        guard range.lowerBound >= 1, range.upperBound <= count else {
            throw PlayerError.noSuchEntry(index: range.lowerBound < 1 ? range.lowerBound : range.upperBound, count: count)
        }
        guard (1...(count - range.count + 1)).contains(to) else { throw PlayerError.noSuchEntry(index: to, count: count) }
        let span = min(range.lowerBound, to)...max(range.upperBound, to + range.count - 1)
        var ids = try store.queue(offset: span.lowerBound - 1, limit: span.count).map(\.id)
        let first = range.lowerBound - span.lowerBound
        let block = Array(ids[first..<first + range.count])
        ids.removeSubrange(first..<first + range.count)
        ids.insert(contentsOf: block, at: to - span.lowerBound)
        try store.reorderQueue(ids)
        try queueChanged(.movedRange(range, to: to))
    }

    /// Shuffles the entries at 1-based `range` (default: the whole queue) by album: each run of one album's
    /// consecutive entries moves as a block, in its own order (albums are never shuffled inside).
    public func shuffleQueue(_ range: ClosedRange<Int>? = nil) throws {
        let count = try store.queueCount()
        guard count > 1 else { return }
        let span = range ?? 1...count
        guard span.lowerBound >= 1, span.upperBound <= count else {
            throw PlayerError.noSuchEntry(index: span.lowerBound < 1 ? span.lowerBound : span.upperBound, count: count)
        }
        let entries = try store.queue(offset: span.lowerBound - 1, limit: span.count)
        var runs: [[Int64]] = []
        var lastAlbum: Int64?
        for entry in entries {
            if entry.track.albumID == lastAlbum, !runs.isEmpty { runs[runs.count - 1].append(entry.id) } else { runs.append([entry.id]) }
            lastAlbum = entry.track.albumID
        }
        guard runs.count > 1 else { return }
        try store.reorderQueue(runs.shuffled().flatMap { $0 })
        try queueChanged(.shuffled(span))
    }

    public func clear() throws {
        stop()
        current = nil
        try store.clearQueue()
        try queueChanged(.cleared)
    }

    public func history(limit: Int = 100) throws -> [HistoryEntry] {
        try store.history(limit: limit)
    }

    /// Plays history entry `index` (1 = newest) in place of the current track; the rest of the queue stays.
    public func playHistory(_ index: Int) throws {
        let history = try store.history()
        guard history.indices.contains(index - 1) else {
            throw PlayerError.noSuchHistoryEntry(index: index, count: history.count)
        }
        let track = history[index - 1].track
        let entryID: Int64
        if let current, try store.queueEntry(id: current.id) != nil {
            try store.replaceQueueEntryTrack(current.id, with: track.id)
            entryID = current.id
        } else {
            guard let id = try store.insertIntoQueue([track.id], at: 1).first else { throw PlayerError.emptyQueue }
            entryID = id
        }
        try queueChanged(.history(index: index))
        guard let entry = try store.queueEntry(id: entryID) else { throw PlayerError.emptyQueue }
        try start(entry, at: 0)
    }

    private func entry(at index: Int) throws -> QueueEntry {
        guard let entry = try store.queueEntry(at: index) else {
            throw PlayerError.noSuchEntry(index: index, count: try store.queueCount())
        }
        return entry
    }

    private func checkTracks(_ ids: [Int64]) throws {
        if let unknown = try store.unknownTrackIDs(ids).first { throw PlayerError.noSuchTrack(unknown) }
    }

    private func queueChanged(_ change: QueueChange) throws {
        publish(.queue(change))
        try refreshNext()
        save()
    }
}
