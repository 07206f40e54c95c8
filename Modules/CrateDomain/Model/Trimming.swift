/// Trimming without Foundation: `trimmingCharacters(in:)` goes through NSString on Linux, and with the substring it
/// makes it was 15 % of a 100,000-file import's CPU (every tag value is trimmed). These walk the Unicode scalars and
/// return the string itself when there is nothing to trim.
extension Unicode.Scalar {
    /// Foundation's `whitespacesAndNewlines ∪ controlCharacters`: general categories Z*, Cc and Cf (a tag value's
    /// padding: spaces, line breaks, the NUL terminators some ID3 writers leave).
    public var isPadding: Bool {
        if value < 0x80 { return value <= 0x20 || value == 0x7F }
        switch properties.generalCategory {
        case .spaceSeparator, .lineSeparator, .paragraphSeparator, .control, .format: return true
        default: return false
        }
    }

    /// Foundation's `.whitespaces`: general category Zs, the tab, and U+200B (zero width space, Zs before Unicode
    /// 4.0.1 and still in CoreFoundation's set).
    public var isBlank: Bool {
        if value < 0x80 { return value == 0x20 || value == 0x09 }
        return value == 0x200B || properties.generalCategory == .spaceSeparator
    }
}

extension Substring {
    /// Without the leading and trailing scalars for which `drop` holds. Sliced by scalars, so a dropped scalar that
    /// joins the character before it (a trailing U+200D) goes without taking that character along.
    public func trimming(_ drop: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !drop($0) }),
              let last = scalars.lastIndex(where: { !drop($0) }) else { return "" }
        return String(scalars[first...last])
    }
}

extension String {
    /// Without the leading and trailing scalars for which `drop` holds; the string itself when there are none.
    public func trimming(_ drop: (Unicode.Scalar) -> Bool) -> String {
        guard let head = unicodeScalars.first, let tail = unicodeScalars.last else { return self }
        if !drop(head) && !drop(tail) { return self }
        return self[...].trimming(drop)
    }
}
