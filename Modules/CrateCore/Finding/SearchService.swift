public import CrateDomain
public import CrateStorage
import Foundation

/// One search box over two scopes: the library's own index (`local`) and the catalogs of sources that
/// offer catalog search (`external`), each source's results merged into the same group order.
public struct SearchService: Sendable {
    let store: LibraryStore
    let sources: SourceRegistry

    public init(store: LibraryStore, sources: SourceRegistry) {
        self.store = store
        self.sources = sources
    }

    /// Sources that can search a catalog now.
    public var catalogs: [any CatalogSearchingSource] {
        sources.plugins.compactMap { $0 as? any CatalogSearchingSource }.filter { $0.status.isAvailable }
    }

    public func search(_ text: String, scope: SearchScope = .local, groups: [SearchGroup] = SearchGroup.allCases,
                       offset: Int = 0, limit: Int = 5) async throws -> SearchResults {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw FindingError.emptyQuery }
        switch scope {
        case .local:
            return try store.search(try SearchQuery.parse(trimmed), text: trimmed, groups: groups, offset: offset, limit: limit)
        case .external:
            let catalogs = catalogs
            guard !catalogs.isEmpty else { throw FindingError.noCatalog(enabled: sources.plugins.map(\.name)) }
            var merged: [SearchGroup: SearchGroupResult] = [:]
            for catalog in catalogs {
                let found: [SearchGroupResult]
                do { found = try await catalog.searchCatalog(trimmed, limit: limit) } catch {
                    throw FindingError.catalogFailed(source: catalog.name, reason: ErrorText.describe(error))
                }
                for result in found where groups.contains(result.group) {
                    if var existing = merged[result.group] {
                        existing.total += result.total
                        existing.catalog = (existing.catalog ?? []) + (result.catalog ?? [])
                        merged[result.group] = existing
                    } else {
                        merged[result.group] = result
                    }
                }
            }
            return SearchResults(query: trimmed, scope: .external, groups: SearchGroup.allCases.compactMap { merged[$0] })
        }
    }
}
