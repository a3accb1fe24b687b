"""A Gymnasium environment over the episode server: one env is one episode of one served world.

    import gymnasium, episodes.gym_env
    episodes.gym_env.register_world("echobank", "http://127.0.0.1:8001", token)
    env = gymnasium.make("worlds/echobank-v0", task_id="echobank-write-transfer-funds-001")
    obs, info = env.reset()            # obs: launch_url, instruction, user, task_id, task_type
    ...                                # the agent opens obs["launch_url"] and acts in the app
    obs, reward, terminated, truncated, info = env.step({"type": "done"})   # graded by the evaluator
    env.close()                        # the episode is closed on the server

The agent acts out of band, in a browser or over HTTP (`episodes.client.AgentSession`), through
the launch URL of the observation; `step` only ends the episode: `{"type": "answer", "answer": ...}`
for a READ task, `{"type": "done"}` for a WRITE one, both graded by the evaluator's reward program
(reward in [0, 1]) and both terminal. `reset` sets the episode back to exactly its task's initial
state (a new launch URL); with no `task_id` each reset draws a task from the world's corpus with
the env's random generator (`reset(seed=...)`), and `reset(options={"task_id": ...})` picks one.

From a bundle (or a world) folder, with no server running: `register_bundle("echobank-0.1.0+…")`
registers `worlds/<name>-v0` (the name from its bundle.json); the first env made starts the folder's
own episode server (`python -m episodes serve`, free ports, a fresh token) and the last one closed
stops it. `register_bundle(path, evaluator_url, token)` uses a server already serving it instead.

Registration from the environment: importing this module with `WORLD_EVAL_URL` and
`WORLD_EVAL_TOKEN` set registers `worlds/<world>-v0` for the server there (the world's name is
`WORLD_NAME`, or asked of the server's /health); with `WORLD_BUNDLE` set instead, for that bundle
folder as `register_bundle` does; with neither, nothing is registered and nothing touches the
network. `gymnasium.make("episodes.gym_env:worlds/echobank-v0")` imports this module first, so one
call does both.
"""

from __future__ import annotations

import contextlib
import os
import string
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium
from gymnasium import spaces
from gymnasium.envs.registration import registry

from episodes import local
from episodes.client import ClientError, EpisodeClosedError, EvaluatorClient, UnknownEpisodeError
from episodes.errors import EpisodeError

URL_VARIABLE = "WORLD_EVAL_URL"
TOKEN_VARIABLE = "WORLD_EVAL_TOKEN"
NAME_VARIABLE = "WORLD_NAME"
BUNDLE_VARIABLE = "WORLD_BUNDLE"
NAMESPACE = "worlds"
ENTRY_POINT = "episodes.gym_env:WorldEnv"
MAX_TEXT = 10_000
ACTION_TYPES = ("answer", "done")
OBSERVATION_KEYS = ("launch_url", "instruction", "user", "task_id", "task_type")

Observation = dict[str, Any]  # every value a str (the keys of OBSERVATION_KEYS)
Action = Mapping[str, Any]


class FreeText(spaces.Text):
    """Text of any characters: instructions, names and URLs are not alphanumeric. Membership takes
    any string within the lengths; `sample()` draws from printable ASCII."""

    def __init__(self, max_length: int = MAX_TEXT, min_length: int = 0) -> None:
        super().__init__(max_length, min_length=min_length, charset=string.printable)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length


def env_id(world: str) -> str:
    return f"{NAMESPACE}/{world}-v0"


