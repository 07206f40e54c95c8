import CrateFeeds
import Foundation
import Testing

@Suite struct CrateDialTests {
    @Test func fivePositionsWithMixedAsTheDefault() {
        #expect(CrateDial.allCases.count == 5)
        #expect(CrateDial.allCases.first == .my)
        #expect(CrateDial.allCases.last == .mystery)
        #expect(CrateDial.default == .mixed)
        #expect(CrateDial.allCases[2] == .mixed)
        #expect(CrateDial.my.title == "My Crate")
        #expect(CrateDial.mixed.title == "Mixed Crate")
        #expect(CrateDial.mystery.title == "Mystery Crate")
    }

    @Test func tablesCoverTheirSignalsAndSumToOne() {
        for dial in CrateDial.allCases {
            #expect(Set(dial.wallWeights.keys) == Set(SignalID.wall))
            #expect(Set(dial.genreWeights.keys) == Set(SignalID.genre))
            #expect(abs(dial.wallWeights.values.reduce(0, +) - 1) < 1e-9)
            #expect(abs(dial.genreWeights.values.reduce(0, +) - 1) < 1e-9)
            #expect(dial.wallWeights.values.allSatisfy { $0 > 0 })
            #expect(dial.genreWeights.values.allSatisfy { $0 > 0 })
        }
    }

    @Test func personalFallsAndWildRisesAlongTheDial() {
        for table in [\CrateDial.wallWeights, \CrateDial.genreWeights] {
            let dials = CrateDial.allCases
            for (near, far) in zip(dials, dials.dropFirst()) {
                #expect(CrateDial.personalWeight(far[keyPath: table]) < CrateDial.personalWeight(near[keyPath: table]))
                #expect(CrateDial.wildWeight(far[keyPath: table]) > CrateDial.wildWeight(near[keyPath: table]))
                // Each personal signal on its own never rises, each wild one never falls.
                for (id, weight) in far[keyPath: table] {
                    let before = near[keyPath: table][id] ?? 0
                    if id.isPersonal { #expect(weight <= before) }
                    if id.isWild { #expect(weight >= before) }
                }
            }
        }
    }

    @Test func personalAndWildAreDefinedOnce() {
        #expect(SignalID.personal == [.listeningHistory, .recommendations, .personalHistory, .genreRecommendations])
        #expect(SignalID.wild == [.wildCard, .subcategoryRotation])
        #expect(SignalID.wall.count == 5)
        #expect(SignalID.genre.count == 6)
    }

    @Test func persistsAsRawValues() throws {
        #expect(CrateDial.allCases.map(\.rawValue) == ["my", "mostly-mine", "mixed", "mostly-mystery", "mystery"])
        let data = try JSONEncoder().encode([CrateDial.mostlyMine])
        #expect(String(decoding: data, as: UTF8.self) == "[\"mostly-mine\"]")
        #expect(try JSONDecoder().decode([CrateDial].self, from: data) == [.mostlyMine])
        #expect(CrateDial(parsing: "Mystery Crate") == .mystery)
        #expect(CrateDial(parsing: "1") == .mostlyMine)
        #expect(CrateDial(parsing: "MIXED") == .mixed)
        #expect(CrateDial(parsing: "loud") == nil)
    }
}
