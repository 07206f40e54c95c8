"""Every JSON answer of crated's Subsonic API checked against the OpenSubsonic API's published schema (issue 28).

The schema is the specification's own OpenAPI description, vendored unmodified in `opensubsonic-openapi/` (its
README says from where; Apache-2.0). For each endpoint Crate serves (the keys of the `all` tables in
Modules/FrontEnds/Subsonic/*Endpoints.swift, read from the source so a new endpoint cannot go unchecked) the test
follows the spec from `endpoints/NAME.json` to the success branch of its answer and validates the whole
`subsonic-response` body against it with jsonschema (JSON Schema 2020-12, which OpenAPI's schema objects are here),
`$ref`s resolved by a `referencing` Registry of the vendored files keyed by their relative paths. `date-time` formats
are checked too (RFC 3339). Error answers (40, 70, 10, 50) are checked against the failure schema and the endpoint's
whole answer schema. Binary answers (stream, download, getCoverArt) are out of scope.

Beyond the schema, every field Crate sends must be one the spec names for that object (the schema allows others,
so a misspelt field would otherwise pass): `undeclared` lists the others, and only the EXTRAS below are allowed.

The answers come from a real crated with two albums (one with a cover, one with LRC lyrics), two accounts, and stars,
ratings, plays, a playlist, a station, a saved play queue, a "now playing" notice and a jukebox queue made first, so
that the optional fields appear."""
import json
import posixpath
import re
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from crate_harness import ROOT, Crate, wait_until
from subsonic_library import ALICE, BOB, start_library_daemon

SPEC = Path(__file__).resolve().parent / "opensubsonic-openapi"
# Bytes, not a subsonic-response: checked by test_subsonic.py.
BINARY = {"stream", "download", "getCoverArt"}

# Where the specification's schema is wrong, or Crate keeps a difference on purpose: name -> (the JSON path of the
# value, the validator's message, both regular expressions; why). An answer names the exceptions it may use, so the
# same error elsewhere still fails. Docs/SUBSONIC.md ("Checked against the OpenSubsonic schema") repeats them.
SPEC_EXCEPTIONS = {
    "jukebox gain": (r"\$\.subsonic-response\.jukebox(Status|Playlist)", r"'volume' is a required property",
                     "the schema's JukeboxStatus requires `volume`, an integer, but the spec's own page (jukeboxStatus) and "
                     "Subsonic's XSD name it `gain`, a float from 0.0 to 1.0, which apps read: Crate sends `gain`, and "
                     "JUKEBOX_GAIN checks it as the page has it"),
    "no saved play queue": (r"\$\.subsonic-response", r"'playQueue' is a required property",
                            "with no queue saved there is nothing to answer (the schema's playQueue requires `changed` and "
                            "`changedBy`): Crate answers without `playQueue`, as Subsonic and Navidrome do"),
}
# What the spec's jukeboxStatus page asks for, where its schema says `volume` (above).
JUKEBOX_GAIN = {"type": "object", "required": ["gain"], "properties": {"gain": {"type": "number", "minimum": 0, "maximum": 1}}}

# Members Crate sends that the spec's schema for that object does not name (it allows them: no schema forbids
# additional members), each checked against the schema the spec gives the same field elsewhere, and why: (schema file,
# field, only on folders (isDir), checked as, why). Anything else unnamed fails.
EXTRAS = [
    ("schemas/ArtistID3.json", "userRating", False, "schemas/Artist.json#/properties/userRating",
     "Crate rates artists (setRating takes an artist id): the rating shows where the artist is, as on Artist"),
    ("schemas/Artist.json", "albumCount", False, "schemas/ArtistID3.json#/properties/albumCount",
     "the folder endpoints, getStarred and search2 send the artist getArtists sends"),
    ("schemas/Artist.json", "coverArt", False, "schemas/ArtistID3.json#/properties/coverArt", "the same"),
    ("schemas/Artist.json", "sortName", False, "schemas/ArtistID3.json#/properties/sortName", "the same"),
    ("schemas/Child.json", "name", True, "schemas/AlbumID3.json#/properties/name",
     "an album as a folder (isDir) also carries what getAlbumList2 has for it, as Navidrome's do"),
    ("schemas/Child.json", "songCount", True, "schemas/AlbumID3.json#/properties/songCount", "the same"),
    ("schemas/Child.json", "isCompilation", True, "schemas/AlbumID3.json#/properties/isCompilation", "the same"),
    ("schemas/JukeboxStatus.json", "gain", False, None,
     "the spec's schema names it `volume` (SPEC_EXCEPTIONS, jukebox gain; JUKEBOX_GAIN checks it)"),
]


