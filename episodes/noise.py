"""Noisy mode: seeded, recoverable perturbations of an episode's pages, the web analogue of
OSWorld-Noisy (toasts, notification pop-ups, modal prompts, overlays, a slow response now and then).

An episode created with a `noise_seed` gets, on every HTML page the agent's port serves it (the
SPA's index.html), one small style sheet and one script (`inject`). The script counts the tab's
navigations (every page load, and every change of path through the History API) and, on the
navigations the seed's `plan` names, shows one perturbation after a short delay. The plan is made
here, from the seed alone: the same seed shows the same perturbations in the same order on the same
navigation counts. Independently, `slow_ms` delays some of the episode's API requests (the n-th
API request of an episode generation, from the seed too) on the server.

Every perturbation is recoverable: it is dismissed by one visible button (close, "No thanks",
"Accept all", ...; Escape also closes a modal prompt), it lives outside the app's own DOM (a root of
its own beside the app's), never removes or disables an app control and never calls the app's API.
While shown, a modal prompt blocks the page and an overlay covers part of it, as real ones do. Each
is marked for a harness: `data-noise="<kind>"`, `role="dialog"` (modal prompts, overlay) or
`role="alert"` (toast, notification) with an accessible name, and `data-noise-dismiss` on its
dismissing buttons. The script reports each one shown and dismissed to `/__noise/seen` and
`/__noise/dismissed`, which the gate answers 204 and records as the episode's `noise` events
(`beacon_event`), without the request reaching the app.

Clean episodes (no seed) are served exactly as before: nothing here runs for them.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from typing import Any

TOAST, NOTIFICATION, COOKIE_BANNER, SURVEY, WHATS_NEW, OVERLAY = (
    "toast", "notification", "cookie_banner", "survey", "whats_new", "overlay")
KINDS = (TOAST, NOTIFICATION, COOKIE_BANNER, SURVEY, WHATS_NEW, OVERLAY)  # what the page shows
MODALS = (COOKIE_BANNER, SURVEY, WHATS_NEW)  # block the page until dismissed; Escape closes them
ONCE = MODALS  # a modal prompt comes at most once per episode generation, as real ones do
SLOW_RESPONSE = "slow_response"  # the server-side perturbation (not shown: an API answer comes late)

PLANNED_NAVIGATIONS = 100  # perturbations are planned for a tab's first navigations; later ones are clean
FIRST_CHANCE = 0.7  # the chance that the first page (the launch's starting page) is perturbed
CHANCE = 0.45  # and that any later navigation is
DELAY_MS = (150, 1200)  # a perturbation shows this long after its navigation
SLOW_CHANCE = 0.12  # the share of API requests answered late
SLOW_MS = (250, 1000)

SEEN, DISMISSED = "/__noise/seen", "/__noise/dismissed"
BEACONS = {SEEN: "shown", DISMISSED: "dismissed"}  # the only paths under /__ besides the launch
BEACON_LIMIT = 2048  # bytes of a beacon's body
HOW = ("button", "escape", "timeout")

# Texts of each kind, by variant: (title, message). Neutral on purpose: a perturbation distracts, it
# never claims a task succeeded or failed, and never names a row of the app.
TEXTS: dict[str, list[tuple[str, str]]] = {
    TOAST: [("Sync complete", "Your data is up to date."),
            ("Tip", "You can sort a list by clicking a column header."),
            ("Back online", "The connection was restored.")],
    NOTIFICATION: [("New message", "Support sent you a message about your settings."),
                   ("Weekly summary", "Your weekly summary is ready to read."),
                   ("Security notice", "A new sign-in from this device was noticed.")],
    COOKIE_BANNER: [("We value your privacy", "We use cookies to remember your preferences and to measure how the "
                     "site is used. You can accept all cookies or keep only the necessary ones."),
                    ("Cookie settings", "This site uses cookies. Choose which ones you allow."),
                    ("Your privacy choices", "We and our partners use cookies to improve your experience.")],
    SURVEY: [("Quick survey", "How likely are you to recommend this app to a friend or colleague?"),
             ("Tell us what you think", "Would you take a two-minute survey about your experience?"),
             ("Help us improve", "Could you answer three short questions about this page?")],
    WHATS_NEW: [("What's new", "Faster search, a refreshed dashboard and dark mode are on their way."),
                ("New this month", "Lists now remember your filters between visits."),
                ("Release notes", "We fixed several bugs and made pages load faster.")],
    OVERLAY: [("Need help?", "Chat with our assistant: ask anything about this page."),
              ("Try the new layout", "Preview the redesigned pages before everyone else."),
              ("Upgrade your plan", "Get more storage and priority support.")],
}
# The buttons that dismiss each kind (the first is the one a harness clicks). None of their names
# contains a name the app's own controls use ("Confirm", "Dismiss notification", "Sign in").
BUTTONS: dict[str, list[str]] = {
    TOAST: ["Close"], NOTIFICATION: ["Close"], OVERLAY: ["Close"],
    COOKIE_BANNER: ["Accept all", "Necessary only"], SURVEY: ["No thanks", "Maybe later"], WHATS_NEW: ["Got it"],
}


@dataclass(frozen=True)
class Perturbation:
    """What one navigation shows: its kind, how long after the navigation, and which text."""

    nav: int
    kind: str
    delay_ms: int
    variant: int

    def to_json(self) -> list[Any]:
        return [self.nav, self.kind, self.delay_ms, self.variant]


def plan(seed: int, navigations: int = PLANNED_NAVIGATIONS) -> list[Perturbation]:
    """The perturbations of a seed, by navigation count (1 is the first page a tab loads)."""
    rng = random.Random(f"episodes.noise:{seed}")  # a str seed is hashed (sha512): the same in every process
    shown: list[Perturbation] = []
    used: set[str] = set()
    for nav in range(1, navigations + 1):
        if rng.random() >= (FIRST_CHANCE if nav == 1 else CHANCE):
            continue
        kind = rng.choice([k for k in KINDS if k not in used])
        if kind in ONCE:
            used.add(kind)
        shown.append(Perturbation(nav, kind, rng.randint(*DELAY_MS), rng.randrange(len(TEXTS[kind]))))
    return shown


def slow_ms(seed: int, request: int) -> int:
    """How late the episode's `request`-th API request (1-based, per generation) is answered, in
    milliseconds (0: on time). Depends on the seed and the count alone, not on timing."""
    digest = hashlib.sha256(f"episodes.noise:{seed}:slow:{request}".encode()).digest()
    if int.from_bytes(digest[:4], "big") >= SLOW_CHANCE * 2**32:
        return 0
    low, high = SLOW_MS
    return low + int.from_bytes(digest[4:8], "big") % (high - low + 1)


def tab_key(secret: str, generation: int) -> str:
    """The key the script counts a tab's navigations under: new for every episode generation (so a
    reset starts the count again), derived from the episode's secret but never revealing it."""
    return hashlib.sha256(f"noise:{secret}:{generation}".encode()).hexdigest()[:16]


