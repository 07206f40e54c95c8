import CDBus
import Foundation

/// The D-Bus values MPRIS needs, written into and read from libdbus messages. Text is cleaned on the way in: libdbus
/// stops the process on a string it cannot send (a NUL inside), and tags come from files.
indirect enum DBusValue: Equatable, Sendable {
    case string(String)
    case objectPath(String)
    case bool(Bool)
    case int32(Int32)
    case int64(Int64)
    case double(Double)
    /// `as`
    case strings([String])
    /// `a{sv}`
    case dictionary([(String, DBusValue)])

    static func == (a: DBusValue, b: DBusValue) -> Bool {
        switch (a, b) {
        case let (.string(x), .string(y)), let (.objectPath(x), .objectPath(y)): x == y
        case let (.bool(x), .bool(y)): x == y
        case let (.int32(x), .int32(y)): x == y
        case let (.int64(x), .int64(y)): x == y
        case let (.double(x), .double(y)): x == y
        case let (.strings(x), .strings(y)): x == y
        case let (.dictionary(x), .dictionary(y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    // The type codes (dbus-protocol.h defines them as casts, which Swift does not import).
    static let typeString = Int32(UInt8(ascii: "s")), typeObjectPath = Int32(UInt8(ascii: "o"))
    static let typeBool = Int32(UInt8(ascii: "b")), typeInt32 = Int32(UInt8(ascii: "i"))
    static let typeInt64 = Int32(UInt8(ascii: "x")), typeDouble = Int32(UInt8(ascii: "d"))
    static let typeArray = Int32(UInt8(ascii: "a")), typeVariant = Int32(UInt8(ascii: "v"))
    static let typeDictEntry = Int32(UInt8(ascii: "e"))

    var signature: String {
        switch self {
        case .string: "s"
        case .objectPath: "o"
        case .bool: "b"
        case .int32: "i"
        case .int64: "x"
        case .double: "d"
        case .strings: "as"
        case .dictionary: "a{sv}"
        }
    }

    /// Appends the value as itself (not wrapped in a variant).
    func append(to iter: inout DBusMessageIter) {
        switch self {
        case .string(let text): Self.appendText(text, type: Self.typeString, to: &iter)
        case .objectPath(let path): Self.appendText(path, type: Self.typeObjectPath, to: &iter)
        case .bool(let value):
            var word: dbus_bool_t = value ? 1 : 0
            dbus_message_iter_append_basic(&iter, Self.typeBool, &word)
        case .int32(var value): dbus_message_iter_append_basic(&iter, Self.typeInt32, &value)
        case .int64(var value): dbus_message_iter_append_basic(&iter, Self.typeInt64, &value)
        case .double(var value): dbus_message_iter_append_basic(&iter, Self.typeDouble, &value)
        case .strings(let texts):
            var array = DBusMessageIter()
            dbus_message_iter_open_container(&iter, Self.typeArray, "s", &array)
            for text in texts { Self.appendText(text, type: Self.typeString, to: &array) }
            dbus_message_iter_close_container(&iter, &array)
        case .dictionary(let entries):
            var array = DBusMessageIter()
            dbus_message_iter_open_container(&iter, Self.typeArray, "{sv}", &array)
            for (key, value) in entries {
                var entry = DBusMessageIter()
                dbus_message_iter_open_container(&array, Self.typeDictEntry, nil, &entry)
                Self.appendText(key, type: Self.typeString, to: &entry)
                value.appendVariant(to: &entry)
                dbus_message_iter_close_container(&array, &entry)
            }
            dbus_message_iter_close_container(&iter, &array)
        }
    }

    /// Appends the value wrapped in a variant (`v`).
    func appendVariant(to iter: inout DBusMessageIter) {
        var variant = DBusMessageIter()
        dbus_message_iter_open_container(&iter, Self.typeVariant, signature, &variant)
        append(to: &variant)
        dbus_message_iter_close_container(&iter, &variant)
    }

    private static func appendText(_ text: String, type: Int32, to iter: inout DBusMessageIter) {
        let clean = text.contains("\0") ? text.replacingOccurrences(of: "\0", with: "") : text
        clean.withCString { pointer in
            var p: UnsafePointer<CChar>? = pointer
            _ = dbus_message_iter_append_basic(&iter, type, &p)
        }
    }

    /// The value `iter` points at, with a variant unwrapped; nil for a type MPRIS never sends Crate.
    static func read(_ iter: inout DBusMessageIter) -> DBusValue? {
        switch dbus_message_iter_get_arg_type(&iter) {
        case typeString, typeObjectPath:
            var p: UnsafePointer<CChar>?
            dbus_message_iter_get_basic(&iter, &p)
            guard let p else { return nil }
            let text = String(cString: p)
            return dbus_message_iter_get_arg_type(&iter) == typeString ? .string(text) : .objectPath(text)
        case typeBool:
            var word: dbus_bool_t = 0
            dbus_message_iter_get_basic(&iter, &word)
            return .bool(word != 0)
        case typeInt32:
            var value: Int32 = 0
            dbus_message_iter_get_basic(&iter, &value)
            return .int32(value)
        case typeInt64:
            var value: Int64 = 0
            dbus_message_iter_get_basic(&iter, &value)
            return .int64(value)
        case typeDouble:
            var value = 0.0
            dbus_message_iter_get_basic(&iter, &value)
            return .double(value)
        case typeVariant:
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &inner)
            return read(&inner)
        default:
            return nil
        }
    }
}
