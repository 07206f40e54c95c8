import CrateDomain
import Foundation

/// Fuzz target: the ID3v2 tag of a WAV file's `id3 ` chunk (2.2/2.3/2.4 headers, extended header,
/// unsynchronisation, text frames, TXXX, USLT) and the TagMapper fields it fills, fed directly (the WAV target
/// reaches it too, but only through a valid RIFF walk).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var mapper = TagMapper()
    ID3Chunk.read(bytes, into: &mapper)
    _ = String(describing: mapper.tags)
    return 0
}
