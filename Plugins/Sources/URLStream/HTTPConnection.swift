import CCurl
import CrateDomain
import Foundation

/// One HTTP(S) transfer through libcurl on its own thread, filling a bounded buffer that `HTTPByteStream` reads
/// from. Live streams (no length) reconnect with backoff when the connection drops; ICY metadata is taken out of the
/// audio bytes and kept as the stream's metadata. Unchecked Sendable: every mutable field is guarded by `lock`.
final class HTTPConnection: @unchecked Sendable {
    let url: URL
    let config: URLStreamConfig
    private let lock = NSCondition()
    private var bytes: [UInt8] = []
    private var readAt = 0
    private var finished = false
    private var failure: ByteStreamError?
    private var headersDone = false
    private var cancelled = false
    private var running = false

    // What the (final) response said; read after `waitForHeaders`.
    private(set) var status = 0
    private(set) var contentType: String?
    private(set) var contentLength: Int64?
    private(set) var acceptsRanges = false
    private(set) var stationName: String?
    private var metadata: StreamMetadata?
    /// Titles that arrived ahead of the reader, each with the audio byte (counted from the first) it belongs before:
    /// a title becomes current when the reader reaches its place, not when the network delivered it.
    private var pendingMetadata: [(at: Int64, metadata: StreamMetadata)] = []
    private var appendedTotal: Int64 = 0
    private var readTotal: Int64 = 0
    private var headerFields: [String: String] = [:]
    /// How many transfers ran (the first connection and every reconnection).
    private(set) var connections = 0

    init(url: URL, config: URLStreamConfig, offset: Int64) {
        self.url = url
        self.config = config
        running = true
        WorkerThread.start(name: "crate-http") { [self] in run(from: offset) }
    }

    /// Blocks until the response headers are in (or the transfer failed), bounded by the connect timeout.
    func waitForHeaders() throws(ByteStreamError) {
        lock.lock()
        defer { lock.unlock() }
        let deadline = Date().addingTimeInterval(config.connectTimeout + config.readTimeout)
        while !headersDone && failure == nil && !finished {
            if !lock.wait(until: deadline) { break }
        }
        if let failure { throw failure }
        if !headersDone { throw .cannotOpen(name: url.absoluteString, reason: finished ? "the server sent nothing" : "no answer in time") }
    }

    var currentMetadata: StreamMetadata? { lock.withLock { metadata } }

