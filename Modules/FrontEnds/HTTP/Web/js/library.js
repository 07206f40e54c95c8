// Library views: albums (with the sort options), artists, playlists (their tracks in manual order, drag to
// reorder), favorites and dislikes. Views are drawn from the API; events redraw the one on screen.
import { artwork, clock, get, say, send } from "./api.js";
import { actionButton as button, el } from "./dom.js";

/** A grid of covers linking to each album's detail (the wall's look, without its feed). */
export function albumGrid(albums, label) {
  const grid = el("ul", "grid");
  grid.setAttribute("aria-label", label);
  for (const a of albums) {
    const li = el("li", "tile");
    li.dataset.album = String(a.id);
    const link = Object.assign(document.createElement("a"), { href: `#/album/${a.id}` });
    link.setAttribute("aria-label", `${a.title} — ${a.artist}`);
    const art = artwork(a.artworkHash, 300);
    if (art) link.append(Object.assign(document.createElement("img"), { src: art, alt: "", width: 300, height: 300, loading: "lazy" }));
    else link.append(el("span", "blank", a.title));
    const caption = el("span", "caption");
    caption.setAttribute("aria-hidden", "true");
    caption.append(el("strong", "", a.title), el("span", "", a.artist));
    link.append(caption);
    li.append(link);
    grid.append(li);
  }
  return grid;
}

const tabs = [["albums", "Albums"], ["artists", "Artists"], ["playlists", "Playlists"], ["favorites", "Favorites"], ["dislikes", "Dislikes"]];

export class Library {
  constructor(root) {
    this.root = root;
    this.sort = "artist";
  }

  /** `route`: "albums", "artists", "artist/ID", "playlists", "playlist/ID", "favorites" or "dislikes". */
  async show(route) {
    this.route = route;
    // Shows overlap (an event's redraw while the sort changes): only the last one started draws, so an older answer
    // never replaces a newer one under a sort menu that already says otherwise.
    const mine = (this.shows = (this.shows ?? 0) + 1);
    const [view, id] = route.split("/");
    const nav = el("nav", "tabs");
    nav.setAttribute("aria-label", "Library");
    for (const [name, text] of tabs) {
      const a = Object.assign(document.createElement("a"), { href: `#/library/${name}`, textContent: text });
      if (view === name || (view === "artist" && name === "artists") || (view === "playlist" && name === "playlists")) a.setAttribute("aria-current", "page");
      nav.append(a);
    }
    const body = await ({ albums: () => this.albums(), artists: () => this.artists(), artist: () => this.artist(id),
                          playlists: () => this.playlists(), playlist: () => this.playlist(id),
                          favorites: () => this.favorites(), dislikes: () => this.dislikes() }[view] ?? (() => this.albums()))();
    if (mine !== this.shows) return;
    this.root.replaceChildren(nav, ...body);
    this.root.querySelector("h1")?.focus({ preventScroll: true });
  }

  changed(subsystem) {
    if (["library", "playlists", "queue"].includes(subsystem)) this.show(this.route).catch(() => {});
  }

  heading(text) {
    const h = el("h1", "", text);
    h.tabIndex = -1;
    return h;
  }

  async albums() {
    const albums = await get(`albums?sort=${this.sort}`);
    const sort = Object.assign(document.createElement("select"), { id: "album-sort" });
    for (const [value, text] of [["artist", "Artist"], ["title", "Title"], ["year", "Year"], ["added", "Recently added"]]) {
      sort.append(Object.assign(document.createElement("option"), { value, textContent: text, selected: value === this.sort }));
    }
    sort.addEventListener("change", () => { this.sort = sort.value; this.show("albums").catch((e) => say(e.message)); });
    const label = Object.assign(el("label", "", "Sort by "), { htmlFor: "album-sort" });
    if (albums.length === 0) return [this.heading("Albums"), el("p", "empty", "No albums yet: import your music from the Import view.")];
    return [this.heading(`Albums (${albums.length})`), label, sort, albumGrid(albums, "Albums")];
  }

  async artists() {
    const artists = await get("artists");
    const list = el("ul", "list");
    for (const a of artists) {
      const li = el("li");
      li.append(Object.assign(document.createElement("a"), { href: `#/library/artist/${a.id}`, textContent: a.name }));
      list.append(li);
    }
    return [this.heading(`Artists (${artists.length})`), artists.length ? list : el("p", "empty", "No artists yet.")];
  }

