/// Why a picture could not be turned into a thumbnail.
public enum ArtworkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a kind of picture Crate reads; the text says what was found instead.
    case unsupportedFormat(String)
    /// A JPEG or PNG that is damaged, truncated or empty; the reason comes from the decoder where it gave one.
    case undecodable(reason: String)
    /// The header claims more pixels than Crate is willing to allocate for.
    case tooLarge(width: Int, height: Int)
    /// The requested thumbnail edge is not a positive number of pixels.
    case invalidSize(Int)
    /// The JPEG encoder failed on the scaled pixels.
    case encodingFailed(reason: String)

    /// The largest picture decoded, in pixels: 8192 x 8192, far above any real cover, far below what it
    /// takes a forged header to make the daemon allocate gigabytes.
    public static let maximumPixels = 8192 * 8192

    public var description: String {
        switch self {
        case let .unsupportedFormat(what):
            "the picture is \(what), which Crate cannot make thumbnails from (it reads JPEG and PNG)"
        case let .undecodable(reason):
            "the picture cannot be decoded: \(reason)"
        case let .tooLarge(width, height):
            "the picture claims to be \(width)x\(height) pixels; Crate refuses more than "
                + "\(Self.maximumPixels / 1_000_000) megapixels so that a forged or broken file cannot exhaust memory"
        case let .invalidSize(size):
            "a thumbnail must be at least 1 pixel wide, not \(size)"
        case let .encodingFailed(reason):
            "the thumbnail cannot be encoded as JPEG: \(reason)"
        }
    }
}
