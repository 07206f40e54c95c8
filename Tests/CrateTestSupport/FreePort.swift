import Foundation

extension Fixture {
    /// A TCP port on 127.0.0.1 that nothing listens on right now (the kernel picks it).
    public static func freePort() throws -> Int {
        let (fd, port) = try loopbackSocket(listening: false)
        close(fd)
        return port
    }

    /// A TCP socket on 127.0.0.1 that listens and never accepts: a client's connection is made (the kernel queues it)
    /// and never answered. The caller closes `fd`.
    public static func silentListener() throws -> (fd: Int32, port: Int) {
        try loopbackSocket(listening: true)
    }

    private static func loopbackSocket(listening: Bool) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, len) == 0 && (!listening || listen(fd, 4) == 0) && getsockname(fd, $0, &len) == 0
            }
        }
        guard fd >= 0, ok else {
            if fd >= 0 { close(fd) }
            throw ToolError(description: listening ? "no listening socket on 127.0.0.1" : "no free port")
        }
        return (fd, Int(UInt16(bigEndian: addr.sin_port)))
    }
}
