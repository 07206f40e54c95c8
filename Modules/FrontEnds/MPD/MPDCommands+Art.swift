import CrateCore
import CrateDomain
import Foundation

/// `albumart` and `readpicture`: a song's cover in chunks of at most the connection's `binarylimit` bytes, as
/// `size:` (the whole picture), `binary:` (this chunk) and the chunk's raw bytes. Crate keeps one picture per album,
/// whether it came from the folder or from the file's tags, so both commands send that picture.
extension MPDCommands {
    /// MPD's default chunk size, and the smallest a client may ask for.
    static let defaultBinaryLimit = 8192
    static let smallestBinaryLimit = 64

    /// The reply to `albumart`/`readpicture`, or nil for any other command.
    func binary(_ name: String, _ args: [String], limit: Int) throws(MPDError) -> [UInt8]? {
        guard name == "albumart" || name == "readpicture" else { return nil }
        let uri = try Self.argument(args, 0)
        let offset = try Self.number(args, 1)
        do {
            let snapshot = try database.snapshot()
            guard let index = snapshot.byURI[uri] else { throw MPDError(.noExist, "No such song") }
            guard let hash = snapshot.songs[index].track.artworkHash, let file = try? library.artworkFile(hash: hash) else {
                // MPD: albumart without a cover is an error; readpicture without a picture is an empty answer.
                if name == "readpicture" { return [] }
                throw MPDError(.noExist, "No file exists")
            }
            let handle = try FileHandle(forReadingFrom: file.url)
            defer { try? handle.close() }
            let size = Int(try handle.seekToEnd())
            guard offset <= size else { throw MPDError(.argument, "Bad file offset") }
            try handle.seek(toOffset: UInt64(offset))
            let chunk = try handle.read(upToCount: min(limit, size - offset)) ?? Data()
            var head = "size: \(size)\n"
            if name == "readpicture" { head += "type: \(file.mimeType)\n" }
            head += "binary: \(chunk.count)\n"
            return Array(head.utf8) + chunk + [UInt8(ascii: "\n")]
        } catch let error as MPDError {
            throw error
        } catch {
            throw MPDError(.system, ErrorText.describe(error))
        }
    }
}
