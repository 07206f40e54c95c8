import CrateCore
import Foundation

/// One answer, built once and rendered as the client asked (`f=xml`, `json` or `jsonp`): a small tree of objects,
/// arrays and scalars. In JSON it is what it looks like; in XML an object is an element whose scalars are attributes
/// and whose objects and arrays are child elements named by their key (one per array item), as Subsonic's schema
/// has it. A `value` string is an element's text (a genre's name: `<genre songCount="3">Rock</genre>`).
indirect enum SubsonicValue: Sendable, Equatable {
    case object(SubsonicObject)
    case array([SubsonicValue])
    case string(String)
    case int(Int)
    case bool(Bool)
    case double(Double)
}

/// An object's fields in the order they were set (so answers read the same every time).
struct SubsonicObject: Sendable, Equatable {
    private(set) var fields: [Field] = []

    struct Field: Sendable, Equatable {
        var key: String
        var value: SubsonicValue
    }

    init() {}

    init(_ build: (inout SubsonicObject) throws -> Void) rethrows { try build(&self) }

    /// Sets a field; `nil` leaves it out (Subsonic omits what is unknown rather than sending null).
    subscript(key: String) -> SubsonicValue? {
        get { fields.first { $0.key == key }?.value }
        set {
            fields.removeAll { $0.key == key }
            if let newValue { fields.append(Field(key: key, value: newValue)) }
        }
    }

    subscript(key: String) -> String? {
        get { if case .string(let text)? = self[key] as SubsonicValue? { text } else { nil } }
        set { self[key] = newValue.map(SubsonicValue.string) }
    }

    subscript(key: String) -> Int? {
        get { if case .int(let number)? = self[key] as SubsonicValue? { number } else { nil } }
        set { self[key] = newValue.map(SubsonicValue.int) }
    }

    subscript(key: String) -> Bool? {
        get { if case .bool(let flag)? = self[key] as SubsonicValue? { flag } else { nil } }
        set { self[key] = newValue.map(SubsonicValue.bool) }
    }

    subscript(key: String) -> Double? {
        get { if case .double(let number)? = self[key] as SubsonicValue? { number } else { nil } }
        set { self[key] = newValue.flatMap { $0.isFinite ? SubsonicValue.double($0) : nil } }
    }

    /// Dates as ISO 8601 in UTC (`2024-05-01T10:20:30Z`); read them back as `String`.
    subscript(key: String) -> Date? {
        get { nil }
        set { self[key] = newValue.map { SubsonicValue.string(SubsonicObject.iso8601($0)) } }
    }

    subscript(key: String) -> [SubsonicObject]? {
        get {
            guard case .array(let items)? = self[key] as SubsonicValue? else { return nil }
            return items.compactMap { if case .object(let object) = $0 { object } else { nil } }
        }
        set { self[key] = newValue.map { SubsonicValue.array($0.map(SubsonicValue.object)) } }
    }

    subscript(key: String) -> SubsonicObject? {
        get { if case .object(let object)? = self[key] as SubsonicValue? { object } else { nil } }
        set { self[key] = newValue.map(SubsonicValue.object) }
    }

    static func iso8601(_ date: Date) -> String { date.formatted(.iso8601) }
}

/// The envelope around every answer that is not media: `subsonic-response` with its status and the server's name.
enum SubsonicEnvelope {
    static let apiVersion = "1.16.1"
    static let serverType = "crate"
    /// Subsonic's XML namespace: clients that validate against the schema look for it.
    static let xmlNamespace = "http://subsonic.org/restapi"

    static func header(failed: Bool) -> SubsonicObject {
        SubsonicObject {
            $0["status"] = failed ? "failed" : "ok"
            $0["version"] = apiVersion
            $0["type"] = serverType
            $0["serverVersion"] = CrateVersion.string
            $0["openSubsonic"] = true
        }
    }

    /// The whole answer: the header's fields, then the payload's (`albumList2`, `error`, …).
    static func document(_ payload: SubsonicObject, failed: Bool = false) -> SubsonicObject {
        var document = header(failed: failed)
        for field in payload.fields { document[field.key] = field.value }
        return document
    }

