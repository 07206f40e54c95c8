import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP exchange over URLSession, with a hard deadline and prompt cancellation: a cancelled Swift
/// task cancels the URLSession task at once instead of waiting for the answer.
struct CatalogTransport: Sendable {
    struct Reply: Sendable {
        var status: Int
        var data: Data
        var retryAfter: String?
    }

    enum Failure: Error, Sendable {
        case cancelled
        case timedOut
        /// A kept-alive connection the server had closed: worth one more try.
        case connectionLost
        case other(String)
    }

    let session: URLSession

    /// A session of our own: no cookies, no URL cache (the client keeps its own), no stored credentials.
    /// `connections`: how many requests may be in flight to the API at once (URLSession's default is 6,
    /// which would hold back a burst the rate window allows).
    static func makeSession(timeout: Double, connections: Int = 6) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpShouldSetCookies = false
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpMaximumConnectionsPerHost = max(1, connections)
        return URLSession(configuration: configuration)
    }

    func send(_ request: URLRequest, timeout: Double) async throws(Failure) -> Reply {
        // The deadline is enforced here as well as by URLSession, whose idle timeout alone would let a
        // slowly trickling answer run on.
        do {
            return try await withThrowingTaskGroup(of: Reply.self) { group in
                group.addTask { try await exchange(request) }
                group.addTask {
                    try await Task.sleep(for: .seconds(timeout))
                    throw Failure.timedOut
                }
                defer { group.cancelAll() }
                guard let first = try await group.next() else { throw Failure.other("no answer") }
                return first
            }
        } catch let failure as Failure {
            if Task.isCancelled { throw .cancelled }
            throw failure
        } catch {
            throw Task.isCancelled || error is CancellationError ? .cancelled : .other(error.localizedDescription)
        }
    }

    private func exchange(_ request: URLRequest) async throws -> Reply {
        let box = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Reply, any Error>) in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: Self.failure(error))
                        return
                    }
                    guard let http = response as? HTTPURLResponse else {
                        continuation.resume(throwing: Failure.other("no HTTP response"))
                        return
                    }
                    continuation.resume(returning: Reply(status: http.statusCode, data: data ?? Data(),
                                                         retryAfter: http.value(forHTTPHeaderField: "Retry-After")))
                }
                box.start(task)
            }
        } onCancel: {
            box.cancel()
        }
    }

    private static func failure(_ error: any Error) -> Failure {
        guard let urlError = error as? URLError else { return .other(error.localizedDescription) }
        switch urlError.code {
        case .cancelled: return .cancelled
        case .timedOut: return .timedOut
        case .networkConnectionLost: return .connectionLost
        case .cannotConnectToHost: return .other("connection refused")
        case .cannotFindHost, .dnsLookupFailed: return .other("host not found")
        case .notConnectedToInternet: return .other("no network connection")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate:
            return .other("the secure connection failed")
        default: return .other(urlError.localizedDescription)
        }
    }
}

/// Holds the URLSession task so the cancellation handler, which may run before or after the task
/// exists, can cancel it.
private final class TaskBox: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var cancelled = false

    func start(_ task: URLSessionDataTask) {
        lock.lock()
        self.task = task
        let cancelled = self.cancelled
        lock.unlock()
        task.resume()
        if cancelled { task.cancel() }
    }

    func cancel() {
        lock.lock()
        cancelled = true
        let task = self.task
        lock.unlock()
        task?.cancel()
    }
}
