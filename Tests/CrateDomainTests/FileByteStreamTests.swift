import CrateDomain
import CrateTestSupport
import Foundation
import Testing

/// The read-ahead must be invisible: any mix of small and large reads and seeks gives the file's bytes at `position`.
@Suite struct FileByteStreamTests {
    @Test func readsAndSeeksGiveTheFilesBytes() throws {
        let dir = try Fixture.temporaryDirectory("file-stream")
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("bytes.bin")
        let bytes = DecoderChecks.randomBytes(count: 300_000, seed: 7)
        try bytes.write(to: url)
        let stream = try FileByteStream(url)

        func read(_ count: Int) throws -> Data {
            var out = Data(count: count)
            let n = try out.withUnsafeMutableBytes { try stream.read(into: $0) }
            return out.prefix(n)
        }
        func expectAt(_ offset: Int, _ got: Data, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(got == bytes[offset..<offset + got.count], "at byte \(offset)", sourceLocation: sourceLocation)
            #expect(!got.isEmpty, sourceLocation: sourceLocation)
        }

        expectAt(0, try read(600))                       // small: through the read-ahead
        #expect(stream.position == 600)
        try stream.seek(to: 100)                         // back, inside what was read ahead
        expectAt(100, try read(1000))
        try stream.seek(to: 60_000)                      // forward, still inside it
        let crossing = try read(10_000)                  // what is left of it: a short read
        expectAt(60_000, crossing)
        expectAt(60_000 + crossing.count, try read(10_000))
        try stream.seek(to: 200_000)                     // beyond it
        expectAt(200_000, try read(100_000))             // large: straight from the file
        #expect(stream.position == 300_000)
        #expect(try read(10).isEmpty)                    // the end
        try stream.seek(to: 299_990)
        expectAt(299_990, try read(100))
        #expect(stream.position == 300_000)
    }
}
