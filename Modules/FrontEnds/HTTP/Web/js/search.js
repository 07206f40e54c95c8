// Search as you type: grouped results (artists, albums, tracks, playlists, lyrics, stations) from the library.
import { get, say, send } from "./api.js";

const titles = { artists: "Artists", albums: "Albums", tracks: "Tracks", playlists: "Playlists", lyrics: "Lyrics", stations: "Stations" };

export class Search {
  constructor(root, go) {
    this.root = root;
    this.go = go;
    this.box = document.getElementById("search");
    this.asked = 0;
    this.box.addEventListener("input", () => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.run(this.box.value.trim()), 120);
    });
  }

  async run(text) {
    if (!text) {
      if (location.hash.startsWith("#/search")) history.back();
      return;
    }
    const asked = ++this.asked;
    let answer;
    try { answer = await get(`search?q=${encodeURIComponent(text)}&limit=8`); } catch (e) { say(e.message); return; }
    if (asked !== this.asked) return;  // a newer query is on its way
    if (!location.hash.startsWith("#/search")) this.go("#/search");
    this.render(text, answer.groups);
  }

  render(text, groups) {
    const heading = document.createElement("h1");
    heading.textContent = `Search: ${text}`;
    const parts = [heading];
    if (groups.length === 0) {
      const none = document.createElement("p");
      none.className = "empty";
      none.textContent = "Nothing matches. Try fewer words, or part of a name.";
      parts.push(none);
    }
    for (const group of groups) {
      const section = document.createElement("section");
      const h = document.createElement("h2");
      h.textContent = `${titles[group.group] ?? group.group} (${group.total})`;
      const list = document.createElement("ul");
      list.className = "results";
      for (const item of items(group)) list.append(item);
      section.append(h, list);
      parts.push(section);
    }
    this.root.replaceChildren(...parts);
  }
}

function items(group) {
  const rows = [];
  const link = (text, href) => Object.assign(document.createElement("a"), { textContent: text, href });
  const play = (text, action) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "result";
    b.textContent = text;
    b.addEventListener("click", () => action().catch((e) => say(e.message)));
    return b;
  };
  for (const a of group.albums ?? []) rows.push(link(`${a.title} — ${a.artist}`, `#/album/${a.id}`));
  for (const t of group.tracks ?? []) rows.push(play(`${t.title} — ${t.artist} (${t.album})`, () => send("POST", "queue/play-list", { trackIDs: [t.id] })));
  for (const a of group.artists ?? []) rows.push(document.createTextNode(a.name));
  for (const p of group.playlists ?? []) rows.push(play(`${p.name}`, () => send("POST", `playlists/${p.id}/play`)));
  for (const hit of group.lyrics ?? []) rows.push(play(`${hit.track.title}: ${hit.snippet}`, () => send("POST", "queue/play-list", { trackIDs: [hit.track.id] })));
  for (const s of group.stations ?? []) rows.push(play(`${s.name}`, () => send("POST", `stations/${s.id}/play`)));
  return rows.map((node) => {
    const li = document.createElement("li");
    li.append(node);
    return li;
  });
}
