// The Crate Wall (ADR-115): covers only, a responsive grid, infinite scroll without repeats, and the
// scatter/fade transition when the feed changes (ADR-120), which prefers-reduced-motion turns off.
import { get, say, send } from "./api.js";

/** The covers' edge in pixels, as crated asks (artwork.thumbnail_size; it makes the first wall's at start-up). */
const size = Number(document.getElementById("wall")?.dataset.artwork) || 300;
/** Covers added at a time (the daemon's page). */
const pageSize = 40;
const reducedMotion = () => matchMedia("(prefers-reduced-motion: reduce)").matches;
/** The transition's timing, shared by the grid (ADR-120) and the genre bar (ADR-122) so they move in step, in ms:
 *  the stagger window, each item's way out and way in, and how many covers stagger (the rest fade at once). */
const motion = { stagger: 160, out: 220, in: 250, staggered: 16 };
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Delays across `count` items, interleaving the first and second half (A0, B0, A1, B1, …) so the motion does not
 *  sweep in reading order, each with a little jitter. */
function staggerDelays(count, jitter = 40) {
  const half = Math.ceil(count / 2);
  const order = [];
  for (let i = 0; i < half; i++) {
    order.push(i);
    if (i + half < count) order.push(i + half);
  }
  const step = count > 1 ? motion.stagger / (count - 1) : 0;
  const delays = new Array(count);
  order.forEach((item, slot) => { delays[item] = Math.round(slot * step + Math.random() * jitter); });
  return delays;
}

