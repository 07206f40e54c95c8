import CrateCore
import CrateDomain
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Talks to `crated` over its HTTP API (like mpc to MPD).
struct DaemonClient {
    let base: URL
    let address: String
    /// `http.token`, sent as a bearer token when the daemon has one.
    private let token: String?

    init(settings: Settings) {
        address = settings.httpClientAddress
        base = URL(string: "http://\(address)/api/v1/") ?? URL(fileURLWithPath: "/")
        token = settings.http.token
    }

    func authorize(_ request: inout URLRequest) {
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    }

    struct APIErrorBody: Decodable {
        struct Inner: Decodable { var code: String; var message: String }
        var error: Inner
    }

    static let decoder: JSONDecoder = {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .iso8601
        return d
    }()

    /// Sends a request and decodes the answer; a refused connection or an API error becomes one clear line.
    func send<T: Decodable>(_ method: String, _ path: String, body: [String: Any]? = nil, as type: T.Type) async throws -> T {
        // `path` may carry a query ("queue?offset=0"), which appendingPathComponent would escape.
        guard let url = URL(string: path, relativeTo: base) else { throw CLIError("bad request path \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = 30
        authorize(&request)
        if let body {
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let data: Data, response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw CLIError("crated is not running at \(address) (\(error.localizedDescription)); start it with `crated`")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            if let api = try? Self.decoder.decode(APIErrorBody.self, from: data) { throw CLIError(api.error.message) }
            throw CLIError("crated answered HTTP \(status)")
        }
        do { return try Self.decoder.decode(T.self, from: data) } catch {
            throw CLIError("unexpected answer from crated: \(ErrorText.describe(error))")
        }
    }

    @discardableResult
    func command(_ path: String, _ body: [String: Any]? = nil, method: String = "POST") async throws -> PlayerStatus {
        try await send(method, path, body: body, as: PlayerStatus.self)
    }

    /// Calls `onLine` for each line of the event stream until the connection ends.
    func streamEvents(_ onLine: @escaping @Sendable (String) -> Void) async throws {
        let reader = LineStreamer(onLine: onLine)
        let session = URLSession(configuration: .default, delegate: reader, delegateQueue: nil)
        var request = URLRequest(url: base.appendingPathComponent("events"))
        request.timeoutInterval = 24 * 3600
        authorize(&request)
        session.dataTask(with: request).resume()
        try await reader.finished()
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
