import CrateCore
import CrateDomain
import Foundation
import Hummingbird
import Logging

/// An error the API reports as `{"error": {"code", "message"}}` with an HTTP status.
struct APIError: Error, HTTPResponseError {
    let status: HTTPResponse.Status
    let code: String
    let message: String
    /// Answered with `Connection: close` (a body too large to read on).
    var closesConnection = false

    init(_ status: HTTPResponse.Status, code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = try JSONEncoder().encode(["error": ["code": code, "message": message]])
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if closesConnection { headers[.connection] = "close" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: .init(bytes: body)))
    }
}

/// Turns unknown routes and unexpected errors into JSON errors, so clients parse one shape.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as PlayerError {
            switch error {
            case .streamFailed: throw APIError(.badGateway, code: "stream_failed", error.description)
            case .streamTimedOut: throw APIError(.gatewayTimeout, code: "stream_timeout", error.description)
            default:
                throw APIError(error.isNotFound ? .notFound : .badRequest, code: error.isNotFound ? "not_found" : "bad_request",
                               error.description)
            }
        } catch let error as LibraryError {
            let (status, code): (HTTPResponse.Status, String) = switch error {
            case .notFound, .noFile, .notInLibrary: (.notFound, "not_found")
            case .notEditable: (.conflict, "not_editable")
            case .busy: (.conflict, "busy")
            case .io, .copyMismatch: (.unprocessableContent, "file_error")
            }
            throw APIError(status, code: code, error.description)
        } catch let error as StoreError {
            switch error {
            case .trackNotFound, .albumNotFound: throw APIError(.notFound, code: "not_found", error.description)
            case .notFound: throw APIError(.notFound, code: "not_found", error.description)
            case .unknownField, .ambiguousAlbum, .ambiguous, .invalid: throw APIError(.badRequest, code: "bad_request", error.description)
            default: throw APIError(.internalServerError, code: "internal", error.description)
            }
        } catch let error as StationError {
            let (status, code): (HTTPResponse.Status, String) = switch error {
            case .badURL: (.badRequest, "bad_request")
            case .exists: (.conflict, "exists")
            case .notFound: (.notFound, "not_found")
            }
            throw APIError(status, code: code, error.description)
        } catch let error as AccountError {
            let (status, code): (HTTPResponse.Status, String) = switch error {
            case .noSuchAccount, .noSuchPlaylist: (.notFound, "not_found")
            case .notYours: (.forbidden, "forbidden")
            case .nameTaken: (.conflict, "exists")
            case .invalidName, .invalidPassword: (.badRequest, "bad_request")
            case .ownerCannotBeRemoved: (.conflict, "owner")
            case .wrongCredentials, .unknownAPIKey, .slowDown: (.unauthorized, "unauthorized")
            case .secretKey: (.internalServerError, "secret_key")
            }
            throw APIError(status, code: code, error.description)
        } catch let error as SearchQueryError {
            throw APIError(.badRequest, code: "bad_query", error.description)
        } catch let error as FindingError {
            let (status, code): (HTTPResponse.Status, String) = switch error {
            case .emptyQuery: (.badRequest, "bad_query")
            case .noCatalog: (.serviceUnavailable, "no_catalog")
            case .catalogFailed: (.badGateway, "catalog_failed")
            case .cannotRead, .cannotWrite: (.unprocessableContent, "file_error")
            case .playlistExists: (.conflict, "exists")
            }
            // In the API's own terms: the body's fields, not the CLI's flags.
            if case .playlistExists(let name) = error {
                throw APIError(status, code: code, "a playlist named '\(name)' exists already; send \"replace\": true to "
                               + "overwrite its tracks or another \"name\"")
            }
            throw APIError(status, code: code, error.description)
        } catch let error as FeedError {
            let (status, code): (HTTPResponse.Status, String) = switch error {
            case .unknownDial, .badAlbumReference: (.badRequest, "bad_request")
            case .noWallYet, .noGenreFeed: (.conflict, "no_feed")
            case .catalogAlbumUnknown: (.notFound, "not_found")
            }
            throw APIError(status, code: code, error.description)
        } catch let error where CatalogFailure(error) != nil {
            let failure = CatalogFailure(error)
            throw APIError(.init(code: failure?.status ?? 502), code: failure?.code ?? "catalog_failed", failure?.message ?? "\(error)")
        } catch let error as DecodeError {
            throw APIError(.unprocessableContent, code: "unreadable_file", error.description)
        } catch let error as DecodingError {
            throw APIError(.badRequest, code: "bad_request", "the request body does not fit: \(Self.describe(error))")
        } catch let error as HTTPError where error.status == .notFound {
            throw APIError(.notFound, code: "not_found", "no route for \(request.method) \(request.uri.path)")
        } catch let error as HTTPError {
            throw APIError(error.status, code: "http_\(error.status.code)", error.body ?? error.status.reasonPhrase)
        } catch {
            context.logger.error("\(request.method) \(request.uri.path): \(ErrorText.describe(error))")
            throw APIError(.internalServerError, code: "internal", ErrorText.describe(error))
        }
    }
}

extension JSONErrorMiddleware {
    static func describe(_ error: DecodingError) -> String {
        switch error {
        case let .keyNotFound(key, _): "missing field \"\(key.stringValue)\""
        case let .typeMismatch(_, c), let .valueNotFound(_, c), let .dataCorrupted(c):
            (c.codingPath.map(\.stringValue).joined(separator: ".").nilIfEmpty.map { "field \($0): " } ?? "") + c.debugDescription
        @unknown default: "\(error)"
        }
    }
}

private extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
