import Foundation

/// Fuzz target: MPD filter expressions as `find`, `search`, `list` and `count` receive them (`MPDFilter.parse`:
/// `(TAG OP 'VALUE')`, `(!…)`, `(… AND …)`, `(base '…')`, and the older TAG VALUE pairs), after the request line is
/// split as the front end splits it. A filter parses or fails with an MPD argument error; nesting is bounded.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let caseless = data[0] & 1 == 1   // search (caseless) or find
    let line = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    guard let args = try? MPDArguments.split(line[...]) else { return 0 }
    do {
        let filter = try MPDFilter.parse(args, caseless: caseless)
        precondition(depth(filter) <= 66, "a filter nested deeper than the parser allows")
    } catch {
        precondition(error.code == .argument, "a filter refused with code \(error.code), not an argument error")
        precondition(!error.message.isEmpty, "an MPD error without a message")
    }
    return 0
}

private func depth(_ filter: MPDFilter) -> Int {
    switch filter {
    case .compare, .base: 1
    case .not(let inner): 1 + depth(inner)
    case .all(let parts): 1 + (parts.map(depth).max() ?? 0)
    }
}
