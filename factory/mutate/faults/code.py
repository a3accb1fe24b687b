"""Anchors in a world's generated backend that the independent fault suite edits, found the same way each time.

The generator writes every workflow, precondition, effect, rule and route from one template each, so a
fault can name what it hits by the spec (a workflow, a check id, an effect index, an operation id) and
find it in the parsed file by the structure the template gives it (the function of a workflow, the `if`
whose `raise` names a check id, the n-th effect's statements under their `# source` comment, a key of
the WORKFLOWS table), never by the exact text, which the formatter lays out. Every lookup here raises
MutationError when that structure is not there, so a changed template breaks the suite loudly instead of
injecting nothing.
"""

from __future__ import annotations

import re
from typing import Any

from factory.mutate.mutations.base import MutationError, WorldView, match_once
from factory.world.layout import BACKEND

RUNTIME_PY = f"{BACKEND}/runtime.py"
INVARIANTS_PY = f"{BACKEND}/invariants.py"
ROUTERS = f"{BACKEND}/routers"
WORKFLOW_ROUTER = f"{ROUTERS}/workflows.py"

NUMERIC = ("int", "money")
MOMENTS = ("date", "datetime")
TEXTUAL = ("string", "text", "email")


# ---------------------------------------------------------------- spec helpers


def routed(view: WorldView) -> list[Any]:
    """Workflows an agent can call (system workflows have no route, so a fault there is unobservable)."""
    return [w for w in view.spec.workflows if not w.system]


def owned(entity: Any) -> bool:
    """Whether reads of `entity` are filtered by owner: only then can an ownership fault leak a row."""
    return not entity.builtin and entity.visibility == "owner" and bool(entity.owner_fields)


def field_by_column(entity: Any, column: str) -> Any:
    found = next((f for f in entity.fields if f.column == column), None)
    if found is None:
        raise MutationError(f"entity {entity.name} has no column {column!r}; the spec and the code disagree")
    return found


def same_kind(a: Any, b: Any) -> bool:
    """Two fields (or a field and a parameter) hold the same kind of value: same type, same target, same members."""
    if a.type in TEXTUAL and b.type in TEXTUAL:
        return True
    if a.type != b.type:
        return False
    if a.type == "reference":
        return bool(a.ref == b.ref)
    if a.type == "enum":
        return set(a.values or ()) <= set(b.values or ())
    return True


# ---------------------------------------------------------------- routers


def router_of(view: WorldView, operation_id: str) -> str:
    """The router file (world-relative) that registers `operation_id`."""
    hits = [p for p in sorted((view.root / ROUTERS).glob("*.py")) if f'operation_id="{operation_id}"' in p.read_text()]
    if len(hits) != 1:
        raise MutationError(f"{view.root / ROUTERS}: expected one router defining {operation_id}, found {len(hits)}")
    return hits[0].relative_to(view.root).as_posix()


def handler_span(text: str, operation_id: str, where: str) -> tuple[int, int]:
    """Offsets of one route handler: its decorator up to the next decorator (or the end of the file)."""
    start = match_once(rf'^@router\.\w+\(\s*"[^"\n]*",\s*operation_id="{re.escape(operation_id)}"', text, where).start()
    following = text.find("\n@router.", start + 1)
    return start, (following if following >= 0 else len(text))


def route(view: WorldView, kind: str, entity: str) -> Any | None:
    return next((r for r in view.spec.routes if r.kind == kind and r.entity == entity), None)
