import CrateClient
import CrateTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The CLI's first question, whether crated runs, answered by one connect(2) on loopback: against a real listening
/// socket, a port nothing listens on, and addresses the probe must leave to HTTP.
@Suite(.promptly) struct LoopbackProbeTests {
    @Test func aListeningPortIsSeenAndAClosedOneRefused() throws {
        let listener = try Fixture.silentListener()
        defer { close(listener.fd) }
        #expect(LoopbackProbe.probe(host: "127.0.0.1", port: listener.port) == .listening)
        #expect(LoopbackProbe.probe(host: "127.0.0.1", port: try Fixture.freePort()) == .refused)
        // All of 127.0.0.0/8 is loopback.
        #expect(LoopbackProbe.probe(host: "127.0.0.2", port: try Fixture.freePort()) == .refused)
    }

    @Test func ipv6LoopbackIsProbedToo() throws {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        }
        // A machine without IPv6 on loopback has nothing to probe there.
        guard bound == 0, listen(fd, 4) == 0 else { return }
        var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: address.sin6_port))
        #expect(LoopbackProbe.probe(host: "::1", port: port) == .listening)
        close(fd)
        #expect(LoopbackProbe.probe(host: "::1", port: port) == .refused)
    }

    /// Names and other machines' addresses could block or mean something else: HTTP asks those.
    @Test func namesAndOtherAddressesAreLeftToHTTP() {
        for host in ["localhost", "music.local", "192.0.2.1", "10.0.0.1", "2001:db8::1", "::", "0.0.0.0", ""] {
            #expect(LoopbackProbe.probe(host: host, port: 6610) == .unknown, "\(host)")
        }
        #expect(LoopbackProbe.probe(host: "127.0.0.1", port: 0) == .unknown)
        #expect(LoopbackProbe.probe(host: "127.0.0.1", port: 70000) == .unknown)
    }
}
