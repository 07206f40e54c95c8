import CrateDomain
import Foundation

/// A default transcoding from `subsonic.transcode`: for one app (`client:DSub`, by the `c` it sends), one account
/// (`user:bob`) or everyone (`*`), a format (`opus`, `mp3`, or `raw` for the original) and a bit rate in kbit/s.
struct TranscodeRule: Sendable, Hashable {
    enum Who: Sendable, Hashable {
        case client(String), user(String), everyone
    }
    var who: Who
    var format: String
    var bitRate: Int?

    func matches(client: String?, user: String) -> Bool {
        switch who {
        case .client(let name): client?.lowercased() == name.lowercased()
        case .user(let name): user.lowercased() == name.lowercased()
        case .everyone: true
        }
    }

    static let formats = ["opus", "mp3", "raw"]

    /// `client:DSub=opus 128, user:bob=mp3, *=raw`; nil with the reason when a rule does not read.
    static func parse(_ text: String) -> Result<[TranscodeRule], RuleError> {
        var rules: [TranscodeRule] = []
        for part in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !part.isEmpty {
            let sides = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard sides.count == 2 else { return .failure(RuleError(rule: part, why: "it needs WHO=FORMAT [KBITS]")) }
            let who: Who
            if sides[0] == "*" {
                who = .everyone
            } else if sides[0].hasPrefix("client:"), sides[0].count > 7 {
                who = .client(String(sides[0].dropFirst(7)))
            } else if sides[0].hasPrefix("user:"), sides[0].count > 5 {
                who = .user(String(sides[0].dropFirst(5)))
            } else {
                return .failure(RuleError(rule: part, why: "WHO is client:NAME, user:NAME or *"))
            }
            let words = sides[1].split(separator: " ").map(String.init)
            guard let format = words.first?.lowercased(), formats.contains(format) else {
                return .failure(RuleError(rule: part, why: "the format is opus, mp3 or raw"))
            }
            var bitRate: Int?
            if words.count > 1 {
                guard words.count == 2, let value = Int(words[1]), (32...320).contains(value) else {
                    return .failure(RuleError(rule: part, why: "the bit rate is a number of kbit/s from 32 to 320"))
                }
                bitRate = value
            }
            rules.append(TranscodeRule(who: who, format: format, bitRate: bitRate))
        }
        return .success(rules)
    }

    struct RuleError: Error {
        let rule: String
        let why: String
    }
}

/// What `stream` sends: the original file, or a transcode. The app's own asks (`format`, `maxBitRate`, `timeOffset`)
/// come first, then the first `subsonic.transcode` rule for its client or account.
enum StreamChoice: Equatable {
    case original
    case transcode(format: String, bitRate: Int?, offset: Double)

    /// The format a transcode uses when nothing names one (an app asking only for a lower bit rate or an offset).
    static let fallbackFormat = "opus"

    /// `suffix` and `fileBitRate` (kbit/s) are the original's; `encodable` the formats Crate can write.
    static func choose(format asked: String?, maxBitRate: Int, timeOffset: Double, rule: TranscodeRule?, suffix: String,
                       fileBitRate: Int?, encodable: Set<String>) -> StreamChoice {
        let asked = asked?.lowercased()
        if asked == "raw" { return .original }
        let limit = maxBitRate > 0 ? maxBitRate : nil
        let over = limit.map { limit in (fileBitRate ?? Int.max) > limit } ?? false
        if let asked, encodable.contains(asked) {
            // The original already is what was asked for.
            if asked == suffix.lowercased() && !over && timeOffset <= 0 { return .original }
            return .transcode(format: asked, bitRate: limit, offset: max(0, timeOffset))
        }
        if let rule, rule.format != "raw", encodable.contains(rule.format) {
            let rate = [rule.bitRate, limit].compactMap { $0 }.min()
            if rule.format == suffix.lowercased() && !over && timeOffset <= 0 && (rule.bitRate.map { (fileBitRate ?? Int.max) <= $0 } ?? true) {
                return .original
            }
            return .transcode(format: rule.format, bitRate: rate, offset: max(0, timeOffset))
        }
        if (over || timeOffset > 0), encodable.contains(fallbackFormat) {
            return .transcode(format: fallbackFormat, bitRate: limit, offset: max(0, timeOffset))
        }
        return .original
    }
}