export class Wall {
  constructor() {
    this.list = document.getElementById("wall");
    this.empty = document.getElementById("wall-empty");
    this.end = document.getElementById("wall-end");
    this.seen = new Set();
    // The daemon keeps the wall as far as anyone scrolled it: a fresh page shows its start and keeps the rest
    // here, handing it out a page at a time before asking for more.
    this.buffer = [];
    this.feed = { kind: "wall" };
    /** Shows started, so an overtaken one does not draw; albums taken off since the last show drew. */
    this.shows = 0;
    this.removed = new Set();
    this.loading = false;
    /** The page carried the start of a wall scrolled further (WallFirstScreen.swift): the rest is still to come. */
    this.unserved = false;
    this.exhausted = false;
    // Fetch the next page while the end of the grid is still two screens away (observed once a feed is shown).
    this.observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) this.more();
    }, { rootMargin: "200% 0px" });
  }

  /** Shows a feed: `{kind: "wall"}`, `{kind: "favorites"}` or `{kind: "genre", genre, subs}`. */
  async show(feed) {
    // Shows overlap (a pill clicked while another feed is on its way, an event's redraw): only the last one draws,
    // and an album taken off while one was on its way stays off.
    const mine = ++this.shows;
    this.feed = feed;
    this.exhausted = feed.kind === "favorites";
    this.unserved = false;
    // The page as crated sent it holds the wall's first screen and the start of the wall (WallFirstScreen.swift):
    // taken once.
    const served = feed.kind === "wall" ? takeServed() : null;
    if (served && this.adopt(served)) {
      this.observeAfterCovers(mine);
      return;
    }
    const entries = served?.entries ?? await this.firstPage(feed);
    await this.scatter();
    if (mine !== this.shows) return;
    const fresh = entries.filter((e) => !this.removed.has(String(e.id)));
    this.removed.clear();
    this.seen.clear();
    this.list.replaceChildren();
    this.buffer = fresh.slice(pageSize);
    this.append(fresh.slice(0, pageSize));
    this.updateEmpty();
    this.observeAfterCovers(mine);
  }

  /** Watches for the grid's end once its covers have loaded (3 s at most), so the next page's covers do not queue
   *  with them for the browser's few connections to the daemon. The show is over before: what waits on it (the
   *  page's first route, a deep link to an album or Settings) does not wait for covers. */
  observeAfterCovers(mine) {
    this.coversSettled().then(() => { if (mine === this.shows) this.observeAgain(); });
  }

  /** Takes over the tiles crated wrote for the first page of the served entries; false when the grid does not hold
   *  exactly those (it is then drawn anew). A wall scrolled further than the page carries comes when scrolled to. */
  adopt({ entries, total }) {
    const tiles = [...this.list.children];
    const first = entries.slice(0, pageSize);
    if (tiles.length !== first.length || tiles.some((t, i) => t.dataset.album !== String(first[i].id))) return false;
    this.seen.clear();
    for (const entry of first) this.seen.add(String(entry.id));
    this.buffer = entries.slice(pageSize);
    this.unserved = total > entries.length;
    this.updateEmpty();
    return true;
  }

  /** Waits (3 s at most) for the grid's covers to load or fail. */
  async coversSettled() {
    const pending = [...this.list.querySelectorAll("img")].filter((i) => !i.complete).map((i) => new Promise((resolve) => {
      i.addEventListener("load", resolve, { once: true });
      i.addEventListener("error", resolve, { once: true });
    }));
    if (pending.length > 0) await Promise.race([Promise.all(pending), pause(3000)]);
  }

  async firstPage(feed) {
    if (feed.kind === "favorites") {
      const favorites = await get("favorites");
      return favorites.albums.map((a) => ({
        id: String(a.id), title: a.title, artist: a.artist,
        artworkURL: a.artworkHash ? `/api/v1/artwork/${a.artworkHash}?size=${size}` : null,
      }));
    }
    if (feed.kind === "genre") {
      const query = feed.subs.map((s) => `sub=${encodeURIComponent(s)}`).join("&");
      return (await get(`genres/${encodeURIComponent(feed.genre)}?artwork=${size}${query ? "&" + query : ""}`)).entries;
    }
    return (await get(`wall?artwork=${size}`)).entries;
  }

  /** The next page of the current feed, appended once; albums already shown are never shown again. */
  async more() {
    if (this.loading || this.list.children.length === 0) return;
    if (this.buffer.length > 0) {
      this.append(this.buffer.splice(0, pageSize));
      this.observeAgain();
      return;
    }
    if (this.exhausted) return;
    this.loading = true;
    const feed = this.feed;
    try {
      let page;
      if (feed.kind === "genre") {
        const query = feed.subs.map((s) => `sub=${encodeURIComponent(s)}`).join("&");
        page = await send("POST", `genres/${encodeURIComponent(feed.genre)}/more?artwork=${size}${query ? "&" + query : ""}`);
      } else {
        if (this.unserved) {
          // The rest of a wall scrolled further before than the page carried, before anything new.
          this.unserved = false;
          const rest = (await get(`wall?artwork=${size}`)).entries.filter((e) => !this.seen.has(String(e.id)));
          if (feed !== this.feed) return;
          this.buffer = rest.slice(pageSize);
          if (rest.length > 0) page = { entries: rest.slice(0, pageSize) };
        }
        page ??= await send("POST", `wall/more?artwork=${size}`, { excluding: [...this.seen] });
      }
      if (feed !== this.feed) return;
      const added = this.append(page.entries);
      if (added === 0) this.exhausted = true;
    } catch {
      this.exhausted = true;
    } finally {
      this.loading = false;
    }
    this.observeAgain();
  }

  /** The observer speaks only when the end enters or leaves its margin; when it stayed inside (a tall window, a
   *  short page), observing afresh makes it say so again, and the next page comes. */
  observeAgain() {
    if (this.exhausted && this.buffer.length === 0) return;
    this.observer.unobserve(this.end);
    this.observer.observe(this.end);
  }

  append(entries) {
    let added = 0;
    const fragment = document.createDocumentFragment();
    // The first covers of a fresh grid come in staggered, as the old ones left.
    const fresh = this.list.children.length === 0;
    const delays = fresh ? staggerDelays(Math.min(entries.length, motion.staggered)) : [];
    for (const entry of entries) {
      const id = String(entry.id);
      if (this.seen.has(id)) continue;
      this.seen.add(id);
      // The first screen's covers load at once; later ones as they near the viewport.
      const item = tile(entry, fresh);
      if (delays[added] !== undefined) item.style.setProperty("--delay", `${delays[added]}ms`);
      fragment.append(item);
      added++;
    }
    this.list.append(fragment);
    return added;
  }

  /** Takes an album off the wall at once (a dislike). */
  remove(id) {
    this.removed.add(String(id));
    this.list.querySelector(`[data-album="${CSS.escape(String(id))}"]`)?.remove();
    this.updateEmpty();
  }

  updateEmpty() {
    const none = this.list.children.length === 0;
    this.empty.hidden = !none;
    if (none) {
      this.empty.textContent = this.feed.kind === "favorites"
        ? "No favorite albums yet: open an album and press Like."
        : "The library is empty. Import your music with  crate import ~/Music  (or the Import view), and the wall fills.";
    }
  }

  /** ADR-120: the old covers scatter and fade before the new ones fade in; the first ones staggered, the rest at once. */
  async scatter() {
    const tiles = [...this.list.children];
    if (tiles.length === 0 || reducedMotion()) return;
    const delays = staggerDelays(Math.min(tiles.length, motion.staggered));
    tiles.forEach((t, i) => {
      t.style.setProperty("--dx", `${Math.round((Math.random() - 0.5) * 120)}px`);
      t.style.setProperty("--dy", `${Math.round((Math.random() - 0.5) * 120)}px`);
      t.style.setProperty("--delay", `${delays[i] ?? 0}ms`);
      t.classList.add("leaving");
    });
    await pause(motion.stagger + motion.out);
  }
}

