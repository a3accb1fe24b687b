"""Anchors in a world's generated backend that the independent fault suite edits, found the same way each time.

The generator writes every workflow, precondition, effect, rule and route from one template each, so a
fault can name what it hits by the spec (a workflow, a check id, an effect index, an operation id) and
find its text by the shape the template gives it. Every lookup here raises MutationError when that shape
is not there, so a changed template breaks the suite loudly instead of injecting nothing.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from factory.mutate.mutations.base import MutationError, WorldView, match_once, span_between, splice
from factory.world.layout import BACKEND

WORKFLOWS_PY = f"{BACKEND}/workflows.py"
SCHEMA_PY = f"{BACKEND}/schema.py"
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


# ---------------------------------------------------------------- python text


def compiles(rel: str, text: str) -> None:
    """A fault must misbehave at run time, never stop the module from importing."""
    try:
        compile(text, rel, "exec")
    except SyntaxError as exc:
        raise MutationError(f"{rel}: the edit would not compile ({exc.msg}, line {exc.lineno})") from exc


def parse_line(line: str, where: str) -> ast.stmt:
    try:
        tree = ast.parse(line)
    except SyntaxError as exc:
        raise MutationError(f"{where}: {line[:120]!r} is not one Python statement") from exc
    if len(tree.body) != 1:
        raise MutationError(f"{where}: {line[:120]!r} is not one Python statement")
    return tree.body[0]


def parse_expr(text: str, where: str) -> ast.expr:
    try:
        return ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        raise MutationError(f"{where}: {text[:120]!r} is not a Python expression") from exc


def char_span(line: str, node: ast.AST) -> tuple[int, int]:
    """Character offsets of a node on a one-line source (ast counts UTF-8 bytes)."""
    if getattr(node, "lineno", 1) != 1 or getattr(node, "end_lineno", 1) != 1:
        raise MutationError(f"{line[:80]!r}: the node spans several lines")
    raw = line.encode()
    start = len(raw[: int(getattr(node, "col_offset", 0))].decode())
    end = len(raw[: int(getattr(node, "end_col_offset", 0) or 0)].decode())
    return start, end


def node_text(line: str, node: ast.AST) -> str:
    start, end = char_span(line, node)
    return line[start:end]


def operator_span(line: str, left: ast.AST, right: ast.AST, pattern: str) -> tuple[int, int]:
    """Offsets of the operator between two operands (possibly wrapped in their parentheses)."""
    _, lo = char_span(line, left)
    hi, _ = char_span(line, right)
    between = line[lo:hi]
    found = list(re.finditer(pattern, between))
    if len(found) != 1 or between[:found[0].start()].strip(" )") or between[found[0].end():].strip(" ("):
        raise MutationError(f"{line[:120]!r}: unexpected operator text {between!r}")
    return lo + found[0].start(), lo + found[0].end()


def parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


# ---------------------------------------------------------------- workflows.py


def workflow_span(text: str, workflow: str) -> tuple[int, int]:
    """Offsets of one workflow function, from its `def` to its `return created`."""
    return span_between(text, f"\ndef {workflow}(session: Session, ctx: Ctx,", "\n    return created\n",
                        f"{WORKFLOWS_PY} ({workflow})")


def _effect_block(effect: Any) -> str:
    return f"    # {effect.source}\n" + "".join(f"    {line}\n" for line in effect.python)


@dataclass(frozen=True)
class EffectLine:
    """The first statement of one compiled effect (the assignment), located in workflows.py."""

    workflow: Any
    index: int
    text: str   # the whole file
    start: int  # offsets of the statement, without its indentation and newline
    end: int

    @property
    def effect(self) -> Any:
        return self.workflow.effects[self.index]

    @property
    def line(self) -> str:
        return self.text[self.start:self.end]

    def where(self) -> str:
        return f"{WORKFLOWS_PY} ({self.workflow.name} effect {self.index + 1})"

    def replaced(self, new_line: str) -> str:
        """The file with this statement replaced; a MutationError when that changes nothing."""
        if new_line == self.line:
            raise MutationError(f"{self.where()}: the edit changes nothing")
        return splice(self.text, self.start, self.end, new_line)


def effect_line(view: WorldView, workflow: Any, index: int) -> EffectLine:
    text = view.read(WORKFLOWS_PY)
    start, end = workflow_span(text, workflow.name)
    effect = workflow.effects[index]
    block = _effect_block(effect)
    # two identical effects in one workflow are possible: hit the occurrence this effect is
    nth = sum(1 for e in workflow.effects[:index] if _effect_block(e) == block)
    at = start - 1
    for _ in range(nth + 1):
        at = text.find(block, at + 1, end)
        if at < 0:
            raise MutationError(f"{WORKFLOWS_PY}: the code of effect `{effect.source}` of {workflow.name} was not found")
    first = at + len(f"    # {effect.source}\n") + 4
    return EffectLine(workflow, index, text, first, first + len(effect.python[0]))


def set_parts(line: EffectLine) -> tuple[ast.Attribute, ast.expr]:
    """(target attribute, value) of a `row.column = value` effect."""
    node = parse_line(line.line, line.where())
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute)
            and isinstance(node.targets[0].value, ast.Name)):
        raise MutationError(f"{line.where()}: {line.line[:120]!r} is not `row.column = value`")
    return node.targets[0], node.value


def create_keywords(line: EffectLine) -> dict[str, ast.expr]:
    """column → value expression of a `row = Model(column=value, ...)` effect."""
    node = parse_line(line.line, line.where())
    if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
        raise MutationError(f"{line.where()}: {line.line[:120]!r} is not `row = Model(...)`")
    return {k.arg: k.value for k in node.value.keywords if k.arg is not None}


@dataclass(frozen=True)
class CheckLines:
    """The two lines of one compiled precondition: `if not <python>:` and its `raise PreconditionFailed(...)`."""

    start: int      # offset of the `    if not` line
    if_end: int     # offset just after the if line's newline
    end: int        # offset just after the raise line's newline
    message: str    # the message argument as written (a Python string literal)
    message_span: tuple[int, int]


def check_lines(text: str, workflow: Any, check: Any) -> CheckLines:
    start, end = workflow_span(text, workflow.name)
    where = f"{WORKFLOWS_PY} ({check.id})"
    head = f"    if not {check.python}:\n"
    at = text.find(head, start, end)
    if at < 0 or text.find(head, at + 1, end) >= 0:
        raise MutationError(f"{where}: anchor {head.strip()[:120]!r} not found once; the generated code changed shape")
    raise_at = at + len(head)
    raise_end = text.find("\n", raise_at) + 1
    match = match_once(rf"^        raise PreconditionFailed\((.+), {re.escape(repr(check.id))}\)$",
                       text[raise_at:raise_end], where)
    return CheckLines(at, raise_at, raise_end, match.group(1),
                      (raise_at + match.start(1), raise_at + match.end(1)))


def workflow_entry(text: str, workflow: str) -> tuple[int, int]:
    """Offsets of one workflow's entry in the WORKFLOWS table, from its key line to the end of the line
    holding its reference map and success message (`    }, {...}, 'Done.'),`)."""
    where = f"{WORKFLOWS_PY} (WORKFLOWS[{workflow!r}])"
    start, _ = span_between(text, f"\n    {workflow!r}: ({workflow}, ", "\n    }, ", where)
    close = text.find("\n    }, ", start)
    end = text.find("\n", close + 1)
    if end < 0:
        raise MutationError(f"{where}: the entry does not end with a line break")
    return start, end + 1


def params_class(text: str, workflow: str) -> str:
    start, end = workflow_entry(text, workflow)
    match = match_once(rf"^    {re.escape(repr(workflow))}: \({re.escape(workflow)}, (\w+), \{{$", text[start + 1:end],
                       f"{WORKFLOWS_PY} (WORKFLOWS[{workflow!r}])")
    return match.group(1)


# ---------------------------------------------------------------- schema.py


def entity_block(text: str, entity: str) -> tuple[int, int]:
    """Offsets of one entity's `register(EntityMeta(...))` call in schema.py."""
    return span_between(text, f"register(EntityMeta(\n    name={entity!r},\n", "\n))\n", f"{SCHEMA_PY} ({entity})")


