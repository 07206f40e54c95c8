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

    /// The name as a String: UTF-8, with any other bytes kept as escapes (see `RawFileName`).
    static func string(_ name: [UInt8]) -> String { RawFileName.string(name) }

    /// The folder-image rule lives in CrateDomain so the artwork repair picks the same file.
    static func coverRank(_ name: String) -> Int? { FolderImage.rank(name) }

    /// `name` inside `folder`, without doubling the slash of the root folder.
    static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }
}