class WorldEnv(gymnasium.Env[Observation, Action]):
    """One episode of a served world at a time, driven through the evaluator's API (no render
    modes: the world renders in the agent's own browser)."""

    def __init__(self, evaluator_url: str | None = None, token: str | None = None, task_id: str | None = None,
                 timeout: float = 30.0, render_mode: str | None = None, noise_seed: int | None = None,
                 world_dir: str | None = None) -> None:
        if render_mode is not None:
            raise gymnasium.error.UnsupportedMode(f"render_mode={render_mode!r}: the world renders in the agent's browser")
        self.world_dir = None if evaluator_url else world_dir  # a folder whose own server this env started
        if self.world_dir is not None:
            server = local.acquire(self.world_dir)
            evaluator_url, token = server.eval_url, server.token
        token = token or os.environ.get(TOKEN_VARIABLE)
        if not evaluator_url:
            raise gymnasium.error.MissingArgument("the evaluator: pass evaluator_url= (a running server) or world_dir= "
                                                  "(a bundle or world folder, served on demand)")
        if not token:
            raise gymnasium.error.MissingArgument(f"the evaluator's token: pass token= or set {TOKEN_VARIABLE}")
        self.client = EvaluatorClient(evaluator_url, token, timeout=timeout)
        self.task_id = task_id
        self.noise_seed = noise_seed  # noisy mode (OSWorld-Noisy style) for every episode of this env
        self.render_mode = render_mode
        self.episode_id: str | None = None
        self.episode: dict[str, Any] = {}
        self._ended = True
        self._task_ids: list[str] | None = None
        self.observation_space = spaces.Dict({key: FreeText() for key in OBSERVATION_KEYS})
        self.action_space = spaces.Dict({"type": spaces.Text(16, charset=string.ascii_lowercase + "_"),
                                         "answer": FreeText()})

    # ---- gymnasium -----------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        task_id = (options or {}).get("task_id") or self.task_id or self._draw_task()
        # noisy mode per episode: options={"noise_seed": 7} (None: clean); absent, the env's default
        noise = (options or {}).get("noise_seed", self.noise_seed)
        described: dict[str, Any] | None = None
        if self.episode_id is not None and self.episode.get("task_id") == task_id:
            try:
                described = self.client.reset(self.episode_id, noise_seed=noise)
            except (EpisodeClosedError, UnknownEpisodeError):  # expired on the server: start a new one
                described = None
        if described is None:
            self._close_episode()
            described = self.client.create(task_id=str(task_id), noise_seed=noise)
        self.episode = described
        self.episode_id = str(described["episode_id"])
        self._ended = False
        return self._observation(), self._info()

    def step(self, action: Action) -> tuple[Observation, SupportsFloat, bool, bool, dict[str, Any]]:
        if self.episode_id is None or self._ended:
            raise gymnasium.error.ResetNeeded("the episode has ended (or never began): call reset()")
        answer = _answer(action)
        try:
            result = self.client.grade(self.episode_id, answer)
        except EpisodeClosedError as exc:  # expired or closed by someone else: nothing left to grade
            self._ended = True
            return self._observation(), 0.0, False, True, {**self._info(), "error": exc.detail}
        self._ended = True
        info = {**self._info(), "passed": bool(result.get("passed")), "explanation": result.get("explanation", ""),
                "checks": result.get("checks", []), "grade": result}
        return self._observation(), float(result["reward"]), True, False, info

    def close(self) -> None:
        self._close_episode()
        self.client.disconnect()
        if self.world_dir is not None:
            local.release(self.world_dir)
            self.world_dir = None
        super().close()

    # ---- helpers ------------------------------------------------------------------------------------
    def _observation(self) -> Observation:
        return {key: str(self.episode.get(key) or "") for key in OBSERVATION_KEYS}

    def _info(self) -> dict[str, Any]:
        return {"episode_id": self.episode_id, "generation": self.episode.get("generation"),
                "starting_url": self.episode.get("starting_url")}

    def _draw_task(self) -> str:
        if self._task_ids is None:
            self._task_ids = sorted(t["task_id"] for t in self.client.tasks())
        if not self._task_ids:
            raise gymnasium.error.Error(f"the world at {self.client.url} has no tasks (tasks/tasks.jsonl)")
        return self._task_ids[int(self.np_random.integers(len(self._task_ids)))]

    def _close_episode(self) -> None:
        if self.episode_id is None:
            return
        with contextlib.suppress(ClientError):  # already closed or expired: nothing to free
            self.client.close(self.episode_id)
        self.episode_id, self.episode, self._ended = None, {}, True


