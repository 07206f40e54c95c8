import CrateCore
import CrateDomain
import CrateTestSupport
import FLACDecoder
import Foundation
import LocalFilesSource
import MP3Decoder
import Synchronization
import Testing
import WAVDecoder

/// A fresh folder to build a collection in, and a scan of it that keeps every batch.
/// The folder goes with the harness: some tests write files of tens of megabytes.
final class ScanHarness: Sendable {
    let root: URL
    let decoders: DecoderRegistry

    init(_ label: String = "crate-scan", decoders: [any DecoderPlugin] = [FLACDecoderPlugin(), MP3DecoderPlugin(), WAVDecoderPlugin()]) throws {
        root = try Fixture.temporaryDirectory(label)
        self.decoders = try DecoderRegistry(decoders)
    }

    deinit {
        try? FileManager.default.removeItem(at: root)
    }

    struct Result {
        var summary: ScanSummary
        var batches: [ScanBatch]

        var tracks: [ScannedTrack] { batches.flatMap(\.tracks) }
        var failures: [ScanFailure] { batches.flatMap(\.failures) }

        /// Failure reasons by the last path component.
        var reasons: [String: String] {
            Dictionary(failures.map { (($0.path as NSString).lastPathComponent, $0.reason) }, uniquingKeysWith: { a, b in a + "; " + b })
        }

        var fileNames: [String] { tracks.map { ($0.path as NSString).lastPathComponent } }
    }

    func scan(_ url: URL? = nil, options: ScanOptions = ScanOptions()) throws -> Result {
        var batches: [ScanBatch] = []
        let summary = try FolderScan(decoders: decoders, options: options).scan(LocalFilesSource(), root: url ?? root) { batches.append($0) }
        return Result(summary: summary, batches: batches)
    }

    func census(_ url: URL? = nil) -> Int {
        LocalFilesSource().census(url ?? root, suffixes: decoders.suffixes)
    }

    func folder(_ path: String) throws -> URL {
        let url = root.appendingPathComponent(path, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A small valid WAV made without ffmpeg, to sit next to bad files and prove the scan went on.
    @discardableResult
    func goodFile(in folder: URL, name: String = "good.wav") throws -> URL {
        let url = folder.appendingPathComponent(name)
        try Fixture.writeWAV(Fixture.sine(frames: 4410), sampleRate: 44100, channels: 2, to: url)
        return url
    }

    /// Builds one bad file next to a good one in a folder of its own, scans that folder and checks the
    /// scan completed with the good file imported. Returns the bad file's failure reason, or nil when
    /// it was read as a track (also returned).
    func scanNextToGood(_ name: String, sourceLocation: SourceLocation = #_sourceLocation,
                        _ build: (URL) throws -> Void) throws -> (reason: String?, track: ScannedTrack?) {
        let dir = try folder(UUID().uuidString)
        try goodFile(in: dir)
        try build(dir.appendingPathComponent(name))
        let result = try scan(dir)
        #expect(result.fileNames.contains("good.wav"), "the good file next to \(name) was imported", sourceLocation: sourceLocation)
        #expect(result.summary.failures == result.failures.count, sourceLocation: sourceLocation)
        let reason = result.reasons[name]
        let track = result.tracks.first { $0.path.hasSuffix("/" + name) }
        #expect((reason == nil) != (track == nil), "\(name) is exactly one of failure or track", sourceLocation: sourceLocation)
        return (reason, track)
    }
}

/// Records what a scan asked of its options, from any thread.
final class OptionsRecorder: Sendable {
    private let state = Mutex<(knownAsked: [String], pictures: [EmbeddedPicture])>(([], []))

    var knownAsked: [String] { state.withLock { $0.knownAsked } }
    var pictures: [EmbeddedPicture] { state.withLock { $0.pictures } }

    /// Options whose `known` answers from `stamps` (file path -> stamp) and whose `keepPicture` returns "hash-N".
    func options(stamps: [String: FileStamp] = [:]) -> ScanOptions {
        ScanOptions(
            known: { folder in
                self.state.withLock { $0.knownAsked.append(folder) }
                return stamps.filter { folderOf($0.key) == folder }
            },
            keepPicture: { picture in
                self.state.withLock { state in
                    state.pictures.append(picture)
                    return "hash-\(state.pictures.count)"
                }
            })
    }
}
