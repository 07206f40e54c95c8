public import CrateDomain
public import Foundation

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

    /// A request for `path` (relative to the API's root, a query allowed) with the daemon's token, when it has one.
    private func request(_ method: String, _ path: String) throws(DaemonClientError) -> HTTPExchange {
        // `path` may carry a query ("queue?offset=0"), which appendingPathComponent would escape.
        guard let url = URL(string: path, relativeTo: base),
              let parts = URLComponents(url: url, resolvingAgainstBaseURL: true) else { throw .badPath(path) }
        let target = parts.percentEncodedPath + (parts.percentEncodedQuery.map { "?\($0)" } ?? "")
        guard var request = HTTPExchange(address: address, method: method, target: target) else {
            throw .notRunning(address: address, reason: "not an address of the form HOST:PORT")
        }
        if let token { request.headers.append((name: "Authorization", value: "Bearer \(token)")) }
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
        var request = try request(method, path)
        if let body {
            request.body = Array(body)
            request.headers.append((name: "Content-Type", value: "application/json"))
        }
        let status: Int, data: Data
        do {
            let answer = try await request.fetch(limit: Self.largestAnswer, timeout: .seconds(30))
            status = answer.status
            data = Data(answer.body)
        } catch {
            throw DaemonClientError.notRunning(address: address, reason: error.description)
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
        let request = try request("GET", "events")
        var refusal: Int?
        var pending: [UInt8] = []
        do {
            try await request.stream(timeout: .seconds(24 * 3600)) { head in
                if head.status != 200 { refusal = head.status }
            } onBody: { part in
                guard refusal == nil else { return }
                pending += part
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    onLine(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
            }
        } catch {
            throw DaemonClientError.notRunning(address: address, reason: error.description)
        }
        if let refusal {
            throw DaemonClientError.refused(status: refusal, code: "http_\(refusal)",
                                            message: "crated answered HTTP \(refusal) to the event stream")
        }
    }
}

extension DaemonClient {
    /// Whether crated answers on its address (a refused connection answers at once; on loopback without an event loop).
    public func isRunning() async -> Bool {
        guard let request = try? request("GET", "health") else { return false }
        if LoopbackProbe.probe(host: request.host, port: request.port) == .refused { return false }
        guard let answer = try? await request.fetch(limit: Self.largestAnswer, timeout: .seconds(2)) else { return false }
        return answer.status == 200
    }
}