    /// Bytes into `buffer`, waiting for the transfer; 0 at the end of a finite stream.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ByteStreamError) -> Int {
        lock.lock()
        defer { lock.unlock() }
        while bytes.count - readAt == 0 && !finished && failure == nil && !cancelled { lock.wait() }
        let available = bytes.count - readAt
        if available > 0 {
            let n = min(available, buffer.count)
            bytes.withUnsafeBytes { raw in buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[readAt..<readAt + n])) }
            readAt += n
            readTotal += Int64(n)
            while let next = pendingMetadata.first, next.at <= readTotal {
                metadata = next.metadata
                pendingMetadata.removeFirst()
            }
            if readAt > config.bufferBytes / 2 {
                bytes.removeFirst(readAt)
                readAt = 0
            }
            lock.broadcast()   // room for the writer
            return n
        }
        if let failure { throw failure }
        return 0
    }

    /// Stops the transfer and waits for its thread (bounded), so no callback outlives the connection's user.
    func cancel() {
        lock.lock()
        cancelled = true
        lock.broadcast()
        let deadline = Date().addingTimeInterval(10)
        while running { if !lock.wait(until: deadline) { break } }
        lock.unlock()
    }

    private var isCancelled: Bool { lock.withLock { cancelled } }

    // MARK: - The transfer thread

    private func run(from offset: Int64) {
        var delivered = offset
        var attempt = 0
        while !isCancelled {
            let before = delivered
            let (code, message) = transfer(from: delivered, delivered: &delivered)
            lock.lock()
            let live = headersDone && contentLength == nil
            let stop = cancelled || failure != nil
            lock.unlock()
            if stop { break }
            if code == CURLE_OK && !live { break }                       // a finite file arrived whole
            if !headersDone {                                              // never connected: fail fast
                fail(.cannotOpen(name: url.absoluteString, reason: message))
                break
            }
            if !live {
                if let length = contentLength, delivered >= length { break }
                fail(.readFailed(name: url.absoluteString, reason: message))
                break
            }
            // A live stream dropped: reconnect with backoff; progress since the last drop resets the count.
            if delivered > before { attempt = 0 }
            attempt += 1
            guard attempt <= config.reconnectAttempts else {
                fail(.readFailed(name: url.absoluteString, reason: "the stream dropped and \(config.reconnectAttempts) reconnections failed (\(message))"))
                break
            }
            let pause = config.reconnectDelay * pow(2, Double(attempt - 1))
            lock.lock()
            _ = lock.wait(until: Date().addingTimeInterval(pause))   // a cancel wakes it
            lock.unlock()
        }
        lock.lock()
        finished = true
        running = false
        lock.broadcast()
        lock.unlock()
    }

    private func fail(_ error: ByteStreamError) {
        lock.lock()
        if failure == nil { failure = error }
        lock.broadcast()
        lock.unlock()
    }

    /// One curl transfer from byte `offset` (a reconnection of a live stream starts fresh: offset 0).
    private func transfer(from offset: Int64, delivered: inout Int64) -> (CURLcode, String) {
        var loadError = [CChar](repeating: 0, count: 512)
        guard crate_curl_load(&loadError, loadError.count) != 0 else {
            return (CURLE_FAILED_INIT, "libcurl cannot be loaded: " + String(decoding: loadError.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        guard let handle = crate_curl_easy_init() else { return (CURLE_FAILED_INIT, "libcurl could not start") }
        defer { crate_curl_easy_cleanup(handle) }
        let state = TransferState(connection: self, handle: handle)
        let context = Unmanaged.passRetained(state)
        defer { context.release() }
        var headers: UnsafeMutablePointer<curl_slist>?
        headers = crate_curl_slist_append(headers, "Icy-MetaData: 1")
        defer { crate_curl_slist_free_all(headers) }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let live = lock.withLock { headersDone && contentLength == nil }
        let code = errorBuffer.withUnsafeMutableBufferPointer { errors -> CURLcode in
            _ = crate_curl_string(handle, CURLOPT_URL, url.absoluteString)
            _ = crate_curl_long(handle, CURLOPT_FOLLOWLOCATION, 1)
            _ = crate_curl_long(handle, CURLOPT_MAXREDIRS, 10)
            _ = crate_curl_string(handle, CURLOPT_USERAGENT, config.userAgent)
            _ = crate_curl_list(handle, CURLOPT_HTTPHEADER, headers)
            _ = crate_curl_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(config.connectTimeout * 1000))
            // A server that sends nothing for readTimeout seconds is treated as a dropped connection.
            _ = crate_curl_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1)
            _ = crate_curl_long(handle, CURLOPT_LOW_SPEED_TIME, Int(config.readTimeout.rounded(.up)))
            _ = crate_curl_long(handle, CURLOPT_NOSIGNAL, 1)
            _ = crate_curl_long(handle, CURLOPT_NOPROGRESS, 0)
            _ = crate_curl_pointer(handle, CURLOPT_ERRORBUFFER, errors.baseAddress)
            _ = crate_curl_write(handle, CURLOPT_HEADERFUNCTION, TransferState.header)
            _ = crate_curl_pointer(handle, CURLOPT_HEADERDATA, context.toOpaque())
            _ = crate_curl_write(handle, CURLOPT_WRITEFUNCTION, TransferState.body)
            _ = crate_curl_pointer(handle, CURLOPT_WRITEDATA, context.toOpaque())
            _ = crate_curl_progress(handle, TransferState.progress)
            _ = crate_curl_pointer(handle, CURLOPT_XFERINFODATA, context.toOpaque())
            if offset > 0 && !live { _ = crate_curl_string(handle, CURLOPT_RANGE, "\(offset)-") }
            return crate_curl_easy_perform(handle)
        }
        delivered += state.audioBytes
        lock.withLock { connections += 1 }
        if code == CURLE_OK && !state.sawBody { state.checkResponse() }     // an empty body still has a status
        let text = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (code, text.isEmpty ? String(cString: crate_curl_easy_strerror(code)) : text)
    }

    // MARK: - Called from the transfer's callbacks

    func header(_ line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        lock.lock()
        defer { lock.unlock() }
        if trimmed.hasPrefix("HTTP/") || trimmed.hasPrefix("ICY ") {   // a new response (after a redirect)
            headerFields = [:]
            return
        }
        guard let colon = trimmed.firstIndex(of: ":") else { return }
        headerFields[trimmed[..<colon].lowercased()] = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }

    enum Verdict {
        case refuse
        case audio(ICYDemuxer?)
    }

    /// The final response's verdict, at its first body bytes: an error status or an HTML page ends the transfer.
    func accept(status code: Int) -> Verdict {
        lock.lock()
        defer { lock.broadcast(); lock.unlock() }
        let type = headerFields["content-type"]?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if !headersDone {
            status = code
            contentType = type
            contentLength = headerFields["content-length"].flatMap { Int64($0) }
            acceptsRanges = headerFields["accept-ranges"]?.lowercased() == "bytes"
            stationName = headerFields["icy-name"]
            headersDone = true
        }
        if code >= 400 {
            failure = .notAudio(name: url.absoluteString, reason: "the server answered HTTP \(code)")
            return .refuse
        }
        if type == "text/html" || type == "application/xhtml+xml" {
            failure = .notAudio(name: url.absoluteString, reason: "it is a web page (\(type ?? "text/html")), not a stream")
            return .refuse
        }
        let interval = headerFields["icy-metaint"].flatMap { Int($0) } ?? 0
        return .audio(interval > 0 ? ICYDemuxer(interval: interval) : nil)
    }

    /// Audio bytes into the buffer, waiting while it is full; false when the transfer should stop.
    func append(_ chunk: UnsafeRawBufferPointer) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        while bytes.count - readAt >= config.bufferBytes && !cancelled { lock.wait() }
        if cancelled { return false }
        bytes.append(contentsOf: chunk)
        appendedTotal += Int64(chunk.count)
        lock.broadcast()
        return true
    }

    func title(_ text: String) {
        lock.withLock {
            let generation = (pendingMetadata.last?.metadata ?? metadata)?.generation ?? 0
            let next = StreamMetadata(title: text, stationName: stationName, generation: generation + 1)
            if appendedTotal <= readTotal { metadata = next } else { pendingMetadata.append((appendedTotal, next)) }
        }
    }

    var shouldAbort: Bool { isCancelled }
}

