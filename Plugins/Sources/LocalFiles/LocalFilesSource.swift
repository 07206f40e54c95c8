public import CrateDomain
public import Foundation
import Glibc

/// Music files on this machine, under the `file:` scheme. A track's id is its absolute path. It lists folders and
/// opens files; probing, album grouping and importing are Core's (`FolderScan`, `LibraryService`).
public struct LocalFilesSource: ListingSource {
    public let name = "localfiles"
    public let schemes = [TrackRef.fileScheme]
    public var status: PluginStatus { .available }

    public init() {}

    public static func ref(forPath path: String) -> TrackRef { .file(path) }

    public func locate(_ ref: TrackRef) throws -> PlayableLocation {
        guard ref.id.hasPrefix("/") else { throw LocalFilesError.invalidURI(ref.description) }
        return .file(URL(fileURLWithPath: ref.id))
    }

    public func list(_ root: URL, suffixes: Set<String>, visit: (FolderContents) throws -> Void) throws {
        let given = root.standardizedFileURL.path
        let path = root.standardizedFileURL.resolvingSymlinksInPath().path
        let lister = FolderLister(suffixes: suffixes)
        guard try Self.isFolder(path) else {
            let listing = FolderListing(path: folderOf(path), fd: AT_FDCWD, files: [FileEntry(absolutePath: path)])
            try visit(lister.contents(listing, everyFile: true))
            return
        }
        var walker = FolderWalker(root: path, alias: given != path ? given : nil)
        try walker.walk { listing in try visit(lister.contents(listing)) }
    }

    public func census(_ root: URL, suffixes: Set<String>) -> Int {
        let path = root.standardizedFileURL.path
        guard let folder = try? Self.isFolder(path) else { return 0 }
        guard folder else { return 1 }
        var count = 0
        var walker = FolderWalker(root: path)
        walker.walk { listing in
            count += listing.files.count { FileName.isCandidate($0.name, suffixes: suffixes) }
        }
        return count
    }

    /// Whether the root is a folder (following links); throws when it is missing or cannot be looked at.
    private static func isFolder(_ path: String) throws -> Bool {
        var st = stat()
        guard stat(path, &st) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw LocalFilesError.notFound(path: path) }
            throw LocalFilesError.unreadable(path: path, reason: FileProblem.describe(code, path: path))
        }
        return (st.st_mode & S_IFMT) == S_IFDIR
    }
}
