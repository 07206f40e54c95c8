import CrateCore
import CratePlugins
import CrateDomain
import Foundation
import CrateStorage

/// A real library database for feed tests: albums saved as the importer saves them (one track each, no
/// audio needed: feeds never open files), some played, some liked.
enum FeedLibrary {
    static let genres = ["Indie Rock", "Punk", "Jazz; Bebop", "Hip Hop", "Techno", "Classical", "Folk", "Polka", "Soul", "Ambient"]

    /// `count` albums by `count / 3` artists across `genres`; the runtime has only the library as a source.
    static func make(_ dir: URL, albums count: Int, catalogEnv: Bool = false) throws -> CrateRuntime {
        var settings = Settings(dataDirectory: dir.appendingPathComponent("data"))
        settings.enabledSources = ["localfiles"]
        let runtime = try CrateRuntime(settings: settings, plugins: CratePlugins.list)
        let info = StreamInfo(codec: "flac", sampleRate: 44100, channels: 2, bitsPerSample: 16, frames: 44100 * 200)
        for n in 0..<count {
            let artist = "Artist \(n / 3)", title = "Album \(n)", genre = genres[n % genres.count]
            let year = 1960 + (n * 7) % 60
            let path = "/feeds/\(n)/01.flac"
            let tags = TrackTags(title: "Track \(n)", artist: artist, albumArtist: artist, album: title, genre: genre,
                                 date: String(year), trackNumber: 1)
            let key = AlbumKey(identity: "tags:\(artist)\u{1F}\(title)\u{1F}", title: title, artist: artist, date: String(year),
                               isCompilation: false)
            let track = ScannedTrack(ref: TrackRef(source: "file", id: path), path: path, size: 1000, modified: Date(),
                                     tags: tags, info: info, title: "Track \(n)", artist: artist, album: key)
            try runtime.store.save(ScanBatch(folder: "/feeds/\(n)", tracks: [track], failures: []))
        }
        return runtime
    }

    /// Plays the first track of album `id` `times` times.
    static func play(_ runtime: CrateRuntime, album id: Int64, times: Int) throws {
        guard let track = try runtime.store.tracks(albumID: id).first else { return }
        for _ in 0..<times { try runtime.store.recordPlay(trackID: track.id) }
    }
}