/** What crated wrote into the page, once (the element goes with the first read): `{entries, total}`. */
function takeServed() {
  const data = document.getElementById("wall-first");
  if (!data) return null;
  data.remove();
  try {
    const served = JSON.parse(data.textContent);
    return Array.isArray(served.entries) ? served : null;
  } catch {
    return null;
  }
}

/** One cover of the grid. WallFirstScreen.swift writes the first screen's the same way (without `entering`). */
function tile(entry, eager = false) {
  const item = document.createElement("li");
  item.className = "tile entering";
  item.dataset.album = String(entry.id);
  const link = document.createElement("a");
  const local = /^\d+$/.test(String(entry.id));
  // Catalog albums (`applemusic:ID`) open their catalog page.
  link.href = local ? `#/album/${entry.id}` : `#/catalog/${encodeURIComponent(String(entry.id).replace(/^applemusic:/, ""))}`;
  link.setAttribute("aria-label", `${entry.title} — ${entry.artist}`);
  if (entry.artworkURL) {
    const img = document.createElement("img");
    img.src = entry.artworkURL;
    img.alt = "";
    img.width = size;
    img.height = size;
    img.loading = eager ? "eager" : "lazy";
    img.decoding = "async";
    link.append(img);
  } else {
    const blank = document.createElement("span");
    blank.className = "blank";
    blank.textContent = entry.title;
    link.append(blank);
  }
  // Title and artist show on hover and focus only (art is the interface); the link's name says them.
  const caption = document.createElement("span");
  caption.className = "caption";
  caption.setAttribute("aria-hidden", "true");
  const title = document.createElement("strong");
  title.textContent = entry.title;
  const artist = document.createElement("span");
  artist.textContent = entry.artist;
  caption.append(title, artist);
  link.append(caption);
  item.append(link);
  item.addEventListener("animationend", () => item.classList.remove("entering"), { once: true });
  return item;
}

/** ADR-116: one row. Pills for the wall, favorites and the super-genres; a chosen genre turns the same row into
 *  "Genre ×" and its sub-genre chips (several may be chosen). ADR-122: when the genre changes, the pills slide down
 *  and out across the row, staggered, while the grid scatters, and the new set slides up as the new covers come;
 *  a sub-genre toggle only changes the chip. */
