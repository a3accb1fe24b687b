"""An episode's MCP tools against a real episode server: generated from the spec, every call over HTTP
with the episode's cookies (so it acts as the episode's user on the episode's database), a write
task solved from its golden steps and a read task answered from the read tools, both graded 1."""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from episodes.mcp_server import EpisodeConnection, LaunchFailed, build_server
from episodes.mcp_tools import Spec, load_spec, tools_from_spec

REPO = Path(__file__).resolve().parents[2]
MINI_SPEC = REPO / "tests" / "fixtures" / "mini_spec.json"


@pytest.fixture(scope="module")
def corpus(mock_tasks_world: Path) -> Path:
    return mock_tasks_world


@dataclass
class Served:
    world: Path
    spec: Spec
    eval_url: str
    token: str
    records: dict[str, dict[str, Any]]

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        response = httpx.post(self.eval_url + path, json=body, headers=self._headers(), timeout=60)
        assert response.is_success, (path, response.status_code, response.text)
        result: dict[str, Any] = response.json()
        return result

    def get(self, path: str) -> dict[str, Any]:
        response = httpx.get(self.eval_url + path, headers=self._headers(), timeout=60)
        assert response.is_success, (path, response.status_code, response.text)
        result: dict[str, Any] = response.json()
        return result

    def episode(self, task_id: str) -> dict[str, Any]:
        return self.post("/episodes", {"task_id": task_id})


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def served(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    port, eval_port = _free_port(), _free_port()
    token = secrets.token_urlsafe(24)
    log = tmp_path_factory.mktemp("mcp-server") / "server.log"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "episodes", "serve", str(corpus), "--port", str(port),
                                 "--eval-port", str(eval_port), f"--token={token}"],
                                cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
    eval_url = f"http://127.0.0.1:{eval_port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                pytest.fail(f"the episode server exited with {proc.returncode}:\n{log.read_text()}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(eval_url + "/health", headers={"Authorization": f"Bearer {token}"}, timeout=2).is_success:
                    break
            if time.monotonic() > deadline:
                pytest.fail(f"the episode server did not answer /health in 90 s:\n{log.read_text()}")
            time.sleep(0.25)
        records = {r["id"]: r for r in map(json.loads, (corpus / "tasks" / "tasks.jsonl").read_text().splitlines())}
        yield Served(world=corpus, spec=load_spec(corpus), eval_url=eval_url, token=token, records=records)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.asynccontextmanager
async def _session(spec: Spec, launch_url: str) -> AsyncIterator[Client]:
    """A real MCP client session with an in-process server of one episode."""
    async with await EpisodeConnection.join(launch_url) as connection, Client(build_server(spec, connection)) as client:
        yield client


def _result(call: Any) -> dict[str, Any]:
    assert not call.is_error, call.content[0].text
    payload: dict[str, Any] = json.loads(call.content[0].text)
    assert call.structured_content == payload
    return payload


def _tasks(served: Served, task_type: str, category: str | None = None) -> list[dict[str, Any]]:
    found = [r for r in served.records.values()
             if r["task_type"] == task_type and (category is None or r["category"] == category)]
    assert found, f"the corpus has no {task_type} task{f' of category {category}' if category else ''}"
    return found


