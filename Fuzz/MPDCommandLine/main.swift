import Foundation

/// Fuzz target: the MPD front end's request-line tokenizer (`MPDArguments.split`: blanks, double quotes, backslash
/// escapes), the first parser every MPD client's bytes reach. A line either splits or fails with an MPD error; the
/// words it gives, quoted again, split back to the same words.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let words: [String]
    do {
        words = try MPDArguments.split(line[...])
    } catch {
        precondition(!error.message.isEmpty, "an MPD error without a message")
        precondition(error.line(command: "x", index: 0).hasPrefix("ACK ["), "an error line MPD clients cannot read")
        return 0
    }
    // Quoted byte by byte, as MPD clients do (a backslash followed by a combining mark is one Character).
    let quoted = words.map { word in
        var bytes: [UInt8] = [UInt8(ascii: "\"")]
        for byte in word.utf8 {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
            bytes.append(byte)
        }
        return String(decoding: bytes + [UInt8(ascii: "\"")], as: UTF8.self)
    }
    let again: [String]
    do { again = try MPDArguments.split(quoted.joined(separator: " ")[...]) } catch {
        preconditionFailure("the words of \(line.debugDescription), quoted again, do not split: \(error.message)")
    }
    precondition(again == words, "quoting changed the words of \(line.debugDescription): \(words) -> \(again)")
    _ = words.map(MPDArguments.value)
    return 0
}
