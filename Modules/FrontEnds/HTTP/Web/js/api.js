// The daemon's HTTP API and event stream: the only way this page reaches Crate (same origin, JSON bodies).

async function problem(response) {
  const body = await response.json().catch(() => null);
  return Object.assign(new Error(body?.error?.message ?? `HTTP ${response.status}`),
                       { status: response.status, code: body?.error?.code });
}

export async function get(path) {
  const response = await fetch(`/api/v1/${path}`);
  if (!response.ok) throw await problem(response);
  return response.json();
}

/** A state change: same origin, a JSON body. `options` go to fetch (`{ keepalive: true }` for a page that is leaving). */
export async function send(method, path, body, options = {}) {
  const init = { ...options, method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(`/api/v1/${path}`, init);
  if (!response.ok) throw await problem(response);
  return response.status === 204 ? null : response.json();
}

const subsystems = ["player", "queue", "library", "feeds", "options", "mixer", "playlists", "stations", "output"];

/** Calls `handler(subsystem, change, data)` for every event the daemon sends (`change` names the kind of change:
 *  `wall`, `dial`, `playlist`, …; `data` is the whole event, for the objects some carry, as `output` events their
 *  output; the page never reads the detail, which is for people); the browser reconnects by itself. */
export function listen(handler) {
  const source = new EventSource("/api/v1/events");
  for (const name of subsystems) {
    source.addEventListener(name, (event) => {
      let data = {};
      try { data = JSON.parse(event.data) ?? {}; } catch { /* a keep-alive or an odd line */ }
      handler(name, data.change ?? "", data);
    });
  }
  return source;
}

export const artwork = (hash, size) => (hash ? `/api/v1/artwork/${hash}?size=${size}` : null);

export function clock(seconds) {
  const s = Math.max(0, Math.floor(seconds || 0));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${r}` : `${m}:${r}`;
}

/** Shows a short message to everyone, screen readers included. */
export function say(text) {
  let box = document.getElementById("toast");
  if (!box) {
    box = document.createElement("div");
    box.id = "toast";
    box.setAttribute("role", "status");
    document.body.append(box);
  }
  box.textContent = text;
  box.classList.add("shown");
  clearTimeout(say.timer);
  say.timer = setTimeout(() => box.classList.remove("shown"), 4000);
}
