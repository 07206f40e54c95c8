import AsyncHTTPClient
public import CrateDomain
public import Foundation
import NIOCore
import NIOHTTP1

/// The process's HTTP client for crated. A connection that fails answers at once: `HTTPClient.shared` retries the
/// connection until the request's deadline, so a daemon that is not running cost every command its whole timeout
/// (30 s for `crate status`, 2 s for the check before an import). Never shut down: it lives as long as the process.
private let daemonHTTPClient: HTTPClient = {
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool.retryConnectionEstablishment = false
    configuration.timeout.connect = .seconds(2)
    return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
}()

/// The Swift client of crated's HTTP API (Docs/HTTP_API.md): the CLI uses it, and so can any other Swift front end.
/// Answers decode into CrateDomain's types; failures are `DaemonClientError`s in words a user can act on.
public struct DaemonClient: Sendable {
    public let base: URL
    /// `HOST:PORT`, for messages.
    public let address: String
    /// `http.token`, sent as a bearer token when the daemon has one.
    private let token: String?

    /// `address` is `HOST:PORT` (IPv6 in brackets); `token` the daemon's `http.token`, if it has one.
    public init(address: String, token: String?) {
        self.address = address
        base = URL(string: "http://\(address)/api/v1/") ?? URL(fileURLWithPath: "/")
        self.token = token
    }

    /// A request to `url` with the daemon's token, when it has one.
    private func request(_ method: String, _ url: URL) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = HTTPMethod(rawValue: method)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        return request
    }

    /// The largest answer read (a library's whole album list is far below it).
    static let largestAnswer = 256 << 20

    struct APIErrorBody: Decodable {
        struct Inner: Decodable { var code: String; var message: String }
        var error: Inner
    }

    public static let decoder: JSONDecoder = {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .iso8601
        return d
    }()

    /// Sends a request without a body and decodes the answer; a refused connection or an API error becomes one clear
    /// line.
    public func send<T: Decodable>(_ method: String, _ path: String, as type: T.Type) async throws -> T {
        try await exchange(method, path, body: nil, as: type)
    }

    /// Sends one of the API's request shapes (CrateAPI's `API.*`, a `TrackEdit`) as JSON and decodes the answer.
    public func send<B: Encodable, T: Decodable>(_ method: String, _ path: String, _ body: B, as type: T.Type) async throws -> T {
        try await exchange(method, path, body: try JSONEncoder().encode(body), as: type)
    }

    private func exchange<T: Decodable>(_ method: String, _ path: String, body: Data?, as type: T.Type) async throws -> T {
        // `path` may carry a query ("queue?offset=0"), which appendingPathComponent would escape.
        guard let url = URL(string: path, relativeTo: base) else { throw DaemonClientError.badPath(path) }
        var request = request(method, url)
        if let body {
            request.body = .bytes(ByteBuffer(bytes: body))
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        let status: Int, data: Data
        do {
            let response = try await daemonHTTPClient.execute(request, timeout: .seconds(30))
            status = Int(response.status.code)
            data = Data(try await response.body.collect(upTo: Self.largestAnswer).readableBytesView)
        } catch {
            throw DaemonClientError.notRunning(address: address, reason: Self.describe(error))
        }
        guard (200..<300).contains(status) else {
            if let api = try? Self.decoder.decode(APIErrorBody.self, from: data) {
                throw DaemonClientError.refused(status: status, code: api.error.code, message: api.error.message)
            }
            throw DaemonClientError.refused(status: status, code: "http_\(status)", message: "crated answered HTTP \(status)")
        }
        // 204 No Content: nothing to decode for callers that want nothing.
        if data.isEmpty, let nothing = Ignored() as? T { return nothing }
        do { return try Self.decoder.decode(T.self, from: data) } catch {
            throw DaemonClientError.unexpectedAnswer(path: path, reason: String(describing: error))
        }
    }

    public var notRunning: DaemonClientError { .notRunning(address: address, reason: nil) }

    /// Sends a request whose answer the caller does not need (beyond success).
    public func perform(_ method: String, _ path: String) async throws {
        _ = try await send(method, path, as: Ignored.self)
    }

    public func perform<B: Encodable>(_ method: String, _ path: String, _ body: B) async throws {
        _ = try await send(method, path, body, as: Ignored.self)
    }

    /// Accepts any JSON answer.
    public struct Ignored: Decodable, Sendable {
        public init() {}
        public init(from decoder: any Decoder) throws {}
    }

    /// A player or queue command: the player's status after it.
    @discardableResult
    public func command(_ path: String, method: String = "POST") async throws -> PlayerStatus {
        try await send(method, path, as: PlayerStatus.self)
    }

    @discardableResult
    public func command<B: Encodable>(_ path: String, _ body: B, method: String = "POST") async throws -> PlayerStatus {
        try await send(method, path, body, as: PlayerStatus.self)
    }

    /// Calls `onLine` for each line of the event stream until the connection ends.
    public func streamEvents(_ onLine: @escaping @Sendable (String) -> Void) async throws {
        let response: HTTPClientResponse
        do {
            response = try await daemonHTTPClient.execute(request("GET", base.appendingPathComponent("events")), timeout: .hours(24))
        } catch {
            throw DaemonClientError.notRunning(address: address, reason: Self.describe(error))
        }
        guard response.status == .ok else {
            throw DaemonClientError.refused(status: Int(response.status.code), code: "http_\(response.status.code)",
                                            message: "crated answered HTTP \(response.status.code) to the event stream")
        }
        var pending: [UInt8] = []
        for try await part in response.body {
            pending += part.readableBytesView
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                onLine(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeSubrange(...newline)
            }
        }
    }

    /// A failed connection in a few words ("connection refused"), not a type's dump.
    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError, error == .deadlineExceeded { return "no answer within the time allowed" }
        let text = String(describing: error)
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        return text
    }
}

extension DaemonClient {
    /// Whether crated answers on its address (a refused connection answers at once).
    public func isRunning() async -> Bool {
        guard let url = URL(string: "health", relativeTo: base) else { return false }
        do {
            let response = try await daemonHTTPClient.execute(request("GET", url), timeout: .seconds(2))
            _ = try await response.body.collect(upTo: Self.largestAnswer)
            return response.status == .ok
        } catch {
            return false
        }
    }
}
