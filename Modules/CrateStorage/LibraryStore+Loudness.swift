public import CrateDomain
public import Foundation
import GRDB

/// A library file a loudness scan may measure.
public struct LoudnessCandidate: Sendable, Hashable {
    public var trackID: Int64
    public var albumID: Int64
    public var path: String
    /// The file's stamp in the library now; a measurement saved with it holds until the file changes.
    public var size: Int64
    public var mtime: Double
    public var duration: Double
    /// A current measurement exists.
    public var measured: Bool
    public var missing: Bool
}

/// Loudness rows (migration v11): scans of tracks and albums, and the tags' gains kept on `track`.
///
/// A track's scan holds while its file has the stamp (size, mtime) it was measured at. An album's scan holds while the
/// album has the number of tracks it was measured with and each has a current scan no newer than the album's: a track
/// added, removed, changed or measured alone since makes it stale. Stale rows are kept (and shown as stale) until the
/// next scan replaces them; nothing here rewrites a file.
extension LibraryStore {
    /// A track's scan is current: `l` is its track_loudness row, `f` its file row.
    static let trackScanCurrent = "(l.track_id IS NOT NULL AND f.size = l.size AND f.mtime = l.mtime)"

    /// An album's scan is current: `al` is its album_loudness row.
    static let albumScanCurrent = """
        (al.album_id IS NOT NULL
         AND al.tracks = (SELECT COUNT(*) FROM track AS at WHERE at.album_id = al.album_id)
         AND NOT EXISTS (SELECT 1 FROM track AS at
                         LEFT JOIN file AS af ON af.track_id = at.id
                         LEFT JOIN track_loudness AS atl ON atl.track_id = at.id
                         WHERE at.album_id = al.album_id
                           AND (atl.track_id IS NULL OR af.size IS NOT atl.size OR af.mtime IS NOT atl.mtime
                                OR atl.measured_at > al.measured_at)))
        """

    private static let candidateSelect = """
        SELECT track.id, track.album_id, f.path, f.size, f.mtime, track.duration, track.missing_reason,
               \(trackScanCurrent) AS measured
        FROM track
        JOIN album ON album.id = track.album_id
        JOIN file AS f ON f.track_id = track.id
        LEFT JOIN track_loudness AS l ON l.track_id = track.id
        """

    /// The library's files under any of `paths` (a file, or a folder and everything in it; the path a copy was
    /// imported from counts too), or every file when `paths` is empty; ordered by album, then album order.
    public func loudnessCandidates(under paths: [String]) throws -> [LoudnessCandidate] {
        try read { db in
            var conditions: [String] = []
            var arguments: [any DatabaseValueConvertible] = []
            for path in paths {
                let folder = path.hasSuffix("/") ? path : path + "/"
                // substr, not LIKE: LIKE ignores the case of ASCII letters and treats % and _ specially.
                conditions.append("""
                    (f.path = ? OR substr(f.path, 1, length(?)) = ?
                     OR f.original_path = ? OR substr(f.original_path, 1, length(?)) = ?)
                    """)
                arguments += [path, folder, folder, path, folder, folder]
            }
            let filter = conditions.isEmpty ? "" : " AND (" + conditions.joined(separator: " OR ") + ")"
            return try Row.fetchAll(db, sql: Self.candidateSelect + " WHERE " + Self.notStreams + filter + Self.candidateOrder,
                                    arguments: StatementArguments(arguments)).map(Self.candidate)
        }
    }

    /// Every file track of the albums `ids`, in album order.
    public func loudnessCandidates(albums ids: Set<Int64>) throws -> [LoudnessCandidate] {
        let wanted = ids.sorted()
        return try read { db in
            var out: [LoudnessCandidate] = []
            for start in stride(from: 0, to: wanted.count, by: 500) {
                let part = Array(wanted[start..<min(start + 500, wanted.count)])
                let marks = Array(repeating: "?", count: part.count).joined(separator: ",")
                out += try Row.fetchAll(db, sql: Self.candidateSelect + " WHERE track.album_id IN (\(marks))" + Self.candidateOrder,
                                        arguments: StatementArguments(part)).map(Self.candidate)
            }
            return out
        }
    }

    private static let candidateOrder = """
         ORDER BY track.album_id, COALESCE(track.disc_number, 1), track.track_number IS NULL, track.track_number, f.path
        """

