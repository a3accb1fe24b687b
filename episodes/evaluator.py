"""The evaluator's port: create, reset and close episodes, read their state, diff and events, and
grade them through `verifiers/`. Every path needs the server's bearer token; the agent's port
serves none of this.
"""

from __future__ import annotations

import hmac
import sqlite3
from typing import Annotated, Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.types import ASGIApp, Receive, Scope, Send

from episodes.errors import BadRequest, EpisodeError
from episodes.rollouts import Action, EventCounts, Rollout, RolloutWriter
from episodes.store import Episode, EpisodeStore
from verifiers import VerifierError, diff_databases, grade

STATE_ROW_LIMIT = 10_000  # rows per table returned by /state; the diff is the usual way to look
# noisy mode's seed (`episodes.noise`): a whole number, never a bool or a numeric string
NoiseSeed = Annotated[int, Field(strict=True, ge=0, le=2**63 - 1)] | None


class CreateBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    task_id: str | None = None
    user: str | None = None
    noise_seed: NoiseSeed = None


class ResetBody(BaseModel):
    """`noise_seed` given (a seed, or null for clean) replaces the episode's; absent, it is kept."""

    model_config = ConfigDict(extra="forbid")
    noise_seed: NoiseSeed = None


class GradeBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    answer: str | int | float | None = None


class FinishBody(BaseModel):
    """What the harness knows of a finished episode; the server adds the grade, diff and events."""

    model_config = ConfigDict(extra="forbid")
    agent: str
    actions: list[Action] = []
    answer: str | int | float | None = None
    gave_up: bool = False
    screenshots: list[str] = []
    seeded_cause: str | None = None
    close: bool = True