# ---- generated from the spec ---------------------------------------------------------------------
def test_every_workflow_and_entity_read_has_a_tool_named_after_the_spec(served: Served) -> None:
    spec = served.spec

    async def listed() -> list[Any]:
        launch = served.episode(_tasks(served, "write")[0]["id"])["launch_url"]
        async with _session(spec, launch) as client:
            return list((await client.list_tools()).tools)

    tools = {t.name: t for t in anyio.run(listed)}
    assert list(tools) == [t.name for t in tools_from_spec(spec)]
    served_workflows = [w for w in spec["workflows"] if not w["system"]]
    assert served_workflows and any(w["system"] for w in spec["workflows"])
    for w in spec["workflows"]:
        if w["system"]:  # the app serves no route for a system workflow, so there is no tool either
            assert w["name"] not in tools
            continue
        tool = tools[w["name"]]
        schema = tool.input_schema
        assert list(schema["properties"]) == [p["name"] for p in w["params"]]
        assert set(schema.get("required", [])) == {p["name"] for p in w["params"] if p["required"] and p["default"] is None}
        for p in w["params"]:
            assert schema["properties"][p["name"]]["description"].startswith(p["label"] + ":")
            if p["type"] == "reference":
                assert f"options_{w['name']}" in tools
        assert tool.annotations is not None and tool.annotations.read_only_hint is False
    for e in spec["entities"]:
        routes = {r["kind"]: r for r in spec["routes"] if r.get("entity") == e["name"]}
        assert "list" in e["operations"] and routes["list"]["operation_id"] in tools, e["name"]
        listing = tools[routes["list"]["operation_id"]]
        assert listing.annotations is not None and listing.annotations.read_only_hint is True
        for flt in e["filters"]:
            ranged = flt["kind"] in ("range", "date_range")
            params = [f"{flt['param']}_min", f"{flt['param']}_max"] if ranged else [flt["param"]]
            assert set(params) <= set(listing.input_schema["properties"]), (e["name"], flt)
        if "read" in e["operations"]:
            assert f"get_{e['name']}" in tools
    assert tools["list_notes"].input_schema["properties"]["pinned"]["type"] == "boolean"
    assert tools["list_notebooks"].input_schema["properties"]["color"]["enum"] == ["red", "green", "blue"]


def test_money_parameters_are_integers_in_cents_and_other_types_map_to_json_schema() -> None:
    spec = json.loads(MINI_SPEC.read_text())
    spec["routes"] = [{"method": "POST", "path": w["path"], "operation_id": w["operation_id"], "auth": True,
                       "kind": "workflow", "workflow": w["name"]} for w in spec["workflows"] if not w["system"]]
    tool = {t.name: t for t in tools_from_spec(spec)}["plan_trip"]
    props = tool.input_schema["properties"]
    assert props["budget"]["type"] == "integer"
    assert "in cents" in props["budget"]["description"] and "from 0.00 to 10,000.00" in props["budget"]["description"]
    assert props["starts_on"] == {"type": "string", "format": "date", "description": "Start date: a date, YYYY-MM-DD"}
    assert props["leaves_at"]["format"] == "date-time"
    assert props["kind"]["enum"] == ["business", "leisure"]
    assert props["notify"]["type"] == "boolean"
    assert tool.input_schema["required"] == ["starts_on", "ends_on", "budget", "kind"]
    assert tool.input_schema["additionalProperties"] is False


# ---- tasks solved through the tools --------------------------------------------------------------
def test_a_write_task_is_solved_by_its_golden_steps_through_the_stdio_entry_point(served: Served) -> None:
    task = max(_tasks(served, "write"), key=lambda r: len(r["golden_steps"]))  # the two-step task, if any
    episode = served.episode(task["id"])
    params = StdioServerParameters(command=sys.executable, cwd=REPO, env={"PYTHONPATH": str(REPO)},
                                   args=["-m", "episodes", "mcp", str(served.world), "--launch-url", episode["launch_url"]])

    async def solve() -> list[dict[str, Any]]:
        async with Client(params) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            results = []
            for step in task["golden_steps"]:
                assert step["workflow"] in names
                results.append(_result(await client.call_tool(step["workflow"], step["params"])))
            return results

    before = served.post(f"/episodes/{episode['episode_id']}/grade", {})
    assert before["reward"] < 1  # the task is not already solved in its initial state
    results = anyio.run(solve)
    assert all(r["ok"] is True for r in results)
    graded = served.post(f"/episodes/{episode['episode_id']}/grade", {})
    assert graded["reward"] == 1, graded["explanation"]
    # each call went through the episode gate, as the acting user's HTTP request
    requests = [e for e in served.get(f"/episodes/{episode['episode_id']}/events")["events"] if e["kind"] == "request"]
    posted = [(e["method"], e["path"], e["status"]) for e in requests if e["method"] == "POST"]
    assert posted == [("POST", f"/api/workflows/{s['workflow']}", 200) for s in task["golden_steps"]]


