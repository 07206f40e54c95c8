// Crate's web page: the wall, the album detail and the footer, over the daemon's API and event stream.
import { get, listen, say, send } from "./api.js";
import { Footer } from "./footer.js";
import { GenreBar, Wall } from "./wall.js";
import { Search } from "./search.js";
import { Menu } from "./menu.js";

const wallView = document.getElementById("wall-view");
const albumView = document.getElementById("album-view");
const searchView = document.getElementById("search-view");
const pageView = document.getElementById("page-view");
let pageShown = null;

const wall = new Wall();
const footer = new Footer((_, status) => showPlaying(status));
const genres = new GenreBar((feed) => { showOnly(wallView); return wall.show(feed); });
const search = new Search(searchView, (hash) => { location.hash = hash; });
new Menu();

// What the wall's first screen does not show (the album detail, the pages, the library, the outputs and "Listen
// here") comes after it: its modules are fetched and run once the first screen's covers have loaded, or at once when a
// route needs them, so they do not queue with the covers for the browser's connections nor hold up their drawing.
let parts = null;
let partsLoading = null;
let partsFailed = false;
function loadParts() {
  partsLoading ??= Promise.all([import("./detail.js"), import("./views.js"), import("./library.js"), import("./outputs.js"),
                                import("./listen.js")])
    .then(([{ AlbumDetail }, { Pages }, { Library }, { Outputs }, { ListenHere }]) => {
      const outputs = new Outputs();
      const listenHere = new ListenHere(outputs);
      parts = {
        outputs, listenHere,
        pages: new Pages(pageView, { outputs, listen: listenHere }),
        library: new Library(pageView),
        detail: new AlbumDetail((id) => {
          wall.remove(id);
          location.hash = "#/";
        }),
      };
      outputs.load().catch(() => {});
      // What plays was painted before these were here.
      if (footer.status) showPlaying(footer.status);
      return parts;
    })
    .catch((e) => {
      // Not kept: the next route that needs them, or the daemon back on the event stream, asks again (a failed
      // dynamic import is fetched again, not remembered as failed).
      partsLoading = null;
      partsFailed = true;
      throw e;
    });
  return partsLoading;
}

/** What plays, marked in the album detail and told to the lock screen (once they are here). */
function showPlaying(status) {
  parts?.detail.mark(status.entry?.track?.id ?? null, status);
  parts?.listenHere.describe(status.entry?.track ?? null);
}
let wallScroll = 0;

function showOnly(view) {
  for (const v of [wallView, albumView, searchView, pageView]) v.hidden = v !== view;
}

async function route() {
  // Leaving the results (a result opened, Esc) folds the phone's search field back behind its icon.
  if (!location.hash.startsWith("#/search")) search.fold();
  const match = location.hash.match(/^#\/(album|catalog)\/([^/]+)/);
  if (match) {
    if (!wallView.hidden) wallScroll = scrollY;
    try {
      const { detail } = await loadParts();
      if (match[1] === "album") await detail.show(match[2]); else await detail.showCatalog(decodeURIComponent(match[2]));
      showOnly(albumView);
      scrollTo(0, 0);
      document.getElementById("album-title")?.focus({ preventScroll: true });
    } catch (e) { say(e.message); }
    return;
  }
  if (location.hash.startsWith("#/search")) {
    showOnly(searchView);
    return;
  }
  const shelf = location.hash.match(/^#\/library\/(.+)$/);
  if (shelf) {
    if (!wallView.hidden) wallScroll = scrollY;
    try {
      const { library } = await loadParts();
      await library.show(decodeURIComponent(shelf[1]));
      pageShown = library;
      showOnly(pageView);
      scrollTo(0, 0);
    } catch (e) { say(e.message); }
    return;
  }
  const page = location.hash.match(/^#\/(home|queue|history|import|settings)$/);
  if (page) {
    if (!wallView.hidden) wallScroll = scrollY;
    try {
      const { pages } = await loadParts();
      await pages.show(page[1]);
      pageShown = pages;
      showOnly(pageView);
      scrollTo(0, 0);
    } catch (e) { say(e.message); }
    return;
  }
  showOnly(wallView);
  // Back from a detail: the wall is where it was left.
  scrollTo(0, wallScroll);
}

// The dial (five positions) changes the wall; the daemon regenerates it and says so with a feeds event.
const dial = document.getElementById("dial");
const dialTitle = document.getElementById("dial-title");
let positions = [];
function paintDial(info) {
  positions = info.positions;
  dial.value = String(info.index);
  dialTitle.textContent = info.title;
  dial.setAttribute("aria-valuetext", info.title);
}
dial.addEventListener("change", async () => {
  try { paintDial(await send("PUT", "dial", { dial: positions[Number(dial.value)] ?? dial.value })); } catch (e) { say(e.message); }
});

// Keyboard: space play/pause, ←/→ seek 10 s, shift+←/→ previous/next, / search, Esc back.
document.addEventListener("keydown", (event) => {
  const typing = event.target.closest?.("input, textarea, select, [contenteditable]") && event.target.type !== "range";
  // Over the now-playing sheet, Esc is its own (its dialog's cancel closes it and takes its history entry along).
  if (document.getElementById("sheet").open && (event.key === "Escape" || event.key === "/")) return;
  if (event.key === "/" && !typing) {
    event.preventDefault();
    search.open();
    return;
  }
  if (event.key === "Escape") {
    if (typing) event.target.blur();
    if (location.hash && location.hash !== "#/") history.back();
    return;
  }
  if (typing || event.target.type === "range" || event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.key === " " && !event.target.closest("button, a")) {
    event.preventDefault();
    footer.command("POST", "player/toggle");
  } else if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
    event.preventDefault();
    const forward = event.key === "ArrowRight";
    if (event.shiftKey) footer.command("POST", forward ? "player/next" : "player/previous");
    else footer.command("POST", "player/seek", { delta: forward ? 10 : -10 });
  }
});

const events = listen((subsystem, change, data) => {
  if (subsystem === "output") parts?.outputs.apply(data.output);
  if (!pageView.hidden) pageShown?.changed(subsystem);
  if (subsystem === "player" || subsystem === "queue" || subsystem === "options" || subsystem === "mixer") footer.refresh();
  if (change === "wall" && genres.current.kind === "wall") wall.show({ kind: "wall" }).catch(() => {});
  if (change === "dial") get("dial").then(paintDial).catch(() => {});
});

// The outputs again whenever the event stream (re)connects: events missed while it was down are not replayed. The
// later modules too, if fetching them failed (the daemon was away).
events.addEventListener("open", () => {
  if (parts) parts.outputs.load().catch(() => {});
  else if (partsFailed) loadParts().catch((e) => say(e.message));
});

addEventListener("hashchange", route);
get("dial").then(paintDial).catch((e) => say(e.message));
footer.refresh();
genres.load().catch((e) => say(e.message));
const shown = wall.show({ kind: "wall" }).catch((e) => say(e.message));
shown.finally(route);
shown.then(() => wall.coversSettled()).then(loadParts).catch((e) => say(e.message));
