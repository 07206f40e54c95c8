/// The shapes of crated's HTTP API (Docs/HTTP_API.md): what the HTTP front end decodes and answers, and what the CLI
/// and any other Swift client send and read. Declared once, here; CrateDomain's types (Track, Playlist, PlayerStatus,
/// …) are the rest of the vocabulary.
public enum API {}