# ---- The schema -------------------------------------------------------------------------------------------------

def load_registry():
    """Every vendored JSON file as a 2020-12 resource, keyed by its path relative to the folder, so the files'
    relative `$ref`s (`../../schemas/Child.json`) resolve among them."""
    resources = []
    for path in sorted(SPEC.rglob("*.json")):
        resources.append((path.relative_to(SPEC).as_posix(), Resource(json.loads(path.read_text()), specification=DRAFT202012)))
    return Registry().with_resources(resources)


REGISTRY = load_registry()
FORMATS = FormatChecker(formats=())
RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")


@FORMATS.checks("date-time", raises=ValueError)
def is_date_time(value):
    if not isinstance(value, str):
        return True
    if not RFC3339.fullmatch(value):
        raise ValueError(f"{value!r} is not an RFC 3339 date-time")
    datetime.fromisoformat(value.replace("z", "Z"))
    return True


FAILURE = "schemas/SubsonicResponse/SubsonicFailureResponse.json"


def spec_file(path):
    return REGISTRY.get_or_retrieve(path).value.contents


def joined(base, ref):
    return posixpath.normpath(posixpath.join(posixpath.dirname(base), ref))


def response_schema(endpoint):
    """The path of the schema of `endpoint`'s whole JSON answer, followed through the spec as a reader would:
    `endpoints/NAME.json`, then its GET's 200 answer (a shared response or its own)."""
    path = f"endpoints/{endpoint}.json"
    answer = spec_file(path)["get"]["responses"]["200"]
    if "$ref" in answer:
        path = joined(path, answer["$ref"])
        answer = spec_file(path)
    return joined(path, answer["content"]["application/json"]["schema"]["$ref"])


def success_schema(endpoint):
    """The path of the schema of `subsonic-response` when `endpoint` succeeds: the branch of the answer's oneOf that
    is not the failure."""
    path = response_schema(endpoint)
    branches = [joined(path, branch["$ref"]) for branch in spec_file(path)["properties"]["subsonic-response"]["oneOf"]]
    [success] = [branch for branch in branches if branch != FAILURE]
    return success


def validator(schema_path, also=None):
    """A validator of a whole JSON body: one `subsonic-response`, as the schema at `schema_path` has it, and `also`
    (a schema of what the spec's text asks where its schema leaves it out)."""
    inner = {"$ref": schema_path}
    if also:
        inner = {"allOf": [inner, also]}
    wrapper = {"type": "object", "properties": {"subsonic-response": inner}, "required": ["subsonic-response"],
               "additionalProperties": False}
    return Draft202012Validator(wrapper, registry=REGISTRY, format_checker=FORMATS)


def excused(error, exceptions):
    return any(re.fullmatch(SPEC_EXCEPTIONS[name][0], error.json_path.replace("['subsonic-response']", ".subsonic-response"))
               and re.fullmatch(SPEC_EXCEPTIONS[name][1], error.message) for name in exceptions)


def explain(error, depth=0):
    """The value's path, the message and the schema's path; for a oneOf or anyOf, why the closest branch failed."""
    where = error.json_path.replace("['subsonic-response']", ".subsonic-response")
    text = f"{'  ' * depth}at {where}: {error.message[:300]} (schema: {'/'.join(map(str, error.absolute_schema_path))})"
    if error.context:
        text += "\n" + explain(best_match(error.context), depth + 1)
    return text


def problems(body, schema_path, also=None, exceptions=()):
    """Everything wrong with `body`, each explained, but the exceptions named."""
    errors = [e for e in validator(schema_path, also).iter_errors(body) if not excused(e, exceptions)]
    return [explain(e) for e in sorted(errors, key=lambda e: e.json_path)]


# ---- Fields the spec does not name ----------------------------------------------------------------------------

