import CrateDomain
import CrateTestSupport
import Foundation
@testable import StreamOutput
import Testing

/// The stream output's parts: the Ogg Opus encoder (real libopus and libogg), the broadcast's listeners, the
/// station's silence while nothing plays. The whole output, decoded by ffmpeg and heard by many listeners, is tested
/// against a real crated in Tests/Integration/test_stream_output.py.
/// `.promptly`: the silence test waits on the station's thread and its own listener while other suites may hold the
/// default pool's threads.
@Suite(.promptly) struct StreamOutputTests {
    /// One Ogg page as read back from the bytes.
    struct Page {
        var flags: UInt8
        var granule: Int64
        var serial: UInt32
        var body: Data
        var beginsStream: Bool { flags & 2 != 0 }
        var endsStream: Bool { flags & 4 != 0 }
    }

    static func pages(_ data: Data) -> [Page] {
        let bytes = [UInt8](data)
        var pages: [Page] = [], i = 0
        while i + 27 <= bytes.count, bytes[i..<i + 4] == [0x4F, 0x67, 0x67, 0x53] {
            func le(_ at: Int, _ n: Int) -> UInt64 { (0..<n).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) } }
            let segments = Int(bytes[i + 26])
            let length = bytes[(i + 27)..<(i + 27 + segments)].reduce(0) { $0 + Int($1) }
            let start = i + 27 + segments
            pages.append(Page(flags: bytes[i + 5], granule: Int64(bitPattern: le(i + 6, 8)), serial: UInt32(le(i + 14, 4)),
                              body: Data(bytes[start..<start + length])))
            i = start + length
        }
        #expect(i == bytes.count, "the bytes are whole Ogg pages")
        return pages
    }

    static func tone(seconds: Double, rate: Int = 48_000, frequency: Double = 440) -> [Float] {
        (0..<Int(seconds * Double(rate))).flatMap { n -> [Float] in
            let v = Float(0.3 * sin(2 * Double.pi * frequency * Double(n) / Double(rate)))
            return [v, v]
        }
    }

    static func bytes(_ out: [OggOpusEncoder.Output]) -> Data {
        out.reduce(into: Data()) { data, piece in
            switch piece {
            case .headers(let b), .pages(let b): data.append(b)
            }
        }
    }

    @Test func eachTrackIsAChainedStreamNamedByItsTags() throws {
        let encoder = try OggOpusEncoder(bitRate: 96)
        encoder.announce(NowPlayingTags(title: "First", artist: "Band", album: "Record"))
        var out = try Self.tone(seconds: 1).withUnsafeBufferPointer { try encoder.encode($0) }
        encoder.announce(NowPlayingTags(title: "Second", artist: "Band", album: "Record"))
        out += try Self.tone(seconds: 1).withUnsafeBufferPointer { try encoder.encode($0) }
        guard case .headers = out.first else { Issue.record("the stream starts with its headers"); return }
        #expect(out.filter { if case .headers = $0 { true } else { false } }.count == 2)

        let pages = Self.pages(Self.bytes(out))
        let serials = pages.map(\.serial).reduce(into: [UInt32]()) { if $0.last != $1 { $0.append($1) } }
        #expect(serials.count == 2 && serials[0] != serials[1], "two chained streams")
        for serial in serials {
            let stream = pages.filter { $0.serial == serial }
            #expect(stream.first?.beginsStream == true && String(decoding: stream[0].body.prefix(8), as: UTF8.self) == "OpusHead")
            #expect(String(decoding: stream[1].body.prefix(8), as: UTF8.self) == "OpusTags")
            let audio = stream.dropFirst(2).map(\.granule)
            #expect(audio == audio.sorted() && audio.allSatisfy { $0 > 0 }, "granule positions rise")
        }
        let tags = pages.filter { $0.body.starts(with: Data("OpusTags".utf8)) }.map { String(decoding: $0.body, as: UTF8.self) }
        #expect(tags[0].contains("TITLE=First") && tags[0].contains("ARTIST=Band") && tags[0].contains("ALBUM=Record"))
        #expect(tags[1].contains("TITLE=Second"))
        // The first stream ends (EOS) before the second begins; 1 s of 48 kHz is 50 frames of 960.
        let first = pages.filter { $0.serial == serials[0] }
        #expect(first.last?.endsStream == true && first.last?.granule == 51 * 960)
    }

    @Test func aListenerJoiningLateGetsTheHeadersFirstThenPagesFromNow() async throws {
        let broadcast = Broadcast(path: "/s", contentType: "audio/ogg", lagLimit: 1000, maxListeners: 2)
        let early = try #require(broadcast.listen())
        broadcast.begin(headers: Data("HEAD".utf8))
        broadcast.send(Data("one".utf8))
        let late = try #require(broadcast.listen())
        broadcast.send(Data("two".utf8))
        #expect(await early.next() == Data("HEADonetwo".utf8))
        #expect(await late.next() == Data("HEADtwo".utf8))
        #expect(broadcast.listen() == nil, "two listeners at most")
        late.close()
        #expect(broadcast.listenerCount == 1 && broadcast.listen() != nil)
    }

    @Test func aListenerThatFallsBehindIsLetGoAndTheOthersGoOn() async throws {
        let broadcast = Broadcast(path: "/s", contentType: "audio/ogg", lagLimit: 100, maxListeners: 10)
        let slow = try #require(broadcast.listen()), fast = try #require(broadcast.listen())
        for _ in 0..<5 {
            broadcast.send(Data(repeating: 1, count: 30))
            #expect(await fast.next()?.count == 30)
        }
        #expect(slow.endReason?.contains("fell behind") == true)
        #expect(await slow.next() == nil && broadcast.listenerCount == 1)
    }

    @Test func finishingEndsEveryListenerAndSaysWhy() async throws {
        let broadcast = Broadcast(path: "/s", contentType: "audio/ogg", lagLimit: 100, maxListeners: 10)
        let one = try #require(broadcast.listen()), two = try #require(broadcast.listen())
        async let oneEnded: Void = one.ended()
        broadcast.finish("switched off")
        await oneEnded
        await two.ended()
        #expect(await one.next() == nil && one.endReason == "switched off" && !one.fellBehind && two.endReason == "switched off")
        #expect(broadcast.listenerCount == 0)
    }

    @Test func whileNothingPlaysListenersHearSilence() async throws {
        let plugin = StreamOutputPlugin(bitRate: 64)
        let output = try plugin.makeOutput()
        try output.open(PCMFormat(sampleRate: 44100, channels: 1))
        let listener = try #require(plugin.broadcast.listen())
        output.nowPlaying(NowPlayingTags(title: "Mono"))
        try Self.tone(seconds: 0.5, rate: 44100).enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
            .withUnsafeBufferPointer { try output.write($0) }
        // Then no more music: the station's silence keeps the stream going (bounded: at most 100 reads).
        var received = Data()
        for _ in 0..<100 where Self.pages(received).count(where: { $0.granule > 48_000 }) == 0 {
            guard let more = await listener.next() else { break }
            received.append(more)
        }
        let pages = Self.pages(received)
        #expect(pages.contains { $0.granule > 48_000 }, "more than a second of stream from half a second of music")
        let tags = pages.first { $0.body.starts(with: Data("OpusTags".utf8)) }.map { String(decoding: $0.body, as: UTF8.self) } ?? ""
        #expect(tags.contains("TITLE=Mono"))
        listener.close()
    }
}
