import CrateDomain
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The copies an import is making, written down before each copy starts (destination and original, NUL-separated)
/// and cleared once the folder's batch is committed. An import killed in between (kill -9, Ctrl-C, a crash) leaves
/// the journal behind, and the next import, rescan or daemon start (`recover`) removes what it left: the hidden
/// partial file, and copies no track row points to. Only one import runs at a time (the library lock, and the
/// daemon's one job), so whatever the journal names is nobody's work in progress.
struct ImportJournal: Sendable {
    let url: URL

    /// Records a copy about to be made; a journal that cannot be written stops the copy (else a crash could
    /// leave a file nobody knows of).
    func begin(_ destination: String, original: String) throws(LibraryError) {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io(path: url.path, action: "write the import journal", reason: AudioFileCheck.describe(errno)) }
        defer { close(fd) }
        let entry = Array(destination.utf8) + [0] + Array(original.utf8) + [0]
        // One write with O_APPEND: an entry is whole or absent.
        guard write(fd, entry, entry.count) == entry.count else {
            throw .io(path: url.path, action: "write the import journal", reason: AudioFileCheck.describe(errno))
        }
    }

    /// The batch is committed: its copies belong to tracks now.
    func clear() {
        _ = truncate(url.path, 0)
    }

    /// What an interrupted import left: partial copies, and finished copies whose track was never committed.
    struct Recovery: Sendable, Hashable {
        var partialFiles = 0
        var orphanCopies = 0
        /// Orphan copies kept because their original is gone (so the copy is the only one).
        var kept: [String] = []
    }

    /// Removes what the journal names that no track refers to (`known`: the library's file paths), then clears it.
    /// An orphan copy goes only while its original is still there; otherwise it is kept and reported.
    func recover(known: () throws -> Set<String>, managed: ManagedLibrary) throws -> Recovery {
        var result = Recovery()
        guard let data = FileManager.default.contents(atPath: url.path), !data.isEmpty else { return result }
        let fields = data.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        let paths = try known()
        var folders = Set<String>()
        var index = 0
        while index + 1 < fields.count {
            let destination = fields[index], original = fields[index + 1]
            index += 2
            guard managed.contains(destination) else { continue }
            folders.insert(URL(fileURLWithPath: destination).deletingLastPathComponent().path)
            guard !paths.contains(destination), FileManager.default.fileExists(atPath: destination) else { continue }
            if RawFileName.exists(original) {
                try managed.remove(destination)
                result.orphanCopies += 1
            } else {
                result.kept.append(destination)
            }
        }
        for folder in folders {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            for name in names where name.hasPrefix(ManagedLibrary.partialPrefix) {
                try managed.remove(folder + "/" + name)
                result.partialFiles += 1
            }
        }
        clear()
        return result
    }
}
