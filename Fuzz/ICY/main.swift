import Foundation

/// Fuzz target: the SHOUTcast/Icecast in-band metadata demuxer (`ICYDemuxer`) and its `StreamTitle` parser. The
/// first two bytes give the metadata interval (1...4096), the third the size of each read; the rest is the body.
/// Fed in those pieces or all at once, the audio and the titles must be the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 3 else { return 0 }
    let interval = (Int(data[0]) << 8 | Int(data[1])) % 4096 + 1
    let piece = Int(data[2]) + 1
    let body = UnsafeRawBufferPointer(start: data + 3, count: size - 3)

    func run(pieceSize: Int) -> (audio: [UInt8], titles: [String]) {
        var demuxer = ICYDemuxer(interval: interval)
        var audio: [UInt8] = [], titles: [String] = []
        var at = 0
        while at < body.count {
            let n = min(pieceSize, body.count - at)
            demuxer.feed(UnsafeRawBufferPointer(rebasing: body[at..<at + n]), audio: { audio.append(contentsOf: $0) }, title: { titles.append($0) })
            at += n
        }
        return (audio, titles)
    }
    let pieces = run(pieceSize: piece), whole = run(pieceSize: max(1, body.count))
    precondition(pieces.audio == whole.audio, "audio differs with \(piece)-byte reads")
    precondition(pieces.titles == whole.titles, "titles differ with \(piece)-byte reads: \(pieces.titles) vs \(whole.titles)")
    precondition(whole.audio.count <= body.count, "more audio than input")
    _ = ICYDemuxer.title(in: Array(body))
    return 0
}
