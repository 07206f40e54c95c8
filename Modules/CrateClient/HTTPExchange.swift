import NIOCore
import NIOHTTP1
import NIOPosix

/// One HTTP/1.1 request on a connection of its own, through SwiftNIO's HTTP/1 codec. It is all the CLI needs of an HTTP
/// client: a command sends one to three requests to one daemon that serves plain HTTP, so there is no pool, no TLS and
/// no HTTP/2 (AsyncHTTPClient brought those into the build, four minutes of a fresh debug build on two cores, for
/// requests to crated alone). Tests use it as their client of real servers on 127.0.0.1.
public struct HTTPExchange: Sendable {
    /// A name or an IP address (IPv6 without brackets).
    public let host: String
    public let port: Int
    public var method: String
    /// The request target: the path and the query, percent-encoded ("/api/v1/albums?limit=5").
    public var target: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?
    /// How long connecting may take; a refused connection fails at once.
    public var connectTimeout: Duration = .seconds(2)

    public init(host: String, port: Int, method: String = "GET", target: String,
                headers: [(name: String, value: String)] = [], body: [UInt8]? = nil) {
        self.host = host
        self.port = port
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// `HOST:PORT`, the host an IPv6 address in brackets, as a daemon's address is written; nil when it is not that.
    public init?(address: String, method: String = "GET", target: String) {
        let host: Substring, port: Substring
        if address.hasPrefix("[") {
            guard let close = address.firstIndex(of: "]"), address[close...].hasPrefix("]:") else { return nil }
            host = address[address.index(after: address.startIndex)..<close]
            port = address[address.index(close, offsetBy: 2)...]
        } else {
            // An IPv6 address needs its brackets, or its last group would be read as the port.
            guard let colon = address.firstIndex(of: ":"), address.lastIndex(of: ":") == colon else { return nil }
            host = address[..<colon]
            port = address[address.index(after: colon)...]
        }
        guard !host.isEmpty, let number = Int(port), (1...65535).contains(number) else { return nil }
        self.init(host: String(host), port: number, method: method, target: target)
    }

    /// An answer: its status, its header fields in order, and (from `fetch`) its body.
    public struct Answer: Sendable {
        public let status: Int
        public let headers: [(name: String, value: String)]
        public var body: [UInt8] = []

        /// The first field of that name, compared without case.
        public func header(_ name: String) -> String? {
            let wanted = name.lowercased()
            return headers.first { $0.name.lowercased() == wanted }?.value
        }
    }

    /// Sends the request and collects the answer, its body up to `limit` bytes, all within `timeout`.
    public func fetch(limit: Int, timeout: Duration) async throws(HTTPExchangeError) -> Answer {
        var answer: Answer?
        try await stream(timeout: timeout) { head in
            answer = head
        } onBody: { part throws(HTTPExchangeError) in
            guard let count = answer?.body.count, count + part.count <= limit else { throw .answerTooLarge(limit: limit) }
            answer?.body += part
        }
        guard let answer else { throw .closedEarly }
        return answer
    }

    /// Sends the request, hands the answer's head to `onHead` (its body empty), then each part of the body to `onBody` as
    /// it arrives, and returns when the server has ended the answer. Past `timeout` the connection is closed and the
    /// exchange fails, wherever it was.
    public func stream(timeout: Duration, onHead: (Answer) throws(HTTPExchangeError) -> Void,
                       onBody: ([UInt8]) throws(HTTPExchangeError) -> Void) async throws(HTTPExchangeError) {
        let deadline = ContinuousClock.now + timeout
        let connection: NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
        do {
            connection = try await ClientBootstrap(group: NIOSingletons.posixEventLoopGroup)
                .connectTimeout(TimeAmount(connectTimeout))
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw .connect(reason: Self.describe(error))
        }
        let channel = connection.channel
        let closer = channel.eventLoop.scheduleTask(deadline: .now() + TimeAmount(timeout)) { channel.close(promise: nil) }
        defer { closer.cancel() }
        do {
            try await connection.executeThenClose { inbound, outbound in
                // The request in one write, so it leaves in one flush. Written part by part, a server that had the
                // whole request with the head (a GET) could answer and close, as asked, before the end was written,
                // and that write failed with "I/O on closed channel" (seen on a loaded machine as "crated is not running").
                var parts: [HTTPClientRequestPart] = [.head(requestHead)]
                if let body, !body.isEmpty { parts.append(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
                parts.append(.end(nil))
                try await outbound.write(contentsOf: parts)
                for try await part in inbound {
                    switch part {
                    case .head(let head):
                        try onHead(Answer(status: Int(head.status.code), headers: head.headers.map { ($0.name, $0.value) }))
                    case .body(let buffer):
                        try onBody(Array(buffer.readableBytesView))
                    case .end:
                        return
                    }
                }
                throw HTTPExchangeError.closedEarly
            }
        } catch let error as HTTPExchangeError {
            throw ContinuousClock.now >= deadline ? .timedOut : error
        } catch {
            // The deadline closes the connection under the read or the write: that is a timeout, not the error it caused.
            throw ContinuousClock.now >= deadline ? .timedOut : .failed(reason: Self.describe(error))
        }
    }

    private var requestHead: HTTPRequestHead {
        var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method), uri: target)
        head.headers.add(name: "Host", value: host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)")
        head.headers.add(name: "Connection", value: "close")
        for field in headers { head.headers.add(name: field.name, value: field.value) }
        if let body { head.headers.add(name: "Content-Length", value: String(body.count)) }
        return head
    }

    /// A failed connection in a few words ("connection refused"), not a type's dump.
    static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        if text.contains("connectTimeout") { return "no connection within the time allowed" }
        return text
    }
}

/// Why an `HTTPExchange` failed.
public enum HTTPExchangeError: Error, Equatable, CustomStringConvertible {
    case connect(reason: String)
    case timedOut
    case answerTooLarge(limit: Int)
    case closedEarly
    case failed(reason: String)

    public var description: String {
        switch self {
        case .connect(let reason): reason
        case .timedOut: "no answer within the time allowed"
        case .answerTooLarge(let limit): "the answer is larger than \(limit) bytes"
        case .closedEarly: "the connection closed before the answer ended"
        case .failed(let reason): reason
        }
    }
}