def _answer(action: Action) -> str | int | float | None:
    if not isinstance(action, Mapping):
        raise gymnasium.error.InvalidAction(f"an action is a dict such as {{'type': 'done'}}, got {action!r}")
    kind = action.get("type")
    if kind not in ACTION_TYPES:
        raise gymnasium.error.InvalidAction(f"action type {kind!r}: expected one of {', '.join(ACTION_TYPES)}")
    if kind == "done":
        return None
    answer = action.get("answer")
    if not isinstance(answer, (str, int, float)) or isinstance(answer, bool):
        raise gymnasium.error.InvalidAction(f"an 'answer' action needs an 'answer' (text or number), got {answer!r}")
    return answer


# ---- registration -------------------------------------------------------------------------------------
def register_world(name: str, evaluator_url: str, token: str) -> str:
    """Register `worlds/<name>-v0` for the server at `evaluator_url`; its id. `gymnasium.make(id,
    task_id=...)` then makes envs on it (registering the same world again replaces the entry)."""
    return _register(env_id(name), {"evaluator_url": evaluator_url.rstrip("/"), "token": token})


def register_bundle(path: str | os.PathLike[str], evaluator_url: str | None = None, token: str | None = None) -> str:
    """Register `worlds/<name>-v0` for an unpacked bundle (or a built world) folder; its id.

    Without `evaluator_url` each env made serves the folder itself (the first starts its episode
    server, the last closed stops it); with one (and its `token`), envs use that server."""
    root = Path(path).resolve()
    name = local.world_name(root)
    if evaluator_url:
        if not token:
            raise gymnasium.error.MissingArgument(f"the evaluator's token for {evaluator_url}")
        return register_world(name, evaluator_url, token)
    return _register(env_id(name), {"world_dir": str(root)})


def _register(new: str, kwargs: dict[str, Any]) -> str:
    current = registry.get(new)
    if current is not None:
        if current.entry_point == ENTRY_POINT and current.kwargs == kwargs:
            return new
        del registry[new]  # replaced on purpose: no "overriding environment" warning
    gymnasium.register(id=new, entry_point=ENTRY_POINT, kwargs=kwargs)
    return new


def register_from_environment(environ: Mapping[str, str] | None = None) -> str | None:
    """Register the world served at `$WORLD_EVAL_URL` (token `$WORLD_EVAL_TOKEN`), or else the bundle
    folder `$WORLD_BUNDLE`; its id, or None when neither is set (no request is made), the server
    cannot be asked its world's name, or the folder is no bundle."""
    environ = os.environ if environ is None else environ
    url, token = environ.get(URL_VARIABLE), environ.get(TOKEN_VARIABLE)
    if not url or not token:
        bundle = environ.get(BUNDLE_VARIABLE)
        if not bundle:
            return None
        try:
            return register_bundle(bundle)
        except EpisodeError as exc:
            warnings.warn(f"episodes.gym_env: {BUNDLE_VARIABLE}={bundle}: {exc}; no environment registered", stacklevel=2)
            return None
    name = environ.get(NAME_VARIABLE)
    if not name:
        try:
            with EvaluatorClient(url, token, timeout=5.0) as client:
                name = str(client.health()["world"])
        except ClientError as exc:
            warnings.warn(f"episodes.gym_env: {URL_VARIABLE}={url} is set but its world could not be read ({exc}); "
                          f"no environment registered (set {NAME_VARIABLE} to register without asking)", stacklevel=2)
            return None
    return register_world(name, url, token)


REGISTERED: str | None = register_from_environment()

__all__ = ["REGISTERED", "FreeText", "WorldEnv", "env_id", "register_bundle", "register_from_environment", "register_world"]