def resolved(schema, base):
    """A schema with its `$ref` followed: (the schema, the file its own `$ref`s are relative to)."""
    while "$ref" in schema:
        base = joined(base, schema["$ref"])
        schema = spec_file(base)
    return schema, base


def undeclared(value, schema, base, where="$", used=None):
    """Members of objects in `value` that the schema names nowhere (through allOf, and every oneOf or anyOf branch the
    value satisfies) and EXTRAS does not allow, as JSON paths; the EXTRAS that allowed one are added to `used`."""
    used = set() if used is None else used
    schema, base = resolved(schema, base)
    if isinstance(value, list):
        items = schema.get("items")
        found = []
        for n, item in enumerate(value):
            if items is not None:
                found += undeclared(item, items, base, f"{where}[{n}]", used)
        return found
    if not isinstance(value, dict):
        return []
    parts = [(schema, base)]
    pending = [(schema, base)]
    while pending:
        current, current_base = pending.pop()
        for sub in current.get("allOf", []):
            part = resolved(sub, current_base)
            parts.append(part)
            pending.append(part)
        for key in ("oneOf", "anyOf"):
            for sub in current.get(key, []):
                # The spec's branches are whole files (the answers' success or failure), so each is checked by its path.
                assert "$ref" in sub, f"an inline {key} branch in {current_base}"
                part = resolved(sub, current_base)
                if Draft202012Validator({"$ref": part[1]}, registry=REGISTRY).is_valid(value):
                    parts.append(part)
                    pending.append(part)
    declared = {}
    for part, part_base in parts:
        for name, sub in part.get("properties", {}).items():
            declared.setdefault(name, []).append((sub, part_base))
    files = {part_base for _, part_base in parts}
    found = []
    for name, member in value.items():
        if name not in declared:
            allowed = [n for n, (file, field, folders, _, _) in enumerate(EXTRAS)
                       if file in files and field == name and (value.get("isDir") is True or not folders)]
            if not allowed:
                found.append(f"{where}.{name}")
            for n in allowed:
                used.add(n)
                if EXTRAS[n][3]:
                    found += [f"{where}.{name}: {e.message}" for e in
                              Draft202012Validator({"$ref": EXTRAS[n][3]}, registry=REGISTRY).iter_errors(member)]
            continue
        for sub, sub_base in declared[name]:
            found += undeclared(member, sub, sub_base, f"{where}.{name}", used)
    return sorted(set(found))


# ---- The server -------------------------------------------------------------------------------------------------

def crate_endpoints():
    """The endpoints crated serves: the keys of every `static let all: [String: SubsonicEndpoint]` table."""
    names = set()
    for source in sorted((ROOT / "Modules" / "FrontEnds" / "Subsonic").glob("*Endpoints.swift")):
        for table in re.findall(r"static let all: \[String: SubsonicEndpoint\] = \[\n(.*?)\n    \]", source.read_text(), re.S):
            names |= set(re.findall(r'^        "([A-Za-z0-9]+)":', table, re.M))
    return names


@dataclass
class Answer:
    endpoint: str
    label: str
    body: dict
    # A schema the answer must also meet: what the spec's text asks where its schema leaves it out.
    also: dict = None
    # The SPEC_EXCEPTIONS this answer may use.
    exceptions: tuple = ()


@dataclass
class Server:
    crate: Crate
    port: int
    answers: list = field(default_factory=list)

    def call(self, endpoint, params=(), user=ALICE):
        """A GET with `f=json` and the password in clear: the parsed body (HTTP 200 always, errors inside)."""
        query = urllib.parse.urlencode([("u", user[0]), ("p", user[1]), ("v", "1.16.1"), ("c", "crate-schema"), ("f", "json"),
                                        *params])
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/rest/{endpoint}?{query}", timeout=30) as answer:
            assert answer.status == 200 and answer.headers["Content-Type"].startswith("application/json"), answer.headers
            return json.loads(answer.read())

    def ok(self, endpoint, params=(), user=ALICE, label="", also=None, exceptions=()):
        """Calls an endpoint that must succeed, and keeps its answer to be checked."""
        body = self.call(endpoint, params, user)
        envelope = body.get("subsonic-response", {})
        assert envelope.get("status") == "ok", (endpoint, params, body)
        self.answers.append(Answer(endpoint, label or endpoint, body, also, exceptions))
        return envelope


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    crate, _, port = start_library_daemon(tmp_path_factory.mktemp("schema"))
    served = Server(crate, port)

    def answers():
        try:
            return served.call("ping")["subsonic-response"]["status"] == "ok"
        except OSError:
            return False

    wait_until(f"the Subsonic API on port {port} (log: {crate.log})", answers, seconds=60)
    try:
        exercise(served)
        yield served
    finally:
        crate.stop()


