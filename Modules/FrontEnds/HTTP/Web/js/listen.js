// "Listen here": the daemon's stream output (`/stream.opus`, Ogg Opus) played by this browser, so a phone or a
// laptop becomes one more speaker. Shown only while a stream output is switched on. Its volume is this device's
// alone (the daemon's volume stays as it is). Optionally it mutes the daemon's speakers (its `device` outputs)
// while this device listens, and switches back on exactly the ones it switched off when it stops — remembered in
// localStorage, so a page closed while listening gives them back (at once as it leaves, or at the next visit).
// A dropped connection or a stream error is retried with a growing delay; a refusal (503) says why.
import { artwork, say } from "./api.js";
import { el } from "./dom.js";

const VOLUME = "crate.listen.volume";
const MUTE = "crate.listen.muteSpeakers";
const MUTED = "crate.listen.muted"; // { names: [...], owner: tab, beat: ms }: the speakers a listening tab switched off
const STALE = 120_000; // a record not kept fresh this long belongs to a tab that is gone
const RETRY_MAX = 30;

function load(key) { try { return localStorage.getItem(key); } catch { return null; } }
function store(key, value) {
  try { if (value === null) localStorage.removeItem(key); else localStorage.setItem(key, value); } catch { /* private mode */ }
}

/** This tab, across reloads (sessionStorage lives as long as the tab). */
function tabID() {
  try {
    let id = sessionStorage.getItem("crate.tab");
    if (!id) sessionStorage.setItem("crate.tab", (id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`));
    return id;
  } catch { return "tab"; }
}
const TAB = tabID();

export class ListenHere {
  constructor(outputs) {
    this.outputs = outputs;
    this.listening = false;
    this.audio = null;
    this.path = null;
    this.attempts = 0;
    this.retryTimer = 0;
    this.note = "";
    this.lastReason = "";
    this.volumeWorks = true;
    const volume = Number(load(VOLUME) ?? 100);
    this.volume = Number.isFinite(volume) ? Math.min(100, Math.max(0, volume)) : 100;
    for (const b of document.querySelectorAll('[data-listen="toggle"]')) b.addEventListener("click", () => this.toggle());
    for (const slider of document.querySelectorAll('[data-listen="volume"]')) {
      slider.addEventListener("input", () => this.setVolume(Number(slider.value)));
    }
    // The option lives in the sheet and in Settings (drawn later): one listener for every copy.
    document.addEventListener("change", (e) => {
      if (e.target.matches?.('[data-listen="mute"]')) this.setMuteSpeakers(e.target.checked);
    });
    outputs.watch(() => this.follow());
    addEventListener("online", () => { if (this.listening && this.retryTimer) this.retry(); });
    // Leaving (closing, reloading, another page): listening ends here, and the speakers come back.
    addEventListener("pagehide", () => { if (this.listening) this.stop({ leaving: true }); });
    if ("mediaSession" in navigator) {
      navigator.mediaSession.setActionHandler("play", () => this.start());
      navigator.mediaSession.setActionHandler("pause", () => this.stop());
    }
    this.recover();
    setInterval(() => this.recover(), 15_000);
  }

  get muteSpeakers() { return load(MUTE) === "true"; }

  toggle() { if (this.listening) this.stop(); else this.start(); }

  /** Plays the stream. Called from a click, so the browser lets it sound (play() runs before anything is awaited). */
  start() {
    const stream = this.outputs.stream;
    if (!stream || this.listening) return;
    this.listening = true;
    this.attempts = 0;
    this.lastReason = "";
    this.path = stream.stream;
    this.note = "Connecting…";
    const audio = this.element();
    audio.src = this.path;
    this.play();
    this.paint();
    if (this.muteSpeakers) this.mute().catch((e) => say(e.message));
  }

  /** Stops listening here, and gives the speakers back if listening here had muted them. */
  stop({ leaving = false } = {}) {
    this.listening = false;
    clearTimeout(this.retryTimer);
    this.retryTimer = 0;
    this.note = "";
    if (this.audio) {
      this.audio.pause();
      // No source: the connection to the stream closes.
      this.audio.removeAttribute("src");
      this.audio.load();
    }
    this.unmute(leaving).catch((e) => say(e.message));
    this.paint();
  }

  /** The `<audio>` element, made the first time this device listens. */
  element() {
    if (this.audio) return this.audio;
    const audio = document.createElement("audio");
    audio.id = "listen-audio";
    audio.preload = "none";
    // iPhones and iPads ignore a page's volume (their buttons set it): there the slider goes away.
    audio.volume = 0.5;
    this.volumeWorks = audio.volume === 0.5;
    audio.volume = this.volume / 100;
    audio.addEventListener("playing", () => {
      this.attempts = 0;
      this.note = "";
      this.lastReason = "";
      clearTimeout(this.retryTimer);
      this.retryTimer = 0;
      this.paint();
    });
    audio.addEventListener("error", () => this.trouble("error"));
    audio.addEventListener("ended", () => this.trouble("ended"));
    audio.addEventListener("stalled", () => this.trouble("stalled"));
    // Paused by the system (a call, headphones pulled out, the lock screen): this device stopped listening.
    audio.addEventListener("pause", () => { if (this.listening && !audio.ended && !audio.error) this.stop(); });
    document.getElementById("player").append(audio);
    this.audio = audio;
    return audio;
  }

  play() {
    this.audio.play().catch((e) => {
      // Without a tap first the browser will not sound (a media key or a retry before any tap).
      if (e.name === "NotAllowedError" && this.listening) {
        this.stop();
        say("Tap Listen here to play on this device");
      }
      // AbortError: a newer source took over; NotSupportedError: the error event deals with it.
    });
  }

  /** The stream went wrong: reconnect after 1, 2, 4 … 30 s (a sound resets the count); a refusal says why. */
  trouble(kind) {
    if (!this.listening || this.retryTimer) return;
    const delay = Math.min(RETRY_MAX, 2 ** this.attempts);
    this.attempts += 1;
    const at = this.audio.currentTime;
    this.retryTimer = setTimeout(() => {
      // A stall that went away by itself (the sound went on) needs no new connection.
      if (kind === "stalled" && this.audio.currentTime > at && !this.audio.paused) {
        this.retryTimer = 0;
        this.note = "";
        this.paint();
        return;
      }
      this.retry();
    }, delay * 1000);
    this.note = `${this.lastReason ? `${this.lastReason}. ` : ""}Reconnecting in ${delay} s`;
    this.paint();
    if (kind === "error") this.why(delay);
  }

  /** Asks the daemon why the stream failed: a 503 says (the output is off, too many listeners). */
  async why(delay) {
    const path = this.path;
    const abort = new AbortController();
    let reason = "";
    try {
      const answer = await fetch(path, { signal: abort.signal, cache: "no-store" });
      if (!answer.ok) {
        const body = await answer.json().catch(() => null);
        reason = body?.error?.message ?? `the stream answered HTTP ${answer.status}`;
        // Switched off by someone: the outputs say so (and the control goes away); ask in case the event was missed.
        if (body?.error?.code === "output_off") this.outputs.load().catch(() => {});
      }
    } catch {
      reason = navigator.onLine === false ? "This device is offline" : "crated cannot be reached";
    } finally {
      abort.abort(); // a stream that answers 200 is not listened to here
    }
    if (!reason || !this.listening || path !== this.path) return;
    reason = reason.charAt(0).toUpperCase() + reason.slice(1);
    if (reason !== this.lastReason) say(`Listen here: ${reason}`);
    this.lastReason = reason;
    if (this.retryTimer) this.note = `${reason}. Reconnecting in ${delay} s`;
    this.paint();
  }

  retry() {
    clearTimeout(this.retryTimer);
    this.retryTimer = 0;
    if (!this.listening) return;
    const stream = this.outputs.stream;
    if (!stream) { this.stop(); return; }
    this.path = stream.stream;
    this.note = this.lastReason ? `${this.lastReason}. Connecting again…` : "Connecting again…";
    // Setting the source, even the same one, loads it anew.
    this.audio.src = this.path;
    this.play();
    this.paint();
  }

  /** The outputs changed: the control shows while a stream is on; when someone switches it off, listening stops. */
  follow() {
    if (this.listening && !this.outputs.stream && this.outputs.loaded) {
      this.stop();
      say("The stream output was switched off: listening here stopped");
    }
    this.paint();
  }

  setVolume(value) {
    this.volume = value;
    store(VOLUME, String(value));
    if (this.audio) this.audio.volume = value / 100;
    this.paint();
  }

  setMuteSpeakers(on) {
    store(MUTE, on ? "true" : "false");
    if (this.listening) (on ? this.mute() : this.unmute()).catch((e) => say(e.message));
    this.paint();
  }

  /** Switches off the speakers that are on, remembering them first (a page that dies half-way still gives them back). */
  async mute() {
    const speakers = this.outputs.speakers.filter((o) => o.enabled);
    if (!speakers.length) return;
    const record = readRecord() ?? { names: [] };
    writeRecord({ names: [...new Set([...record.names, ...speakers.map((o) => o.name)])], owner: TAB, beat: Date.now() });
    for (const speaker of speakers) await this.outputs.setEnabled(speaker.name, false);
  }

  /** Switches back on the speakers this tab switched off (only those), and forgets them. */
  async unmute(leaving = false) {
    const record = readRecord();
    if (!record || record.owner !== TAB) return;
    await release(record, this.outputs, leaving);
  }

  /** Speakers left muted by a tab that is gone (closed while listening, or this tab before a reload) come back;
   *  a listening tab keeps its record fresh. */
  recover() {
    const record = readRecord();
    if (!record) return;
    if (this.listening && record.owner === TAB) { writeRecord({ ...record, beat: Date.now() }); return; }
    if (record.owner === TAB || Date.now() - record.beat > STALE) release(record, this.outputs).catch(() => {});
  }

  status() {
    if (!this.listening) return this.note;
    return this.note || "Listening on this device";
  }

  /** Every copy of the control from the state: the toggles, the status lines, the sliders, the option. */
  paint() {
    const shown = Boolean(this.outputs.stream);
    const status = this.status();
    document.body.classList.toggle("can-listen", shown);
    document.body.classList.toggle("listening", this.listening);
    for (const panel of document.querySelectorAll('[data-listen="panel"]')) panel.hidden = !shown;
    for (const b of document.querySelectorAll('[data-listen="toggle"]')) {
      b.setAttribute("aria-pressed", String(this.listening));
      b.classList.toggle("retrying", this.listening && Boolean(this.retryTimer));
      b.title = this.listening ? status : "Play what Crate plays on this device";
    }
    for (const line of document.querySelectorAll('[data-listen="status"]')) {
      if (line.textContent !== status) line.textContent = status;
    }
    for (const slider of document.querySelectorAll('[data-listen="volume"]')) {
      slider.value = String(this.volume);
      slider.setAttribute("aria-valuetext", `${this.volume}%`);
      (slider.closest("label") ?? slider).hidden = !this.volumeWorks;
    }
    const mute = this.muteSpeakers;
    for (const box of document.querySelectorAll('[data-listen="mute"]')) box.checked = mute;
    for (const row of document.querySelectorAll('[data-listen="mute-row"]')) row.hidden = !this.canMute();
  }

  /** The option needs a stream to listen to and speakers to mute. */
  canMute() { return Boolean(this.outputs.stream) && this.outputs.speakers.length > 0; }

  /** A labelled copy of the "mute the speakers" option (Settings draws one; the sheet has its own). */
  muteCheckbox(id) {
    const label = el("label", "check");
    const box = Object.assign(document.createElement("input"), { type: "checkbox", id, checked: this.muteSpeakers });
    box.dataset.listen = "mute";
    label.append(box, " Mute the speakers while listening here");
    return label;
  }

  /** What the phone's lock screen shows while this device listens: the daemon's track. */
  describe(track) {
    if (!("mediaSession" in navigator) || typeof MediaMetadata === "undefined" || track?.id === this.described) return;
    this.described = track?.id;
    const art = track ? artwork(track.artworkHash, 600) : null;
    navigator.mediaSession.metadata = track
      ? new MediaMetadata({ title: track.title, artist: track.artist ?? "", album: track.album ?? "",
                            artwork: art ? [{ src: art, sizes: "600x600" }] : [] })
      : null;
  }
}

function readRecord() {
  try {
    const record = JSON.parse(load(MUTED) ?? "null");
    return Array.isArray(record?.names) ? record : null;
  } catch { return null; }
}

function writeRecord(record) { store(MUTED, JSON.stringify(record)); }

/** The recorded speakers back on (an output gone from the daemon is skipped), and the record forgotten. */
async function release(record, outputs, leaving = false) {
  store(MUTED, null);
  const results = await Promise.allSettled(record.names.map((name) => outputs.setEnabled(name, true, leaving ? { keepalive: true } : {})));
  const failed = results.find((r) => r.status === "rejected" && r.reason?.status !== 404);
  if (failed && !leaving) throw failed.reason;
}
