// Search as you type: grouped results (artists, albums, tracks, playlists, lyrics, stations) from the library, with
// covers. Enter in the field opens (or plays) the first result. On a phone the field hides behind an icon in the
// header, one tap away; `/` opens it from a keyboard.
import { artwork, get, say, send } from "./api.js";
import { el } from "./dom.js";

const titles = { artists: "Artists", albums: "Albums", tracks: "Tracks", playlists: "Playlists", lyrics: "Lyrics", stations: "Stations" };

export class Search {
  constructor(root, go) {
    this.root = root;
    this.go = go;
    this.box = document.getElementById("search");
    this.opener = document.getElementById("search-button");
    this.asked = 0;
    this.running = Promise.resolve();
    this.box.addEventListener("input", () => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => { this.running = this.run(this.box.value.trim()); }, 120);
    });
    this.box.addEventListener("keydown", (e) => {
      if (e.key !== "Enter") return;
      e.preventDefault();
      this.openFirst().catch((err) => say(err.message));
    });
    this.opener.addEventListener("click", () => this.open());
    // An emptied field folds away again when it loses the focus.
    this.box.addEventListener("blur", () => { if (!this.box.value) this.fold(); });
  }

  /** Shows the field (on narrow screens it covers the header's first row) and puts the cursor in it. */
  open() {
    document.body.classList.add("searching");
    this.opener.setAttribute("aria-expanded", "true");
    this.box.focus();
  }

  fold() {
    document.body.classList.remove("searching");
    this.opener.setAttribute("aria-expanded", "false");
  }

  /** Enter: the answer to what is typed now (not the one of a keystroke ago), then its first result. */
  async openFirst() {
    clearTimeout(this.timer);
    const text = this.box.value.trim();
    if (text !== this.shown) this.running = this.run(text);
    await this.running;
    this.root.querySelector(".results a, .results button")?.click();
  }

  async run(text) {
    if (!text) {
      this.shown = "";
      if (location.hash.startsWith("#/search")) history.back();
      return;
    }
    const asked = ++this.asked;
    let answer;
    try { answer = await get(`search?q=${encodeURIComponent(text)}&limit=8`); } catch (e) { say(e.message); return; }
    if (asked !== this.asked) return;  // a newer query is on its way
    if (!location.hash.startsWith("#/search")) this.go("#/search");
    this.shown = text;
    this.render(text, answer.groups);
  }

  render(text, groups) {
    const parts = [el("h1", "", `Search: ${text}`)];
    if (groups.length === 0) parts.push(el("p", "empty", "Nothing matches. Try fewer words, or part of a name."));
    for (const group of groups) {
      const section = el("section");
      const list = el("ul", group.group === "albums" ? "results covers" : "results rows");
      list.setAttribute("aria-label", titles[group.group] ?? group.group);
      for (const item of items(group)) {
        const li = el("li");
        li.append(item);
        list.append(li);
      }
      section.append(el("h2", "", `${titles[group.group] ?? group.group} (${group.total})`), list);
      parts.push(section);
    }
    this.root.replaceChildren(...parts);
  }
}

/** A picture (or an empty square of the same size) for a result. */
function cover(hash, size) {
  const art = artwork(hash, size * 2);
  if (!art) return el("span", "thumb blank");
  return Object.assign(document.createElement("img"), { className: "thumb", src: art, alt: "", width: size, height: size, loading: "lazy" });
}

/** A result row: a link (opens something) or a button (plays something), with a thumbnail, a title and a line. */
function row({ href, action, label, hash, title, line }) {
  const node = href ? Object.assign(document.createElement("a"), { href }) : el("button");
  node.className = "result";
  if (!href) {
    node.type = "button";
    node.addEventListener("click", () => action().catch((e) => say(e.message)));
  }
  if (label) node.setAttribute("aria-label", label);
  if (hash !== undefined) node.append(cover(hash, 40));
  const text = el("span", "result-text");
  text.append(el("span", "result-title", title));
  if (line) text.append(el("span", "result-line", line));
  node.append(text);
  return node;
}

function items(group) {
  const rows = [];
  const playTrack = (t) => () => send("POST", "queue/play-list", { trackIDs: [t.id] });
  for (const a of group.albums ?? []) {
    const link = Object.assign(document.createElement("a"), { href: `#/album/${a.id}`, className: "result cover-result" });
    link.setAttribute("aria-label", `${a.title} — ${a.artist}`);
    link.append(cover(a.artworkHash, 140), el("span", "result-title", a.title), el("span", "result-line", a.artist));
    rows.push(link);
  }
  for (const t of group.tracks ?? []) {
    rows.push(row({ action: playTrack(t), label: `Play ${t.title} — ${t.artist}, from ${t.album}`, hash: t.artworkHash ?? null,
                    title: t.title, line: `${t.artist} · ${t.album}` }));
  }
  for (const a of group.artists ?? []) rows.push(row({ href: `#/library/artist/${a.id}`, title: a.name }));
  for (const p of group.playlists ?? []) {
    rows.push(row({ href: `#/library/playlist/${p.id}`, title: p.name, line: p.trackCount !== undefined ? `${p.trackCount} tracks` : "" }));
  }
  for (const hit of group.lyrics ?? []) {
    rows.push(row({ action: playTrack(hit.track), label: `Play ${hit.track.title}`, hash: hit.track.artworkHash ?? null,
                    title: hit.track.title, line: hit.snippet }));
  }
  for (const s of group.stations ?? []) {
    rows.push(row({ action: () => send("POST", `stations/${s.id}/play`), label: `Play station ${s.name}`, title: s.name, line: "Station" }));
  }
  return rows;
}