  async artist(id) {
    const [artist, albums] = await Promise.all([get(`artists/${id}`), get(`artists/${id}/albums?sort=year`)]);
    return [this.heading(artist.name), albumGrid(albums, `Albums by ${artist.name}`)];
  }

  async playlists() {
    const playlists = await get("playlists");
    const form = el("form", "inline");
    const name = Object.assign(document.createElement("input"), { id: "new-playlist", required: true, placeholder: "Road trip" });
    form.append(Object.assign(el("label", "", "New playlist "), { htmlFor: "new-playlist" }), name,
                Object.assign(el("button", "", "Create"), { type: "submit" }));
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      try { await send("POST", "playlists", { name: name.value.trim() }); await this.show("playlists"); } catch (err) { say(err.message); }
    });
    const list = el("ul", "list");
    for (const p of playlists) {
      const li = el("li");
      li.append(Object.assign(document.createElement("a"), { href: `#/library/playlist/${p.id}`, textContent: p.name }),
                el("span", "time", `${p.trackCount ?? ""}`));
      list.append(li);
    }
    return [this.heading("Playlists"), form, playlists.length ? list : el("p", "empty", "No playlists yet: create one here, or add an album to one from its page.")];
  }

  async playlist(id) {
    const answer = await get(`playlists/${id}?sort=manual`);
    const playlist = answer.playlist ?? answer;
    const entries = answer.entries ?? [];
    const list = el("ol", "queue");
    list.setAttribute("aria-label", `Tracks of ${playlist.name}`);
    entries.forEach((entry, i) => {
      const track = entry.track ?? entry;
      const position = entry.position ?? i + 1;
      const li = el("li", "entry");
      li.draggable = true;
      li.dataset.position = String(position);
      li.append(el("span", "handle", "⠿"),
                button(`${track.title} — ${track.artist}`, () => send("POST", `playlists/${id}/play`, { from: position }), `Play ${track.title}`),
                el("span", "time", clock(track.duration)),
                button("↑", () => send("POST", `playlists/${id}/move`, { from: position, to: position - 1 }), `Move ${track.title} up`),
                button("↓", () => send("POST", `playlists/${id}/move`, { from: position, to: position + 1 }), `Move ${track.title} down`),
                button("✕", () => send("POST", `playlists/${id}/remove`, { positions: [position] }), `Remove ${track.title}`));
      list.append(li);
    });
    let dragged = null;
    list.addEventListener("dragstart", (e) => { dragged = e.target.closest("li"); e.dataTransfer.setData("text/plain", dragged.dataset.position); });
    list.addEventListener("dragover", (e) => e.preventDefault());
    list.addEventListener("drop", (e) => {
      e.preventDefault();
      const target = e.target.closest("li");
      if (!dragged || !target || target === dragged) return;
      send("POST", `playlists/${id}/move`, { from: Number(dragged.dataset.position), to: Number(target.dataset.position) }).catch((err) => say(err.message));
    });
    return [this.heading(playlist.name), button("Play", () => send("POST", `playlists/${id}/play`)),
            entries.length ? list : el("p", "empty", "This playlist is empty: add an album to it from the album's page.")];
  }

  async favorites() {
    const favorites = await get("favorites");
    const tracks = el("ol", "list");
    for (const t of favorites.tracks) tracks.append(el("li", "", `${t.title} — ${t.artist}`));
    return [this.heading("Favorites"), el("h2", "", "Albums"),
            favorites.albums.length ? albumGrid(favorites.albums, "Favorite albums") : el("p", "empty", "No favorite albums: press Like on an album."),
            el("h2", "", "Tracks"), favorites.tracks.length ? tracks : el("p", "empty", "No favorite tracks."),
            button("Play the favorite tracks", () => send("POST", "favorites/play"))];
  }

  async dislikes() {
    const albums = await get("dislikes");
    const list = el("ul", "list");
    for (const a of albums) {
      const li = el("li");
      li.append(el("span", "", `${a.title} — ${a.artist}`),
                button("Undo", () => send("DELETE", `dislikes/albums/${a.id}`).then(() => this.show("dislikes")), `Undo the dislike of ${a.title}`));
      list.append(li);
    }
    return [this.heading("Dislikes"), albums.length ? list : el("p", "empty", "No disliked albums: they stay off the wall.")];
  }
}