    /// How many tracks each of the albums `ids` has (files or not).
    public func albumTrackCounts(_ ids: Set<Int64>) throws -> [Int64: Int] {
        try read { db in
            var out: [Int64: Int] = [:]
            let wanted = ids.sorted()
            for start in stride(from: 0, to: wanted.count, by: 500) {
                let part = Array(wanted[start..<min(start + 500, wanted.count)])
                let marks = Array(repeating: "?", count: part.count).joined(separator: ",")
                for row in try Row.fetchAll(db, sql: "SELECT album_id, COUNT(*) AS n FROM track WHERE album_id IN (\(marks)) GROUP BY album_id",
                                            arguments: StatementArguments(part)) {
                    out[row["album_id"]] = row["n"]
                }
            }
            return out
        }
    }

    /// The albums whose album scan is current.
    public func albumsWithCurrentLoudness() throws -> Set<Int64> {
        try read { db in
            Set(try Int64.fetchAll(db, sql: "SELECT al.album_id FROM album_loudness AS al WHERE \(Self.albumScanCurrent)"))
        }
    }

    /// Saves a track's scan, valid for the file stamp given (the one the candidate was chosen with).
    public func saveTrackLoudness(trackID: Int64, _ m: LoudnessMeasurement, size: Int64, mtime: Double, at now: Date = Date()) throws {
        try write { db in
            try db.cachedStatement(sql: """
                INSERT INTO track_loudness (track_id, integrated, true_peak, sample_peak, seconds, size, mtime, measured_at)
                SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM track WHERE id = ?)
                ON CONFLICT(track_id) DO UPDATE SET integrated = excluded.integrated, true_peak = excluded.true_peak,
                    sample_peak = excluded.sample_peak, seconds = excluded.seconds, size = excluded.size,
                    mtime = excluded.mtime, measured_at = excluded.measured_at
                """).execute(arguments: [trackID, m.integrated, m.truePeak, m.samplePeak, m.seconds, size, mtime,
                                         now.timeIntervalSince1970, trackID])
        }
    }

    /// Saves an album's scan, measured from `tracks` tracks (each saved before, so no newer than `now`).
    public func saveAlbumLoudness(albumID: Int64, _ m: LoudnessMeasurement, tracks: Int, at now: Date = Date()) throws {
        try write { db in
            try db.cachedStatement(sql: """
                INSERT INTO album_loudness (album_id, integrated, true_peak, sample_peak, seconds, tracks, measured_at)
                SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM album WHERE id = ?)
                ON CONFLICT(album_id) DO UPDATE SET integrated = excluded.integrated, true_peak = excluded.true_peak,
                    sample_peak = excluded.sample_peak, seconds = excluded.seconds, tracks = excluded.tracks,
                    measured_at = excluded.measured_at
                """).execute(arguments: [albumID, m.integrated, m.truePeak, m.samplePeak, m.seconds, tracks,
                                         now.timeIntervalSince1970, albumID])
        }
    }