export class GenreBar {
  constructor(onChange) {
    this.nav = document.getElementById("genres");
    this.onChange = onChange;
    this.genres = [];
    this.current = { kind: "wall" };
    /** Choices started, so an overtaken one stops animating. */
    this.turns = 0;
  }

  async load() {
    this.genres = await get("genres");
    this.render();
  }

  async choose(feed) {
    const before = this.current;
    const regenre = feed.kind !== before.kind || feed.genre !== before.genre;
    this.current = feed;
    const turn = ++this.turns;
    const drawn = Promise.resolve(this.onChange(feed)).catch((e) => say(e.message));
    if (!regenre || reducedMotion()) {
      this.render(regenre ? 0 : this.nav.scrollLeft);
      return;
    }
    await this.slide("out");
    if (turn !== this.turns) return;
    this.render(0);
    for (const p of this.nav.children) p.classList.add("below");
    await drawn;
    if (turn !== this.turns) return;
    await this.slide("in");
  }

  /** Slides every pill out (down, below the bar's clip) or back in, each a little after the one before it. */
  async slide(way) {
    const pills = [...this.nav.children];
    const step = pills.length > 1 ? motion.stagger / (pills.length - 1) : 0;
    pills.forEach((p, i) => p.style.setProperty("--delay", `${Math.round(i * step)}ms`));
    if (way === "out") {
      for (const p of pills) p.classList.add("sliding-out");
      await pause(motion.stagger + motion.out);
      return;
    }
    void this.nav.offsetWidth;  // the pills stand below first, then move
    for (const p of pills) { p.classList.remove("below"); p.classList.add("sliding-in"); }
    await pause(motion.stagger + motion.in);
    for (const p of pills) p.classList.remove("sliding-in");
  }

  /** Draws the row, scrolled to `scrollLeft` and then as little as it takes to keep the chosen pill in view. */
  render(scrollLeft = this.nav.scrollLeft) {
    const feed = this.current;
    const pills = [];
    if (feed.kind === "genre") {
      const genre = this.genres.find((g) => g.id === feed.genre);
      pills.push(pill(`${genre?.name ?? feed.genre} ×`, true, () => this.choose({ kind: "wall" }), `Leave ${genre?.name ?? feed.genre}`));
      for (const sub of genre?.subcategories ?? []) {
        const on = feed.subs.includes(sub.name);
        pills.push(pill(sub.name, on, () => {
          const subs = on ? feed.subs.filter((s) => s !== sub.name) : [...feed.subs, sub.name];
          this.choose({ kind: "genre", genre: feed.genre, subs });
        }, null, "chip"));
      }
    } else {
      pills.push(pill("Crate Wall", feed.kind === "wall", () => this.choose({ kind: "wall" })));
      pills.push(pill("Favorites", feed.kind === "favorites", () => this.choose({ kind: "favorites" })));
      for (const g of this.genres) pills.push(pill(g.name, false, () => this.choose({ kind: "genre", genre: g.id, subs: [] })));
    }
    this.nav.replaceChildren(...pills);
    this.nav.scrollLeft = scrollLeft;
    const chosen = this.nav.querySelector('[aria-pressed="true"]');
    if (!chosen) return;
    const left = chosen.offsetLeft, right = left + chosen.offsetWidth;
    if (left < this.nav.scrollLeft) this.nav.scrollLeft = left;
    else if (right > this.nav.scrollLeft + this.nav.clientWidth) this.nav.scrollLeft = right - this.nav.clientWidth;
  }
}

function pill(text, pressed, action, label = null, kind = "pill") {
  const button = document.createElement("button");
  button.type = "button";
  button.className = kind;
  button.textContent = text;
  button.setAttribute("aria-pressed", String(pressed));
  if (label) button.setAttribute("aria-label", label);
  button.addEventListener("click", action);
  return button;
}