def test_read_tasks_are_answered_from_what_the_read_tools_return(served: Served) -> None:
    spec = served.spec
    for category in ("count", "lookup"):
        task = _tasks(served, "read", category)[0]
        episode = served.episode(task["id"])

        async def answer(task: dict[str, Any] = task, launch: str = episode["launch_url"]) -> str:
            async with _session(spec, launch) as client:
                return await (_count if task["category"] == "count" else _lookup)(client, spec, task["goal"])

        found = anyio.run(answer)
        assert found == task["reference_answer"], (task["goal"], found)
        wrong = served.post(f"/episodes/{episode['episode_id']}/grade", {"answer": found + "x"})
        assert wrong["reward"] < 1
        graded = served.post(f"/episodes/{episode['episode_id']}/grade", {"answer": found})
        assert graded["reward"] == 1, graded["explanation"]


def _entity(spec: Spec, noun: str) -> dict[str, Any]:
    found = [e for e in spec["entities"] if noun.lower() in (e["label"].lower(), e["plural"].lower())]
    assert found, f"no entity called {noun!r}"
    return found[0]


def _field(entity: dict[str, Any], label: str) -> dict[str, Any]:
    found = [f for f in entity["fields"] if f["label"].lower() == label.lower()]
    assert found, f"{entity['name']} has no field labelled {label!r}"
    return found[0]


def _list_tool(spec: Spec, entity: dict[str, Any]) -> str:
    return next(str(r["operation_id"]) for r in spec["routes"] if r["kind"] == "list" and r.get("entity") == entity["name"])


async def _count(client: Client, spec: Spec, goal: str) -> str:
    """'How many of my notebooks have color "green"?', 'How many green notebooks do I have?' or
    'Can you count my green notebooks?': the list tool's total, filtered by the field named (or the choice
    field that has that value)."""
    m = (re.search(r'my (?P<noun>[\w ]+?) (?:have|with) (?:the )?(?P<field>[\w ]+?) "(?P<value>[^"]+)"', goal)
         or re.search(r'[Hh]ow many (?P<value>[\w-]+) (?P<noun>[\w ]+?) do I have', goal)
         or re.fullmatch(r'(?:Can you count|Count) my (?P<value>[\w-]+) (?P<noun>[\w ]+?)[.?]', goal))
    assert m, f"not a count question this test reads: {goal!r}"
    entity = _entity(spec, m["noun"])
    value = m["value"]
    if m.groupdict().get("field"):
        field = _field(entity, m["field"])
    else:
        # a value of degree is said with what it grades: "high-priority" is "high" of the field "Priority"
        value = value.rpartition("-")[0] if "-" in value and not any(
            value in (f.get("values") or []) for f in entity["fields"]) else value
        field = next(f for f in entity["fields"] if value in (f.get("values") or []))
    flt = next(f for f in entity["filters"] if f["field"] == field["name"])
    page = _result(await client.call_tool(_list_tool(spec, entity), {flt["param"]: value, "page_size": 1}))
    return str(page["total"])


async def _lookup(client: Client, spec: Spec, goal: str) -> str:
    """'Look up the color of my notebook "Travel notes".': search the list, read the row with get_."""
    m = re.search(r'the (?P<field>[\w ]+?) of my (?P<noun>[\w ]+?) "(?P<name>[^"]+)"', goal)
    assert m, f"not a lookup question this test reads: {goal!r}"
    entity = _entity(spec, m["noun"])
    field = _field(entity, m["field"])
    page = _result(await client.call_tool(_list_tool(spec, entity), {"q": m["name"], "page_size": 100}))
    rows = [r for r in page["items"] if r["label"] == m["name"]]
    assert len(rows) == 1, (goal, page)
    row = _result(await client.call_tool(f"get_{entity['name']}", {"id": rows[0]["id"]}))
    return str(row[field["column"]])


