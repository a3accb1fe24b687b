"""Clients of the episode server over HTTP: `EvaluatorClient` for the harness (the evaluator's
port, behind its bearer token) and `AgentSession` for an agent that acts through the app's API
(the agent's port, joined through a one-time launch URL).

Both are thin: every call is one HTTP request of the protocol in `docs/episodes.md`, which is all a
client in another language needs. An error answer (4xx/5xx) raises a `ClientError` carrying the
server's status and its `detail`; the evaluator's errors are also instances of the server's own
classes (`UnknownTask`, `UnknownEpisode`, `EpisodeClosed`, `ServerFull`, `BadRequest`), so
`except UnknownTask` works on either side of the wire.

    evaluator = EvaluatorClient("http://127.0.0.1:8001", token)
    episode = evaluator.create(task_id="echobank-write-transfer-funds-001")
    agent = AgentSession(episode["launch_url"])          # cookies set, logged in as the task's user
    agent.workflow("transfer_funds", {"from_account": 16, "to_account": 37, "amount": 5000})
    print(evaluator.grade(episode["episode_id"])["reward"])
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any
from urllib.parse import quote

import httpx

from episodes.errors import BadRequest, EpisodeClosed, EpisodeError, ServerFull, UnknownEpisode, UnknownTask
from episodes.rollouts import Action, Rollout

DEFAULT_TIMEOUT = 30.0


class KeepNoise:
    """`reset`'s default: keep the episode's noise setting (None would mean clean)."""


KEEP_NOISE = KeepNoise()


# ---- errors ------------------------------------------------------------------------------------
class ClientError(EpisodeError):
    """An HTTP answer of 400 or more (or no answer at all, status 0), with the server's `detail`."""

    def __init__(self, status: int, detail: str, method: str, url: str, body: Any = None) -> None:
        self.status = status
        self.detail = detail
        self.method = method
        self.url = url
        self.body = body  # the decoded JSON body when there was one (e.g. a 409's `precondition`)
        said = f"{status} {detail}" if status else detail
        super().__init__(f"{method} {url}: {said}")


class Unreachable(ClientError):
    """No HTTP answer: the server is not running there, or the request timed out."""


class EvaluatorError(ClientError):
    """The evaluator's port refused a request."""


class Unauthorized(EvaluatorError):
    """401: the bearer token is missing or wrong."""


class UnknownTaskError(EvaluatorError, UnknownTask):
    pass


class UnknownEpisodeError(EvaluatorError, UnknownEpisode):
    pass


class EpisodeClosedError(EvaluatorError, EpisodeClosed):
    pass


class ServerFullError(EvaluatorError, ServerFull):
    pass


class BadRequestError(EvaluatorError, BadRequest):
    pass


class AppError(ClientError):
    """The agent's port refused a request: a used launch URL, no episode cookie, a failed
    precondition (409, with `body["precondition"]`), bad input (422), a row not visible (404)."""


def _detail(response: httpx.Response) -> tuple[str, Any]:
    try:
        body: Any = response.json()
    except ValueError:
        text = response.text.strip()
        return (text[:500] or response.reason_phrase or "no detail"), None
    detail = body.get("detail") if isinstance(body, dict) else None
    if detail is None:
        return json.dumps(body)[:500], body
    return (detail if isinstance(detail, str) else json.dumps(detail)[:500]), body


def _evaluator_error(response: httpx.Response) -> EvaluatorError:
    detail, body = _detail(response)
    request = response.request
    path = request.url.path
    status = response.status_code
    kind: type[EvaluatorError] = EvaluatorError
    if status == 401:
        kind = Unauthorized
    elif status == 404 and request.method == "POST" and path.rstrip("/").endswith("/episodes"):
        kind = UnknownTaskError
    elif status == 404 and "/episodes/" in path:
        kind = UnknownEpisodeError
    elif status == 410:
        kind = EpisodeClosedError
    elif status == 503:
        kind = ServerFullError
    elif status in (400, 422):
        kind = BadRequestError
    return kind(status, detail, request.method, str(request.url), body)


# An idle connection is dropped by the client well before a server would close it (uvicorn's
# default keep-alive is 5 s, httpx's expiry was 5 s too): a request sent on a connection the server
# is closing at that moment fails with "Server disconnected without sending a response", which an
# oracle run on a busy machine (a long browser replay between create and finish) met.
LIMITS = httpx.Limits(keepalive_expiry=2.0)


