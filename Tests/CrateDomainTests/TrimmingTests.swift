import CrateDomain
import Foundation
import Testing

/// `trimming(\.isPadding)` and `trimming(\.isBlank)` replace Foundation's `trimmingCharacters(in:)` on the tag path
/// (issue 30: it was 15 % of a large import's CPU); they must trim exactly what Foundation trims.
@Suite struct TrimmingTests {
    static let padding = CharacterSet.whitespacesAndNewlines.union(.controlCharacters)

    /// Every scalar of the Basic Multilingual Plane, on both ends of a word: the same answer as Foundation's.
    @Test func everyBMPScalarIsTrimmedAsFoundationTrimsIt() {
        var differences: [String] = []
        for value in UInt32(0)...0xFFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }  // surrogates
            let text = "\(scalar)a b\(scalar)"
            if text.trimming(\.isPadding) != text.trimmingCharacters(in: Self.padding) { differences.append("padding U+\(String(value, radix: 16))") }
            if text.trimming(\.isBlank) != text.trimmingCharacters(in: .whitespaces) { differences.append("blank U+\(String(value, radix: 16))") }
        }
        #expect(differences.isEmpty, "\(differences.prefix(20))")
    }

    @Test(arguments: ["", " ", "\0\0", "Abbey Road", "  Abbey Road \0", "\t Hey Jude\r\n", "Sigur Rós\u{3000}",
                      "c\u{200D}", "e\u{301} ", "\u{FEFF}Björk\u{0}", "👨‍👩‍👧 ", " 17 ", "(4)Eurodisco "])
    func stringsAndSubstringsAreTrimmedAsFoundationTrimsThem(text: String) {
        #expect(text.trimming(\.isPadding) == text.trimmingCharacters(in: Self.padding))
        #expect(text.trimming(\.isBlank) == text.trimmingCharacters(in: .whitespaces))
        let inner = ("x" + text + "y").dropFirst().dropLast()
        #expect(inner.trimming(\.isPadding) == inner.trimmingCharacters(in: Self.padding))
        #expect(inner.trimming(\.isBlank) == inner.trimmingCharacters(in: .whitespaces))
    }
}
