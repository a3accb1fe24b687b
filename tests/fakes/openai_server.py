"""A scripted OpenAI-compatible endpoint on loopback, for tests and demos: real HTTP, so the factory
talks to it through the real `openai` SDK.

It serves `POST /v1/chat/completions`, records every request body it got (`requests`), and answers
from a script: a list of `Scripted` replies taken in order, or a function of the request. A reply
may wait first (`delay`, to outlast a client's timeout) or fail with an HTTP status.

    with FakeOpenAI([Scripted('{"a": 1}', usage=(10, 3))]) as fake:
        env = fake.env()          # FACTORY_LLM_BASE_URL, FACTORY_LLM_MODEL, FACTORY_LLM_API_KEY

From the command line it answers each question with the keys its response schema asks for, taken
from a complete seed written by hand (the stand-in for a model that drafts a seed):

    python -m tests.fakes.openai_server --seed tests/fixtures/freeform/toolshed.yaml --port 8765
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import yaml

MODEL = "fake-model"


@dataclass(frozen=True)
class Scripted:
    """One reply: message text (a dict is sent as its JSON), token counts, a wait, an HTTP status."""

    content: str | dict[str, Any] = ""
    usage: tuple[int, int] | None = None  # (prompt, completion); None: a length-based count
    delay: float = 0.0
    status: int = 200

    def text(self) -> str:
        return self.content if isinstance(self.content, str) else json.dumps(self.content, default=str)  # YAML dates


Script = list[Scripted] | Callable[[dict[str, Any]], Scripted]


@dataclass
class FakeOpenAI:
    """The server; use it as a context manager (it listens on a free port of 127.0.0.1)."""

    script: Script
    requests: list[dict[str, Any]] = field(default_factory=list)
    transcript: Path | None = None  # append each request and reply as a JSON line

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._next = 0
        self._server: ThreadingHTTPServer | None = None

    # ---- lifecycle ----------------------------------------------------------------------------
    def __enter__(self) -> FakeOpenAI:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self, port: int = 0) -> None:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                fake._handle(self)

            def log_message(self, format: str, *args: Any) -> None:  # quiet: the tests read `requests`
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True  # a handler still sleeping out a timeout never blocks stop()
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start the fake first"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def env(self, **extra: str) -> dict[str, str]:
        """The environment that points the factory at this fake."""
        return {"FACTORY_LLM_BASE_URL": self.base_url, "FACTORY_LLM_MODEL": MODEL, "FACTORY_LLM_API_KEY": "test-key",
                **extra}

    @property
    def count(self) -> int:
        with self._lock:
            return len(self.requests)

    # ---- one request --------------------------------------------------------------------------
    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        if handler.path.rstrip("/") != "/v1/chat/completions":
            self._send(handler, 404, {"error": {"message": f"no route {handler.path}"}})
            return
        body = json.loads(handler.rfile.read(int(handler.headers.get("Content-Length", "0"))))
        with self._lock:
            self.requests.append(body)
            reply = self._pick(body)
        if reply.delay:
            time.sleep(reply.delay)
        if reply.status != 200:
            self._send(handler, reply.status, {"error": {"message": reply.text() or "scripted failure"}})
            return
        text = reply.text()
        prompt, completion = reply.usage or (len(json.dumps(body["messages"])) // 4, len(text) // 4)
        if self.transcript is not None:
            with self.transcript.open("a", encoding="utf-8") as out:
                out.write(json.dumps({"request": body, "reply": text, "usage": [prompt, completion]}) + "\n")
        self._send(handler, 200, {
            "id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}})

    def _pick(self, body: dict[str, Any]) -> Scripted:
        if callable(self.script):
            return self.script(body)
        if self._next >= len(self.script):
            # 400, not 500: the client does not retry it, so a test that asks too much fails at once
            return Scripted(f"fake: request {self._next + 1} but the script holds {len(self.script)} replies", status=400)
        self._next += 1
        return self.script[self._next - 1]

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(data)))
            handler.end_headers()
            handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (its timeout) before the reply
            pass


def seed_sections(seed_file: Path) -> Callable[[dict[str, Any]], Scripted]:
    """A script that answers each question with the keys its response schema asks for, from a whole seed."""
    seed = yaml.safe_load(seed_file.read_text())

    def reply(body: dict[str, Any]) -> Scripted:
        schema = body["response_format"]["json_schema"]["schema"]
        return Scripted({key: seed[key] for key in schema.get("properties", {}) if key in seed})

    return reply


def iter_transcript(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.read_text().splitlines():
        yield json.loads(line)


def main() -> None:
    parser = argparse.ArgumentParser(description="a scripted OpenAI-compatible endpoint on loopback")
    parser.add_argument("--seed", required=True, help="a complete seed whose sections are the replies")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--transcript", default=None, help="append each request and reply here (JSON lines)")
    args = parser.parse_args()
    fake = FakeOpenAI(seed_sections(Path(args.seed)), transcript=Path(args.transcript) if args.transcript else None)
    fake.start(args.port)
    print(f"fake endpoint: FACTORY_LLM_BASE_URL={fake.base_url} FACTORY_LLM_MODEL={MODEL}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        fake.stop()


if __name__ == "__main__":
    main()
