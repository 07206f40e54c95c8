public import Foundation

/// A file that could not be decoded or scanned: which file, and why.
public struct DecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public init(url: URL, reason: String) {
        self.init(path: url.path, reason: reason)
    }

    public var description: String { "\(path): \(reason)" }
}

/// An output that could not open, write or drain.
public struct OutputError: Error, Sendable, Hashable, CustomStringConvertible {
    public var output: String
    public var reason: String

    public init(output: String, reason: String) {
        self.output = output
        self.reason = reason
    }

    public var description: String { "output \(output): \(reason)" }
}

/// Problems assembling the plugin registries at start-up.
public enum RegistryError: Error, Sendable, Hashable, CustomStringConvertible {
    case duplicateScheme(scheme: String, first: String, second: String)
    case duplicateName(kind: PluginKind, name: String)
    case unknownDecoder(name: String, known: [String])
    case unknownOutput(name: String, known: [String])
    case unknownSource(name: String, known: [String])
    case noSource(scheme: String)
    case sourceUnavailable(name: String, reason: String)
    case outputUnavailable(name: String, reason: String)
    case noDecoder(path: String, suffix: String)

    public var description: String {
        switch self {
        case let .duplicateScheme(scheme, first, second):
            "source plugins '\(first)' and '\(second)' both claim the URI scheme '\(scheme):'; disable one of them"
        case let .duplicateName(kind, name):
            "two \(kind) plugins are named '\(name)'"
        case let .unknownDecoder(name, known):
            "unknown decoder '\(name)'; known decoders: \(known.joined(separator: ", "))"
        case let .unknownOutput(name, known):
            "unknown output '\(name)'; known outputs: \(known.joined(separator: ", "))"
        case let .unknownSource(name, known):
            "unknown source '\(name)'; known sources: \(known.joined(separator: ", "))"
        case let .noSource(scheme):
            "no source plugin handles '\(scheme):' URIs"
        case let .sourceUnavailable(name, reason):
            "source '\(name)' is unavailable: \(reason)"
        case let .outputUnavailable(name, reason):
            "output '\(name)' is unavailable: \(reason)"
        case let .noDecoder(path, suffix):
            suffix.isEmpty
                ? "\(path): no decoder for a file without a suffix"
                : "\(path): no available decoder handles '.\(suffix)' files"
        }
    }
}

/// Turns any error into the one line a user reads: our errors describe themselves;
/// Foundation's errors give their localized message rather than a domain/code dump.
public enum ErrorText {
    public static func describe(_ error: any Error) -> String {
        switch error {
        case let e as CocoaError: return e.localizedDescription
        case let e as POSIXError: return e.localizedDescription
        default:
            let text = String(describing: error)
            return text.hasPrefix("Error Domain=") ? (error as NSError).localizedDescription : text
        }
    }
}
