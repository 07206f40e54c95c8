import CrateDomain
import Foundation

/// Music files on this machine, under the `file:` scheme. A track's id is its absolute path.
/// Scanning happens in place (reference mode): nothing is copied or changed.
public struct LocalFilesSource: ScanningSource {
    public let name = "localfiles"
    public let schemes = ["file"]
    public var status: PluginStatus { .available }

    public init() {}

    public static func ref(forPath path: String) -> TrackRef { TrackRef(source: "file", id: path) }

    public func locate(_ ref: TrackRef) throws -> PlayableLocation {
        guard ref.id.hasPrefix("/") else { throw LocalFilesError.invalidURI(ref.description) }
        return .file(URL(fileURLWithPath: ref.id))
    }

    public func scan(_ root: URL, decoders: DecoderRegistry, options: ScanOptions,
                     onBatch: (ScanBatch) throws -> Void) throws -> ScanSummary {
        var walker = FolderWalker(root: root.standardizedFileURL, decoders: decoders)
        return try walker.run(onBatch)
    }

    public func census(_ root: URL, decoders: DecoderRegistry) -> Int { 0 }
}