def _send(http: httpx.Client, method: str, url: str, **kwargs: Any) -> httpx.Response:
    try:
        return http.request(method, url, **kwargs)
    except httpx.TransportError as exc:
        where = str(http.base_url.join(url))
        raise Unreachable(0, f"no answer ({type(exc).__name__}: {exc}); is the episode server running?",
                          method, where) from exc


def _json(response: httpx.Response) -> Any:
    return response.json() if response.content else None


# ---- the evaluator ---------------------------------------------------------------------------------
class EvaluatorClient:
    """The evaluator's API (`python -m episodes serve ... --eval-port E --token T`)."""

    def __init__(self, url: str, token: str, timeout: float = DEFAULT_TIMEOUT,
                 transport: httpx.BaseTransport | None = None) -> None:
        self.url = url.rstrip("/")
        self._http = httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {token}"},
                                  timeout=timeout, transport=transport, limits=LIMITS)

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        response = _send(self._http, method, path, **kwargs)
        if response.status_code >= 400:
            raise _evaluator_error(response)
        return _json(response)

    @staticmethod
    def _episode(episode_id: str, tail: str = "") -> str:
        return f"/episodes/{quote(episode_id, safe='')}{tail}"

    def health(self) -> dict[str, Any]:
        """`{ok, world, today, episodes, max_episodes, tasks}`."""
        found: dict[str, Any] = self._call("GET", "/health")
        return found

    def tasks(self) -> list[dict[str, Any]]:
        """Every task as an agent may see it: `{task_id, instruction, task_type, user, starting_url}`."""
        found: list[dict[str, Any]] = self._call("GET", "/tasks")
        return found

    def episodes(self) -> list[dict[str, Any]]:
        """The live episodes."""
        found: list[dict[str, Any]] = self._call("GET", "/episodes")
        return found

    def create(self, task_id: str | None = None, user: str | None = None,
               noise_seed: int | None = None) -> dict[str, Any]:
        """A new episode on the task's initial state (no task: the seed state as `user`), noisy when
        given a seed: `{episode_id, launch_url, task_id, instruction, user, starting_url, task_type,
        generation, noise_seed}`."""
        body = {"task_id": task_id, "user": user, "noise_seed": noise_seed}
        found: dict[str, Any] = self._call("POST", "/episodes", json=body)
        return found

    def describe(self, episode_id: str) -> dict[str, Any]:
        found: dict[str, Any] = self._call("GET", self._episode(episode_id))
        return found

    def reset(self, episode_id: str, noise_seed: int | KeepNoise | None = KEEP_NOISE) -> dict[str, Any]:
        """The episode back to its initial state, with a new launch URL (same shape as `create`); a
        `noise_seed` (or None: clean) replaces the episode's noise setting, else it is kept."""
        body = None if isinstance(noise_seed, KeepNoise) else {"noise_seed": noise_seed}
        found: dict[str, Any] = self._call("POST", self._episode(episode_id, "/reset"), json=body)
        return found

    def finish(self, episode_id: str, agent: str, actions: Sequence[Action] = (), answer: str | None = None,
               gave_up: bool = False, seeded_cause: str | None = None, screenshots: Sequence[str] = (),
               close: bool = True) -> Rollout:
        """Grade the episode into a rollout record (its final diff and events kept; appended to the
        server's rollouts file when it has one) and, unless `close=False`, end it."""
        body = {"agent": agent, "actions": [a.model_dump(mode="json") for a in actions], "answer": answer,
                "gave_up": gave_up, "seeded_cause": seeded_cause, "screenshots": list(screenshots), "close": close}
        found: dict[str, Any] = self._call("POST", self._episode(episode_id, "/finish"), json=body)
        return Rollout.model_validate(found["record"])

    def close(self, episode_id: str) -> dict[str, Any]:
        """End the episode: its state is gone (later calls on it raise `EpisodeClosedError`)."""
        found: dict[str, Any] = self._call("DELETE", self._episode(episode_id))
        return found

    def state(self, episode_id: str, table: str | None = None) -> dict[str, Any]:
        """`{episode_id, tables: {name: [row, ...]}}` of the episode's current database."""
        params = {"table": table} if table is not None else None
        found: dict[str, Any] = self._call("GET", self._episode(episode_id, "/state"), params=params)
        return found

    def diff(self, episode_id: str) -> dict[str, Any]:
        """`{episode_id, summary, diff}`: what changed since the episode's initial state."""
        found: dict[str, Any] = self._call("GET", self._episode(episode_id, "/diff"))
        return found

    def events(self, episode_id: str, since: int = 0) -> dict[str, Any]:
        """`{episode_id, events, dropped, counts}`: the server's record of the episode's requests."""
        found: dict[str, Any] = self._call("GET", self._episode(episode_id, "/events"), params={"since": since})
        return found

    def grade(self, episode_id: str, answer: str | int | float | None = None) -> dict[str, Any]:
        """The task's reward on the episode's current state (and `answer`, for READ tasks):
        `{episode_id, task_id, reward, passed, explanation, checks, ...}`."""
        found: dict[str, Any] = self._call("POST", self._episode(episode_id, "/grade"), json={"answer": answer})
        return found

    def disconnect(self) -> None:
        """Close the HTTP connections (episodes stay open on the server)."""
        self._http.close()

    def __enter__(self) -> EvaluatorClient:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.disconnect()


