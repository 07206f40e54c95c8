/// Genre browsing pages through the client's charts and album search.
extension AppleCatalogClient: CatalogAlbumPaging {}
