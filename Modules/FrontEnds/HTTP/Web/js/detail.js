// The album detail (ADR-117): large art over a blurred, dimmed copy of itself; facts; the tracklist with the
// now-playing marker; play, play from a track, play next, add to the end, like and dislike. A catalog album plays its
// songs' 30-second previews (POST catalog/albums/{id}/play).
import { artwork, clock, get, say, send } from "./api.js";
import { el } from "./dom.js";

export class AlbumDetail {
  constructor(onDislike) {
    this.root = document.getElementById("album-view");
    this.onDislike = onDislike;
    this.album = null;
    this.tracks = [];
    this.nowPlaying = null;
  }

  async show(id) {
    const [album, tracks] = await Promise.all([get(`albums/${id}`), get(`albums/${id}/tracks`)]);
    this.album = album;
    this.tracks = tracks;
    this.catalog = false;
    this.render();
  }

  /** A catalog album (Apple Music): its page and tracklist, Play (the songs' previews, from the first or a chosen
   *  song), like and dislike, and "Open in Apple Music". */
  async showCatalog(id) {
    const found = await get(`catalog/albums/${encodeURIComponent(id)}`);
    this.album = found.album;
    this.tracks = found.tracks ?? [];
    this.catalog = true;
    this.render();
  }

  /** Marks the track that plays now (from the footer's status). A catalog album's row is the preview playing of
   *  this album (the status names the catalog album; disc and track number find the song). */
  mark(trackID, status) {
    this.nowPlaying = trackID;
    this.nowStatus = status;
    const preview = status?.preview && this.catalog && status.catalogAlbumID === this.ref ? status.entry?.track : null;
    for (const row of this.root.querySelectorAll("[data-track]")) {
      const playing = this.catalog
        ? Boolean(preview) && row.dataset.disc === String(preview.discNumber ?? 1) && row.dataset.number === String(preview.trackNumber ?? "")
        : Number(row.dataset.track) === trackID;
      row.classList.toggle("playing", playing);
      if (playing) row.setAttribute("aria-current", "true"); else row.removeAttribute("aria-current");
    }
  }

  render() {
    const a = this.album;
    const art = this.catalog ? a.artworkURL : artwork(a.artworkHash, 600);
    const backdrop = el("div", "backdrop");
    if (art) backdrop.style.backgroundImage = `url("${art}")`;
    const cover = art ? Object.assign(document.createElement("img"), { src: art, alt: `Cover of ${a.title}`, width: 600, height: 600 })
      : el("div", "cover blank", a.title);
    cover.classList.add("cover");

    const heading = el("h1", "title", a.title);
    heading.id = "album-title";
    heading.tabIndex = -1;
    const facts = [a.year, a.genre, `${a.trackCount} tracks`, clock(a.duration)].filter(Boolean).join(" · ");
    const actions = el("div", "actions");
    if (this.catalog) {
      const open = Object.assign(document.createElement("a"), {
        href: `https://music.apple.com/album/${encodeURIComponent(a.externalID ?? "")}`, textContent: "Open in Apple Music",
        target: "_blank", rel: "noopener noreferrer", className: "primary open",
      });
      const play = button("Play", "primary", () => this.play(1));
      play.title = "Plays each song's preview (30 seconds)";
      open.classList.remove("primary");
      actions.append(play, open, button(a.opinion === "favorite" ? "Liked" : "Like", "", () => this.like(), a.opinion === "favorite"),
                     button("Dislike", "", () => this.dislike(), a.opinion === "dislike"));
    } else actions.append(
      button("Play", "primary", () => this.play(1)),
      button("Play Next", "", () => this.enqueue("next")),
      button("Add to End", "", () => this.enqueue("end")),
      this.playlistPicker(),
      button(a.opinion === "favorite" ? "Liked" : "Like", "", () => this.like(), a.opinion === "favorite"),
      button("Dislike", "", () => this.dislike(), a.opinion === "dislike"),
    );

    // Disc by disc: a multi-disc album gets a heading per disc ("Disc 2 — Live", with the disc's subtitle when tagged).
    const discs = new Map();
    this.tracks.forEach((t, i) => {
      const disc = t.discNumber ?? 1;
      if (!discs.has(disc)) discs.set(disc, []);
      discs.get(disc).push([t, i]);
    });
    const tracklist = el("div", "tracklist");
    for (const [disc, tracks] of discs) {
      const list = el("ol", "tracks");
      if (discs.size > 1) {
        const subtitle = tracks.find(([t]) => t.discSubtitle)?.[0].discSubtitle;
        const h = el("h2", "disc", subtitle ? `Disc ${disc} — ${subtitle}` : `Disc ${disc}`);
        h.id = `disc-${disc}`;
        list.setAttribute("aria-labelledby", h.id);
        tracklist.append(h);
      } else list.setAttribute("aria-label", "Tracks");
      for (const [t, i] of tracks) list.append(this.trackRow(t, i));
      tracklist.append(list);
    }

    const back = Object.assign(document.createElement("a"), { href: "#/", className: "back", textContent: "← Wall" });
    const text = el("div", "text");
    text.append(heading, el("p", "artist", a.artist), el("p", "facts", facts), actions);
    const head = el("div", "head");
    head.append(cover, text);
    this.root.replaceChildren(backdrop, back, head, tracklist);
    // The cover's colour on the play button and the now-playing marker (ADR-121).
    if (a.artworkColors?.[0]) this.root.style.setProperty("--album-color", a.artworkColors[0]);
    else this.root.style.removeProperty("--album-color");
    this.root.setAttribute("aria-labelledby", "album-title");
    this.mark(this.nowPlaying, this.nowStatus);
  }

