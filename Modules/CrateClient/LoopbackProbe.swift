#if canImport(Glibc)
import Glibc
#endif

/// Whether anything listens on a loopback address, asked with one `connect(2)`: on loopback the kernel answers at once,
/// accepted or refused. Every `crate` command first asks whether crated runs; when it does not, this answer saves
/// starting SwiftNIO's event loops for a request that can only be refused (a fifth of a short command's time).
public enum LoopbackProbe {
    public enum Answer: Sendable, Equatable {
        case listening
        case refused
        /// Not a loopback address written as numbers, or no clear answer: ask over HTTP.
        case unknown
    }

    public static func probe(host: String, port: Int) -> Answer {
        guard (1...65535).contains(port) else { return .unknown }
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            // 127.0.0.0/8, in network byte order.
            guard UInt32(bigEndian: v4.sin_addr.s_addr) >> 24 == 127 else { return .unknown }
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(port).bigEndian)
            return withUnsafePointer(to: &v4) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(AF_INET, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            var loopback = in6addr_loopback
            guard memcmp(&v6.sin6_addr, &loopback, MemoryLayout<in6_addr>.size) == 0 else { return .unknown }
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(port).bigEndian)
            return withUnsafePointer(to: &v6) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(AF_INET6, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
        return .unknown
    }

    /// A non-blocking connect, then at most 100 ms for its outcome (loopback needs none of it).
    private static func connect(_ family: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Answer {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return .unknown }
        defer { close(fd) }
        if Glibc.connect(fd, address, length) == 0 { return .listening }
        switch errno {
        case ECONNREFUSED: return .refused
        case EINPROGRESS: break
        default: return .unknown
        }
        var waiting = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&waiting, 1, 100) == 1 else { return .unknown }
        var failure: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &size) == 0 else { return .unknown }
        switch failure {
        case 0: return .listening
        case ECONNREFUSED: return .refused
        default: return .unknown
        }
    }
}
