"""`python -m episodes serve WORLD ...`: serve a built world's episodes (see `episodes.serve`);
`python -m episodes mcp WORLD --launch-url URL`: one episode's tools over MCP on stdio (see `episodes.mcp_server`)."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
import time
from pathlib import Path

from episodes.errors import EpisodeError
from episodes.serve import EpisodeServer, ServerConfig


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m episodes", description="Serve a built world to agents")
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="serve episodes of a world: the agent's port and the evaluator's")
    s.add_argument("world", type=Path, help="a built world, e.g. worlds/echobank")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default %(default)s)")
    s.add_argument("--port", type=int, default=8000, help="the agent's port: the app (default %(default)s)")
    s.add_argument("--eval-port", type=int, default=8001, help="the evaluator's port (default %(default)s)")
    s.add_argument("--token", default=None, help="the evaluator's bearer token (default: $WORLD_EVAL_TOKEN, "
                   "else a new one written to the work folder)")
    s.add_argument("--max-episodes", type=int, default=256, help="cap on concurrent episodes (default %(default)s)")
    s.add_argument("--ttl", type=float, default=1800.0, help="seconds an idle episode lives (default %(default)s)")
    s.add_argument("--work", type=Path, default=None, help="folder for episode databases (default <world>/run/episodes/<pid>)")
    s.add_argument("--open-as", default=None, metavar="USER",
                   help="at start, open one episode on the seed state as USER and print its launch URL")
    s.add_argument("--rollouts", type=Path, default=None, metavar="FILE",
                   help="append a rollout record (JSONL) for every episode finished through POST /episodes/<id>/finish")
    m = sub.add_parser("mcp", help="one episode's reads and workflows as MCP tools, served on stdio")
    m.add_argument("world", type=Path, help="the built world the episode server serves (its spec.json names the tools)")
    m.add_argument("--launch-url", required=True,
                   help="the episode's one-time launch URL, as the evaluator's POST /episodes returns it")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "mcp":
        return _mcp(args.world, args.launch_url)
    try:
        server = EpisodeServer(ServerConfig(world=args.world, host=args.host, port=args.port, eval_port=args.eval_port,
                                            token=args.token, max_episodes=args.max_episodes,
                                            ttl_seconds=args.ttl, work=args.work, rollouts=args.rollouts))
    except EpisodeError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    signal.signal(signal.SIGTERM, lambda _s, _f: server.stop())
    if args.open_as is not None:
        threading.Thread(target=_announce, args=(server, args.open_as), daemon=True).start()
    sys.stderr.write(f"{server.world.title}: agents at {server.agent_url}/ , evaluator at {server.eval_url}/ "
                     f"(token in {server.work / 'token'}); {len(server.world.tasks)} tasks; Ctrl-C stops\n")
    with contextlib.suppress(KeyboardInterrupt):
        server.run()
    return 0


def _mcp(world: Path, launch_url: str) -> int:
    """Serve one episode's MCP tools on stdio (stdout is the protocol's: messages go to stderr)."""
    import anyio  # mcp and its server are imported by this subcommand only

    from episodes.mcp_server import serve_stdio

    try:
        anyio.run(serve_stdio, world, launch_url)
    except EpisodeError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        pass
    return 0


def _announce(server: EpisodeServer, user: str) -> None:
    """Once both ports answer, open a bare episode and say how to join it."""
    while not server.started:
        time.sleep(0.05)
    try:
        episode = server.store.create(None, user)
    except EpisodeError as exc:
        sys.stderr.write(f"error: {exc}\n")
        server.stop()
        return
    sys.stderr.write(f"open {server.agent_url}/__launch/{episode.ticket} to use the app as {user} "
                     "(a fresh copy of the seed state: nothing you change is kept)\n")


if __name__ == "__main__":
    sys.exit(main())