def create_evaluator(store: EpisodeStore, token: str, agent_url: str, rollouts: RolloutWriter | None = None) -> FastAPI:
    """The evaluator API for one store; `agent_url` is where launch URLs point; finished episodes
    are appended to `rollouts` when the server keeps a rollouts file."""
    if len(token) < 16:
        raise BadRequest("the evaluator token must be at least 16 characters")
    app = FastAPI(title=f"{store.world.title}: evaluator", docs_url=None, redoc_url=None, openapi_url=None)
    # checked before routing: every path, including ones that do not exist, answers 401 without the token
    app.add_middleware(TokenGate, token=token)

    @app.exception_handler(EpisodeError)
    async def _episode_error(_request: Request, exc: EpisodeError) -> JSONResponse:
        return JSONResponse(status_code=exc.status, content={"detail": str(exc)})

    def launched(episode: Episode) -> dict[str, object]:
        info = episode.describe()
        info["launch_url"] = f"{agent_url}/__launch/{episode.ticket}" if episode.ticket else None
        return info

    @app.get("/health")
    def health() -> dict[str, object]:
        return {"ok": True, "world": store.world.name, "today": store.world.today,
                "episodes": len(store.live()), "max_episodes": store.max_episodes, "tasks": len(store.world.tasks)}

    @app.get("/tasks")
    def tasks() -> list[dict[str, str]]:
        return [t.public() for t in store.world.tasks.values()]

    @app.post("/episodes", status_code=201)
    def create(body: CreateBody) -> dict[str, object]:
        return launched(store.create(body.task_id, body.user, body.noise_seed))

    @app.get("/episodes")
    def listing() -> list[dict[str, object]]:
        return [e.describe() for e in store.live()]

    @app.get("/episodes/{episode_id}")
    def describe(episode_id: str) -> dict[str, object]:
        return store.get(episode_id).describe()

    @app.post("/episodes/{episode_id}/reset")
    def reset(episode_id: str, body: ResetBody | None = None) -> dict[str, object]:
        if body is not None and "noise_seed" in body.model_fields_set:
            return launched(store.reset(episode_id, body.noise_seed))
        return launched(store.reset(episode_id))

    @app.delete("/episodes/{episode_id}")
    def close(episode_id: str) -> dict[str, object]:
        store.close(episode_id)
        return {"episode_id": episode_id, "closed": True}

    @app.get("/episodes/{episode_id}/state")
    def state(episode_id: str, table: str | None = None) -> dict[str, Any]:
        episode = store.get(episode_id)
        snap = store.capture(episode, "state")
        try:
            return {"episode_id": episode_id, "tables": _rows(snap, table)}
        finally:
            snap.unlink(missing_ok=True)

    @app.get("/episodes/{episode_id}/diff")
    def diff(episode_id: str) -> dict[str, Any]:
        episode = store.get(episode_id)
        snap = store.capture(episode, "diff")
        try:
            found = diff_databases(episode.initial, snap)
            return {"episode_id": episode_id, "summary": found.summary(), "diff": found.to_json()}
        finally:
            snap.unlink(missing_ok=True)

    @app.post("/episodes/{episode_id}/grade")
    def grade_episode(episode_id: str, body: GradeBody) -> dict[str, Any]:
        episode = store.get(episode_id)
        if episode.task is None:
            raise BadRequest(f"episode {episode_id} has no task to grade (it was created on the seed state)")
        snap = store.capture(episode, "grade")
        try:
            result = grade(episode.task.reward, episode.initial, snap, body.answer)
        except VerifierError as exc:
            raise HTTPException(status_code=500, detail=f"the task's reward program failed: {exc}") from exc
        finally:
            snap.unlink(missing_ok=True)
        episode.events.add("graded", score=result.score)
        return {"episode_id": episode_id, "task_id": episode.task.id, "reward": result.score, **result.to_json()}

    @app.post("/episodes/{episode_id}/finish")
    def finish(episode_id: str, body: FinishBody) -> dict[str, Any]:
        """Grade the episode, keep its diff and events in a rollout record (written to the server's
        rollouts file when it has one), and close it unless asked not to."""
        episode = store.get(episode_id)
        if episode.task is None:
            raise BadRequest(f"episode {episode_id} has no task: only task episodes make rollout records")
        answer = None if body.answer is None else str(body.answer)
        snap = store.capture(episode, "finish")
        try:
            found = diff_databases(episode.initial, snap)
            result = grade(episode.task.reward, episode.initial, snap, answer)
        except VerifierError as exc:
            raise HTTPException(status_code=500, detail=f"the task's reward program failed: {exc}") from exc
        finally:
            snap.unlink(missing_ok=True)
        events = episode.events.to_json()
        record = Rollout(world=store.world.name, task_id=episode.task.id, episode_id=episode.id, agent=body.agent,
                         noise_seed=episode.noise_seed, actions=body.actions, answer=answer, gave_up=body.gave_up,
                         reward=result.score, grade=result.to_json(), final_diff=found.to_json(),
                         events=EventCounts.model_validate(events["counts"]), screenshots=body.screenshots,
                         seeded_cause=body.seeded_cause)
        written = rollouts is not None
        if rollouts is not None:
            record = rollouts.write(record, events)
        if body.close:
            store.close(episode_id, reason="finished")
        return {"written": written, "record": record.model_dump(mode="json", by_alias=True)}

    @app.get("/episodes/{episode_id}/events")
    def events(episode_id: str, since: int = 0) -> dict[str, Any]:
        return {"episode_id": episode_id, **store.get(episode_id).events.to_json(since)}

    return app


class TokenGate:
    """ASGI middleware: nothing of the evaluator answers a request without the bearer token."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app, self.expected = app, f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers", [])).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                refused = JSONResponse({"detail": "the evaluator API needs 'Authorization: Bearer <token>'"}, status_code=401)
                await refused(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _rows(db: Any, only: str | None) -> dict[str, list[dict[str, Any]]]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    try:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' "
                                            "AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        if only is not None:
            if only not in names:
                raise BadRequest(f"no table {only!r}; tables: {', '.join(names)}")
            names = [only]
        return {name: [dict(r) for r in conn.execute(f'SELECT * FROM "{name}" ORDER BY rowid LIMIT ?',
                                                     (STATE_ROW_LIMIT,))] for name in names}
    finally:
        conn.close()