def beacon_event(path: str, body: bytes) -> dict[str, Any] | None:
    """The `noise` event a beacon from the script reports, or None when it is not one."""
    action = BEACONS.get(path)
    if action is None or len(body) > BEACON_LIMIT:
        return None
    try:
        data = json.loads(body or b"null")
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("kind") not in KINDS:
        return None
    nav = data.get("nav")
    if not isinstance(nav, int) or isinstance(nav, bool) or not 0 < nav <= PLANNED_NAVIGATIONS:
        return None
    event: dict[str, Any] = {"noise": data["kind"], "action": action, "nav": nav}
    if action == "dismissed":
        event["how"] = data.get("how") if data.get("how") in HOW else "button"
    return event


# ---- what the page gets ---------------------------------------------------------------------------
STYLE = """
#noise-root{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2430}
#noise-root [data-noise]{box-sizing:border-box;background:#fff;border:1px solid #d5dae1;border-radius:10px;
box-shadow:0 12px 32px rgba(16,24,40,.22);padding:14px 16px}
#noise-root .noise-title{font-weight:650;margin:0 24px 4px 0}
#noise-root .noise-text{margin:0 0 10px}
#noise-root .noise-x{position:absolute;top:6px;right:8px;border:0;background:none;font-size:18px;line-height:1;
cursor:pointer;color:#5b6472;padding:4px}
#noise-root .noise-actions{display:flex;gap:8px;justify-content:flex-end}
#noise-root .noise-actions button{border:1px solid #c5ccd6;background:#f4f6f9;border-radius:8px;padding:7px 12px;
cursor:pointer;font:inherit}
#noise-root .noise-actions button:first-child{background:#2f5bd3;border-color:#2f5bd3;color:#fff}
#noise-root .noise-toast{position:fixed;width:300px}
#noise-root .noise-notification{position:fixed;width:320px}
#noise-root .noise-overlay{position:fixed;width:min(360px,40vw);min-height:180px;background:#fdfcf7}
#noise-root .noise-backdrop{position:fixed;inset:0;z-index:1000;background:rgba(16,24,40,.35);display:grid;
place-items:center;padding:20px}
#noise-root .noise-backdrop.noise-bottom{place-items:end center}
#noise-root .noise-modal{position:relative;width:100%;max-width:440px;padding:22px 24px}
#noise-root .noise-bottom .noise-modal{max-width:720px}
"""