def rule_line(text: str, start: int, end: int, key: str, where: str) -> tuple[int, int]:
    """Offsets of the `'<key>': Rule(...),` line inside text[start:end]."""
    match = match_once(rf"^        {re.escape(repr(key))}: Rule\(.*\),$", text[start:end], where)
    return start + match.start(), start + match.end()


# ---------------------------------------------------------------- routers


def router_of(view: WorldView, operation_id: str) -> str:
    """The router file (world-relative) that registers `operation_id`."""
    hits = [p for p in sorted((view.root / ROUTERS).glob("*.py")) if f'operation_id="{operation_id}"' in p.read_text()]
    if len(hits) != 1:
        raise MutationError(f"{view.root / ROUTERS}: expected one router defining {operation_id}, found {len(hits)}")
    return hits[0].relative_to(view.root).as_posix()


def handler_span(text: str, operation_id: str, where: str) -> tuple[int, int]:
    """Offsets of one route handler: its decorator up to the next decorator (or the end of the file)."""
    start = match_once(rf'^@router\.\w+\("[^"\n]*", operation_id="{re.escape(operation_id)}"', text, where).start()
    following = text.find("\n@router.", start + 1)
    return start, (following if following >= 0 else len(text))


def route(view: WorldView, kind: str, entity: str) -> Any | None:
    return next((r for r in view.spec.routes if r.kind == kind and r.entity == entity), None)