def exercise(s: Server):
    """Every endpoint, with real ids from earlier answers; stars, ratings, plays, a playlist, a station, a play queue,
    a "now playing" notice and a jukebox queue first, so that the optional fields they bring appear."""
    s.ok("ping")
    s.ok("getLicense")
    s.ok("getOpenSubsonicExtensions")
    s.ok("getMusicFolders")
    s.ok("getUser", [("username", "bob")])
    s.ok("getUsers")
    s.ok("startScan")
    wait_until("the scan to end", lambda: not s.call("getScanStatus")["subsonic-response"]["scanStatus"]["scanning"], seconds=60)
    s.ok("getScanStatus")
    s.ok("getUser", user=BOB, label="getUser, one's own")
    # Empty answers, before anything is starred, played, made or saved.
    for endpoint in ("getStarred", "getStarred2", "getNowPlaying", "getPlaylists", "getInternetRadioStations"):
        s.ok(endpoint, label=f"{endpoint}, empty")
    s.ok("getAlbumList2", [("type", "byGenre"), ("genre", "Polka")], label="getAlbumList2, empty")
    s.ok("getAlbumList", [("type", "highest")], label="getAlbumList, empty")
    s.ok("getSongsByGenre", [("genre", "Polka")], label="getSongsByGenre, empty")
    s.ok("getRandomSongs", [("genre", "Polka")], label="getRandomSongs, empty")
    s.ok("search3", [("query", "nothing like this")], label="search3, no hits")
    s.ok("search2", [("query", "nothing like this")], label="search2, no hits")

    artists = [a for index in s.ok("getArtists")["artists"]["index"] for a in index["artist"]]
    band = next(a for a in artists if a["name"] == "Band")
    other = next(a for a in artists if a["name"] == "Other")
    record = s.ok("getArtist", [("id", band["id"])])["artist"]["album"][0]
    tape = s.ok("getArtist", [("id", other["id"])], label="getArtist without a cover")["artist"]["album"][0]
    songs = s.ok("getAlbum", [("id", record["id"])])["album"]["song"]
    tape_songs = s.ok("getAlbum", [("id", tape["id"])], label="getAlbum without a cover")["album"]["song"]
    song = songs[0]["id"]

    # What a person says about the music, so that starred, userRating, playCount and played appear.
    s.ok("star", [("id", song), ("albumId", record["id"]), ("artistId", band["id"])])
    s.ok("setRating", [("id", song), ("rating", "4")])
    s.ok("setRating", [("id", record["id"]), ("rating", "5")], label="setRating of an album")
    s.ok("setRating", [("id", band["id"]), ("rating", "3")], label="setRating of an artist")
    s.ok("scrobble", [("id", song), ("submission", "true")])
    s.ok("scrobble", [("id", tape_songs[1]["id"]), ("submission", "false")], user=BOB, label="scrobble, now playing")

    # A playlist, public and commented; a station; a play queue; the jukebox's queue.
    created = s.ok("createPlaylist", [("name", "Schema mix"), *[("songId", x["id"]) for x in songs + tape_songs]])["playlist"]
    s.ok("updatePlaylist", [("playlistId", created["id"]), ("comment", "for the road"), ("public", "true")])
    s.ok("createPlaylist", [("name", "Bob's"), ("songId", song)], user=BOB, label="createPlaylist by another account")
    s.ok("createInternetRadioStation", [("streamUrl", "http://radio.example/live"), ("name", "Test FM"),
                                        ("homepageUrl", "http://radio.example")])
    station = next(x for x in s.ok("getInternetRadioStations")["internetRadioStations"]["internetRadioStation"]
                   if x["name"] == "Test FM")
    s.ok("updateInternetRadioStation", [("id", station["id"]), ("streamUrl", "https://radio.example/hq"), ("name", "Test FM HQ")])
    station = next(x for x in s.ok("getInternetRadioStations", label="getInternetRadioStations after an update")
                   ["internetRadioStations"]["internetRadioStation"] if x["name"] == "Test FM HQ")
    s.ok("savePlayQueue", [*[("id", x["id"]) for x in songs], ("current", songs[1]["id"]), ("position", "61000")])
    s.ok("getPlayQueue")
    jukebox(s, [("action", "set"), *[("id", x["id"]) for x in songs]], "set")
    jukebox(s, [("action", "status")], "status")
    jukebox(s, [("action", "get")], "get")

    # Everything read back, the annotations in place.
    s.ok("getArtists", label="getArtists after stars and ratings")
    s.ok("getArtist", [("id", band["id"])], label="getArtist after stars and ratings")
    s.ok("getAlbum", [("id", record["id"])], label="getAlbum after stars and ratings")
    s.ok("getSong", [("id", song)])
    s.ok("getSong", [("id", song)], user=BOB, label="getSong as another account")
    s.ok("getAlbum", [("id", record["id"])], user=BOB, label="getAlbum as another account")
    s.ok("getSong", [("id", tape_songs[1]["id"])], label="getSong with lyrics, without a cover")
    s.ok("getGenres")
    s.ok("getSongsByGenre", [("genre", "Rock"), ("count", "10")])
    last = s.ok("getIndexes")["indexes"]["lastModified"]
    s.ok("getIndexes", [("ifModifiedSince", str(last))], label="getIndexes, not modified since")
    s.ok("getMusicDirectory", [("id", band["id"])], label="getMusicDirectory of an artist")
    s.ok("getMusicDirectory", [("id", record["id"])], label="getMusicDirectory of an album")
    for kind, extra in [("random", []), ("newest", []), ("highest", []), ("frequent", []), ("recent", []),
                        ("alphabeticalByName", []), ("alphabeticalByArtist", []), ("starred", []),
                        ("byYear", [("fromYear", "2000"), ("toYear", "2002")]), ("byGenre", [("genre", "Jazz")])]:
        s.ok("getAlbumList2", [("type", kind), *extra], label=f"getAlbumList2 {kind}")
        s.ok("getAlbumList", [("type", kind), *extra], label=f"getAlbumList {kind}")
    s.ok("getRandomSongs", [("size", "10")])
    s.ok("getStarred")
    s.ok("getStarred2")
    s.ok("search2", [("query", "")])
    s.ok("search3", [("query", "")])
    s.ok("search3", [("query", "song"), ("artistCount", "1"), ("albumCount", "1"), ("songCount", "2"), ("songOffset", "1")],
         label="search3 paged")
    s.ok("getArtistInfo", [("id", band["id"])])
    s.ok("getArtistInfo2", [("id", band["id"])])
    s.ok("getArtistInfo2", [("id", other["id"])], label="getArtistInfo2 without a picture")
    s.ok("getAlbumInfo", [("id", record["id"])])
    s.ok("getAlbumInfo2", [("id", record["id"])])
    s.ok("getLyrics", [("artist", "Other"), ("title", "Song 2")])
    s.ok("getLyrics", [("artist", "Nobody"), ("title", "Nothing")], label="getLyrics of nothing")
    s.ok("getLyricsBySongId", [("id", tape_songs[1]["id"])])
    s.ok("getLyricsBySongId", [("id", tape_songs[0]["id"])], label="getLyricsBySongId without lyrics")
    s.ok("getNowPlaying")
    s.ok("getPlaylists")
    s.ok("getPlaylists", user=BOB, label="getPlaylists with another's shared one")
    s.ok("getPlaylist", [("id", created["id"])])

    # Taken back.
    s.ok("unstar", [("id", song), ("albumId", record["id"]), ("artistId", band["id"])])
    s.ok("deletePlaylist", [("id", created["id"])])
    s.ok("deleteInternetRadioStation", [("id", station["id"])])
    jukebox(s, [("action", "clear")], "clear")
    jukebox(s, [("action", "get")], "get, empty")
    s.ok("savePlayQueue", label="savePlayQueue, cleared")
    s.ok("getPlayQueue", label="getPlayQueue, cleared", exceptions=("no saved play queue",))


