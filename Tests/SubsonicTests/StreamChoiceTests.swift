@testable import SubsonicFrontEnd
import Testing

/// What `stream` sends for each ask: the app's `format`, `maxBitRate` and `timeOffset` first, then the first
/// `subsonic.transcode` rule for the app or account, else the original.
@Suite struct StreamChoiceTests {
    let formats: Set<String> = ["opus", "mp3"]

    func choose(_ format: String? = nil, max: Int = 0, offset: Double = 0, rule: TranscodeRule? = nil, suffix: String = "flac",
                fileBitRate: Int? = 900) -> StreamChoice {
        StreamChoice.choose(format: format, maxBitRate: max, timeOffset: offset, rule: rule, suffix: suffix, fileBitRate: fileBitRate,
                            encodable: formats)
    }

    @Test func theAppsAskComesFirst() {
        #expect(choose() == .original)
        #expect(choose("raw", max: 64, offset: 10) == .original)
        #expect(choose("opus") == .transcode(format: "opus", bitRate: nil, offset: 0))
        #expect(choose("MP3", max: 128) == .transcode(format: "mp3", bitRate: 128, offset: 0))
        // Already what was asked for, and small enough: the original.
        #expect(choose("mp3", max: 320, suffix: "mp3", fileBitRate: 256) == .original)
        #expect(choose("mp3", max: 128, suffix: "mp3", fileBitRate: 256) == .transcode(format: "mp3", bitRate: 128, offset: 0))
        // A format Crate cannot write: the original (an app asking for flac gets its flac).
        #expect(choose("flac") == .original)
        // Only a bit rate or an offset: Opus.
        #expect(choose(max: 96) == .transcode(format: "opus", bitRate: 96, offset: 0))
        #expect(choose(max: 1000) == .original)
        #expect(choose(offset: 42) == .transcode(format: "opus", bitRate: nil, offset: 42))
    }

    @Test func rulesFillInWhatTheAppDidNotAsk() throws {
        let rules = try TranscodeRule.parse("client:DSub=opus 128, user:bob=mp3, *=raw").get()
        let settings = { (client: String?, user: String) in rules.first { $0.matches(client: client, user: user) } }
        #expect(choose(rule: settings("dsub", "alice")) == .transcode(format: "opus", bitRate: 128, offset: 0))
        #expect(choose(max: 96, rule: settings("DSub", "alice")) == .transcode(format: "opus", bitRate: 96, offset: 0))
        #expect(choose(rule: settings("Tempo", "bob")) == .transcode(format: "mp3", bitRate: nil, offset: 0))
        #expect(choose(rule: settings("Tempo", "alice")) == .original)
        // The app's own format wins over a rule.
        #expect(choose("mp3", rule: settings("DSub", "alice")) == .transcode(format: "mp3", bitRate: nil, offset: 0))
    }

    @Test func badRulesSayWhatIsWrong() {
        for (text, why) in [("DSub=opus", "WHO is client:NAME"), ("*=aac", "opus, mp3 or raw"), ("*=opus 1000", "32 to 320"),
                            ("*", "WHO=FORMAT")] {
            guard case .failure(let error) = TranscodeRule.parse(text) else { Issue.record("\(text) was accepted"); continue }
            #expect(error.why.contains(why), "\(text): \(error.why)")
        }
        #expect((try? TranscodeRule.parse("").get()) == [])
    }
}
