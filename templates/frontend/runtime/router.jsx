/** A tiny History API router: the location is an external store, links push paths (no hashes). */
import { useSyncExternalStore } from "react";

const listeners = new Set();

function emit() {
  for (const listener of listeners) listener();
}

function subscribe(listener) {
  // Registered lazily so importing the module has no side effects.
  if (listeners.size === 0) window.addEventListener("popstate", emit);
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) window.removeEventListener("popstate", emit);
  };
}

function currentHref() {
  return window.location.pathname + window.location.search;
}

export function useLocation() {
  const href = useSyncExternalStore(subscribe, currentHref);
  const url = new URL(href, window.location.origin);
  return { href, pathname: url.pathname, search: url.search, query: url.searchParams };
}

export function navigate(to, { replace = false } = {}) {
  if (to === currentHref()) return;
  window.history[replace ? "replaceState" : "pushState"](null, "", to);
  if (!replace) window.scrollTo(0, 0);
  emit();
}

/** Params of `pattern` (`/notes/:id`) matched against `pathname`, or null. */
export function matchPath(pattern, pathname) {
  const want = pattern.split("/").filter(Boolean);
  const have = pathname.split("/").filter(Boolean);
  if (want.length !== have.length) return null;
  const params = {};
  for (let i = 0; i < want.length; i += 1) {
    if (want[i].startsWith(":")) params[want[i].slice(1)] = decodeURIComponent(have[i]);
    else if (want[i] !== have[i]) return null;
  }
  return params;
}

/** `/notes/:id` with `{id: 3}` → `/notes/3`. */
export function fillPath(pattern, params) {
  return pattern.replace(/:(\w+)/g, (_, key) => encodeURIComponent(String(params[key])));
}

export function Link({ to, children, onClick, ...rest }) {
  const handle = (event) => {
    if (onClick) onClick(event);
    // Let the browser handle new-tab clicks and anything already handled.
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a href={to} onClick={handle} {...rest}>
      {children}
    </a>
  );
}
