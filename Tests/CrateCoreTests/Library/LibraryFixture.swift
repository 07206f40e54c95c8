import CrateCore
import CratePlugins
import CrateDomain
import CrateTestSupport
import Foundation

/// A temporary data directory, a music folder of real encoded files, and a runtime on them.
struct LibraryFixture {
    let dir: URL
    let music: URL
    var settings: Settings

    init(_ label: String = "crate-library") throws {
        dir = try Fixture.temporaryDirectory(label)
        music = dir.appendingPathComponent("music", isDirectory: true)
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        settings = Settings(dataDirectory: dir.appendingPathComponent("data", isDirectory: true))
        settings.setPluginValue("outputs.pulse.server", "unix:" + dir.appendingPathComponent("no-pulse").path)
        settings.setPluginValue("outputs.null.render", "true")
        settings.setPluginValue("outputs.wav.render", "true")
    }

    func runtime() throws -> CrateRuntime { try CrateRuntime(settings: settings, plugins: CratePlugins.list) }

    /// Artist/Album/NN.flac, `count` tracks of `frames` frames; `tone` keeps albums' audio distinct.
    @discardableResult
    func album(_ artist: String, _ album: String, tracks count: Int = 2, frames: Int = 4410, tone: Double = 440,
               codec: Fixture.Codec = .flac, in root: URL? = nil) throws -> URL {
        let folder = (root ?? music).appendingPathComponent("\(artist)/\(album)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for n in 1...count {
            try Fixture.encode(codec, to: folder.appendingPathComponent("0\(n).\(codec.suffix)"), frames: frames + n * 441,
                               frequency: tone + Double(n) * 10,
                               tags: ["title": "\(album) \(n)", "artist": artist, "album": album, "track": "\(n)/\(count)"])
        }
        return folder
    }

    /// Every regular file under `url`, relative paths sorted.
    func files(under url: URL) -> [String] {
        guard let walk = FileManager.default.enumerator(atPath: url.path) else { return [] }
        var out: [String] = []
        while let name = walk.nextObject() as? String {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path, isDirectory: &isDir), !isDir.boolValue {
                out.append(name)
            }
        }
        return out.sorted()
    }

    static func sha(_ url: URL) throws -> String {
        try Fixture.run("sha256sum", [url.path]).split(separator: " ").first.map(String.init) ?? ""
    }
}