    /// What the player needs for a track: current scans of it and its album, else its tags' gains.
    public func loudness(trackID: Int64) throws -> TrackLoudness {
        try read { db in
            guard let row = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT track.rg_track_gain, track.rg_track_peak, track.rg_album_gain, track.rg_album_peak,
                       CASE WHEN \(Self.trackScanCurrent) THEN 1 ELSE 0 END AS track_current,
                       l.integrated AS t_integrated, l.true_peak AS t_true_peak, l.sample_peak AS t_sample_peak, l.seconds AS t_seconds,
                       CASE WHEN \(Self.albumScanCurrent) THEN 1 ELSE 0 END AS album_current,
                       al.integrated AS a_integrated, al.true_peak AS a_true_peak, al.sample_peak AS a_sample_peak, al.seconds AS a_seconds
                FROM track
                LEFT JOIN file AS f ON f.track_id = track.id
                LEFT JOIN track_loudness AS l ON l.track_id = track.id
                LEFT JOIN album_loudness AS al ON al.album_id = track.album_id
                WHERE track.id = ?
                """), arguments: [trackID]) else { return TrackLoudness() }
            let trackScan = row["track_current"] == 1 ? Self.measurement(row, "t_") : nil
            let albumScan = row["album_current"] == 1 ? Self.measurement(row, "a_") : nil
            return TrackLoudness(trackScan: trackScan, albumScan: albumScan, tags: Self.replayGainTags(row))
        }
    }

    /// An album's loudness rows for `crate loudness show`; nil when there is no such album.
    public func albumLoudness(albumID: Int64) throws -> AlbumLoudnessInfo? {
        guard let album = try album(id: albumID) else { return nil }
        let tracks = try tracks(albumID: albumID)
        return try read { db in
            let albumRow = try Row.fetchOne(db, sql: """
                SELECT al.integrated AS a_integrated, al.true_peak AS a_true_peak, al.sample_peak AS a_sample_peak,
                       al.seconds AS a_seconds
                FROM album_loudness AS al WHERE al.album_id = ? AND \(Self.albumScanCurrent)
                """, arguments: [albumID])
            let statement = try db.makeStatement(sql: """
                SELECT track.rg_track_gain, track.rg_track_peak, track.rg_album_gain, track.rg_album_peak,
                       l.track_id IS NOT NULL AS scanned, CASE WHEN \(Self.trackScanCurrent) THEN 1 ELSE 0 END AS track_current,
                       l.integrated AS t_integrated, l.true_peak AS t_true_peak, l.sample_peak AS t_sample_peak, l.seconds AS t_seconds
                FROM track
                LEFT JOIN file AS f ON f.track_id = track.id
                LEFT JOIN track_loudness AS l ON l.track_id = track.id
                WHERE track.id = ?
                """)
            let rows = try tracks.map { track in
                let row = try Row.fetchOne(statement, arguments: [track.id])
                let current = row?["track_current"] == 1
                return TrackLoudnessInfo(trackID: track.id, title: track.title, discNumber: track.discNumber,
                                         trackNumber: track.trackNumber,
                                         scan: current ? row.map { Self.measurement($0, "t_") } : nil,
                                         stale: row?["scanned"] == true && !current,
                                         tags: row.flatMap(Self.replayGainTags))
            }
            return AlbumLoudnessInfo(albumID: album.id, title: album.title, artist: album.artist,
                                     scan: albumRow.map { Self.measurement($0, "a_") }, tracks: rows)
        }
    }

    /// How much of the library has loudness information (streams left out).
    public func loudnessSummary() throws -> LoudnessSummary {
        try read { db in
            var s = LoudnessSummary()
            if let row = try Row.fetchOne(db, sql: """
                SELECT COUNT(*) AS n,
                       COALESCE(SUM(CASE WHEN \(Self.trackScanCurrent) THEN 1 ELSE 0 END), 0) AS scanned,
                       COALESCE(SUM(CASE WHEN l.track_id IS NOT NULL AND NOT \(Self.trackScanCurrent) THEN 1 ELSE 0 END), 0) AS stale,
                       COALESCE(SUM(track.rg_track_gain IS NOT NULL), 0) AS tagged
                FROM track JOIN album ON album.id = track.album_id
                LEFT JOIN file AS f ON f.track_id = track.id
                LEFT JOIN track_loudness AS l ON l.track_id = track.id
                WHERE \(Self.notStreams)
                """) {
                s.tracks = row["n"]
                s.tracksScanned = row["scanned"]
                s.tracksStale = row["stale"]
                s.tracksTagged = row["tagged"]
            }
            s.albums = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM album WHERE \(Self.notStreams)") ?? 0
            s.albumsScanned = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM album_loudness AS al WHERE \(Self.albumScanCurrent)") ?? 0
            return s
        }
    }

    private static func candidate(_ row: Row) -> LoudnessCandidate {
        LoudnessCandidate(trackID: row["id"], albumID: row["album_id"], path: row["path"], size: row["size"], mtime: row["mtime"],
                          duration: row["duration"], measured: row["measured"], missing: row["missing_reason"] as String? != nil)
    }

    private static func measurement(_ row: Row, _ prefix: String) -> LoudnessMeasurement {
        LoudnessMeasurement(integrated: row[prefix + "integrated"], truePeak: row[prefix + "true_peak"],
                            samplePeak: row[prefix + "sample_peak"], seconds: row[prefix + "seconds"])
    }

    private static func replayGainTags(_ row: Row) -> ReplayGainTags? {
        let tags = ReplayGainTags(trackGain: row["rg_track_gain"], trackPeak: row["rg_track_peak"],
                                  albumGain: row["rg_album_gain"], albumPeak: row["rg_album_peak"])
        return tags.isEmpty ? nil : tags
    }
}