# ---- the agent ---------------------------------------------------------------------------------------
class AgentSession:
    """An agent's HTTP session in one episode: redeeming the launch URL sets the episode's and the
    acting user's HttpOnly cookies (kept here) and redirects to the task's starting page; every
    later request acts as that user on that episode's database."""

    def __init__(self, launch_url: str, timeout: float = DEFAULT_TIMEOUT,
                 transport: httpx.BaseTransport | None = None) -> None:
        url = httpx.URL(launch_url)
        if url.scheme not in ("http", "https") or not url.host or not url.path.startswith("/__launch/"):
            raise BadRequest(f"not a launch URL: {launch_url!r} (expected http://HOST:PORT/__launch/<ticket>)")
        self.launch_url = launch_url
        self.base_url = f"{url.scheme}://{url.netloc.decode()}"
        self._http = httpx.Client(base_url=self.base_url, timeout=timeout, transport=transport, limits=LIMITS,
                                  follow_redirects=True, headers={"Accept": "application/json"})
        response = _send(self._http, "GET", url.raw_path.decode())
        launch = response.history[0] if response.history else response
        if not launch.is_redirect:
            self._http.close()
            raise self._error(launch)
        self.start_path = response.url.raw_path.decode()  # the task's starting page, where the launch redirected
        self.start_status = response.status_code  # what the starting page answered (the app's HTML: 200)

    def _error(self, response: httpx.Response) -> AppError:
        detail, body = _detail(response)
        if response.status_code < 400:
            detail = f"the launch did not redirect (status {response.status_code}); is this the agent's port?"
        return AppError(response.status_code, detail, response.request.method, str(response.request.url), body)

    def request(self, method: str, path: str, json: Any = None, params: Mapping[str, Any] | None = None) -> httpx.Response:
        """One request to the app as the episode's user, whatever its status (for agents that read statuses)."""
        return _send(self._http, method, path, json=json, params=params)

    def call(self, method: str, path: str, json: Any = None, params: Mapping[str, Any] | None = None) -> Any:
        """One request to the app; its JSON, or `AppError` with the app's detail on 4xx/5xx."""
        response = self.request(method, path, json=json, params=params)
        if response.status_code >= 400:
            raise self._error(response)
        return _json(response)

    def get(self, path: str, params: Mapping[str, Any] | None = None) -> Any:
        """`GET path` (e.g. `/api/accounts`, `/api/auth/me`): its JSON."""
        return self.call("GET", path, params=params)

    def workflow(self, name: str, params: Mapping[str, Any]) -> Any:
        """`POST /api/workflows/<name>` with `params` as the JSON body: `{ok, message, created}`;
        a failed precondition raises `AppError` (status 409, `body["precondition"]`)."""
        return self.call("POST", f"/api/workflows/{quote(name, safe='')}", json=dict(params))

    def whoami(self) -> str:
        """The username the app sees this session as."""
        me = self.get("/api/auth/me")
        return str(me["user"]["username"])

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> AgentSession:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


__all__ = [
    "KEEP_NOISE",
    "AgentSession",
    "AppError",
    "BadRequestError",
    "ClientError",
    "EpisodeClosedError",
    "EvaluatorClient",
    "EvaluatorError",
    "KeepNoise",
    "ServerFullError",
    "Unauthorized",
    "UnknownEpisodeError",
    "UnknownTaskError",
    "Unreachable",
]
