// The persistent footer (ADR-121) and the now-playing sheet it opens: what plays, transport, the scrubber, time,
// volume and modes. Both are painted from one status: each control carries `data-np` (what it shows),
// `data-command` (what it sends) or `data-mode` (which mode it flips), so the footer and the sheet never drift.
// They follow the event stream (no polling): each player event re-reads the status; between events the clock runs
// locally.
import { artwork, clock, get, say, send } from "./api.js";

const all = (selector) => document.querySelectorAll(selector);
const commands = { previous: "player/previous", toggle: "player/toggle", next: "player/next" };
const themeDefaults = new Map([...document.querySelectorAll('meta[name="theme-color"]')].map((m) => [m, m.content]));

export class Footer {
  constructor(onTrack) {
    this.onTrack = onTrack;
    this.status = null;
    this.readAt = 0;
    this.dragging = false;
    this.sheet = new NowPlayingSheet();
    for (const b of all("[data-command]")) b.addEventListener("click", () => this.command("POST", commands[b.dataset.command]));
    for (const scrubber of all('[data-np="scrubber"]')) {
      scrubber.addEventListener("input", () => { this.dragging = true; this.paintTime(Number(scrubber.value)); });
      scrubber.addEventListener("change", async () => {
        this.dragging = false;
        await this.command("POST", "player/seek", { position: Number(scrubber.value) });
      });
    }
    for (const volume of all('[data-np="volume"]')) {
      volume.addEventListener("change", () => this.command("POST", "player/volume", { value: Number(volume.value) }));
    }
    for (const b of all("[data-mode]")) {
      b.addEventListener("click", () => {
        const modes = this.status?.modes;
        const change = b.dataset.mode === "repeat"
          ? { repeat: { off: "all", all: "one", one: "off" }[modes?.repeat ?? "off"] }
          : { [b.dataset.mode]: !modes?.[b.dataset.mode] };
        this.command("PUT", "player/options", change);
      });
    }
    document.getElementById("np-open").addEventListener("click", () => this.sheet.open());
    setInterval(() => this.tick(), 250);
  }

  async command(method, path, body) {
    try { this.apply(await send(method, path, body)); } catch (e) { say(e.message); }
  }

  async refresh() {
    try { this.apply(await get("player")); } catch { /* the daemon is going away; the next event retries */ }
  }

  /** The elapsed time now: the status's, plus the time since it was read while playing. */
  elapsed() {
    const s = this.status;
    if (!s) return 0;
    const running = s.state === "playing" ? (performance.now() - this.readAt) / 1000 : 0;
    return Math.min(s.elapsed + running, s.duration || Infinity);
  }

  apply(status) {
    if (!status || status.state === undefined) return;
    this.status = status;
    this.readAt = performance.now();
    const track = status.entry?.track;
    const title = track ? (status.streamTitle || track.title) : "Nothing playing";
    const artist = track ? (status.streamTitle ? track.title : track.artist) : "";
    for (const node of all('[data-np="title"]')) node.textContent = title;
    for (const node of all('[data-np="artist"]')) {
      node.textContent = artist;
      // A catalog song's 30-second preview says so.
      if (track && status.preview) node.append(Object.assign(document.createElement("span"), { className: "preview-badge", textContent: "Preview" }));
    }
    for (const node of all('[data-np="album"]')) node.textContent = track?.album ?? "";
    document.getElementById("np-open").setAttribute("aria-label", track ? `Open now playing: ${title}, ${artist}` : "Open now playing");
    // ADR-121: the progress fill and the sheet's scrubber run between the two colours the daemon took from the cover.
    const [from, to] = track?.artworkColors ?? [];
    const root = document.documentElement.style;
    if (from && to) { root.setProperty("--from", from); root.setProperty("--to", to); }
    else { root.removeProperty("--from"); root.removeProperty("--to"); }
    // An app on the home screen wears the playing cover's colour in its title bar.
    for (const [meta, standard] of themeDefaults) meta.content = from ?? standard;
    for (const img of all('[data-np="art"]')) {
      const art = track ? artwork(track.artworkHash, img.width > 100 ? 600 : 96) : null;
      img.hidden = !art;
      if (art && img.getAttribute("src") !== art) img.src = art;
    }
    const playing = status.state === "playing";
    for (const b of all('[data-command="toggle"]')) {
      b.querySelector(".icon-play").toggleAttribute("hidden", playing);
      b.querySelector(".icon-pause").toggleAttribute("hidden", !playing);
      b.setAttribute("aria-label", playing ? "Pause" : "Play");
    }
    for (const scrubber of all('[data-np="scrubber"]')) {
      scrubber.max = String(Math.max(0, Math.floor(status.duration || 0)));
      scrubber.disabled = !track || !status.duration;
    }
    for (const volume of all('[data-np="volume"]')) volume.value = String(status.modes.volume);
    for (const b of all("[data-mode]")) {
      if (b.dataset.mode === "repeat") {
        b.textContent = `Repeat ${status.modes.repeat}`;
        b.setAttribute("aria-label", `Repeat: ${status.modes.repeat}`);
      } else b.setAttribute("aria-pressed", String(Boolean(status.modes[b.dataset.mode])));
    }
    document.body.classList.toggle("has-track", Boolean(track));
    this.sheet.showLyrics(track?.id ?? null);
    this.tick();
    this.onTrack(track?.id ?? null, status);
  }

  tick() {
    if (!this.status || this.dragging) return;
    const at = this.elapsed();
    for (const scrubber of all('[data-np="scrubber"]')) scrubber.value = String(Math.floor(at));
    this.paintTime(at);
    this.sheet.follow(at);
  }