def jukebox(s: Server, params, label):
    """jukeboxControl answers `get` with jukeboxPlaylist and every other action with jukeboxStatus (the spec's page
    says so; its schema has both optional), each with `gain` (SPEC_EXCEPTIONS)."""
    member = "jukeboxPlaylist" if label.startswith("get") else "jukeboxStatus"
    s.ok("jukeboxControl", params, label=f"jukeboxControl {label}", exceptions=("jukebox gain",),
         also={"required": [member], "properties": {member: JUKEBOX_GAIN}})


# ---- The tests --------------------------------------------------------------------------------------------------

def test_every_endpoint_is_checked(server):
    served = crate_endpoints()
    assert len(served) > 40, served  # the tables were found
    checked = {answer.endpoint for answer in server.answers}
    assert served - BINARY - checked == set(), "endpoints never asked here"
    assert checked - served == set(), "endpoints asked here that crated does not serve"


# The keywords the spec's schemas may use: openapi.json says OpenAPI 3.0.0, whose schema objects are read here as
# JSON Schema 2020-12 (OpenAPI 3.1's dialect); these mean the same in both (`example` and `format: float` are
# annotations). A 3.0-only keyword (`nullable`, a boolean `exclusiveMinimum`) would be ignored silently: this says so.
KEYWORDS = {"$ref", "type", "properties", "required", "items", "allOf", "oneOf", "anyOf", "enum", "minimum", "maximum",
            "minItems", "format", "description", "title", "example", "default", "externalDocs"}


