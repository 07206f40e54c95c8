public import CrateDomain
public import Foundation

/// Reads `http:` and `https:` URLs for the engine. A radio playlist (`.pls`, `.m3u`, `.xspf`, by type or suffix) is
/// read and its first stream opened instead (a few levels deep at most).
public struct HTTPInputProvider: InputProvider {
    public let name = "urlstream"
    public let schemes = ["http", "https"]
    public let config: URLStreamConfig

    public init(config: URLStreamConfig = URLStreamConfig()) { self.config = config }

    public func open(_ url: URL) throws -> any ByteStream { try open(url, depth: 0) }

    private func open(_ url: URL, depth: Int) throws -> any ByteStream {
        let stream = try HTTPByteStream(url: url, config: config)
        guard RadioPlaylist.isPlaylist(contentType: stream.contentType, suffix: stream.suffixHint) else { return stream }
        guard depth < 3 else { throw ByteStreamError.notAudio(name: url.absoluteString, reason: "playlists nested too deeply") }
        let body = try Self.readAll(stream, limit: 1 << 20)
        let entries: [URL]
        do { entries = try RadioPlaylist.entries(body, base: url) } catch {
            throw ByteStreamError.notAudio(name: url.absoluteString, reason: error.description)
        }
        var firstError: (any Error)?
        for entry in entries.prefix(5) {
            do { return try open(entry, depth: depth + 1) } catch { firstError = firstError ?? error }
        }
        throw firstError ?? ByteStreamError.notAudio(name: url.absoluteString, reason: "no stream in the playlist could be opened")
    }

    static func readAll(_ stream: any ByteStream, limit: Int) throws -> Data {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while data.count < limit {
            let n = try chunk.withUnsafeMutableBytes { try stream.read(into: $0) }
            if n == 0 { break }
            data.append(contentsOf: chunk[0..<n])
        }
        return data
    }
}
