import CCurl
import CrateDomain
import Foundation
import Synchronization

/// One HTTP exchange through libcurl (loaded on first use, like the URLStream plugin's) on a thread of its own, with
/// a hard deadline and prompt cancellation: a cancelled Swift task is answered at once, and its transfer stops at
/// libcurl's next progress callback. Not URLSession: FoundationNetworking links libcurl into every process.
struct CatalogTransport: Sendable {
    struct Request: Sendable {
        var url: String
        var method: String
        /// Whole header lines, `Name: value`.
        var headers: [String]
        var body: Data?
    }

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

    private let handles: HandlePool

    /// `connections`: how many connections (libcurl handles with their caches) are kept open for the next requests;
    /// a burst beyond that opens more, closed when they end.
    init(connections: Int) {
        handles = HandlePool(capacity: max(1, connections))
    }

    func send(_ request: Request, timeout: Double) async throws(Failure) -> Reply {
        let exchange = Exchange()
        let handles = self.handles
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Reply, any Error>) in
                    guard exchange.begin(continuation) else { return }
                    WorkerThread.start(name: "crate-apple-http") {
                        exchange.finish(Self.perform(request, timeout: timeout, handles: handles, exchange: exchange))
                    }
                }
            } onCancel: {
                exchange.cancel()
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .other(String(describing: error))
        }
    }

    /// The blocking transfer, on the exchange's thread.
    private static func perform(_ request: Request, timeout: Double, handles: HandlePool,
                                exchange: Exchange) -> Result<Reply, Failure> {
        var loadError = [CChar](repeating: 0, count: 512)
        guard crate_curl_load(&loadError, loadError.count) != 0 else {
            return .failure(.other("libcurl cannot be loaded: \(text(loadError))"))
        }
        // A line break inside a value (a token pasted with one) would start a header of its own.
        guard !request.headers.contains(where: { $0.utf8.contains(13) || $0.utf8.contains(10) }) else {
            return .failure(.other("a request header has a line break in its value (check the tokens in the settings)"))
        }
        guard let handle = handles.take() else { return .failure(.other("libcurl could not start a transfer")) }
        let transfer = Transfer(exchange: exchange)
        let context = Unmanaged.passRetained(transfer)
        defer { context.release() }
        var headers: UnsafeMutablePointer<curl_slist>?
        // No `Expect: 100-continue` before a body: one round trip fewer, and every server here takes the body.
        for line in request.headers + ["Expect:"] { headers = crate_curl_slist_append(headers, line) }
        defer { crate_curl_slist_free_all(headers) }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        // A NUL after the body, so an empty one has an address too; libcurl is given the body's own length.
        let body = request.body.map { [UInt8]($0) + [0] }
        let code = errorBuffer.withUnsafeMutableBufferPointer { errors -> CURLcode in
            _ = crate_curl_string(handle.pointer, CURLOPT_URL, request.url)
            if request.method == "GET" {
                _ = crate_curl_long(handle.pointer, CURLOPT_HTTPGET, 1)
            } else {
                _ = crate_curl_string(handle.pointer, CURLOPT_CUSTOMREQUEST, request.method)
            }
            _ = crate_curl_list(handle.pointer, CURLOPT_HTTPHEADER, headers)
            // Redirects are not followed: the API does not send them, and one would carry the user's token elsewhere.
            _ = crate_curl_long(handle.pointer, CURLOPT_FOLLOWLOCATION, 0)
            _ = crate_curl_string(handle.pointer, CURLOPT_ACCEPT_ENCODING, "")   // every encoding libcurl decodes
            _ = crate_curl_string(handle.pointer, CURLOPT_USERAGENT, "Crate")
            _ = crate_curl_long(handle.pointer, CURLOPT_TIMEOUT_MS, Int(max(0.001, timeout) * 1000))
            _ = crate_curl_long(handle.pointer, CURLOPT_NOSIGNAL, 1)
            _ = crate_curl_long(handle.pointer, CURLOPT_NOPROGRESS, 0)
            _ = crate_curl_pointer(handle.pointer, CURLOPT_ERRORBUFFER, errors.baseAddress)
            _ = crate_curl_write(handle.pointer, CURLOPT_HEADERFUNCTION, Transfer.header)
            _ = crate_curl_pointer(handle.pointer, CURLOPT_HEADERDATA, context.toOpaque())
            _ = crate_curl_write(handle.pointer, CURLOPT_WRITEFUNCTION, Transfer.body)
            _ = crate_curl_pointer(handle.pointer, CURLOPT_WRITEDATA, context.toOpaque())
            _ = crate_curl_progress(handle.pointer, Transfer.progress)
            _ = crate_curl_pointer(handle.pointer, CURLOPT_XFERINFODATA, context.toOpaque())
            guard let body else { return crate_curl_easy_perform(handle.pointer) }
            // libcurl reads the body from this buffer during the transfer, without copying it.
            return body.withUnsafeBytes { bytes in
                _ = crate_curl_offset(handle.pointer, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count - 1))
                _ = crate_curl_pointer(handle.pointer, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                return crate_curl_easy_perform(handle.pointer)
            }
        }
        let status = crate_curl_status(handle.pointer)
        // A handle whose transfer failed may hold a broken connection: it is closed rather than kept.
        handles.put(handle, keep: code == CURLE_OK)
        if exchange.aborted.load(ordering: .relaxed) { return .failure(.cancelled) }
        switch code {
        case CURLE_OK:
            return .success(Reply(status: status, data: transfer.data, retryAfter: transfer.retryAfter))
        case CURLE_OPERATION_TIMEDOUT:
            return .failure(.timedOut)
        case CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE:
            return .failure(.connectionLost)
        default:
            let reason = text(errorBuffer)
            let detail = reason.isEmpty ? String(cString: crate_curl_easy_strerror(code)) : reason
            switch code {
            case CURLE_COULDNT_RESOLVE_HOST: return .failure(.other("host not found (\(detail))"))
            case CURLE_COULDNT_CONNECT: return .failure(.other("cannot connect (\(detail))"))
            case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE:
                return .failure(.other("the secure connection failed (\(detail))"))
            default: return .failure(.other(detail))
            }
        }
    }

    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A libcurl easy handle; it keeps its connections open between transfers. Sendable: one thread uses it at a time
