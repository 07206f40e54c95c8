import Foundation

/// A request line as MPD reads it: words separated by blanks; a word in double quotes may hold blanks, and inside
/// it a backslash takes the next character literally (`\"`, `\\`).
enum MPDArguments {
    /// Works on the line's bytes, as MPD does: a combining mark after a quote (a grapheme cluster with it, for
    /// Swift's `Character`) must not hide the quote (found by Fuzz/MPDCommandLine).
    static func split(_ line: Substring) throws(MPDError) -> [String] {
        let bytes = Array(line.utf8)
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")
        var words: [String] = []
        var index = 0
        while true {
            while index < bytes.count, bytes[index] == space || bytes[index] == tab { index += 1 }
            guard index < bytes.count else { return words }
            var word: [UInt8] = []
            if bytes[index] == quote {
                index += 1
                var closed = false
                while index < bytes.count {
                    var c = bytes[index]
                    index += 1
                    if c == quote {
                        closed = true
                        break
                    }
                    if c == backslash {
                        guard index < bytes.count else { break }
                        c = bytes[index]
                        index += 1
                    }
                    word.append(c)
                }
                guard closed else { throw MPDError(.unknown, "Missing closing '\"'") }
                if index < bytes.count, bytes[index] != space, bytes[index] != tab {
                    throw MPDError(.unknown, "Space expected after closing '\"'")
                }
            } else {
                while index < bytes.count, bytes[index] != space, bytes[index] != tab {
                    word.append(bytes[index])
                    index += 1
                }
            }
            words.append(String(decoding: word, as: UTF8.self))
        }
    }

    /// A value as a response line may carry it: newlines would end the line, so they become spaces.
    static func value(_ text: String) -> String {
        text.contains("\n") ? text.replacingOccurrences(of: "\n", with: " ") : text
    }
}