SCRIPT = """
(function () {
  "use strict";
  var C = __CONFIG__, MODALS = C.modals, K = "noise-nav:" + C.key, plan = {}, path = null, nav = 0, z = 0;
  C.plan.forEach(function (p) { plan[p[0]] = p; });
  try { nav = Number(window.sessionStorage.getItem(K)) || 0; } catch (e) { nav = 0; }
  function report(url, data) {
    var body = JSON.stringify(data);
    try { if (navigator.sendBeacon && navigator.sendBeacon(url, body)) return; } catch (e) { /* fall through */ }
    try { fetch(url, {method: "POST", body: body, keepalive: true, credentials: "same-origin"}); } catch (e) { /* lost */ }
  }
  function root() {
    var r = document.getElementById("noise-root");
    if (!r) { r = document.createElement("div"); r.id = "noise-root"; document.body.appendChild(r); }
    return r;
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  }
  // Where a toast, notification or overlay may sit, in the order tried: the first spot that covers
  // none of the app's controls (links, buttons, fields) is taken, and the box moves on if the page
  // later puts a control under it; when every spot covers one, the first is kept.
  var SPOTS = {
    toast: [{left: "20px", bottom: "20px"}, {left: "calc(50% - 150px)", bottom: "20px"},
            {left: "calc(50% - 150px)", top: "72px"}],
    notification: [{right: "20px", top: "72px"}, {right: "20px", bottom: "96px"}, {left: "20px", bottom: "20px"},
                   {left: "calc(50% - 160px)", top: "72px"}],
    overlay: [{right: "24px", top: "34%"}, {left: "calc(50% - 180px)", top: "34%"}, {right: "24px", bottom: "96px"},
              {left: "20px", bottom: "20px"}]
  };
  var CONTROLS = "a[href],button,input,select,textarea,summary,[role=button],[role=link],[role=checkbox],[role=tab]," +
                 "[role=combobox],[role=searchbox],[contenteditable=true]";
  function controls() {
    var found = [];
    document.querySelectorAll(CONTROLS).forEach(function (c) {
      if (c.closest("#noise-root")) return;
      var r = c.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) found.push(r);
    });
    return found;
  }
  function covers(box, rects) {
    var b = box.getBoundingClientRect();
    return rects.some(function (r) { return r.left < b.right && b.left < r.right && r.top < b.bottom && b.top < r.bottom; });
  }
  function put(box, spot) {
    ["top", "right", "bottom", "left"].forEach(function (side) { box.style[side] = spot[side] || "auto"; });
  }
  function place(box) {
    var spots = box.noiseSpots, rects = controls();
    if (box.noiseSpot !== undefined && !covers(box, rects)) return;
    for (var i = 0; i < spots.length; i++) {
      put(box, spots[i]);
      if (!covers(box, rects)) { box.noiseSpot = i; return; }
    }
    // A busy page (a home page of panels and quick actions) may leave none of the usual spots free:
    // scan the viewport for a free place, right to left and bottom to top, as a chat bubble would sit.
    var free = freeSpot(box, rects);
    if (free) { put(box, free); box.noiseSpot = -1; return; }
    if (box.noiseSpot === undefined || box.noiseSpot < 0) { box.noiseSpot = 0; }
    put(box, spots[box.noiseSpot]);
  }
  function freeSpot(box, rects) {
    var b = box.getBoundingClientRect(), w = window.innerWidth, h = window.innerHeight, step = 16;
    for (var top = h - b.height - 8; top >= 8; top -= step) {
      for (var left = w - b.width - 8; left >= 8; left -= step) {
        var hit = rects.some(function (r) {
          return r.left < left + b.width && left < r.right && r.top < top + b.height && top < r.bottom;
        });
        if (!hit) return {left: left + "px", top: top + "px"};
      }
    }
    return null;
  }
  var replacing = null;
  new MutationObserver(function () {
    if (replacing) return;
    replacing = setTimeout(function () {
      replacing = null;
      document.querySelectorAll("#noise-root [data-noise]:not([aria-modal])").forEach(place);
    }, 150);
  }).observe(document.documentElement, {childList: true, subtree: true});
  function dismiss(box, how) {
    if (!box.isConnected) return;
    (box.noiseOuter || box).remove();
    report(C.dismissed, {kind: box.getAttribute("data-noise"), nav: Number(box.getAttribute("data-noise-nav")), how: how});
    if (box.noiseFocus && box.noiseFocus.isConnected && box.noiseFocus.focus) box.noiseFocus.focus();
  }
  function show(p) {
    var kind = p[1], text = C.texts[kind][p[3]], modal = MODALS.indexOf(kind) >= 0, id = "noise-" + p[0];
    var box = el("div", modal ? "noise-modal" : "noise-" + kind);
    box.setAttribute("data-noise", kind);
    box.setAttribute("data-noise-nav", String(p[0]));
    box.setAttribute("role", modal || kind === "overlay" ? "dialog" : "alert");
    if (modal) box.setAttribute("aria-modal", "true");
    box.setAttribute("aria-labelledby", id + "-title");
    box.setAttribute("aria-describedby", id + "-text");
    var title = el("p", "noise-title", text[0]), body = el("p", "noise-text", text[1]);
    title.id = id + "-title"; body.id = id + "-text";
    box.appendChild(title); box.appendChild(body);
    var buttons = C.buttons[kind], first = null;
    if (modal) {
      var row = el("div", "noise-actions");
      buttons.forEach(function (name) {
        var b = el("button", null, name);
        b.type = "button"; b.setAttribute("data-noise-dismiss", "");
        b.addEventListener("click", function () { dismiss(box, "button"); });
        row.appendChild(b); first = first || b;
      });
      box.appendChild(row);
    } else {
      var x = el("button", "noise-x", "\\u00d7");
      x.type = "button"; x.setAttribute("data-noise-dismiss", "");
      x.setAttribute("aria-label", buttons[0] + " \\u201c" + text[0] + "\\u201d");
      x.addEventListener("click", function () { dismiss(box, "button"); });
      box.appendChild(x);
    }
    var outer = box;
    if (modal) {
      outer = el("div", "noise-backdrop" + (kind === "cookie_banner" ? " noise-bottom" : ""));
      outer.setAttribute("data-noise-backdrop", kind);
      outer.appendChild(box);
      box.noiseOuter = outer;
      box.noiseFocus = document.activeElement;
    }
    outer.style.zIndex = String((modal ? 1000 : 900) + (++z));
    root().appendChild(outer);
    if (!modal) {  // the seed's variant also turns the order of the spots tried
      var spots = SPOTS[kind], turn = p[3] % spots.length;
      box.noiseSpots = spots.slice(turn).concat(spots.slice(0, turn));
      place(box);
    }
    if (first) first.focus();
    if (kind === "toast") setTimeout(function () { dismiss(box, "timeout"); }, C.toast_ms);
    report(C.seen, {kind: kind, nav: p[0]});
  }
  function navigated() {
    if (location.pathname === path) return;
    path = location.pathname;
    nav += 1;
    try { window.sessionStorage.setItem(K, String(nav)); } catch (e) { /* counted in this page only */ }
    var p = plan[nav];
    if (p) setTimeout(function () { show(p); }, p[2]);
  }
  ["pushState", "replaceState"].forEach(function (name) {
    var original = history[name];
    history[name] = function () { var out = original.apply(this, arguments); navigated(); return out; };
  });
  window.addEventListener("popstate", navigated);
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    var open = document.querySelectorAll("#noise-root [data-noise][aria-modal=true]");
    if (!open.length) return;
    event.preventDefault(); event.stopImmediatePropagation();
    dismiss(open[open.length - 1], "escape");
  }, true);
  navigated();
})();
"""

TOAST_MS = 8000  # a toast also goes away by itself (recorded as dismissed by "timeout")


def page_config(seed: int, key: str) -> dict[str, Any]:
    """What the script is told: the seed's plan and everything it shows."""
    return {"key": key, "plan": [p.to_json() for p in plan(seed)], "modals": list(MODALS), "texts": TEXTS,
            "buttons": BUTTONS, "seen": SEEN, "dismissed": DISMISSED, "toast_ms": TOAST_MS}


def inject(html: bytes, seed: int, key: str) -> bytes:
    """The page with the noise style (end of head) and script (end of body) added."""
    config = json.dumps(page_config(seed, key), separators=(",", ":")).replace("<", "\\u003c")
    style = f"<style data-noise-style>{STYLE.strip()}</style>".encode()
    script = f"<script data-noise-script>{SCRIPT.strip().replace('__CONFIG__', config)}</script>".encode()
    return _before(_before(html, b"</head>", style), b"</body>", script)


def _before(html: bytes, tag: bytes, insert: bytes) -> bytes:
    at = html.lower().rfind(tag)
    return html + insert if at < 0 else html[:at] + insert + html[at:]