    static func error(_ error: SubsonicError) -> SubsonicObject {
        document(SubsonicObject { $0["error"] = SubsonicObject { $0["code"] = error.code.rawValue; $0["message"] = error.message } },
                 failed: true)
    }
}

/// Renders a document in the format the request asked for.
enum SubsonicRenderer {
    static func json(_ document: SubsonicObject) -> String {
        var out = "{\"subsonic-response\":"
        writeJSON(.object(document), to: &out)
        out += "}"
        return out
    }

    /// JSONP: the JSON passed to the page's function (`callback` is checked to be a plain name by the request).
    static func jsonp(_ document: SubsonicObject, callback: String) -> String { "\(callback)(\(json(document)));" }

    static func xml(_ document: SubsonicObject) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        writeXML(document, name: "subsonic-response", namespace: xmlNamespace, to: &out)
        return out
    }

    private static var xmlNamespace: String { SubsonicEnvelope.xmlNamespace }

    // MARK: JSON

    private static func writeJSON(_ value: SubsonicValue, to out: inout String) {
        switch value {
        case .object(let object):
            out += "{"
            for (n, field) in object.fields.enumerated() {
                if n > 0 { out += "," }
                writeJSONString(field.key, to: &out)
                out += ":"
                writeJSON(field.value, to: &out)
            }
            out += "}"
        case .array(let items):
            out += "["
            for (n, item) in items.enumerated() {
                if n > 0 { out += "," }
                writeJSON(item, to: &out)
            }
            out += "]"
        case .string(let text): writeJSONString(text, to: &out)
        case .int(let number): out += String(number)
        case .bool(let flag): out += flag ? "true" : "false"
        case .double(let number): out += number.isFinite ? number.description : "null"
        }
    }

    private static func writeJSONString(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            // Control characters, and the two line separators JavaScript does not allow in a string (JSONP).
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    // MARK: XML

    private static func writeXML(_ object: SubsonicObject, name: String, namespace: String? = nil, to out: inout String) {
        out += "<" + name
        if let namespace { out += " xmlns=\"\(namespace)\"" }
        var text: String?
        var children: [SubsonicObject.Field] = []
        for field in object.fields {
            switch field.value {
            case .object, .array: children.append(field)
            case .string(let value) where field.key == "value": text = value
            default: out += " \(field.key)=\"" + escapeXML(scalarText(field.value), attribute: true) + "\""
            }
        }
        guard text != nil || !children.isEmpty else {
            out += "/>"
            return
        }
        out += ">"
        if let text { out += escapeXML(text, attribute: false) }
        for child in children { writeXMLChild(child.value, name: child.key, to: &out) }
        out += "</\(name)>"
    }

    private static func writeXMLChild(_ value: SubsonicValue, name: String, to out: inout String) {
        switch value {
        case .object(let object): writeXML(object, name: name, to: &out)
        // Each item is an element of the array's name: `<song …/><song …/>`, `<versions>1</versions>`.
        case .array(let items): for item in items { writeXMLChild(item, name: name, to: &out) }
        default: out += "<\(name)>" + escapeXML(scalarText(value), attribute: false) + "</\(name)>"
        }
    }

    private static func scalarText(_ value: SubsonicValue) -> String {
        switch value {
        case .string(let text): text
        case .int(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        case .double(let number): number.description
        case .object, .array: ""
        }
    }

    /// Escapes markup, keeps line breaks in attributes (as character references) and drops the characters XML 1.0
    /// cannot carry at all (most control characters), which a tag may hold.
    static func escapeXML(_ text: String, attribute: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where attribute: out += "&quot;"
            case "'" where attribute: out += "&apos;"
            case "\n" where attribute: out += "&#10;"
            case "\r": out += "&#13;"
            case "\t" where attribute: out += "&#9;"
            case _ where !allowedInXML(scalar): continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func allowedInXML(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }
}
