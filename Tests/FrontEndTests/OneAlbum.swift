import CrateCore
import CrateDomain
import CratePlugins
import CrateTestSupport
import Foundation

/// A library of one album ("A" by X: tracks A1, A2, … of one second, real FLAC files) imported by reference into a
/// fresh data folder, on the null output; `discSubtitle` tags every track with it (a Vorbis DISCSUBTITLE);
/// `configure` adjusts the settings first.
func oneAlbumRuntime(_ label: String, tracks: Int = 2, discSubtitle: String? = nil,
                     configure: (inout Settings) throws -> Void = { _ in }) throws -> CrateRuntime {
    let dir = try Fixture.temporaryDirectory(label)
    let music = dir.appendingPathComponent("music/A")
    try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
    for n in 1...tracks {
        var tags = ["title": "A\(n)", "artist": "X", "album": "A", "track": "\(n)"]
        tags["DISCSUBTITLE"] = discSubtitle
        try Fixture.encode(.flac, to: music.appendingPathComponent("\(n).flac"), frames: 44100, tags: tags)
    }
    var settings = Settings(dataDirectory: dir.appendingPathComponent("data"))
    settings.output = "null"
    try configure(&settings)
    let runtime = try CrateRuntime(settings: settings, plugins: CratePlugins.list)
    _ = try runtime.library.importPaths([music.path], mode: .reference)
    return runtime
}
