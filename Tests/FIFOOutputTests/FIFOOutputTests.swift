import Testing
@testable import FIFOOutput

@Suite struct FIFOOutputTests {
    @Test func named() { #expect(FIFOOutputPlugin().name == "fifo") }
}
