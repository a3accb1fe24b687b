"""Replies on disk, keyed by the sha256 of the whole request (model, messages, response schema,
temperature, seed, token limit): asking the same thing again reads the reply back, byte for byte,
and makes no request. The key never includes the endpoint's address or key, so a local server
restarted on another port still hits the cache.

    <cache dir>/<first two hex digits>/<sha256>.json   {"request": ..., "reply": ...}
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from factory.llm.client import Reply

log = logging.getLogger(__name__)


def request_key(request: dict[str, Any]) -> str:
    """The cache key of a request: sha256 of its canonical JSON."""
    canonical = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


class ReplyCache:
    """A directory of replies; unreadable entries count as misses (and are written again)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> Reply | None:
        path = self.path(key)
        try:
            return Reply.from_json(json.loads(path.read_text(encoding="utf-8"))["reply"])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:  # a torn or hand-edited entry: ask again
            log.warning("reply cache entry %s unreadable (%s): asking the model again", path, exc)
            return None

    def put(self, key: str, request: dict[str, Any], reply: Reply) -> None:
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"request": request, "reply": reply.to_json()}, indent=1, sort_keys=True, ensure_ascii=False)
        # written beside and renamed into place: a reader never sees half an entry
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
        os.replace(temp, path)


__all__ = ["ReplyCache", "request_key"]
