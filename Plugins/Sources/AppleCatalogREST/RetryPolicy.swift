import Foundation

/// When to try again after a 429 or a 5xx: exponential backoff with jitter, or the server's
/// `Retry-After` when it sends one (Apple usually does not).
struct RetryPolicy: Sendable {
    var maxRetries: Int
    var baseDelay: Double
    /// No single wait is longer; a `Retry-After` beyond it means giving up now rather than hanging a caller.
    var maxDelay: Double = 30

    /// Seconds to wait before retry number `attempt + 1`, or nil when the wait would be unreasonable.
    func delay(afterAttempt attempt: Int, retryAfter: Double?) -> Double? {
        if let retryAfter {
            return retryAfter <= maxDelay ? max(0, retryAfter) : nil
        }
        let exponential = baseDelay * pow(2, Double(min(attempt, 16)))
        // Jitter spreads out clients (and concurrent requests of one client) that were throttled together.
        return min(maxDelay, exponential * Double.random(in: 1...1.25))
    }

    /// `Retry-After` as seconds: a number of seconds or an HTTP date.
    static func retryAfterSeconds(_ header: String?, now: Date = Date()) -> Double? {
        guard let value = header?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Double(value) { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: value).map { max(0, $0.timeIntervalSince(now)) }
    }
}
