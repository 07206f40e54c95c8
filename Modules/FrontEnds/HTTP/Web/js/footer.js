// The persistent footer (ADR-121): what plays, transport, a scrubber, time, volume and modes. It follows the
// event stream (no polling): each player event re-reads the status; between events the clock runs locally.
import { artwork, clock, get, say, send } from "./api.js";

const $ = (id) => document.getElementById(id);

export class Footer {
  constructor(onTrack) {
    this.onTrack = onTrack;
    this.status = null;
    this.readAt = 0;
    this.dragging = false;
    $("toggle").addEventListener("click", () => this.command("POST", "player/toggle"));
    $("prev").addEventListener("click", () => this.command("POST", "player/previous"));
    $("next").addEventListener("click", () => this.command("POST", "player/next"));
    const scrubber = $("scrubber");
    scrubber.addEventListener("input", () => { this.dragging = true; this.paintTime(Number(scrubber.value)); });
    scrubber.addEventListener("change", async () => {
      this.dragging = false;
      await this.command("POST", "player/seek", { position: Number(scrubber.value) });
    });
    $("volume").addEventListener("change", () => this.command("POST", "player/volume", { value: Number($("volume").value) }));
    $("shuffle").addEventListener("click", () => this.command("PUT", "player/options", { shuffle: !this.status?.modes.shuffle }));
    $("stop-after").addEventListener("click", () => this.command("PUT", "player/options", { stopAfterAlbum: !this.status?.modes.stopAfterAlbum }));
    $("repeat").addEventListener("click", () => {
      const next = { off: "all", all: "one", one: "off" }[this.status?.modes.repeat ?? "off"];
      this.command("PUT", "player/options", { repeat: next });
    });
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
    $("np-title").textContent = track ? (status.streamTitle || track.title) : "Nothing playing";
    $("np-artist").textContent = track ? (status.streamTitle ? track.title : track.artist) : "";
    // A catalog song's 30-second preview says so.
    if (track && status.preview) $("np-artist").append(Object.assign(document.createElement("span"), { className: "preview-badge", textContent: "Preview" }));
    // ADR-121: the progress fill runs between the two colours the daemon took from the cover.
    const [from, to] = track?.artworkColors ?? [];
    const fill = $("np-fill");
    if (from && to) { fill.style.setProperty("--from", from); fill.style.setProperty("--to", to); }
    else { fill.style.removeProperty("--from"); fill.style.removeProperty("--to"); }
    const art = track ? artwork(track.artworkHash, 96) : null;
    $("np-art").hidden = !art;
    if (art && $("np-art").getAttribute("src") !== art) $("np-art").src = art;
    const playing = status.state === "playing";
    $("toggle").querySelector(".icon-play").toggleAttribute("hidden", playing);
    $("toggle").querySelector(".icon-pause").toggleAttribute("hidden", !playing);
    $("toggle").setAttribute("aria-label", playing ? "Pause" : "Play");
    const scrubber = $("scrubber");
    scrubber.max = String(Math.max(0, Math.floor(status.duration || 0)));
    scrubber.disabled = !track || !status.duration;
    $("volume").value = String(status.modes.volume);
    $("shuffle").setAttribute("aria-pressed", String(status.modes.shuffle));
    $("stop-after").setAttribute("aria-pressed", String(status.modes.stopAfterAlbum));
    $("repeat").textContent = `Repeat ${status.modes.repeat}`;
    $("repeat").setAttribute("aria-label", `Repeat: ${status.modes.repeat}`);
    document.body.classList.toggle("has-track", Boolean(track));
    this.tick();
    this.onTrack(track?.id ?? null, status);
  }

  tick() {
    if (!this.status || this.dragging) return;
    const at = this.elapsed();
    $("scrubber").value = String(Math.floor(at));
    this.paintTime(at);
  }

  paintTime(at) {
    const duration = this.status?.duration || 0;
    $("elapsed").textContent = clock(at);
    $("remaining").textContent = `−${clock(Math.max(0, duration - at))}`;
    $("np-fill").style.setProperty("--progress", duration ? String(Math.min(1, at / duration)) : "0");
  }
}
