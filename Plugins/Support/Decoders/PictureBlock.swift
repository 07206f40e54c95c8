public import CrateDomain
public import Foundation

/// The FLAC PICTURE block, which Ogg files also carry base64-encoded in a METADATA_BLOCK_PICTURE comment.
/// Layout, big-endian: type, MIME length, MIME, description length, description, width, height, depth,
/// colours, data length, data. Every length is checked against the bytes left, so a damaged block gives
/// nil, never a crash or a huge allocation; the image is copied once, straight into its own `Data`.
public enum PictureBlock {
    /// The ID3v2/FLAC picture type "Cover (front)".
    public static let frontCover: UInt32 = 3

    /// Longest METADATA_BLOCK_PICTURE value decoders look at: the base64 of a largest picture plus 64 KiB of
    /// MIME type and description. Longer ones are skipped unread (opusfile would decode them whole first).
    public static let maximumBase64Length = (EmbeddedPicture.maximumBytes + (64 << 10) + 2) / 3 * 4

    /// The picture in a binary block, or nil when the block is damaged or the picture is not a usable
    /// JPEG/PNG (see `EmbeddedPicture.init?(copying:)`).
    public static func parse(_ data: Data) -> (type: UInt32, picture: EmbeddedPicture)? {
        parse(DataBytes(data: data))
    }

    /// The picture in a METADATA_BLOCK_PICTURE comment, given with or without its "METADATA_BLOCK_PICTURE=" key.
    public static func fromBase64Comment(_ text: String) -> (type: UInt32, picture: EmbeddedPicture)? {
        var text = text
        // Native strings are contiguous UTF-8 already; this copies only a bridged one.
        return text.withUTF8 { fromBase64Comment(UnsafeRawBufferPointer($0)) }
    }

    /// Same, reading the comment where the codec library keeps it, so the base64 text is not copied.
    public static func fromBase64Comment(_ bytes: UnsafeRawBufferPointer) -> (type: UInt32, picture: EmbeddedPicture)? {
        // The fields the parser skips are checked too: a bad character anywhere means a damaged comment.
        guard let source = Base64Bytes(value(ofComment: bytes) ?? bytes), source.isWellFormed else { return nil }
        return parse(source)
    }

    /// The picture type of a METADATA_BLOCK_PICTURE comment (key optional), from its first 8 characters:
    /// enough to choose between pictures without decoding any of them.
    public static func type(ofBase64Comment bytes: UnsafeRawBufferPointer) -> UInt32? {
        guard let source = Base64Bytes(value(ofComment: bytes) ?? bytes) else { return nil }
        var reader = Reader(source: source)
        return reader.u32()
    }

    /// The value of a "METADATA_BLOCK_PICTURE=..." comment (the key in any case), nil for any other comment.
    public static func value(ofComment bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        let key = "METADATA_BLOCK_PICTURE=".utf8
        guard bytes.count >= key.count,
              zip(bytes, key).allSatisfy({ a, k in a == k || (k >= 0x41 && k <= 0x5A && a == k | 0x20) })
        else { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[key.count...])
    }

    private static func parse(_ source: some ByteSource) -> (type: UInt32, picture: EmbeddedPicture)? {
        var reader = Reader(source: source)
        guard let type = reader.u32(),
              let mimeLength = reader.u32(), reader.skip(Int(mimeLength)),
              let descriptionLength = reader.u32(), reader.skip(Int(descriptionLength)),
              reader.skip(16),  // width, height, depth, colours: the image itself is the authority
              let dataLength = reader.u32().map(Int.init), dataLength <= reader.remaining,
              let picture = reader.picture(count: dataLength)
        else { return nil }
        return (type, picture)
    }

    /// Reads fields in order from a `ByteSource`, refusing any read past its end.
    private struct Reader<Source: ByteSource> {
        let source: Source
        var offset = 0

        var remaining: Int { source.count - offset }

        mutating func u32() -> UInt32? {
            guard remaining >= 4 else { return nil }
            var value: UInt32 = 0
            let ok = withUnsafeMutableBytes(of: &value) { source.copy(offset..<offset + 4, into: $0) }
            offset += 4
            return ok ? UInt32(bigEndian: value) : nil
        }

        mutating func skip(_ count: Int) -> Bool {
            guard count >= 0, count <= remaining else { return false }
            offset += count
            return true
        }

        /// Checks the size and the magic bytes before allocating anything the size of the picture.
        func picture(count: Int) -> EmbeddedPicture? {
            guard count > 0, count <= EmbeddedPicture.maximumBytes, count <= remaining else { return nil }
            var head = Data(count: min(8, count))
            guard head.withUnsafeMutableBytes({ source.copy(offset..<offset + $0.count, into: $0) }),
                  let mimeType = EmbeddedPicture.sniffMIMEType(head) else { return nil }
            var data = Data(count: count)
            guard data.withUnsafeMutableBytes({ source.copy(offset..<offset + count, into: $0) }) else { return nil }
            return EmbeddedPicture(data: data, mimeType: mimeType)
        }
    }
}

