public import Foundation

/// A picture stored inside an audio file's tags (ID3 APIC, FLAC PICTURE, METADATA_BLOCK_PICTURE).
/// Decoders return the front cover when the file marks one, else the first picture.
public struct EmbeddedPicture: Sendable, Hashable {
    public var data: Data
    /// "image/jpeg" or "image/png"; taken from the bytes when the tag's own MIME type is missing or wrong.
    public var mimeType: String

    public init(data: Data, mimeType: String) {
        self.data = data
        self.mimeType = mimeType
    }

    /// The image type the bytes start with, or nil when they are not an image Crate shows.
    public static func sniffMIMEType(_ data: Data) -> String? {
        if data.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        return nil
    }

    /// Pictures larger than this are not artwork but damage or abuse; they are ignored.
    public static let maximumBytes = 16 << 20

    /// The file suffix for a MIME type Crate stores.
    public static func suffix(forMIMEType mime: String) -> String {
        mime == "image/png" ? "png" : "jpg"
    }
}
