import Logging
import Synchronization

public enum CrateLogging {
    private static let done = Atomic<Bool>(false)

    /// Sends swift-log output to stderr at `level`. Only the first call in a process takes effect
    /// (swift-log allows one bootstrap).
    public static func bootstrap(level: String) {
        guard done.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        let parsed = Logger.Level(rawValue: level) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = parsed
            return handler
        }
    }
}