extension EmbeddedPicture {
    /// A copy of `bytes` when they are a JPEG or PNG no larger than `maximumBytes`, else nil. The type
    /// comes from the bytes: a tag's own MIME type is often missing or wrong. For decoders reading a
    /// picture that their codec library holds.
    public init?(copying bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty, bytes.count <= Self.maximumBytes,
              let mimeType = Self.sniffMIMEType(Data(UnsafeRawBufferPointer(rebasing: bytes.prefix(8))))
        else { return nil }
        self.init(data: Data(bytes), mimeType: mimeType)
    }
}

/// Picks a file's cover from its pictures in file order: the first usable front cover, else the first
/// usable picture. `consider` asks for the bytes only when they could change the choice, so a decoder
/// copies (or base64-decodes) no picture it then drops, and can stop looking once `isSettled`.
public struct CoverChoice: Sendable {
    public private(set) var picture: EmbeddedPicture?
    /// A front cover was found: no later picture can replace it.
    public private(set) var isSettled = false

    public init() {}

    /// Whether a picture of `type` would be taken if usable.
    public func wants(type: UInt32) -> Bool {
        !isSettled && (type == PictureBlock.frontCover || picture == nil)
    }

    /// Offers a picture of `type`; `make` returns it, or nil when it is damaged or not a usable image.
    public mutating func consider(type: UInt32, _ make: () -> EmbeddedPicture?) {
        guard wants(type: type), let candidate = make() else { return }
        picture = candidate
        isSettled = type == PictureBlock.frontCover
    }
}

/// Bytes read by range, so a block's fields can be read without holding all of it decoded.
private protocol ByteSource {
    var count: Int { get }
    /// Copies `range` (inside `0..<count`) into `out` (exactly that size); false when the bytes are invalid.
    func copy(_ range: Range<Int>, into out: UnsafeMutableRawBufferPointer) -> Bool
}

private struct DataBytes: ByteSource {
    let data: Data
    var count: Int { data.count }

    func copy(_ range: Range<Int>, into out: UnsafeMutableRawBufferPointer) -> Bool {
        // `data` may be a slice whose indices do not start at 0.
        let start = data.startIndex + range.lowerBound
        data.copyBytes(to: out.bindMemory(to: UInt8.self), from: start..<start + range.count)
        return true
    }
}

/// Base64 text seen as the bytes it encodes. Decoded byte i lies in the 4-character group i / 3, so any
/// range decodes without the text before it: the header costs a few groups, the image goes straight to
/// its buffer. Padding is optional; a character outside the alphabet makes the read fail.
private struct Base64Bytes: ByteSource {
    let text: UnsafeRawBufferPointer
    let count: Int

    init?(_ text: UnsafeRawBufferPointer) {
        var length = text.count
        // At most two "=" of padding, and only at the end.
        for _ in 0..<2 where length > 0 && text[length - 1] == UInt8(ascii: "=") { length -= 1 }
        // One leftover character cannot encode a byte.
        guard length % 4 != 1 else { return nil }
        self.text = UnsafeRawBufferPointer(rebasing: text[0..<length])
        count = length / 4 * 3 + max(0, length % 4 - 1)
    }

    /// Every character is in the alphabet.
    var isWellFormed: Bool {
        let alphabet = Self.alphabet
        return text.allSatisfy { alphabet[Int($0)] != 0xFF }
    }

    func copy(_ range: Range<Int>, into out: UnsafeMutableRawBufferPointer) -> Bool {
        let alphabet = Self.alphabet
        var position = range.lowerBound, written = 0
        while position < range.upperBound {
            let group = position / 3
            let first = group * 4, end = min(first + 4, text.count)
            var bits: UInt32 = 0
            for i in first..<end {
                let value = alphabet[Int(text[i])]
                guard value != 0xFF else { return false }
                bits = bits << 6 | UInt32(value)
            }
            bits <<= 6 * UInt32(first + 4 - end)  // a short last group: as if padded with zero bits
            let skip = position - group * 3
            let take = min(3 - skip, range.upperBound - position)
            for k in 0..<take {
                out[written + k] = UInt8(truncatingIfNeeded: bits >> (16 - 8 * UInt32(skip + k)))
            }
            position += take
            written += take
        }
        return true
    }

    /// Character -> 6-bit value; 0xFF marks characters outside the alphabet.
    static let alphabet: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }()
}
