import Foundation

/// A request line as MPD reads it: words separated by blanks; a word in double quotes may hold blanks, and inside
/// it a backslash takes the next character literally (`\"`, `\\`).
enum MPDArguments {
    static func split(_ line: Substring) throws(MPDError) -> [String] {
        var words: [String] = []
        var index = line.startIndex
        while true {
            while index < line.endIndex, line[index] == " " || line[index] == "\t" { index = line.index(after: index) }
            guard index < line.endIndex else { return words }
            var word = ""
            if line[index] == "\"" {
                index = line.index(after: index)
                var closed = false
                while index < line.endIndex {
                    var c = line[index]
                    index = line.index(after: index)
                    if c == "\"" {
                        closed = true
                        break
                    }
                    if c == "\\" {
                        guard index < line.endIndex else { break }
                        c = line[index]
                        index = line.index(after: index)
                    }
                    word.append(c)
                }
                guard closed else { throw MPDError(.unknown, "Missing closing '\"'") }
                if index < line.endIndex, line[index] != " ", line[index] != "\t" {
                    throw MPDError(.unknown, "Space expected after closing '\"'")
                }
            } else {
                while index < line.endIndex, line[index] != " ", line[index] != "\t" {
                    word.append(line[index])
                    index = line.index(after: index)
                }
            }
            words.append(word)
        }
    }

    /// A value as a response line may carry it: newlines would end the line, so they become spaces.
    static func value(_ text: String) -> String {
        text.contains("\n") ? text.replacingOccurrences(of: "\n", with: " ") : text
    }
}