# ---- isolation and errors ------------------------------------------------------------------------
def test_a_tool_call_of_one_episode_never_touches_another_episodes_database(served: Served) -> None:
    task = _tasks(served, "write")[0]
    mine, other = served.episode(task["id"]), served.episode(task["id"])

    async def write_in_mine() -> None:
        async with _session(served.spec, mine["launch_url"]) as client, _session(served.spec, other["launch_url"]) as theirs:
            await theirs.list_tools()  # the other episode is joined and live while this one writes
            for step in task["golden_steps"]:
                _result(await client.call_tool(step["workflow"], step["params"]))

    anyio.run(write_in_mine)
    changed = served.get(f"/episodes/{mine['episode_id']}/diff")
    untouched = served.get(f"/episodes/{other['episode_id']}/diff")
    assert changed["diff"]["tables"], changed["summary"]
    assert untouched["diff"]["tables"] == {} and untouched["summary"] == "no changes"
    assert served.post(f"/episodes/{other['episode_id']}/grade", {})["reward"] < 1
    assert served.post(f"/episodes/{mine['episode_id']}/grade", {})["reward"] == 1


def test_refusals_are_tool_errors_carrying_the_apis_detail(served: Served) -> None:
    task = _tasks(served, "write")[0]
    episode = served.episode(task["id"])
    step = task["golden_steps"][0]

    async def refused() -> None:
        async with _session(served.spec, episode["launch_url"]) as client:
            missing = await client.call_tool("get_note", {"id": 10**6})
            assert missing.is_error and missing.content[0].text == "404: Note not found"
            bad = await client.call_tool(step["workflow"], {**step["params"], "bogus": 1})
            assert bad.is_error and "invalid arguments" in bad.content[0].text and "bogus" in bad.content[0].text
            with pytest.raises(MCPError, match="no tool 'no_such_tool'"):
                await client.call_tool("no_such_tool", {})
            served.post(f"/episodes/{episode['episode_id']}/reset", {})  # a reset keeps the cookie's episode
            assert not (await client.call_tool(_list_tool(served.spec, _entity(served.spec, "notes")), {})).is_error
            assert httpx.delete(f"{served.eval_url}/episodes/{episode['episode_id']}", headers=served._headers()).is_success
            ended = await client.call_tool(step["workflow"], step["params"])
            assert ended.is_error and ended.content[0].text.startswith("410: this episode has ended")

    anyio.run(refused)
    with pytest.raises(LaunchFailed, match="already used"):  # a launch URL opens its episode once
        anyio.run(EpisodeConnection.join, episode["launch_url"])


def test_a_noisy_episode_answers_tool_calls_late_as_its_seed_says(served: Served) -> None:
    """Noisy mode reaches an MCP agent as it reaches a browser's API calls: the episode's seed (set
    when the evaluator creates it) makes some answers late, each recorded as a noise event; what the
    tools return is the same as in a clean episode."""
    from episodes import noise

    seed = next(s for s in range(1000) if noise.slow_ms(s, 1) and not noise.slow_ms(s, 2))
    task = _tasks(served, "write")[0]
    results: dict[str, list[dict[str, Any]]] = {}
    for name, noise_seed in (("noisy", seed), ("clean", None)):
        episode = served.post("/episodes", {"task_id": task["id"], "noise_seed": noise_seed})

        async def read(launch: str = episode["launch_url"]) -> list[dict[str, Any]]:
            async with _session(served.spec, launch) as client:
                return [_result(await client.call_tool("list_notes", {})) for _ in range(2)]

        results[name] = anyio.run(read)
        late = [e for e in served.get(f"/episodes/{episode['episode_id']}/events")["events"] if e["kind"] == "noise"]
        if noise_seed is None:
            assert late == []
        else:  # the first call late by the seed's own figure, the second on time
            assert [(e["noise"], e["request"], e["ms"]) for e in late] == [(noise.SLOW_RESPONSE, 1, noise.slow_ms(seed, 1))]
    assert results["noisy"] == results["clean"]
