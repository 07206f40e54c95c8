import CrateDomain
import Foundation

/// Fuzz target: the FLAC PICTURE block (binary, as FLAC stores it) and the METADATA_BLOCK_PICTURE comment (base64,
/// as Ogg Vorbis and Opus store it) with its hand-written ranged base64 decoder, and the cover choice over them.
/// Where Foundation can decode the comment's base64 too, both readings must agree.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let raw = UnsafeRawBufferPointer(start: data, count: size)
    let binary = PictureBlock.parse(Data(raw))
    if let binary {
        precondition(binary.picture.data.count <= EmbeddedPicture.maximumBytes, "picture of \(binary.picture.data.count) bytes")
        precondition(EmbeddedPicture.sniffMIMEType(binary.picture.data) == binary.picture.mimeType, "MIME type not from the bytes")
    }
    let fromComment = PictureBlock.fromBase64Comment(raw)
    let type = PictureBlock.type(ofBase64Comment: raw)
    if let fromComment { precondition(type == fromComment.type, "type(ofBase64Comment:) \(String(describing: type)) != \(fromComment.type)") }
    // The same comment as a Swift string (the path the String overload takes).
    if let text = String(validating: raw, as: UTF8.self) {
        let viaString = PictureBlock.fromBase64Comment(text)
        precondition(viaString?.type == fromComment?.type && viaString?.picture == fromComment?.picture, "String and bytes readings differ")
    }
    // Differential: padded base64 that Foundation decodes must give what the binary parser gives for the decoded bytes.
    // (Foundation also takes a "=" inside the text, which is not base64 and which Crate refuses.)
    let value = PictureBlock.value(ofComment: raw) ?? raw
    let equals = UInt8(ascii: "=")
    let padding = value.reversed().prefix { $0 == equals }.count
    if value.count % 4 == 0, padding <= 2, !value.dropLast(padding).contains(equals),
       let decoded = Data(base64Encoded: Data(value)) {
        let reference = PictureBlock.parse(decoded)
        precondition(reference?.type == fromComment?.type && reference?.picture == fromComment?.picture,
                     "base64 reading differs from Foundation's: \(String(describing: reference?.type)) vs \(String(describing: fromComment?.type))")
    }
    var cover = CoverChoice()
    cover.consider(type: binary?.type ?? 0) { binary?.picture }
    if let type { cover.consider(type: type) { fromComment?.picture } }
    _ = cover.isSettled
    return 0
}
