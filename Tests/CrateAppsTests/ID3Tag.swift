import Foundation

/// Writes an ID3v2.4 tag with real USLT and TSOP frames in front of an MP3 (ffmpeg can only write
/// lyrics as a TXXX frame). A tag ffmpeg left at the start is replaced.
enum ID3Tag {
    static func prepend(to url: URL, texts: [(String, String)], lyrics: String) throws {
        var audio = try Data(contentsOf: url)
        if audio.starts(with: Array("ID3".utf8)), audio.count > 10 {
            audio = audio.dropFirst(10 + syncsafeValue(audio[audio.startIndex + 6..<audio.startIndex + 10]))
        }
        var frames = Data()
        for (id, text) in texts { frames += frame(id, [3] + Array(text.utf8)) }
        frames += frame("USLT", [3] + Array("eng".utf8) + [0] + Array(lyrics.utf8))
        var tag = Data("ID3".utf8) + [4, 0, 0] + syncsafe(frames.count)
        tag += frames
        try (tag + audio).write(to: url)
    }

    private static func frame(_ id: String, _ body: [UInt8]) -> Data {
        Data(id.utf8) + syncsafe(body.count) + [0, 0] + body
    }

    private static func syncsafe(_ n: Int) -> [UInt8] {
        [UInt8((n >> 21) & 0x7f), UInt8((n >> 14) & 0x7f), UInt8((n >> 7) & 0x7f), UInt8(n & 0x7f)]
    }

    private static func syncsafeValue(_ bytes: Data) -> Int {
        bytes.reduce(0) { ($0 << 7) | Int($1 & 0x7f) }
    }
}
