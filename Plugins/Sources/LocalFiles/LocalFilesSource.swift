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
            let folder = folderOf(path)
            let name = Array(path.utf8[path.utf8.index(after: path.utf8.lastIndex(of: UInt8(ascii: "/")) ?? path.utf8.startIndex)...])
            // `crate import Album/*` names the folder's cover.jpg too: it is the folder's artwork, which the audio
            // files named beside it pick up, not a track that failed to import.
            if !FileName.isCandidate(name, suffixes: suffixes), FileName.coverRank(FileName.string(name)) != nil {
                try visit(FolderContents(folder: folder, files: [], failures: [], filesSeen: 1, skipped: 1,
                                         folderImage: nil, isFolder: false))
                return
            }
            var contents = lister.contents(FolderListing(path: folder, fd: AT_FDCWD, files: [FileEntry(absolutePath: path)]),
                                           everyFile: true)
            // A single file takes its folder's cover image, as it would have had the folder been imported.
            contents.folderImage = FolderImage.find(in: folder)
            try visit(contents)
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
        guard let st = RawFileName.status(path) else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw LocalFilesError.notFound(path: path) }
            throw LocalFilesError.unreadable(path: path, reason: FileProblem.describe(code, path: path))
        }
        return (st.st_mode & S_IFMT) == S_IFDIR
    }
}
