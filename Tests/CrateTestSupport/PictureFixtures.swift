public import CrateDomain
public import Foundation

/// Real cover pictures for tests and the ways of putting them into audio files: ffmpeg attaches them to
/// FLAC and MP3; for Ogg, whose METADATA_BLOCK_PICTURE comments this ffmpeg (5.1) cannot write, more than
/// one per key in any case, `addOggComments` rewrites the comment header itself.
public enum PictureFixture {
    /// ID3v2 / FLAC picture type names, as ffmpeg reads them from a picture stream's "comment".
    public static let frontCover = "Cover (front)"
    public static let backCover = "Cover (back)"

    /// A 64x64 JPEG made by ffmpeg.
    public static func jpeg(in dir: URL, color: String = "red", name: String = "cover.jpg") throws -> URL {
        try image(in: dir, color: color, size: "64x64", name: name)
    }

    /// A detailed 1600x1200 JPEG of about 100 KB, as real covers are: its base64 fills more than one Ogg page.
    public static func largeJPEG(in dir: URL, name: String = "large.jpg") throws -> URL {
        let url = dir.appendingPathComponent(name)
        try Fixture.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=1600x1200",
                                   "-frames:v", "1", "-q:v", "1", url.path])
        return url
    }

    /// A 32x32 PNG made by ffmpeg.
    public static func png(in dir: URL, color: String = "blue", name: String = "cover.png") throws -> URL {
        try image(in: dir, color: color, size: "32x32", name: name)
    }

    /// A one-colour picture of `size` (`WxH`) made by ffmpeg, in the format `name` ends with.
    public static func image(in dir: URL, color: String, size: String, name: String) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try Fixture.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=c=\(color):s=\(size)",
                                   "-frames:v", "1", url.path])
        return url
    }

    /// Encodes the test sine as `codec` (FLAC or MP3) with `tags` and `pictures` attached in this order,
    /// each with its picture type name (`frontCover`, `backCover`, ...). The image bytes are copied as they are.
    @discardableResult
    public static func encode(_ codec: Fixture.Codec, to url: URL, frames: Int = 20_000, tags: [String: String],
                              pictures: [(file: URL, type: String)]) throws -> URL {
        let source = url.deletingLastPathComponent().appendingPathComponent(".src-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: source) }
        try Fixture.writeWAV(Fixture.sine(frames: frames), sampleRate: 44100, channels: 2, to: source)
        var args = ["-hide_banner", "-loglevel", "error", "-y", "-i", source.path]
        for picture in pictures { args += ["-i", picture.file.path] }
        args += ["-map", "0:a"]
        for i in pictures.indices { args += ["-map", "\(i + 1):v"] }
        args += ["-map_metadata", "-1"] + codec.ffmpegArguments + ["-c:v", "copy", "-disposition:v", "attached_pic"]
        for (i, picture) in pictures.enumerated() { args += ["-metadata:s:v:\(i)", "comment=\(picture.type)"] }
        for (k, v) in tags.sorted(by: { $0.key < $1.key }) { args += ["-metadata", "\(k)=\(v)"] }
        args.append(url.path)
        try Fixture.run("ffmpeg", args)
        return url
    }

    /// A FLAC PICTURE block (big-endian fields) holding `data`; `dataLength` overrides the declared length.
    public static func block(type: UInt32 = 3, mimeType: String, description: String = "", data: Data,
                             dataLength: UInt32? = nil) -> Data {
        var block = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.bigEndian) { block.append(contentsOf: $0) } }
        u32(type)
        u32(UInt32(mimeType.utf8.count)); block.append(contentsOf: Array(mimeType.utf8))
        u32(UInt32(description.utf8.count)); block.append(contentsOf: Array(description.utf8))
        u32(64); u32(64); u32(24); u32(0)  // width, height, depth, colours
        u32(dataLength ?? UInt32(data.count))
        block.append(data)
        return block
    }

    /// The comment an Ogg file carries a picture block in.
    public static func oggComment(_ block: Data) -> String {
        "METADATA_BLOCK_PICTURE=" + block.base64EncodedString()
    }

    /// Replaces the first occurrence of `old` in the file with `new` (same length), for damaging a picture in place.
    public static func patch(_ url: URL, replacing old: Data, with new: Data) throws {
        var data = try Data(contentsOf: url)
        guard old.count == new.count, let range = data.range(of: old) else {
            throw Fixture.ToolError(description: "\(url.lastPathComponent): the bytes to patch are not there, or the patch changes the length")
        }
        data.replaceSubrange(range, with: new)
        try data.write(to: url)
    }
}

// MARK: - Ogg picture cases

/// One way of carrying pictures in METADATA_BLOCK_PICTURE comments, and the picture a decoder must find;
/// shared by the Vorbis and Opus tests. Built from a real JPEG and PNG.
public struct OggPictureCase: Sendable, CustomStringConvertible {
    public let description: String
    public let comments: @Sendable (_ jpeg: Data, _ png: Data) -> [String]
    public let expected: @Sendable (_ jpeg: Data, _ png: Data) -> EmbeddedPicture?