def schema_keywords(schema, where, refs):
    """The keywords of `schema` not in KEYWORDS, as (keyword, where); the files it refers to are added to `refs`."""
    found = {(key, where) for key in schema if key not in KEYWORDS}
    if "$ref" in schema:
        refs.add(joined(where.split("#")[0], schema["$ref"]))
    subs = [(f"properties/{name}", sub) for name, sub in schema.get("properties", {}).items()]
    subs += [("items", schema["items"])] if isinstance(schema.get("items"), dict) else []
    subs += [(f"{key}/{n}", sub) for key in ("allOf", "oneOf", "anyOf") for n, sub in enumerate(schema.get(key, []))]
    for path, sub in subs:
        found |= schema_keywords(sub, f"{where.split('#')[0]}#{where.partition('#')[2]}/{path}", refs)
    return found


def test_the_spec_speaks_json_schema():
    """Every schema file the checks read, from each endpoint's answer down."""
    pending = {response_schema(endpoint) for endpoint in crate_endpoints() - BINARY} | {FAILURE}
    seen, unknown = set(), set()
    while pending:
        path = pending.pop()
        seen.add(path)
        refs = set()
        unknown |= schema_keywords(spec_file(path), f"{path}#", refs)
        pending |= refs - seen
    assert len(seen) > 100, seen
    assert unknown == set()


def test_every_endpoint_has_a_schema():
    for endpoint in sorted(crate_endpoints() - BINARY):
        assert success_schema(endpoint).endswith(".json"), endpoint


@pytest.mark.parametrize("endpoint", sorted(crate_endpoints() - BINARY))
def test_answers_match_the_schema(server, endpoint):
    schema = success_schema(endpoint)
    answers = [answer for answer in server.answers if answer.endpoint == endpoint]
    assert answers, f"{endpoint} was never asked"
    found = []
    for answer in answers:
        found += [f"{answer.label}: {text}" for text in problems(answer.body, schema, answer.also, answer.exceptions)]
    assert not found, f"{endpoint} against {schema}:\n" + "\n".join(found)


@pytest.mark.parametrize("endpoint", sorted(crate_endpoints() - BINARY))
def test_answers_carry_only_fields_the_spec_names(server, endpoint):
    schema = success_schema(endpoint)
    found = []
    for answer in (a for a in server.answers if a.endpoint == endpoint):
        found += [f"{answer.label}: {where}" for where in undeclared(answer.body["subsonic-response"], {"$ref": schema}, "")]
    assert not found, f"{endpoint}: fields {schema} does not name:\n" + "\n".join(found)


