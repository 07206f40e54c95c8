// The daemon's outputs (speakers, a WAV file, the stream for browsers): one store for the page, read from
// GET /api/v1/outputs and kept current by `output` events, so another client's switch shows here at once. Settings
// draws a switch per output from it; "Listen here" (listen.js) asks it whether there is a stream to play and which
// outputs are this room's speakers.
import { say, get, send } from "./api.js";
import { el } from "./dom.js";

export class Outputs {
  constructor() {
    this.list = [];
    this.loaded = false;
    this.watchers = new Set();
  }

  async load() {
    this.list = await get("outputs");
    this.loaded = true;
    this.notify();
  }

  /** One output as an event or an answer tells it, unless a later state of it is shown already (`revision`). Its
   *  destination comes only once it has opened, so an output just switched on keeps the one it had (where the sound
   *  goes does not change with the switch). */
  apply(output) {
    if (!output?.name) return;
    const old = this.list.find((o) => o.name === output.name);
    // An answer and the events come on different connections: a state older than the one shown, arriving late, is
    // not painted over it (it would flip a switch back under the finger).
    if (old && (output.revision ?? 0) < (old.revision ?? 0)) return;
    const next = old?.destination && !output.destination ? { ...output, destination: old.destination } : output;
    this.list = old ? this.list.map((o) => (o === old ? next : o)) : [...this.list, next];
    this.notify();
  }

  /** Switches an output on or off; the answer is the output after the change. */
  async setEnabled(name, enabled, options) {
    const output = await send("POST", `outputs/${encodeURIComponent(name)}`, { enabled }, options);
    this.apply(output);
    return output;
  }

  /** The stream output a browser can play (the first one switched on), or null. */
  get stream() { return this.list.find((o) => o.stream && o.enabled) ?? null; }

  /** This room's sound cards (PulseAudio, ALSA): what "mute the speakers" switches off. */
  get speakers() { return this.list.filter((o) => o.device); }

  /** Calls `watcher(list)` now and at every change; returns what stops it. */
  watch(watcher) {
    this.watchers.add(watcher);
    watcher(this.list);
    return () => this.watchers.delete(watcher);
  }

  notify() { for (const watcher of [...this.watchers]) watcher(this.list); }
}

/** The address a player on the network opens: this page's origin and the stream's path. */
export const streamAddress = (output) => new URL(output.stream, location.origin).href;

/** Settings' Outputs section: a switch per output named by the output and where it sends the sound, its error while
 *  it fails, the stream's address, and this device's "mute the speakers while listening here". It redraws its rows
 *  in place from the store (a switch keeps the focus when an event changes it) until the page leaves it. */
export function outputsSection(outputs, listen) {
  const section = el("section", "outputs");
  section.setAttribute("aria-labelledby", "outputs-heading");
  const heading = el("h2", "", "Outputs");
  heading.id = "outputs-heading";
  const list = el("ul", "output-list");
  list.setAttribute("aria-labelledby", "outputs-heading");
  const empty = el("p", "empty", "No outputs: crated plays through the ones named in output.plugin.");
  const rows = new Map();
  const note = el("p", "note");
  const here = el("p", "listen-option");
  here.dataset.listen = "mute-row";
  here.append(listen.muteCheckbox("settings-mute"));
  let shown = false;
  let stop = null;
  stop = outputs.watch((all) => {
    // Gone from the page (another view, a redraw): stop following.
    if (section.isConnected) shown = true;
    else if (shown) { stop?.(); return; }
    empty.hidden = all.length > 0 || !outputs.loaded;
    here.hidden = !listen.canMute();
    note.textContent = all.some((o) => o.stream)
      ? "Listen here, in the footer, plays the stream on this device: a phone or a laptop becomes a speaker."
      : "To listen on a phone or another computer, add the stream output (output.plugin: [pulse, stream]).";
    for (const [name, row] of rows) if (!all.some((o) => o.name === name)) { row.remove(); rows.delete(name); }
    all.forEach((output, i) => {
      if (!rows.has(output.name)) rows.set(output.name, outputRow(output, outputs));
      const row = rows.get(output.name);
      paintRow(row, output);
      // In the daemon's order; a row already in place is not moved (moving it would take the focus off its switch).
      if (list.children[i] !== row) list.insertBefore(row, list.children[i] ?? null);
    });
  });
  section.append(heading, list, empty, note, here);
  return section;
}

let rowCount = 0;

function outputRow(output, outputs) {
  const n = ++rowCount;
  const li = el("li", "output");
  li.dataset.output = output.name;
  const label = el("label", "switch-row");
  const input = document.createElement("input");
  input.type = "checkbox";
  input.setAttribute("role", "switch");
  input.id = `output-${n}`;
  const text = el("span", "output-text");
  text.append(el("span", "output-name", output.name), el("span", "output-where"));
  label.append(input, text);
  const error = el("p", "output-error");
  error.id = `output-error-${n}`;
  const stream = el("p", "output-stream");
  li.append(label, error, stream);
  input.addEventListener("change", async () => {
    const want = input.checked;
    try {
      await outputs.setEnabled(li.dataset.output, want);
    } catch (e) {
      input.checked = !want;
      say(e.message);
    }
  });
  return li;
}

function paintRow(li, output) {
  const input = li.querySelector("input");
  input.checked = output.enabled;
  li.classList.toggle("off", !output.enabled);
  const where = li.querySelector(".output-where");
  where.textContent = output.destination ?? (output.enabled ? "opens when something plays" : "");
  // The switch's name is the label's two lines as one phrase: "pulse, PulseAudio (default sink)".
  input.setAttribute("aria-label", output.destination ? `${output.name}, ${output.destination}` : output.name);
  const error = li.querySelector(".output-error");
  error.textContent = output.error ? `Not working: ${output.error}` : "";
  error.hidden = !output.error;
  if (output.error) input.setAttribute("aria-describedby", error.id); else input.removeAttribute("aria-describedby");
  const stream = li.querySelector(".output-stream");
  stream.hidden = !output.stream;
  if (output.stream) {
    const address = streamAddress(output);
    if (stream.dataset.address !== address) {
      stream.dataset.address = address;
      const link = Object.assign(el("a", "", address), { href: address, target: "_blank", rel: "noopener" });
      link.setAttribute("aria-label", `Stream address of ${output.name}: ${address}`);
      stream.replaceChildren(el("span", "", "Address for players on the network: "), link);
      // The clipboard is there on secure pages (localhost, https); elsewhere the link is pressed and held, or copied.
      if (navigator.clipboard?.writeText) {
        const copy = el("button", "copy", "Copy");
        copy.type = "button";
        copy.setAttribute("aria-label", `Copy the stream address of ${output.name}`);
        copy.addEventListener("click", () => navigator.clipboard.writeText(address)
          .then(() => say("Stream address copied"), (e) => say(e.message)));
        stream.append(" ", copy);
      }
    }
    const count = li.querySelector(".listeners") ?? stream.appendChild(el("span", "listeners"));
    count.textContent = typeof output.listeners === "number" ? ` · ${output.listeners} listening` : "";
  }
}
