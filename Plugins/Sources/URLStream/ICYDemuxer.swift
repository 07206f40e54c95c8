import Foundation

/// Splits a SHOUTcast/Icecast response into audio and in-band metadata: after every `interval` audio bytes comes
/// one length byte (×16) and that many bytes of `StreamTitle='…';StreamUrl='…';` padded with zeros.
struct ICYDemuxer {
    let interval: Int
    private var untilMeta: Int
    private var metaLeft = -1          // -1: the next byte is a length byte (when untilMeta is 0)
    private var meta: [UInt8] = []

    init(interval: Int) {
        self.interval = interval
        untilMeta = interval
    }

    /// Feeds bytes; audio goes to `audio`, each complete metadata block's title (when it has one) to `title`.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, audio: (UnsafeRawBufferPointer) -> Void, title: (String) -> Void) {
        var at = 0
        while at < bytes.count {
            if untilMeta > 0 {
                let n = min(untilMeta, bytes.count - at)
                audio(UnsafeRawBufferPointer(rebasing: bytes[at..<at + n]))
                untilMeta -= n
                at += n
            } else if metaLeft < 0 {
                metaLeft = Int(bytes[at]) * 16
                at += 1
                meta.removeAll(keepingCapacity: true)
                if metaLeft == 0 { untilMeta = interval; metaLeft = -1 }
            } else {
                let n = min(metaLeft, bytes.count - at)
                meta.append(contentsOf: bytes[at..<at + n])
                metaLeft -= n
                at += n
                if metaLeft == 0 {
                    if let text = Self.title(in: meta) { title(text) }
                    untilMeta = interval
                    metaLeft = -1
                }
            }
        }
    }

    /// `StreamTitle='…';` from a metadata block; UTF-8, else Latin-1 (older servers).
    static func title(in block: [UInt8]) -> String? {
        let bytes = Array(block.prefix { $0 != 0 })
        let text = String(bytes: bytes, encoding: .utf8) ?? String(bytes: bytes, encoding: .isoLatin1) ?? ""
        guard let start = text.range(of: "StreamTitle='") else { return nil }
        let rest = text[start.upperBound...]
        let end = rest.range(of: "';")?.lowerBound ?? rest.lastIndex(of: "'") ?? rest.endIndex
        return String(rest[..<end]).trimmingCharacters(in: .whitespaces)
    }
}
