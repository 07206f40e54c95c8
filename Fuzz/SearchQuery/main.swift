import CrateDomain
import Foundation

/// Fuzz target: the beets-style search query parser (`SearchQuery.parse`: fields, `^` negation, year and date
/// ranges, relative dates, a trailing sort), its error messages, and the search folding of the same text.
private let now = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01, so runs are repeatable

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        let query = try SearchQuery.parse(text, now: now)
        if let year = query.year, let lower = year.lower, let upper = year.upper {
            precondition(lower <= upper, "a backwards year range was accepted: \(lower)..\(upper)")
        }
        if let added = query.added, let lower = added.lower, let upper = added.upper {
            precondition(lower <= upper, "a backwards date range was accepted: \(lower)..\(upper)")
        }
        _ = query.isEmpty
        // A query survives the JSON the API sends it in.
        if let json = try? JSONEncoder().encode(query) { _ = try? JSONDecoder().decode(SearchQuery.self, from: json) }
    } catch {
        precondition(!String(describing: error).isEmpty, "an empty error message")
    }
    _ = SearchFolding.fold(text)
    _ = SearchFolding.plain(text)
    return 0
}
