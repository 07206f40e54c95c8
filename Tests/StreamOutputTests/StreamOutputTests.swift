import Testing
@testable import StreamOutput

@Suite struct StreamOutputTests {
    @Test func named() { #expect(StreamOutputPlugin().name == "stream") }
}
