public import CrateDomain

/// `outputs.stream.*`.
extension StreamOutputPlugin {
    public static let registration = PluginRegistration.output("stream", keys: [
        .init("bitrate", default: "128", help: "the Opus bit rate in kbit/s, 16–510 (128 is transparent for most music; 64 suits a phone on a mobile network)"),
        .init("max_listeners", default: "100", help: "listeners served at once; the next one gets 503 (each is one HTTP connection: keep it under http.max_connections)"),
    ]) { s in
        var problems: [String] = []
        func number(_ key: String, _ fallback: Int, _ range: ClosedRange<Int>) -> Int {
            guard let text = s.string(key) else { return fallback }
            guard let n = Int(text), range.contains(n) else {
                problems.append(s.problem(key, text, accepted: "a whole number from \(range.lowerBound) to \(range.upperBound)"))
                return fallback
            }
            return n
        }
        let bitRate = number("bitrate", 128, 16...510)
        let listeners = number("max_listeners", 100, 1...10_000)
        return StreamOutputPlugin(bitRate: bitRate, maxListeners: listeners, problem: problems.isEmpty ? nil : problems.joined(separator: "; "))
    }
}
