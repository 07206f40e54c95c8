import Logging
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

public enum CrateLogging {
    private static let done = Atomic<Bool>(false)

    /// Sends swift-log output to stderr at `level`, through the console (so log lines never tear a progress
    /// line apart). Only the first call in a process takes effect (swift-log allows one bootstrap).
    public static func bootstrap(level: String) {
        guard done.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        let parsed = Logger.Level(rawValue: level) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = ConsoleLogHandler(label: label)
            handler.logLevel = parsed
            return handler
        }
    }
}

/// Standard error shared by log lines and a live status line (the import progress bar): a log line is written
/// above the status line, which is then drawn again. While capturing, warnings are kept for the command's report,
/// since on a terminal they scroll past.
public final class CrateConsole: Sendable {
    public static let shared = CrateConsole()

    private struct State {
        var status: String?
        var capturing = false
        var captured: [String] = []
    }
    private let state = Mutex(State())

    /// Shows (or replaces) the status line; it stays on the last line of the terminal.
    public func showStatus(_ text: String) {
        state.withLock { s in
            s.status = text
            Self.write("\r" + text + "\u{1B}[K")
        }
    }

    /// Ends the status line, leaving `text` (if any) as its last state.
    public func endStatus(_ text: String? = nil) {
        state.withLock { s in
            if let text { Self.write("\r" + text + "\u{1B}[K\n") } else if s.status != nil { Self.write("\r\u{1B}[K") }
            s.status = nil
        }
    }

    /// Starts keeping warnings (and worse) for a report.
    public func startCapturing() {
        state.withLock { $0.capturing = true; $0.captured = [] }
    }

    /// Stops keeping warnings and returns them, in order.
    public func stopCapturing() -> [String] {
        state.withLock { s in
            s.capturing = false
            defer { s.captured = [] }
            return s.captured
        }
    }

    func log(_ line: String, message: String, level: Logger.Level) {
        state.withLock { s in
            if s.capturing, level >= .warning { s.captured.append(message) }
            guard let status = s.status else { return Self.write(line + "\n") }
            Self.write("\r\u{1B}[K" + line + "\n" + status + "\u{1B}[K")
        }
    }

    private static func write(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                raw.baseAddress.map { Glibc.write(STDERR_FILENO, $0 + offset, raw.count - offset) } ?? 0
            }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            offset += n
        }
    }
}

/// swift-log's stream format (`2026-11-25T03:28:03+0000 warning crate: [CrateCore] message key=value`), written
/// through `CrateConsole`.
struct ConsoleLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String) { self.label = label }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { $1 } }
        if let extra = event.metadata { all.merge(extra) { $1 } }
        let pairs = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let message = event.message.description
        CrateConsole.shared.log("\(Self.timestamp()) \(event.level) \(label):\(pairs) [\(event.source)] \(message)",
                                message: message, level: event.level)
    }

    private static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let n = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
