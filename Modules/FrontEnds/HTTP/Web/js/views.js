// The rest of the app: Home, Queue (drag to reorder), History, Import (live progress) and Settings (read-only but for
// the outputs' switches).
// Each view reads the API when shown and again when an event says its data changed.
import { artwork, clock, get, say, send } from "./api.js";
import { actionButton as button, el } from "./dom.js";
import { outputsSection } from "./outputs.js";

function heading(text) {
  const h = el("h1", "", text);
  h.tabIndex = -1;
  return h;
}

export class Pages {
  /** `outputs` (outputs.js) and `listen` (listen.js) are the page's, for Settings' Outputs section. */
  constructor(root, { outputs, listen }) {
    this.root = root;
    this.outputs = outputs;
    this.listen = listen;
    this.current = null;
  }

  /** Shows the page named by the route ("home", "queue", "history", "import", "settings"). */
  async show(name) {
    this.current = name;
    // Only the last show started draws (an event's redraw may overtake a newer one).
    const mine = (this.shows = (this.shows ?? 0) + 1);
    const render = { home: () => this.home(), queue: () => this.queue(), history: () => this.history(),
                     import: () => this.importView(), settings: () => this.settings() }[name];
    const parts = await render();
    if (mine !== this.shows) return;
    this.root.replaceChildren(...parts);
    this.root.querySelector("h1")?.focus({ preventScroll: true });
  }

  /** Redraws the page on screen when an event touches what it shows (an import keeps the form as it is). */
  changed(subsystem) {
    const touches = { queue: ["queue", "player"], history: ["player"], home: ["player", "library"], import: ["library"] };
    if (!touches[this.current]?.includes(subsystem)) return;
    if (this.current === "import") { this.progress(); return; }
    this.show(this.current).catch(() => {});
  }

  async home() {
    const home = await get("home");
    const parts = [heading("Home")];
    const recent = el("ul", "grid");
    recent.setAttribute("aria-label", "Played lately");
    for (const item of home.recentItems) {
      const li = el("li", "tile");
      if (item.album) {
        const a = Object.assign(document.createElement("a"), { href: `#/album/${item.album.id}` });
        a.setAttribute("aria-label", `${item.album.title} — ${item.album.artist}`);
        const art = artwork(item.album.artworkHash, 300);
        if (art) a.append(Object.assign(document.createElement("img"), { src: art, alt: "", width: 300, height: 300, loading: "lazy" }));
        else a.append(el("span", "blank", item.album.title));
        li.append(a);
      } else if (item.playlist) {
        li.append(button(item.playlist.name, () => send("POST", `playlists/${item.playlist.id}/play`), `Play playlist ${item.playlist.name}`));
      } else if (item.station) {
        li.append(button(item.station.name, () => send("POST", `stations/${item.station.id}/play`), `Play station ${item.station.name}`));
      }
      recent.append(li);
    }
    parts.push(el("h2", "", "Played lately"), home.recentItems.length ? recent
      : el("p", "empty", "Nothing played yet: pick an album on the wall."));
    const plays = el("ol", "list");
    for (const p of home.recentPlays) plays.append(el("li", "", `${p.track.title} — ${p.track.artist}`));
    parts.push(el("h2", "", "Recent plays"), plays);
    const top = el("ol", "list");
    for (const t of home.topArtists) top.append(el("li", "", `${t.artist.name}${t.plays ? ` (${t.plays} plays)` : ""}`));
    parts.push(el("h2", "", home.topArtistsBasis === "top" ? "Top artists" : "Recent artists"), top);
    return parts;
  }

  async queue() {
    const [queue, status] = await Promise.all([get("queue?limit=1000"), get("player")]);
    const parts = [heading(`Queue (${queue.total})`)];
    if (queue.total === 0) {
      parts.push(el("p", "empty", "The queue is empty: open an album and press Play, Play Next or Add to End."));
      return parts;
    }
    parts.push(button("Clear the queue", () => send("DELETE", "queue")));
    const list = el("ol", "queue");
    list.setAttribute("aria-label", "Queue");
    for (const entry of queue.entries) {
      const li = el("li", "entry");
      li.draggable = true;
      li.dataset.index = String(entry.index);
      if (status.entry?.id === entry.id) { li.classList.add("playing"); li.setAttribute("aria-current", "true"); }
      li.append(
        el("span", "handle", "⠿"),
        button(`${entry.track.title} — ${entry.track.artist}`, () => send("POST", "player/play", { index: entry.index }),
               `Play ${entry.track.title}`),
        el("span", "time", clock(entry.track.duration)),
        button("↑", () => move(entry.index, entry.index - 1), `Move ${entry.track.title} up`),
        button("↓", () => move(entry.index, entry.index + 1), `Move ${entry.track.title} down`),
        button("✕", () => send("DELETE", `queue/${entry.index}`), `Remove ${entry.track.title}`),
      );
      list.append(li);
    }
    // Drag to reorder (the arrows do the same from the keyboard).
    let dragged = null;
    list.addEventListener("dragstart", (e) => {
      dragged = e.target.closest("li");
      e.dataTransfer.effectAllowed = "move";
      e.dataTransfer.setData("text/plain", dragged.dataset.index);
    });
    list.addEventListener("dragover", (e) => { e.preventDefault(); e.dataTransfer.dropEffect = "move"; });
    list.addEventListener("drop", (e) => {
      e.preventDefault();
      const target = e.target.closest("li");
      if (!dragged || !target || target === dragged) return;
      move(Number(dragged.dataset.index), Number(target.dataset.index));
    });
    parts.push(list);
    return parts;
  }

