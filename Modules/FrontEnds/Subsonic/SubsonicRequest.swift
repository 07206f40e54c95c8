import CrateDomain
import Foundation
import Hummingbird

/// A request's parameters: the query string's, then (OpenSubsonic's formPost) a form body's, in order. Names may
/// repeat (`id=…&id=…` stars several items), so every value is kept.
struct SubsonicParameters: Sendable {
    private var values: [String: [String]] = [:]

    /// The largest form body read; a longer one is refused (a playlist of thousands of songs fits well inside it).
    static let maximumBody = 1 << 20

    init(_ pairs: [(String, String)] = []) {
        for (name, value) in pairs { values[name, default: []].append(value) }
    }

    /// The most of a body read and dropped: one over `maximumBody`, or one that is not a form. Read, so a client
    /// that sends its whole body before reading the answer gets the answer instead of blocking on a full socket.
    static let drainedBody = 64 << 20

    /// The parameters of a request: its query, and its body when it is a form POST (bounded by `maximumBody`).
    static func read(_ request: inout Request) async throws -> SubsonicParameters {
        var pairs = decodeForm(request.uri.query ?? "")
        let isForm = request.method == .post
            && request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
        var form = ByteBuffer()
        var seen = 0
        for try await part in request.body {
            seen += part.readableBytes
            if isForm && seen <= maximumBody {
                var part = part
                form.writeBuffer(&part)
            }
            if seen > maximumBody + drainedBody { break }
        }
        if isForm {
            guard seen <= maximumBody else {
                throw SubsonicError(.generic, "the form body is larger than \(maximumBody / 1024) KiB: send fewer parameters at once")
            }
            pairs += decodeForm(String(buffer: form))
        }
        return SubsonicParameters(pairs)
    }

    /// The query string's or a form body's pairs (`FormEncoding`).
    static func decodeForm(_ text: String) -> [(String, String)] {
        FormEncoding.pairs(text).map { ($0.name, $0.value) }
    }

    /// The first value given for `name`.
    func string(_ name: String) -> String? { values[name]?.first }

    /// Every value given for `name`, in order.
    func all(_ name: String) -> [String] { values[name] ?? [] }

    func has(_ name: String) -> Bool { values[name] != nil }

    func required(_ name: String) throws(SubsonicError) -> String {
        guard let value = string(name), !value.isEmpty else { throw .missing(name) }
        return value
    }

    /// A whole number; absent gives `fallback`, anything else that is not a number is an error naming it.
    func int(_ name: String, default fallback: Int? = nil) throws(SubsonicError) -> Int? {
        guard let text = string(name), !text.isEmpty else { return fallback }
        guard let number = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw .invalid(name, text, expected: "a whole number")
        }
        return number
    }

    func int(_ name: String, default fallback: Int) throws(SubsonicError) -> Int {
        try int(name, default: Optional(fallback)) ?? fallback
    }

    /// `true`/`false` (and 1/0, as some apps send); absent gives `fallback`.
    func bool(_ name: String, default fallback: Bool) -> Bool {
        switch string(name)?.lowercased() {
        case "true", "1", "yes": true
        case "false", "0", "no": false
        default: fallback
        }
    }
}

/// What the client asked the answer to be written as (`f`).
enum SubsonicFormat: Sendable, Equatable {
    case xml
    case json
    case jsonp(callback: String)

    /// XML unless `f` says otherwise; an unknown `f` is answered in XML, the spec's default. A JSONP callback must be a
    /// plain JavaScript name (so the answer cannot carry script of the caller's choosing); without one, JSON.
    init(_ parameters: SubsonicParameters) {
        switch parameters.string("f")?.lowercased() {
        case "json": self = .json
        case "jsonp":
            if let callback = parameters.string("callback"), Self.isPlainName(callback) {
                self = .jsonp(callback: callback)
            } else {
                self = .json
            }
        default: self = .xml
        }
    }

    static func isPlainName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, text.unicodeScalars.count <= 100,
              first == "_" || first == "$" || (first.isASCII && first.properties.isAlphabetic) else { return false }
        return text.unicodeScalars.allSatisfy { $0 == "_" || $0 == "$" || $0 == "." || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }

    var contentType: String {
        switch self {
        case .xml: "text/xml; charset=utf-8"
        case .json: "application/json; charset=utf-8"
        case .jsonp: "application/javascript; charset=utf-8"
        }
    }

    func render(_ document: SubsonicObject) -> String {
        switch self {
        case .xml: SubsonicRenderer.xml(document)
        case .json: SubsonicRenderer.json(document)
        case .jsonp(let callback): SubsonicRenderer.jsonp(document, callback: callback)
        }
    }
}

extension SubsonicParameters {
    /// The endpoint a path names: `/rest/getAlbum` and `/rest/getAlbum.view` are the same.
    static func endpoint(fromPath path: String) -> String? {
        guard let slash = path.range(of: "/rest/", options: .anchored) else { return nil }
        var name = String(path[slash.upperBound...])
        if let query = name.firstIndex(of: "?") { name = String(name[..<query]) }
        if name.hasSuffix(".view") { name.removeLast(5) }
        guard !name.isEmpty, !name.contains("/") else { return nil }
        return name
    }
}
