"""One episode as an MCP server: the world's tools (`episodes.mcp_tools`), each call sent over HTTP
to the agent's port with the episode's cookies.

    python -m episodes mcp worlds/echobank --launch-url http://127.0.0.1:8000/__launch/<ticket>

The launch URL is redeemed once, at start (as a browser would open it): its cookies then carry
every call, so the episode gate records each one and the episode's own database is the one read
and written, as its acting user. A tool's result is the API's JSON; an answer the API refuses
(4xx/5xx) is a tool error carrying the API's detail.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

import httpx
import mcp_types as types
from jsonschema import Draft202012Validator
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from episodes.agent import EPISODE_COOKIE
from episodes.errors import EpisodeError
from episodes.mcp_tools import Spec, ToolSpec, load_spec, tools_from_spec

USER_AGENT = "episodes-mcp"
INSTRUCTIONS = ("Tools of {title}. Every tool acts as this episode's user on the episode's own data, exactly as the "
                "app's pages would: list_* and get_* read, each workflow tool does what its form does, options_* "
                "lists the rows a workflow's form offers. Money is an integer number of cents (5000 means 50.00); "
                "dates are YYYY-MM-DD. Results are the app's JSON; a refused call is an error with the app's reason.")


class LaunchFailed(EpisodeError):
    """The launch URL did not open an episode (unknown, already used, or the server is unreachable)."""

    status = 400


class EpisodeConnection:
    """The agent's side of one episode: an HTTP client holding the episode's cookies."""

    def __init__(self, client: httpx.AsyncClient, base_url: str) -> None:
        self.client, self.base_url = client, base_url

    @classmethod
    async def join(cls, launch_url: str, timeout: float = 30.0) -> EpisodeConnection:
        """Redeem a one-time launch URL; the returned connection carries its cookies."""
        parts = urlsplit(launch_url)
        if parts.scheme not in ("http", "https") or not parts.netloc or not parts.path.startswith("/__launch/"):
            raise LaunchFailed(f"not a launch URL: {launch_url!r} (expected http://HOST:PORT/__launch/<ticket>, "
                               "as the evaluator's POST /episodes returns it)")
        base = f"{parts.scheme}://{parts.netloc}"
        client = httpx.AsyncClient(base_url=base, timeout=timeout, follow_redirects=False,
                                   headers={"user-agent": USER_AGENT, "accept": "application/json"})
        try:
            response = await client.get(parts.path)
        except httpx.HTTPError as exc:
            await client.aclose()
            raise LaunchFailed(f"cannot reach the episode server at {base}: {type(exc).__name__}: {exc}") from exc
        if not response.is_redirect or EPISODE_COOKIE not in client.cookies:
            await client.aclose()
            raise LaunchFailed(f"{launch_url} did not open an episode: {response.status_code} {_detail(response)}")
        return cls(client, base)

    async def call(self, tool: ToolSpec, arguments: dict[str, Any]) -> types.CallToolResult:
        """Make the tool's request; the API's JSON as the result, or its refusal as a tool error."""
        method, path, query, body = tool.request(arguments)
        try:
            response = await self.client.request(method, path, params=query or None, json=body)
        except httpx.HTTPError as exc:
            return _error(f"the app at {self.base_url} did not answer: {type(exc).__name__}: {exc}")
        try:
            payload: Any = response.json()
        except ValueError:
            payload = response.text
        if not response.is_success:
            return _error(f"{response.status_code}: {_detail(response)}",
                          payload if isinstance(payload, dict) else None)
        structured = payload if isinstance(payload, dict) else {"result": payload}
        return types.CallToolResult(content=[types.TextContent(text=json.dumps(payload, ensure_ascii=False))],
                                    structured_content=structured)

    async def aclose(self) -> None:
        await self.client.aclose()

    async def __aenter__(self) -> EpisodeConnection:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()


def build_server(spec: Spec, connection: EpisodeConnection, tools: Sequence[ToolSpec] | None = None) -> Server[Any]:
    """An MCP server of one episode: the spec's tools, every call made through `connection`."""
    tools = list(tools) if tools is not None else tools_from_spec(spec)
    by_name = {t.name: t for t in tools}
    validators = {t.name: Draft202012Validator(t.input_schema) for t in tools}
    listed = [types.Tool(name=t.name, title=t.title, description=t.description, input_schema=t.input_schema,
                         annotations=types.ToolAnnotations(title=t.title, read_only_hint=t.read_only,
                                                           destructive_hint=t.destructive, idempotent_hint=t.read_only,
                                                           open_world_hint=False))
              for t in tools]
    title = str(spec.get("title") or spec.get("world") or "the world")

    async def list_tools(_ctx: ServerRequestContext[Any, Any],
                         _params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(_ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = by_name.get(params.name)
        if tool is None:
            raise MCPError(types.INVALID_PARAMS, f"no tool {params.name!r}; tools/list names the {len(by_name)} tools")
        # an explicit null is an argument left out (the API takes its default)
        arguments = {k: v for k, v in (params.arguments or {}).items() if v is not None}
        problems = sorted(_problem(e) for e in validators[tool.name].iter_errors(arguments))
        if problems:
            return _error(f"invalid arguments for {tool.name}: " + "; ".join(problems))
        return await connection.call(tool, arguments)

    return Server(f"{spec.get('world', 'world')}-episode", version=str(spec.get("factory_version") or ""), title=title,
                  instructions=INSTRUCTIONS.format(title=title), on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_stdio(world: Path, launch_url: str) -> None:
    """Join the episode, then serve its tools over stdin/stdout until the client hangs up."""
    spec = load_spec(world)
    tools = tools_from_spec(spec)
    async with await EpisodeConnection.join(launch_url) as connection:
        server = build_server(spec, connection, tools)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())


def _error(text: str, payload: dict[str, Any] | None = None) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=payload, is_error=True)


def _detail(response: httpx.Response) -> str:
    """The API's `detail` (text, or its validation errors as JSON), else the body's start."""
    try:
        payload: Any = response.json()
    except ValueError:
        return response.text[:500]
    detail = payload.get("detail", payload) if isinstance(payload, dict) else payload
    return detail if isinstance(detail, str) else json.dumps(detail, ensure_ascii=False)


def _problem(error: Any) -> str:
    where = ".".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}" if where else str(error.message)