  paintTime(at) {
    const duration = this.status?.duration || 0;
    for (const node of all('[data-np="elapsed"]')) node.textContent = clock(at);
    for (const node of all('[data-np="remaining"]')) node.textContent = `−${clock(Math.max(0, duration - at))}`;
    document.documentElement.style.setProperty("--progress", duration ? String(Math.min(1, at / duration)) : "0");
  }
}

/** The now-playing sheet: a modal dialog over the page. It takes a history entry while open, so the phone's back
 *  gesture closes it as Esc, the grabber, a tap beside it and a swipe down do. */
class NowPlayingSheet {
  constructor() {
    this.dialog = document.getElementById("sheet");
    this.body = this.dialog.querySelector(".sheet-body");
    this.dialog.querySelector("[data-close]").addEventListener("click", () => this.close());
    // A tap on the backdrop lands on the dialog itself, outside its body.
    this.dialog.addEventListener("click", (e) => { if (e.target === this.dialog) this.close(); });
    // Esc: the dialog's own cancel, routed through close() so the history entry goes too.
    this.dialog.addEventListener("cancel", (e) => { e.preventDefault(); this.close(); });
    addEventListener("popstate", () => { if (this.dialog.open) this.dismiss(); });
    this.swipe();
  }

  open() {
    if (this.dialog.open) return;
    history.pushState({ sheet: true }, "");
    this.dialog.showModal();
    this.loadLyrics();
  }

  /** The lyrics of what plays, fetched when the sheet is open (or opens): synced ones line by line. */
  showLyrics(trackID) {
    if (trackID === this.lyricsFor) return;
    this.lyricsFor = trackID;
    this.lyricsLoaded = null;
    this.lyrics = new Lyrics(document.getElementById("lyrics"));
    if (this.dialog.open) this.loadLyrics();
  }

  loadLyrics() {
    const id = this.lyricsFor;
    if (id === null || id === undefined || this.lyricsLoaded === id) return;
    this.lyricsLoaded = id;
    const section = this.dialog.querySelector(".sheet-lyrics");
    section.hidden = true;
    get(`tracks/${id}/lyrics`).then((found) => {
      if (this.lyricsFor !== id) return;
      this.lyrics.show(found.text);
      section.hidden = false;
    }).catch(() => { /* no lyrics for this track: the section stays hidden */ });
  }

  follow(seconds) { if (this.dialog.open) this.lyrics?.follow(seconds); }

  /** Closes through history when the sheet owns the current entry (popstate then dismisses). */
  close() {
    if (!this.dialog.open) return;
    if (history.state?.sheet) history.back(); else this.dismiss();
  }

  dismiss() {
    this.body.style.removeProperty("transform");
    this.dialog.close();
    document.getElementById("np-open").focus({ preventScroll: true });
  }

  /** A swipe down from the grabber or the cover follows the finger and closes past a quarter of the sheet. */
  swipe() {
    let start = null;
    const settle = () => { start = null; this.body.classList.remove("dragging"); };
    this.body.addEventListener("pointerdown", (e) => {
      if (e.pointerType === "mouse" || !e.target.closest(".grabber, .sheet-art")) return;
      start = { y: e.clientY, id: e.pointerId };
      this.body.classList.add("dragging");
    });
    this.body.addEventListener("pointermove", (e) => {
      if (!start || e.pointerId !== start.id) return;
      this.body.style.transform = `translateY(${Math.max(0, e.clientY - start.y)}px)`;
    });
    this.body.addEventListener("pointerup", (e) => {
      if (!start || e.pointerId !== start.id) return;
      const far = e.clientY - start.y > this.body.offsetHeight / 4;
      settle();
      if (far) this.close(); else this.body.style.removeProperty("transform");
    });
    this.body.addEventListener("pointercancel", () => { settle(); this.body.style.removeProperty("transform"); });
  }
}

/** Lyrics as lines; LRC timestamps (`[01:02.50]`) make them synced: the line being sung is marked and kept in view. */
class Lyrics {
  constructor(list) {
    this.list = list;
    this.times = [];
    this.current = -1;
  }

  show(text) {
    const timed = [];
    const plain = [];
    for (const raw of text.split("\n")) {
      const stamps = [...raw.matchAll(/\[(\d{1,3}):(\d{2}(?:[.:]\d{1,3})?)\]/g)];
      const words = raw.replace(/\[[^\]]*\]/g, "").trim();
      if (stamps.length === 0) { if (!/^\[[a-z]+:/i.test(raw)) plain.push(raw.trim()); continue; }
      for (const s of stamps) timed.push({ at: Number(s[1]) * 60 + Number(s[2].replace(":", ".")), words });
    }
    timed.sort((a, b) => a.at - b.at);
    const lines = timed.length ? timed : plain.map((words) => ({ at: null, words }));
    this.times = timed.map((l) => l.at);
    this.current = -1;
    this.list.classList.toggle("synced", timed.length > 0);
    this.list.replaceChildren(...lines.map((line) => {
      const li = document.createElement("li");
      li.textContent = line.words || "♪";
      if (line.at !== null) li.dataset.at = String(line.at);
      return li;
    }));
  }

  follow(seconds) {
    if (this.times.length === 0) return;
    let index = -1;
    while (index + 1 < this.times.length && this.times[index + 1] <= seconds + 0.1) index++;
    if (index === this.current) return;
    this.list.children[this.current]?.removeAttribute("aria-current");
    this.current = index;
    const line = this.list.children[index];
    if (!line) return;
    line.setAttribute("aria-current", "true");
    // Scrolls the list only, never the page behind the sheet.
    this.list.scrollTop = line.offsetTop - this.list.offsetTop - this.list.clientHeight / 2 + line.clientHeight / 2;
  }
}
