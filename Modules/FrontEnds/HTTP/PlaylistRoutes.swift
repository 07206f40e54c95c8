import CrateAPI
import CrateCore
import CrateDomain
import Foundation
import Hummingbird

/// Playlists under /api/v1 (see Docs/HTTP_API.md). Edits answer with the playlist's entries (Core's
/// collection publishes their `library` events); `play` answers with the player status.
enum PlaylistRoutes {

    static func add(to api: RouterGroup<BasicRequestContext>, runtime: CrateRuntime, player: PlayerService) {
        let store = runtime.collection
        @Sendable func changed(_ id: Int64) throws -> API.PlaylistDetail { try detail(store, id, sort: ListSort(.manual)) }

        api.get("playlists") { request, _ in
            try store.playlists(sort: try FindingRoutes.listSort(FormQuery(request), default: PlaylistSort.title))
        }
        api.post("playlists") { request, context in
            let body = try await request.decode(as: API.PlaylistName.self, context: context)
            let made = try store.createPlaylist(name: body.name)
            return try changed(made.id)
        }
        api.post("playlists/import") { request, context in
            let body = try await request.decode(as: API.PlaylistImport.self, context: context)
            let report = try runtime.playlistFiles.importM3U(URL(fileURLWithPath: body.path), name: body.name, replace: body.replace ?? false)
            return report
        }
        api.get("playlists/:id") { request, context in
            try detail(store, try id(context), sort: try FindingRoutes.listSort(FormQuery(request), default: PlaylistTrackSort.manual))
        }
        api.patch("playlists/:id") { request, context in
            let id = try id(context)
            try store.renamePlaylist(id: id, to: try await request.decode(as: API.PlaylistName.self, context: context).name)
            return try changed(id)
        }
        api.delete("playlists/:id") { _, context in
            let id = try id(context)
            try store.deletePlaylist(id: id)
            return Response(status: .noContent)
        }
        api.post("playlists/:id/tracks") { request, context in
            let id = try id(context)
            let body = try await request.decode(as: API.PlaylistAdd.self, context: context)
            let ids = try store.trackIDs(body.trackIDs, albumID: body.albumID)
            guard !ids.isEmpty else { throw APIError(.badRequest, code: "bad_request", "give \"trackIDs\" or \"albumID\"") }
            try store.addToPlaylist(id: id, trackIDs: ids, at: body.index)
            return try changed(id)
        }
        api.post("playlists/:id/remove") { request, context in
            let id = try id(context)
            try store.removeFromPlaylist(id: id, at: try await request.decode(as: API.PlaylistRemove.self, context: context).positions)
            return try changed(id)
        }
        api.post("playlists/:id/move") { request, context in
            let id = try id(context)
            let body = try await request.decode(as: API.Move.self, context: context)
            try store.movePlaylistEntry(id: id, from: body.from, to: body.to)
            return try changed(id)
        }
        api.get("playlists/:id/m3u") { _, context in
            let id = try id(context)
            _ = try detail(store, id, sort: ListSort(.manual))
            return Response(status: .ok, headers: [.contentType: "audio/x-mpegurl; charset=utf-8"],
                            body: .init(byteBuffer: .init(string: try runtime.playlistFiles.m3u(id))))
        }
        api.post("playlists/:id/play") { request, context in
            let id = try id(context)
            try await player.playPlaylist(id, from: try await PlayerRoutes.optionalBody(API.PlayFrom.self, request, context)?.from ?? 1)
            return try await player.status()
        }
        api.get("favorites/tracks") { _, _ in
            API.PlaylistDetail(playlist: nil, name: Playlist.favoritesName,
                   entries: try store.favoriteTracks().enumerated().map { PlaylistEntry(position: $0 + 1, track: $1, addedAt: Date()) })
        }
        api.post("favorites/play") { request, context in
            try await player.playPlaylist(nil, from: try await PlayerRoutes.optionalBody(API.PlayFrom.self, request, context)?.from ?? 1)
            return try await player.status()
        }
    }

    private static func id(_ context: BasicRequestContext) throws -> Int64 { try FindingRoutes.number(context, "id") }

    private static func detail(_ store: MusicCollection, _ id: Int64, sort: ListSort<PlaylistTrackSort>) throws -> API.PlaylistDetail {
        guard let playlist = try store.playlist(id: id) else { throw StoreError.notFound(kind: "playlist", query: String(id)) }
        return API.PlaylistDetail(playlist: playlist, name: playlist.name, entries: try store.playlistEntries(id: id, sort: sort))
    }
}
