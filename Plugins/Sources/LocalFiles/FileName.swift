import CrateDomain

/// File names as readdir gives them: bytes, which need not be UTF-8.
enum FileName {
    static func isHidden(_ name: [UInt8]) -> Bool {
        name.first == UInt8(ascii: ".")
    }

    /// The lower-cased part after the last dot, or nil without one. A leading dot starts no suffix.
    static func suffix(_ name: [UInt8]) -> String? {
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > 0, dot + 1 < name.count else { return nil }
        // Suffixes that matter are ASCII; decoding leniently keeps non-UTF-8 names comparable.
        return String(decoding: name[(dot + 1)...], as: UTF8.self).lowercased()
    }

    /// Whether a scan looks at a file of this name: not hidden, with a suffix some decoder opens.
    static func isCandidate(_ name: [UInt8], suffixes: Set<String>) -> Bool {
        guard !isHidden(name), let suffix = suffix(name) else { return false }
        return suffixes.contains(suffix)
    }

    /// The name as a String, or nil when the bytes are not valid UTF-8.
    static func string(_ name: [UInt8]) -> String? {
        String(validating: name, as: UTF8.self)
    }

    /// The name with every byte that is not part of valid UTF-8 written as `\xNN`, for showing to a user.
    static func escaped(_ name: [UInt8]) -> String {
        var out = ""
        var i = 0
        while i < name.count {
            // A scalar is 1 to 4 bytes and no shorter prefix of it is valid, so the first length that
            // validates is the scalar's own.
            let scalar = (1...4).lazy
                .filter { i + $0 <= name.count }
                .compactMap { n in String(validating: name[i..<(i + n)], as: UTF8.self).map { ($0, n) } }
                .first
            if let (text, length) = scalar {
                out += text
                i += length
            } else {
                out += "\\x" + String(name[i], radix: 16, uppercase: false).leftPadded(to: 2)
                i += 1
            }
        }
        return out
    }

    /// The folder-image rule lives in CrateDomain so the artwork repair picks the same file.
    static func coverRank(_ name: String) -> Int? { FolderImage.rank(name) }

    /// `name` inside `folder`, without doubling the slash of the root folder.
    static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