    public static let all: [OggPictureCase] = {
        typealias P = PictureFixture
        @Sendable func jpeg(_ data: Data) -> EmbeddedPicture { EmbeddedPicture(data: data, mimeType: "image/jpeg") }
        @Sendable func png(_ data: Data) -> EmbeddedPicture { EmbeddedPicture(data: data, mimeType: "image/png") }
        let noise = DecoderChecks.randomBytes(count: 300, seed: 7)
        return [
            .init(description: "no picture", comments: { _, _ in [] }, expected: { _, _ in nil }),
            .init(description: "JPEG front cover", comments: { j, _ in [P.oggComment(P.block(mimeType: "image/jpeg", data: j))] },
                  expected: { j, _ in jpeg(j) }),
            .init(description: "PNG front cover", comments: { _, p in [P.oggComment(P.block(mimeType: "image/png", data: p))] },
                  expected: { _, p in png(p) }),
            .init(description: "front cover after a back cover",
                  comments: { j, p in [P.oggComment(P.block(type: 4, mimeType: "image/png", data: p)),
                                       P.oggComment(P.block(type: 3, mimeType: "image/jpeg", data: j))] },
                  expected: { j, _ in jpeg(j) }),
            .init(description: "front cover before a back cover",
                  comments: { j, p in [P.oggComment(P.block(type: 3, mimeType: "image/png", data: p)),
                                       P.oggComment(P.block(type: 4, mimeType: "image/jpeg", data: j))] },
                  expected: { _, p in png(p) }),
            .init(description: "no front cover: the first picture",
                  comments: { j, p in [P.oggComment(P.block(type: 5, mimeType: "image/jpeg", data: j)),
                                       P.oggComment(P.block(type: 4, mimeType: "image/png", data: p))] },
                  expected: { j, _ in jpeg(j) }),
            .init(description: "wrong MIME type in the tag: the bytes decide",
                  comments: { _, p in [P.oggComment(P.block(mimeType: "image/jpeg", data: p))] }, expected: { _, p in png(p) }),
            .init(description: "lower-case key",
                  comments: { j, _ in ["metadata_block_picture=" + P.block(mimeType: "image/jpeg", data: j).base64EncodedString()] },
                  expected: { j, _ in jpeg(j) }),
            .init(description: "not base64", comments: { _, _ in ["METADATA_BLOCK_PICTURE=this is not base64!"] },
                  expected: { _, _ in nil }),
            .init(description: "cut block", comments: { j, _ in
                let block = P.block(mimeType: "image/jpeg", data: j)
                return [P.oggComment(block.prefix(block.count / 2))]
            }, expected: { _, _ in nil }),
            .init(description: "data length past the end",
                  comments: { j, _ in [P.oggComment(P.block(mimeType: "image/jpeg", data: j, dataLength: UInt32(j.count + 1000)))] },
                  expected: { _, _ in nil }),
            .init(description: "huge data length",
                  comments: { j, _ in [P.oggComment(P.block(mimeType: "image/jpeg", data: j, dataLength: 0xFFFF_FFF0))] },
                  expected: { _, _ in nil }),
            .init(description: "huge MIME length", comments: { j, _ in
                var block = P.block(mimeType: "image/jpeg", data: j)
                block.replaceSubrange(4..<8, with: [0xFF, 0xFF, 0xFF, 0x00])
                return [P.oggComment(block)]
            }, expected: { _, _ in nil }),
            .init(description: "not an image", comments: { _, _ in [P.oggComment(P.block(mimeType: "image/jpeg", data: noise))] },
                  expected: { _, _ in nil }),
            .init(description: "a URL instead of a picture", comments: { _, _ in
                [P.oggComment(P.block(mimeType: "-->", data: Data("http://example.com/cover.jpg".utf8)))]
            }, expected: { _, _ in nil }),
            .init(description: "damaged front cover, good back cover",
                  comments: { j, p in [P.oggComment(P.block(type: 3, mimeType: "image/jpeg", data: j).prefix(40)),
                                       P.oggComment(P.block(type: 4, mimeType: "image/png", data: p))] },
                  expected: { _, p in png(p) }),
        ]
    }()
}

// MARK: - Ogg comment header rewriting

extension PictureFixture {
    private struct Page {
        var flags: UInt8
        var granule: UInt64
        var serial: UInt32
        var lacing: [UInt8]
        var body: [UInt8]
    }