  /** One track's row: a button playing the album from it (a catalog song without a preview is plain text). */
  trackRow(t, i) {
    const row = el("li", "track");
    row.dataset.track = String(t.id);
    row.dataset.disc = String(t.discNumber ?? 1);
    row.dataset.number = String(t.trackNumber ?? "");
    const playable = !this.catalog || Boolean(t.previewURL);
    const play = playable ? button("", "row", () => this.play(i + 1)) : el("div", "row");
    if (playable) play.setAttribute("aria-label", `Play ${t.title}${this.catalog ? " (preview)" : ""}, track ${t.trackNumber ?? i + 1}`);
    else row.classList.add("no-preview");
    play.append(el("span", "number", String(t.trackNumber ?? i + 1)), el("span", "name", t.title),
                el("span", "artist", t.artist !== this.album.artist ? t.artist : ""), el("span", "time", clock(t.duration)));
    row.append(play);
    return row;
  }

  /** "Add to playlist": the playlists in a menu; choosing one adds the whole album at its end. */
  playlistPicker() {
    const select = el("select", "picker");
    select.setAttribute("aria-label", "Add to playlist");
    select.append(Object.assign(document.createElement("option"), { value: "", textContent: "Add to playlist…" }));
    get("playlists").then((playlists) => {
      for (const p of playlists) select.append(Object.assign(document.createElement("option"), { value: String(p.id), textContent: p.name }));
    }).catch(() => {});
    select.addEventListener("change", async () => {
      const id = select.value;
      if (!id) return;
      const name = select.selectedOptions[0].textContent;
      select.value = "";
      try {
        await send("POST", `playlists/${id}/tracks`, { albumID: this.album.id });
        say(`${this.album.title} added to ${name}`);
      } catch (e) { say(e.message); }
    });
    return select;
  }

  async play(from) {
    try {
      if (!this.catalog) {
        await send("POST", "queue/play-album", { albumID: this.album.id, from });
        return;
      }
      const played = await send("POST", `catalog/albums/${encodeURIComponent(this.album.externalID)}/play`, { from });
      const left = played.skipped.length ? ` (${played.skipped.length} without a preview)` : "";
      say(`Playing previews of ${played.title}${left}`);
    } catch (e) { say(e.message); }
  }

  async enqueue(mode) {
    try {
      await send("POST", "queue", { albumID: this.album.id, mode });
      say(mode === "next" ? `${this.album.title} plays next` : `${this.album.title} added to the end`);
    } catch (e) { say(e.message); }
  }

  /** What likes and dislikes take: the library id, or `applemusic:ID` for a catalog album. */
  get ref() { return this.catalog ? `applemusic:${this.album.externalID}` : String(this.album.id); }

  async like() {
    if (this.catalog) {
      try {
        const outcome = await send("PUT", `likes/${encodeURIComponent(this.ref)}`);
        this.album.opinion = outcome.opinion;
        say(`${this.album.title} is liked`);
        this.render();
      } catch (e) { say(e.message); }
      return;
    }
    try {
      if (this.album.opinion === "favorite") {
        await send("DELETE", `favorites/album/${this.album.id}`);
        this.album.opinion = null;
      } else {
        await send("PUT", `favorites/album/${this.album.id}`);
        this.album.opinion = "favorite";
        say(`${this.album.title} is a favorite`);
      }
      this.render();
    } catch (e) { say(e.message); }
  }

  async dislike() {
    try {
      await send("PUT", `dislikes/albums/${encodeURIComponent(this.ref)}`);
      say(`${this.album.title} will not be on the wall`);
      this.onDislike(this.catalog ? this.ref : this.album.id);
    } catch (e) { say(e.message); }
  }
}

function button(text, className, action, pressed) {
  const b = el("button", className, text);
  b.type = "button";
  if (pressed !== undefined) b.setAttribute("aria-pressed", String(pressed));
  b.addEventListener("click", action);
  return b;
}
