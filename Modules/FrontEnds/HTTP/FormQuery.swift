import CrateDomain
import Hummingbird

/// A request's query string read as HTML forms, `URLSearchParams` and most HTTP libraries write it (`FormEncoding`):
/// `+` is a space, `%2B` a plus. Hummingbird's `queryParameters` only percent-decodes, so `?q=blue+train` searched for
/// "blue+train" and found nothing from those clients.
struct FormQuery: Sendable {
    private let pairs: [(name: String, value: String)]

    init(_ request: Request) {
        self.init(request.uri.query ?? "")
    }

    init(_ query: String) {
        pairs = FormEncoding.pairs(query)
    }

    /// The first value given for `name`.
    func get(_ name: String) -> String? { pairs.first { $0.name == name }?.value }

    /// The first value for `name` as `T`; nil when absent or not a `T`.
    func get<T: LosslessStringConvertible>(_ name: String, as: T.Type) -> T? { get(name).flatMap(T.init) }

    /// Every value given for `name`, in order.
    func getAll(_ name: String) -> [String] { pairs.filter { $0.name == name }.map(\.value) }
}
