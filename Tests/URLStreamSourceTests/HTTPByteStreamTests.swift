import CrateDomain
import CrateTestSupport
import Foundation
import Testing
@testable import URLStreamSource

/// HTTP(S) input over libcurl against a real loopback server: bytes exact, ICY titles, redirects, errors, a live
/// stream that drops, radio playlists.
@Suite(.serialized, .promptly) struct HTTPByteStreamTests {
    let server: RadioServer
    init() throws { server = try RadioServer() }

    /// Reads the stream to its end, or `limit` bytes of it (a live stream has no end: it reconnects); the metadata
    /// seen along the way, in order of generation.
    func readAll(_ stream: any ByteStream, limit: Int = .max) throws -> (Data, [StreamMetadata]) {
        var data = Data()
        var seen: [StreamMetadata] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while data.count < limit {
            let n = try chunk.withUnsafeMutableBytes { try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<min($0.count, limit - data.count)])) }
            if n == 0 { break }
            data.append(contentsOf: chunk[0..<n])
            if let m = stream.metadata, m.generation != seen.last?.generation { seen.append(m) }
        }
        return (data, seen)
    }

    @Test func icyMetadataIsTakenOutAndTitlesFollowTheStream() throws {
        let stream = try HTTPByteStream(url: server.url("/radio.mp3"))
        #expect(stream.contentType == "audio/mpeg" && stream.size == nil && !stream.isSeekable)
        let original = try server.file("file.mp3")
        let (data, titles) = try readAll(stream, limit: original.count)
        #expect(data == original, "the audio bytes differ from the file (\(data.count) bytes)")
        #expect(titles.compactMap(\.title).reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } } == ["First Song", "Second Song"])
        #expect(titles.map(\.generation) == titles.map(\.generation).sorted() && titles.first?.stationName == "Loopback Radio")
    }

    @Test(arguments: ["file.ogg", "file.opus", "file.flac", "file.mp3"])
    func filesArriveWholeAndSeek(_ name: String) throws {
        let original = try server.file(name)
        let stream = try HTTPByteStream(url: server.url("/\(name)"))
        #expect(stream.size == Int64(original.count) && stream.isSeekable)
        #expect(stream.contentType == (name.hasSuffix(".mp3") ? "audio/mpeg" : name.hasSuffix(".flac") ? "audio/flac" : "audio/ogg"))
        #expect(try readAll(stream).0 == original)
        try stream.seek(to: 1000)
        var chunk = [UInt8](repeating: 0, count: 500)
        let n = try chunk.withUnsafeMutableBytes { try stream.readFully(into: $0) }
        #expect(n == 500 && Data(chunk) == original[1000..<1500])
    }

    @Test func redirectsAreFollowed() throws {
        #expect(try readAll(try HTTPByteStream(url: server.url("/redirect"))).0 == (try server.file("file.flac")))
    }

    @Test func errorsSayWhatWentWrong() throws {
        #expect(throws: ByteStreamError.notAudio(name: server.url("/missing").absoluteString, reason: "the server answered HTTP 404")) {
            try HTTPByteStream(url: server.url("/missing"))
        }
        let page = #expect(throws: ByteStreamError.self) { try HTTPByteStream(url: server.url("/page.html")) }
        #expect(page?.description.contains("web page") == true)
        let closed = try Fixture.freePort()
        let refused = #expect(throws: ByteStreamError.self) { try HTTPByteStream(url: server.url("/x.mp3").replacingPort(closed)) }
        #expect(refused?.description.contains("cannot open") == true)
    }

    /// A server whose certificate cannot be trusted (self-signed) is refused, and the message says why.
    @Test func aTLSFailureSaysSo() throws {
        let secure = try RadioServer(tls: true)
        let error = #expect(throws: ByteStreamError.self) { try HTTPByteStream(url: secure.url("/file.mp3")) }
        #expect(error?.description.contains("certificate") == true, "\(String(describing: error))")
    }

    @Test func aLiveStreamThatDropsIsReconnected() throws {
        var config = URLStreamConfig()
        config.reconnectDelay = 0.05
        let stream = try HTTPByteStream(url: server.url("/live.mp3"), config: config)
        // 20,000 bytes from the first connection, then the whole file from the second (a live stream never ends:
        // when the second ends too it would reconnect again).
        let original = try server.file("file.mp3")
        let (data, _) = try readAll(stream, limit: 20000 + original.count)
        #expect(data == original.prefix(20000) + original, "\(data.count) bytes")
        let connections = try server.stats()["live"] ?? 0
        #expect(connections >= 2)
        #expect(stream.connections >= 2)
    }

    @Test(arguments: ["/list.pls", "/list.m3u", "/list.xspf"])
    func radioPlaylistsLeadToTheirStream(_ path: String) throws {
        let stream = try HTTPInputProvider().open(server.url(path))
        #expect(stream.name == server.url("/radio.mp3").absoluteString)
        #expect(stream.contentType == "audio/mpeg")
    }

    @Test func hlsIsRefusedClearly() throws {
        let error = #expect(throws: ByteStreamError.self) { try HTTPInputProvider().open(server.url("/hls.m3u8")) }
        #expect(error?.description.contains("HLS") == true)
    }

    @Test func icyDemuxerSplitsAcrossAnyChunking() {
        let demuxer = ICYDemuxer(interval: 4)
        let block = Array("StreamTitle='Ünïcode ';".utf8)
        let padded = block + [UInt8](repeating: 0, count: (16 - block.count % 16) % 16)
        let wire: [UInt8] = [1, 2, 3, 4, UInt8(padded.count / 16)] + padded + [5, 6, 7, 8, 0, 9]
        for size in 1...wire.count {
            var d = demuxer
            var audio: [UInt8] = []
            var titles: [String] = []
            for start in stride(from: 0, to: wire.count, by: size) {
                wire[start..<min(start + size, wire.count)].withUnsafeBytes { d.feed($0, audio: { audio += $0 }, title: { titles.append($0) }) }
            }
            #expect(audio == [1, 2, 3, 4, 5, 6, 7, 8, 9] && titles == ["Ünïcode"], "chunks of \(size)")
        }
    }
}

private extension URL {
    func replacingPort(_ port: Int) -> URL {
        var c = URLComponents(url: self, resolvingAgainstBaseURL: false)
        c?.port = port
        return c?.url ?? self
    }
}