def test_every_exception_and_extra_is_needed(server):
    """An exception the spec no longer needs (it was fixed upstream) or an extra Crate no longer sends is taken out."""
    exceptions, extras = set(), set()
    for answer in server.answers:
        errors = validator(success_schema(answer.endpoint), answer.also).iter_errors(answer.body)
        exceptions |= {name for e in errors for name in answer.exceptions if excused(e, [name])}
        undeclared(answer.body["subsonic-response"], {"$ref": success_schema(answer.endpoint)}, "", used=extras)
    assert set(SPEC_EXCEPTIONS) - exceptions == set()
    assert [EXTRAS[n] for n in range(len(EXTRAS)) if n not in extras] == []


@pytest.mark.parametrize("endpoint, params, user, code", [
    ("ping", [], ("alice", "not her password"), 40),
    ("getAlbum", [("id", "al-999999")], ALICE, 70),
    ("getSong", [], ALICE, 10),
    ("getUsers", [], BOB, 50),
])
def test_errors_match_the_schema(server, endpoint, params, user, code):
    body = server.call(endpoint, params, user)
    assert body["subsonic-response"]["error"]["code"] == code, body
    found = problems(body, FAILURE)
    assert not found, f"{endpoint} error {code} against {FAILURE}:\n" + "\n".join(found)
    # The endpoint's own answer schema takes it too (the failure branch of its oneOf).
    whole = response_schema(endpoint)
    errors = [explain(e) for e in Draft202012Validator({"$ref": whole}, registry=REGISTRY, format_checker=FORMATS).iter_errors(body)]
    assert not errors, f"{endpoint} error {code} against {whole}:\n" + "\n".join(errors)


def test_the_check_finds_what_is_wrong(server):
    """The validator follows the `$ref`s down to a song's fields: a song answer broken on purpose (a duration as a
    string, a required field gone, a bad date, a field the spec does not name) is refused at each place."""
    [answer] = [a for a in server.answers if a.label == "getSong"]
    body = json.loads(json.dumps(answer.body))
    song = body["subsonic-response"]["song"]
    song["duration"] = str(song["duration"])
    del song["isDir"]
    song["created"] = "yesterday"
    song["bitrate"] = 320
    found = "\n".join(problems(body, success_schema("getSong")))
    assert "at $.subsonic-response.song.duration: '" in found, found
    assert "at $.subsonic-response.song: 'isDir' is a required property" in found, found
    assert "at $.subsonic-response.song.created: 'yesterday'" in found, found
    assert undeclared(body["subsonic-response"], {"$ref": success_schema("getSong")}, "") == ["$.song.bitrate"]
    # An exception is only for the answers that name it: a saved play queue must be there, the jukebox's gain too.
    [queue] = [a for a in server.answers if a.label == "getPlayQueue"]
    empty = {"subsonic-response": {k: v for k, v in queue.body["subsonic-response"].items() if k != "playQueue"}}
    assert "'playQueue' is a required property" in "\n".join(problems(empty, success_schema("getPlayQueue"), queue.also, queue.exceptions))
    [status] = [a for a in server.answers if a.label == "jukeboxControl status"]
    broken = json.loads(json.dumps(status.body))
    broken["subsonic-response"]["jukeboxStatus"]["gain"] = 50
    found = "\n".join(problems(broken, success_schema("jukeboxControl"), status.also, status.exceptions))
    assert "at $.subsonic-response.jukeboxStatus.gain: 50 is greater than the maximum of 1" in found, found
    # An extra is checked as the spec types the same field elsewhere.
    [indexes] = [a for a in server.answers if a.label == "getIndexes"]
    body = json.loads(json.dumps(indexes.body["subsonic-response"]))
    body["indexes"]["index"][0]["artist"][0]["albumCount"] = "1"
    assert undeclared(body, {"$ref": success_schema("getIndexes")}, "") == [
        "$.indexes.index[0].artist[0].albumCount: '1' is not of type 'integer'"]
    # And the envelope: a failure is not a success.
    failed = {"subsonic-response": dict(answer.body["subsonic-response"], status="failed")}
    assert problems(failed, success_schema("getSong"))
