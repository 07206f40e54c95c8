public import CrateDomain
public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

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

    public func authorize(_ request: inout URLRequest) {
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    }

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
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = 30
        authorize(&request)
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let data: Data, response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw DaemonClientError.notRunning(address: address, reason: error.localizedDescription)
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
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
        let reader = LineStreamer(onLine: onLine)
        let session = URLSession(configuration: .default, delegate: reader, delegateQueue: nil)
        var request = URLRequest(url: base.appendingPathComponent("events"))
        request.timeoutInterval = 24 * 3600
        authorize(&request)
        session.dataTask(with: request).resume()
        try await reader.finished()
    }
}

extension DaemonClient {
    /// Whether crated answers on its address (a refused connection answers at once).
    public func isRunning() async -> Bool {
        guard let url = URL(string: "health", relativeTo: base) else { return false }
        var request = URLRequest(url: url)
        request.timeoutInterval = 2
        authorize(&request)
        do {
            let (_, response) = try await URLSession.shared.data(for: request)
            return (response as? HTTPURLResponse)?.statusCode == 200
        } catch {
            return false
        }
    }
}

/// Splits a streamed body into lines as it arrives.
final class LineStreamer: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let onLine: @Sendable (String) -> Void
    private var pending = Data()
    private let lock = NSLock()
    private var done: CheckedContinuation<Void, any Error>?
    private var result: Result<Void, any Error>?

    init(onLine: @escaping @Sendable (String) -> Void) { self.onLine = onLine }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let lines: [String] = lock.withLock {
            pending.append(data)
            var out: [String] = []
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                out.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                pending.removeSubrange(pending.startIndex...newline)
            }
            return out
        }
        lines.forEach(onLine)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let outcome: Result<Void, any Error> = error.map { .failure($0) } ?? .success(())
        let waiting = lock.withLock { () -> CheckedContinuation<Void, any Error>? in
            result = outcome
            defer { done = nil }
            return done
        }
        waiting?.resume(with: outcome)
    }

    func finished() async throws {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            let ready = lock.withLock { () -> Result<Void, any Error>? in
                if result == nil { done = c }
                return result
            }
            if let ready { c.resume(with: ready) }
        }
    }
}