/// Per-transfer state the C callbacks reach through their `void *`.
final class TransferState {
    unowned let connection: HTTPConnection
    let handle: UnsafeMutableRawPointer
    var sawBody = false
    var demuxer: ICYDemuxer?
    var audioBytes: Int64 = 0
    var refused = false

    init(connection: HTTPConnection, handle: UnsafeMutableRawPointer) {
        self.connection = connection
        self.handle = handle
    }

    static func from(_ pointer: UnsafeMutableRawPointer?) -> TransferState? {
        pointer.map { Unmanaged<TransferState>.fromOpaque($0).takeUnretainedValue() }
    }

    func checkResponse() {
        sawBody = true
        switch connection.accept(status: crate_curl_status(handle)) {
        case .refuse: refused = true
        case .audio(let icy): demuxer = icy
        }
    }

    static let header: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, context in
        guard let data, let state = from(context) else { return 0 }
        let length = size * count
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
        state.connection.header(line)
        return length
    }

    static let body: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, context in
        guard let data, let state = from(context) else { return 0 }
        let length = size * count
        if !state.sawBody { state.checkResponse() }
        if state.refused { return 0 }
        let chunk = UnsafeRawBufferPointer(start: data, count: length)
        var keepGoing = true
        if var demuxer = state.demuxer {
            demuxer.feed(chunk, audio: { audio in
                if keepGoing { keepGoing = state.connection.append(audio); state.audioBytes += Int64(audio.count) }
            }, title: { state.connection.title($0) })
            state.demuxer = demuxer
        } else {
            keepGoing = state.connection.append(chunk)
            state.audioBytes += Int64(length)
        }
        return keepGoing ? length : 0
    }

    static let progress: @convention(c) (UnsafeMutableRawPointer?, curl_off_t, curl_off_t, curl_off_t, curl_off_t) -> Int32 = { context, _, _, _, _ in
        guard let state = from(context) else { return 1 }
        return state.connection.shouldAbort ? 1 : 0
    }
}