    /// Appends `comments` to the comment header of an Ogg Vorbis or Opus file (one logical stream, as ffmpeg
    /// writes), keeping the existing ones: the header packets are paged again and every later page is
    /// renumbered, with its checksum, as libogg would have written them.
    public static func addOggComments(_ comments: [String], to url: URL) throws {
        func failure(_ what: String) -> Fixture.ToolError { Fixture.ToolError(description: "\(url.lastPathComponent): \(what)") }
        let pages = try readPages([UInt8](try Data(contentsOf: url)), failure: failure)
        guard let first = pages.first else { throw failure("no Ogg pages") }
        let isOpus = first.body.starts(with: Array("OpusHead".utf8))
        let headerCount = isOpus ? 2 : 3  // Opus: head, tags; Vorbis: identification, comment, setup

        // The header packets; audio starts on a fresh page after them.
        var packets: [[UInt8]] = [], current: [UInt8] = [], audioStart = 0
        for (index, page) in pages.enumerated() where packets.count < headerCount {
            var offset = 0
            for lace in page.lacing {
                current += page.body[offset..<offset + Int(lace)]
                offset += Int(lace)
                if lace < 255 { packets.append(current); current = [] }
            }
            audioStart = index + 1
        }
        guard packets.count == headerCount, current.isEmpty else { throw failure("unexpected header paging") }
        packets[1] = try withComments(packets[1], adding: comments, prefixLength: isOpus ? 8 : 7, failure: failure)

        // The identification header keeps its own first page; the rest are laced anew, 255 segments a page.
        var output: [Page] = [pages[0]]
        var segments: [(lace: UInt8, bytes: ArraySlice<UInt8>, continues: Bool)] = []
        for packet in packets.dropFirst() {
            var offset = 0
            repeat {
                let size = min(255, packet.count - offset)
                segments.append((UInt8(size), packet[offset..<offset + size], offset > 0))
                offset += size
                if size < 255 { break }
            } while true
        }
        while !segments.isEmpty {
            let chunk = segments.prefix(255)
            segments.removeFirst(chunk.count)
            output.append(Page(flags: chunk[chunk.startIndex].continues ? 0x01 : 0, granule: 0, serial: first.serial,
                               lacing: chunk.map(\.lace), body: chunk.flatMap(\.bytes)))
        }
        output += pages[audioStart...]

        var data = Data()
        for (sequence, page) in output.enumerated() { data.append(contentsOf: serialize(page, sequence: UInt32(sequence))) }
        try data.write(to: url)
    }

    private static func readPages(_ bytes: [UInt8], failure: (String) -> Fixture.ToolError) throws -> [Page] {
        func le<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T {
            (0..<MemoryLayout<T>.size).reduce(T(0)) { $0 | T(bytes[offset + $1]) << (8 * $1) }
        }
        var pages: [Page] = [], offset = 0
        while offset < bytes.count {
            guard offset + 27 <= bytes.count, bytes[offset..<offset + 4].elementsEqual("OggS".utf8) else {
                throw failure("no Ogg page at byte \(offset)")
            }
            let count = Int(bytes[offset + 26])
            let lacing = Array(bytes[offset + 27..<offset + 27 + count])
            let bodyStart = offset + 27 + count, bodyEnd = bodyStart + lacing.reduce(0) { $0 + Int($1) }
            guard bodyEnd <= bytes.count else { throw failure("cut Ogg page at byte \(offset)") }
            pages.append(Page(flags: bytes[offset + 5], granule: le(offset + 6, UInt64.self), serial: le(offset + 14, UInt32.self),
                              lacing: lacing, body: Array(bytes[bodyStart..<bodyEnd])))
            offset = bodyEnd
        }
        return pages
    }

    private static func serialize(_ page: Page, sequence: UInt32) -> [UInt8] {
        var out = Array("OggS".utf8) + [0, page.flags]
        func le<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        le(page.granule); le(page.serial); le(sequence); le(UInt32(0))
        out.append(UInt8(page.lacing.count))
        out += page.lacing + page.body
        let crc = oggCRC(out)
        withUnsafeBytes(of: crc.littleEndian) { out.replaceSubrange(22..<26, with: $0) }
        return out
    }

    /// Ogg's CRC-32: polynomial 0x04C11DB7, most significant bit first, no reflection, initial value 0.
    private static func oggCRC(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        for byte in bytes {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        return crc
    }

    /// The comment packet (Vorbis: 0x03 "vorbis"; Opus: "OpusTags") with `comments` after the existing ones;
    /// what follows the list (Vorbis' framing bit, Opus' optional binary data) is kept.
    private static func withComments(_ packet: [UInt8], adding comments: [String], prefixLength: Int,
                                     failure: (String) -> Fixture.ToolError) throws -> [UInt8] {
        func u32(_ offset: Int) throws -> Int {
            guard offset + 4 <= packet.count else { throw failure("cut comment header") }
            return (0..<4).reduce(0) { $0 | Int(packet[offset + $1]) << (8 * $1) }
        }
        let countOffset = prefixLength + 4 + (try u32(prefixLength))
        let count = try u32(countOffset)
        var end = countOffset + 4
        for _ in 0..<count { end += 4 + (try u32(end)) }
        guard end <= packet.count else { throw failure("cut comment header") }
        func le32(_ v: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(v).littleEndian) { Array($0) } }
        var out = Array(packet[..<countOffset]) + le32(count + comments.count) + packet[(countOffset + 4)..<end]
        for comment in comments { out += le32(comment.utf8.count) + Array(comment.utf8) }
        return out + packet[end...]
    }
}