/// (taken from and put back into the pool).
private struct EasyHandle: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
}

/// Idle handles for the next transfers, so that a request reuses an open connection (and its TLS session).
private final class HandlePool: Sendable {
    private let idle = Mutex<[EasyHandle]>([])
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    deinit {
        for handle in idle.withLock({ $0 }) { crate_curl_easy_cleanup(handle.pointer) }
    }

    /// An idle handle, or a new one (nil when libcurl cannot make one). libcurl must be loaded.
    func take() -> EasyHandle? {
        if let handle = idle.withLock({ $0.popLast() }) { return handle }
        return crate_curl_easy_init().map(EasyHandle.init)
    }

    func put(_ handle: EasyHandle, keep: Bool) {
        let kept = keep && idle.withLock { handles in
            guard handles.count < capacity else { return false }
            crate_curl_easy_reset(handle.pointer)
            handles.append(handle)
            return true
        }
        if !kept { crate_curl_easy_cleanup(handle.pointer) }
    }
}

/// One request's meeting point of the waiting task, its transfer thread and a cancellation: whichever comes first
/// of the answer and the cancellation resumes the task, once.
private final class Exchange: Sendable {
    private let waiting = Mutex<(continuation: CheckedContinuation<CatalogTransport.Reply, any Error>?, cancelled: Bool)>((nil, false))
    /// Read by libcurl's progress callback on the transfer thread.
    let aborted = Atomic<Bool>(false)

    /// False when the task was cancelled already (the continuation is then resumed).
    func begin(_ continuation: CheckedContinuation<CatalogTransport.Reply, any Error>) -> Bool {
        let cancelled = waiting.withLock { state in
            if !state.cancelled { state.continuation = continuation }
            return state.cancelled
        }
        if cancelled { continuation.resume(throwing: CatalogTransport.Failure.cancelled) }
        return !cancelled
    }

    func cancel() {
        aborted.store(true, ordering: .relaxed)
        let continuation = waiting.withLock { state in
            state.cancelled = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(throwing: CatalogTransport.Failure.cancelled)
    }

    func finish(_ result: Result<CatalogTransport.Reply, CatalogTransport.Failure>) {
        let continuation = waiting.withLock { state in
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: result.mapError { $0 as any Error })
    }
}

/// What one transfer received, filled by libcurl's callbacks (on the transfer thread only).
private final class Transfer {
    let exchange: Exchange
    var data = Data()
    var retryAfter: String?

    init(exchange: Exchange) { self.exchange = exchange }

    static func from(_ pointer: UnsafeMutableRawPointer?) -> Transfer? {
        pointer.map { Unmanaged<Transfer>.fromOpaque($0).takeUnretainedValue() }
    }

    static let header: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, context in
        guard let data, let transfer = from(context) else { return 0 }
        let length = size * count
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            transfer.retryAfter = nil   // a new response (after a 100 Continue): only the last one's fields count
        } else if let colon = line.firstIndex(of: ":"),
                  line[..<colon].trimmingCharacters(in: .whitespaces).lowercased() == "retry-after" {
            transfer.retryAfter = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return length
    }

    static let body: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, context in
        guard let data, let transfer = from(context) else { return 0 }
        let length = size * count
        transfer.data.append(UnsafeRawBufferPointer(start: data, count: length).assumingMemoryBound(to: UInt8.self))
        return transfer.exchange.aborted.load(ordering: .relaxed) ? 0 : length
    }

    static let progress: @convention(c) (UnsafeMutableRawPointer?, curl_off_t, curl_off_t, curl_off_t, curl_off_t) -> Int32 = { context, _, _, _, _ in
        guard let transfer = from(context) else { return 1 }
        return transfer.exchange.aborted.load(ordering: .relaxed) ? 1 : 0
    }
}