  async history() {
    const history = await get("history");
    const parts = [heading("History")];
    if (history.length === 0) parts.push(el("p", "empty", "Nothing has played to the end yet."));
    const list = el("ol", "list");
    history.forEach((h, i) => {
      const li = el("li");
      li.append(button(`${h.track.title} — ${h.track.artist}`, () => send("POST", `history/${i + 1}/play`), `Play ${h.track.title} again`),
                el("span", "time", new Date(h.playedAt).toLocaleString()));
      list.append(li);
    });
    parts.push(list);
    return parts;
  }

  async importView() {
    const status = await get("library/status");
    const form = el("form", "import");
    const path = Object.assign(document.createElement("input"), { id: "import-path", name: "path", required: true, placeholder: "/home/me/Music" });
    const pathLabel = Object.assign(el("label", "", "Folder or file to import"), { htmlFor: "import-path" });
    const mode = Object.assign(document.createElement("select"), { id: "import-mode" });
    for (const [value, text] of [["reference", "Reference (leave the files where they are)"], ["copy", "Copy into Crate's library"]]) {
      mode.append(Object.assign(document.createElement("option"), { value, textContent: text, selected: value === status.importMode }));
    }
    const modeLabel = Object.assign(el("label", "", "Mode"), { htmlFor: "import-mode" });
    const start = Object.assign(el("button", "primary", "Import"), { type: "submit" });
    form.append(pathLabel, path, modeLabel, mode, start);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      try {
        await send("POST", "library/import", { paths: [path.value.trim()], mode: mode.value });
        this.progress();
      } catch (err) { say(err.message); }
    });
    const bar = Object.assign(document.createElement("progress"), { id: "import-progress", max: 1, value: 0 });
    bar.setAttribute("aria-label", "Import progress");
    const line = el("p", "", "");
    line.id = "import-line";
    line.setAttribute("aria-live", "polite");
    const failures = el("section");
    failures.id = "import-failures";
    setTimeout(() => this.progress(), 0);
    return [heading("Import"), form, bar, line, failures];
  }

  /** The job's progress and the failures, from the status (the library events say when to look). */
  async progress() {
    const bar = document.getElementById("import-progress");
    if (!bar) return;
    const [status, failures] = await Promise.all([get("library/status"), get("library/failures")]);
    const job = status.job;
    const p = job?.progress;
    if (p) {
      bar.max = Math.max(1, p.total);
      bar.value = p.done;
    }
    const line = document.getElementById("import-line");
    if (!job) line.textContent = "No import has run since crated started.";
    else if (job.state === "running") line.textContent = `Importing: ${p?.done ?? 0} of ${p?.total || "?"} files, ${p?.imported ?? 0} imported`;
    else if (job.report) line.textContent = `Done: ${job.report.imported} imported, ${job.report.duplicates?.length ?? 0} duplicates, ${failures.length} failures`;
    else if (job.error) line.textContent = `Failed: ${job.error}`;
    if (job && job.state !== "running" && p) bar.value = bar.max;
    const box = document.getElementById("import-failures");
    const parts = [];
    if (failures.length) {
      parts.push(el("h2", "", `Failures (${failures.length})`), button("Retry the failed files", () => send("POST", "library/failures/retry")));
      const list = el("ul", "list");
      for (const f of failures.slice(0, 200)) list.append(el("li", "", `${f.path}: ${f.reason}`));
      parts.push(list);
    }
    box.replaceChildren(...parts);
  }

  async settings() {
    const [plugins, status, health] = await Promise.all([get("plugins"), get("library/status"), get("health"),
                                                         this.outputs.load()]);
    const parts = [heading("Settings")];
    parts.push(el("p", "", `crated ${health.version}; change settings in the config file (crate config shows every key).`));
    const facts = el("dl", "facts");
    for (const [k, v] of [["Import mode", status.importMode], ["Library folder", status.libraryFolder], ["Import folder", status.importFolder]]) {
      facts.append(el("dt", "", k), el("dd", "", v));
    }
    parts.push(facts, outputsSection(this.outputs, this.listen), el("h2", "", "Plugins"));
    const table = el("table", "plugins");
    const head = el("tr");
    for (const h of ["Kind", "Name", "Status"]) head.append(Object.assign(el("th", "", h), { scope: "col" }));
    table.append(head);
    for (const p of plugins) {
      const row = el("tr");
      row.append(el("td", "", p.kind), el("td", "", p.name), el("td", "", p.available ? "available" : `unavailable: ${p.reason ?? ""}`));
      table.append(row);
    }
    // A narrow screen scrolls the table inside itself, never the page.
    const scroller = el("div", "table-scroll");
    // Reachable by keyboard too, so a narrow screen's sideways scroll works without a pointer.
    scroller.tabIndex = 0;
    scroller.setAttribute("role", "region");
    scroller.setAttribute("aria-label", "Plugins");
    scroller.append(table);
    parts.push(scroller);
    return parts;
  }
}

async function move(from, to) {
  if (to < 1) return;
  await send("POST", "queue/move", { from, to });
}
