import Crypto
import Foundation

/// What ffmpeg made for the tests, kept across runs and keyed by its recipe: ffmpeg's version, its arguments, and the
/// bytes of every input file named in them. ffmpeg is a third of `swift test`'s CPU time, and almost every fixture is
/// the same from one run to the next (a sine of so many frames, encoded so). A recipe whose inputs differ (another
/// sine, other tags) is another key, so a test always gets what its arguments make.
///
/// The cache lives in `$CRATE_FIXTURE_CACHE`, else `$XDG_CACHE_HOME/crate/test-fixtures` or `~/.cache/crate/test-fixtures`;
/// `CRATE_FIXTURE_CACHE=off` turns it off. It keeps at most `limitBytes`: past that, the oldest entries go.
enum FixtureCache {
    static let limitBytes: Int64 = 512 << 20
    /// Outputs larger than this are made every time (none of today's fixtures is).
    static let largestOutput = 16 << 20

    static let directory: URL? = {
        let environment = ProcessInfo.processInfo.environment
        if let chosen = environment["CRATE_FIXTURE_CACHE"], !chosen.isEmpty {
            return chosen == "off" ? nil : URL(fileURLWithPath: chosen, isDirectory: true)
        }
        let base = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache", isDirectory: true)
        return base.appendingPathComponent("crate/test-fixtures", isDirectory: true)
    }()

    /// ffmpeg's first `-version` line: a new ffmpeg makes new fixtures.
    static let toolVersion: String? = {
        guard let out = try? Fixture.runUncached("ffmpeg", ["-hide_banner", "-version"]) else { return nil }
        return out.split(separator: "\n").first.map(String.init)
    }()

    /// The cache entry for an ffmpeg run writing one file (its last argument), or nil when the run is not one to keep
    /// (it writes to a pipe, or names no output).
    static func entry(for arguments: [String]) -> URL? {
        guard let directory, let version = toolVersion, let output = arguments.last, !output.hasPrefix("-"),
              !output.hasPrefix("pipe:"), !output.contains("%") else { return nil }
        var hash = SHA256()
        hash.update(data: Data(version.utf8))
        for argument in arguments.dropLast() {
            hash.update(data: Data([0]))
            var isDirectory: ObjCBool = false
            if argument.hasPrefix("/"), FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory), !isDirectory.boolValue {
                // An input: its bytes, not its (often random) name.
                guard let bytes = try? Data(contentsOf: URL(fileURLWithPath: argument)) else { return nil }
                hash.update(data: Data("file:".utf8))
                hash.update(data: Data(SHA256.hash(data: bytes)))
            } else {
                hash.update(data: Data(argument.utf8))
            }
        }
        let name = hash.finalize().map { String(format: "%02x", $0) }.joined()
        let suffix = URL(fileURLWithPath: output).pathExtension
        return directory.appendingPathComponent(suffix.isEmpty ? name : "\(name).\(suffix)")
    }

    /// Copies a kept output to `output`; false when there is none.
    static func restore(_ entry: URL, to output: String) -> Bool {
        guard FileManager.default.fileExists(atPath: entry.path) else { return false }
        let target = URL(fileURLWithPath: output)
        try? FileManager.default.removeItem(at: target)
        do {
            try FileManager.default.copyItem(at: entry, to: target)
            // Recently used: pruning takes the oldest first.
            try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: entry.path)
            return true
        } catch {
            return false
        }
    }

    /// Keeps `output` under `entry` (written aside, then renamed: parallel tests never see half a file).
    static func keep(_ output: String, as entry: URL) {
        let made = URL(fileURLWithPath: output)
        guard let size = (try? made.resourceValues(forKeys: [.fileSizeKey]))?.fileSize, size <= largestOutput,
              let directory else { return }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let aside = directory.appendingPathComponent(".\(UUID().uuidString)")
            try FileManager.default.copyItem(at: made, to: aside)
            if rename(aside.path, entry.path) != 0 { try? FileManager.default.removeItem(at: aside) }
        } catch {
            return
        }
        pruneOnce
    }

    /// Once per process: the oldest entries go while the cache holds more than `limitBytes`.
    private static let pruneOnce: Void = {
        guard let directory, let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        let keys: Set<URLResourceKey> = [.fileSizeKey, .contentModificationDateKey]
        var entries = names.compactMap { name -> (URL, Int64, Date)? in
            let url = directory.appendingPathComponent(name)
            guard let values = try? url.resourceValues(forKeys: keys) else { return nil }
            return (url, Int64(values.fileSize ?? 0), values.contentModificationDate ?? .distantPast)
        }
        var total = entries.reduce(Int64(0)) { $0 + $1.1 }
        guard total > limitBytes else { return }
        entries.sort { $0.2 < $1.2 }
        for (url, size, _) in entries where total > limitBytes {
            try? FileManager.default.removeItem(at: url)
            total -= size
        }
    }()
}
