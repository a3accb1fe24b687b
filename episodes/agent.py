"""The agent's port: the world's own app, each request served on its episode's database.

An agent's browser joins an episode through a one-time launch URL (`/__launch/<ticket>`), which
sets two HttpOnly cookies (the episode's secret and the acting user's app session) and redirects
to the task's starting page. Every later request is routed by the episode cookie: the gate puts
the episode's engine in the request's ASGI scope, where the app's one database dependency reads it.
Nothing privileged is served here: no path under `/__` other than the launch (and, for a noisy
episode only, the noise script's two beacons) reaches anything, and the evaluator's API lives on
another port.

A noisy episode (`noise_seed` set, see `episodes.noise`) gets the noise script and style in every
HTML page, some API requests answered late, and its beacons recorded as `noise` events; a clean
episode's requests pass through untouched.
"""

from __future__ import annotations

import asyncio
import re
import time
import traceback
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from episodes import noise
from episodes.store import Episode, EpisodeStore

EPISODE_COOKIE = "episode"
ENGINE_SCOPE_KEY = "world.engine"  # the generated app's `backend.deps.ENGINE_SCOPE_KEY`
LAUNCH = re.compile(r"^/__launch/(?P<ticket>[A-Za-z0-9_-]{16,64})/?$")


class AgentGate:
    """ASGI middleware in front of the generated app."""

    def __init__(self, app: ASGIApp, store: EpisodeStore, sign: Callable[[int], str], session_cookie: str) -> None:
        self.app, self.store, self.sign, self.session_cookie = app, store, sign, session_cookie

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # no websockets in a world app
            return
        path = scope.get("path", "")
        if path.startswith("/__launch"):
            await self._launch(scope, path)(scope, receive, send)
            return
        request = Request(scope)
        if path.startswith("/__"):
            if path in noise.BEACONS and await self._beacon(Request(scope, receive), path):
                await Response(status_code=204)(scope, receive, send)
                return
            await _refuse(request, 404, "Not found")(scope, receive, send)
            return
        episode = self.store.by_secret(request.cookies.get(EPISODE_COOKIE))
        if episode is None:
            message = ("no episode: open the launch URL the evaluator gave you" if EPISODE_COOKIE not in request.cookies
                       else "this episode has ended or is not on this server; ask the evaluator for a new launch URL")
            await _refuse(request, 401 if EPISODE_COOKIE not in request.cookies else 410, message)(scope, receive, send)
            return
        await self._serve(episode, scope, receive, send)

    def _launch(self, scope: Scope, path: str) -> Response:
        match = LAUNCH.match(path)
        request = Request(scope)
        if match is None:
            return _refuse(request, 400, "malformed launch URL: expected /__launch/<ticket> as the evaluator gave it")
        episode = self.store.redeem(match["ticket"])
        if episode is None:
            return _refuse(request, 404, "this launch URL is unknown or was already used; ask the evaluator for a new one")
        episode.events.add("launch")
        start = episode.task.starting_url if episode.task is not None else "/"
        response = RedirectResponse(start if start.startswith("/") else "/", status_code=303)
        response.set_cookie(EPISODE_COOKIE, episode.secret, httponly=True, samesite="lax", path="/")
        response.set_cookie(self.session_cookie, self.sign(episode.user_id), httponly=True, samesite="lax", path="/")
        return response

    async def _beacon(self, request: Request, path: str) -> bool:
        """A noisy episode's report of a perturbation, recorded; False (a 404) for anyone else."""
        episode = self.store.by_secret(request.cookies.get(EPISODE_COOKIE))
        if episode is None or episode.noise_seed is None or request.method != "POST":
            return False
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > noise.BEACON_LIMIT:
                break
        event = noise.beacon_event(path, body)
        if event is not None:
            episode.events.add("noise", **event)
        return True

    async def _serve(self, episode: Episode, scope: Scope, receive: Receive, send: Send) -> None:
        inner = dict(scope)
        inner[ENGINE_SCOPE_KEY] = episode.engine
        generation = episode.generation
        out = send
        if episode.noise_seed is not None:
            out = await self._noisy(episode, inner, send)
            # a late answer may outlive its state: an episode reset or ended meanwhile has removed the
            # database this request was bound to (serving it would open an empty file in its place)
            if self.store.by_secret(episode.secret) is not episode or episode.generation != generation:
                await _refuse(Request(scope), 410, "this episode was reset or ended while the request waited; "
                              "reload the page")(scope, receive, send)
                return
        status = {"code": 0}
        started = time.perf_counter()

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = int(message["status"])
            await out(message)

        try:
            await self.app(inner, receive, watch)
        except Exception as exc:  # recorded for triage, then handed on to the server's own handling
            episode.events.add("exception", path=scope.get("path", ""), error=f"{type(exc).__name__}: {exc}",
                               trace=traceback.format_exc(limit=8)[-2000:])
            raise
        finally:
            episode.events.add("request", method=scope.get("method", ""), path=scope.get("path", ""),
                               query=scope.get("query_string", b"").decode(errors="replace")[:300],
                               status=status["code"] or 500, ms=round(1000 * (time.perf_counter() - started), 2))

    async def _noisy(self, episode: Episode, inner: Scope, send: Send) -> Send:
        """Noisy mode on one request: an API request may wait (by the seed and its count); a page
        is asked for in full (no 304 from a cache) and answered with the noise script injected."""
        seed, path = episode.noise_seed, str(inner.get("path", ""))
        assert seed is not None
        if path == "/api" or path.startswith("/api/"):
            episode.noise_requests += 1  # on the event loop's one thread: no two requests take one count
            delay = noise.slow_ms(seed, episode.noise_requests)
            if delay:
                episode.events.add("noise", noise=noise.SLOW_RESPONSE, action="delayed", path=path, ms=delay,
                                   request=episode.noise_requests)
                await asyncio.sleep(delay / 1000)
            return send
        if inner.get("method") != "GET":
            return send
        inner["headers"] = [(k, v) for k, v in inner.get("headers", []) if k.lower() not in _CONDITIONAL]
        inner["extensions"] = {k: v for k, v in (inner.get("extensions") or {}).items()
                               if k not in ("http.response.pathsend", "http.response.zerocopy")}
        key = noise.tab_key(episode.secret, episode.generation)
        held: list[Message] = []

        async def inject(message: Message) -> None:
            if message["type"] == "http.response.start":
                kind = dict(message.get("headers", [])).get(b"content-type", b"")
                if message["status"] == 200 and kind.startswith(b"text/html"):
                    held.append(message)  # the start waits for the whole page (its length changes)
                    return
            elif message["type"] == "http.response.body" and held:
                held.append(message)
                if message.get("more_body", False):
                    return
                page = noise.inject(b"".join(m.get("body", b"") for m in held[1:]), seed, key)
                headers = [(k, v) for k, v in held[0].get("headers", []) if k.lower() not in _REWRITTEN]
                headers += [(b"content-length", str(len(page)).encode()), (b"cache-control", b"no-store")]
                await send({**held[0], "headers": headers})
                await send({"type": "http.response.body", "body": page, "more_body": False})
                return
            await send(message)

        return inject


_CONDITIONAL = (b"if-none-match", b"if-modified-since", b"if-range", b"range")
_REWRITTEN = (b"content-length", b"etag", b"last-modified", b"cache-control", b"accept-ranges")


def _refuse(request: Request, status: int, message: str) -> Response:
    """JSON for API calls, a short page for a browser."""
    if request.url.path.startswith("/api") or "text/html" not in request.headers.get("accept", ""):
        return JSONResponse({"detail": message}, status_code=status)
    body: Any = f"<!doctype html><title>{status}</title><h1>{status}</h1><p>{message}</p>"
    return HTMLResponse(body, status_code=status)
