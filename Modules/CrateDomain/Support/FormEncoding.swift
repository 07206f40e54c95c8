import Foundation

/// `application/x-www-form-urlencoded` text — HTML forms, `URLSearchParams` and most HTTP libraries write query
/// strings and form bodies so — read into name-value pairs: `+` is a space, `%XX` a byte of UTF-8. A malformed escape
/// is kept as it was rather than refused. Shared by the front ends that read query strings (HTTP API, Subsonic).
public enum FormEncoding {
    /// The pairs of `text`, in order (names may repeat).
    public static func pairs(_ text: String) -> [(name: String, value: String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (unescape(parts[0]), parts.count > 1 ? unescape(parts[1]) : "")
        }
    }

    private static func unescape(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
