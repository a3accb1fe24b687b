"""The Python source of a world's generated backend, parsed: nodes and their offsets, and the structures the
backend templates give workflows.py and schema.py (a workflow's function, the `if` whose `raise` names a
check id, the n-th effect's statements under their `# source` comment, an entry of the WORKFLOWS table,
an entity's EntityMeta). Both fault suites find what they edit here, in the parsed file rather than by its
exact text, which the formatter lays out; a structure that is not there is a MutationError.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from factory.mutate.mutations.base import MutationError, WorldView, splice
from factory.world.layout import BACKEND

WORKFLOWS_PY = f"{BACKEND}/workflows.py"
SCHEMA_PY = f"{BACKEND}/schema.py"


# ---------------------------------------------------------------- python text


def compiles(rel: str, text: str) -> None:
    """A fault must misbehave at run time, never stop the module from importing."""
    try:
        compile(text, rel, "exec")
    except SyntaxError as exc:
        raise MutationError(f"{rel}: the edit would not compile ({exc.msg}, line {exc.lineno})") from exc


def parse_module(text: str, where: str) -> ast.Module:
    try:
        return ast.parse(text)
    except SyntaxError as exc:
        raise MutationError(f"{where}: the file does not parse ({exc.msg}, line {exc.lineno})") from exc


def parse_line(line: str, where: str) -> ast.stmt:
    """One statement (it may span several lines, as the formatter wraps it)."""
    try:
        tree = ast.parse(line)
    except SyntaxError as exc:
        raise MutationError(f"{where}: {line[:120]!r} is not one Python statement") from exc
    if len(tree.body) != 1:
        raise MutationError(f"{where}: {line[:120]!r} is not one Python statement")
    return tree.body[0]


def offset(text: str, lineno: int, col: int) -> int:
    """The character offset in `text` of ast's (line, UTF-8 byte column) position."""
    lines = text.splitlines(keepends=True)
    before = sum(len(line) for line in lines[: lineno - 1])
    return before + len(lines[lineno - 1].encode()[:col].decode()) if lineno <= len(lines) else before


def char_span(text: str, node: ast.AST) -> tuple[int, int]:
    """Character offsets of a node parsed from `text` (a whole file or one statement; several lines allowed)."""
    start = offset(text, int(getattr(node, "lineno", 1)), int(getattr(node, "col_offset", 0)))
    end = offset(text, int(getattr(node, "end_lineno", 1) or 1), int(getattr(node, "end_col_offset", 0) or 0))
    return start, end


def line_span(text: str, node: ast.AST) -> tuple[int, int]:
    """Offsets of the whole lines a node spans, from its first line's start to just after its last newline."""
    start = offset(text, int(getattr(node, "lineno", 1)), 0)
    end = offset(text, int(getattr(node, "end_lineno", 1) or 1) + 1, 0)
    return start, end


def node_text(text: str, node: ast.AST) -> str:
    start, end = char_span(text, node)
    return text[start:end]


def operator_span(text: str, left: ast.AST, right: ast.AST, pattern: str) -> tuple[int, int]:
    """Offsets of the operator between two operands (possibly wrapped in their parentheses and lines)."""
    _, lo = char_span(text, left)
    hi, _ = char_span(text, right)
    between = text[lo:hi]
    found = list(re.finditer(pattern, between))
    if len(found) != 1 or between[:found[0].start()].strip(" )\n") or between[found[0].end():].strip(" (\n"):
        raise MutationError(f"{text[lo - 40:hi + 40]!r}: unexpected operator text {between!r}")
    return lo + found[0].start(), lo + found[0].end()


def parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def negation(text: str, test: ast.expr) -> str:
    """The code of `not <test>` as a person would write it: a flipped comparison, the operand of a `not`,
    else `not (...)`."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return node_text(text, test.operand)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _FLIP:
        start, _ = char_span(text, test)
        lo, hi = operator_span(text, test.left, test.comparators[0], _OPERATOR)
        code = node_text(text, test)
        return code[:lo - start] + _FLIP[type(test.ops[0])] + code[hi - start:]
    return f"not ({node_text(text, test)})"


_FLIP = {ast.Eq: "!=", ast.NotEq: "==", ast.Lt: ">=", ast.GtE: "<", ast.Gt: "<=", ast.LtE: ">",
         ast.Is: "is not", ast.IsNot: "is", ast.In: "not in", ast.NotIn: "in"}
_OPERATOR = r"==|!=|<=|>=|<|>|\bis\s+not\b|\bnot\s+in\b|\bis\b|\bin\b"


def import_name(text: str, module: str, name: str, where: str) -> str:
    """`text` importing `name` from `module` too: a line of its own after the module's import (the edit of a
    hurried hand; the formatter has not run on a faulted file)."""
    tree = parse_module(text, where)
    found = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == module]
    if not found:
        raise MutationError(f"{where}: no `from {module} import` to add {name} to; the generated code changed shape")
    if any(alias.name == name for n in found for alias in n.names):
        return text
    at = line_span(text, found[-1])[1]
    return splice(text, at, at, f"from {module} import {name}\n")


# ---------------------------------------------------------------- workflows.py


def function_def(text: str, name: str, where: str) -> ast.FunctionDef:
    """The module-level function `name` (exactly one)."""
    found = [n for n in parse_module(text, where).body if isinstance(n, ast.FunctionDef) and n.name == name]
    if len(found) != 1:
        raise MutationError(f"{where}: expected one function {name}, found {len(found)}; the generated code changed shape")
    return found[0]


def workflow_span(text: str, workflow: str) -> tuple[int, int]:
    """Offsets of one workflow function, from its `def` line to the end of its last line."""
    return line_span(text, function_def(text, workflow, f"{WORKFLOWS_PY} ({workflow})"))


def _check_id(stmt: ast.stmt) -> str | None:
    """The check id of `if <refusal>: raise PreconditionFailed(message, id)`, else None."""
    if not (isinstance(stmt, ast.If) and len(stmt.body) == 1 and not stmt.orelse and isinstance(stmt.body[0], ast.Raise)):
        return None
    call = stmt.body[0].exc
    if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "PreconditionFailed"
            and len(call.args) == 2 and isinstance(call.args[1], ast.Constant) and isinstance(call.args[1].value, str)):
        return call.args[1].value
    return None


def _effect_statements(function: ast.FunctionDef) -> list[ast.stmt]:
    """The statements after the preconditions up to `return created`: the compiled effects, in order."""
    body = list(function.body)
    while body and (isinstance(body[0], ast.AnnAssign) or _check_id(body[0]) is not None
                    or (isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant))):
        body.pop(0)
    if not body or not isinstance(body[-1], ast.Return):
        raise MutationError(f"{WORKFLOWS_PY} ({function.name}): the function does not end with `return created`")
    return body[:-1]


def _statement_count(effect: Any) -> int:
    return len(parse_module("\n".join(effect.python), f"effect `{effect.source}`").body)


@dataclass(frozen=True)
class EffectLine:
    """The first statement of one compiled effect (the assignment), located in workflows.py."""

    workflow: Any
    index: int
    text: str   # the whole file
    start: int  # offsets of the statement (it may span lines), without its indentation and newline
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


def effect_statements(text: str, workflow: Any, index: int) -> list[ast.stmt]:
    """The statements effect `index` of `workflow` compiled to, found by counting the effects before it and
    checked against the `# <source>` comment the template writes above each effect."""
    function = function_def(text, workflow.name, f"{WORKFLOWS_PY} ({workflow.name})")
    statements = _effect_statements(function)
    first = sum(_statement_count(e) for e in workflow.effects[:index])
    count = _statement_count(workflow.effects[index])
    found = statements[first:first + count]
    effect = workflow.effects[index]
    comment = text.splitlines()[found[0].lineno - 2].strip() if len(found) == count and found else ""
    if len(found) != count or comment != f"# {effect.source}":
        raise MutationError(f"{WORKFLOWS_PY}: the code of effect `{effect.source}` of {workflow.name} was not found")
    return found


def effect_line(view: WorldView, workflow: Any, index: int) -> EffectLine:
    """The effect's own first statement: inside the `if <when>:` and the `for <row> in …:` a conditional
    or bulk effect is wrapped in (spec.json files written before those had neither)."""
    text = view.read(WORKFLOWS_PY)
    statement = effect_statements(text, workflow, index)[0]
    effect = workflow.effects[index]
    for wrapped in (getattr(effect, "when", None), getattr(effect, "for_each", None)):
        if wrapped is None:
            continue
        if not isinstance(statement, (ast.If, ast.For)) or not statement.body:
            raise MutationError(f"{WORKFLOWS_PY} ({workflow.name} effect {index + 1}): expected the `if`/`for` "
                                "the effect is wrapped in")
        statement = statement.body[0]
    start, end = char_span(text, statement)
    return EffectLine(workflow, index, text, start, end)


def effect_condition(text: str, workflow: Any, index: int) -> ast.If:
    """The `if <when>:` a conditional effect compiled to (outside its loop, if it has one)."""
    statement = effect_statements(text, workflow, index)[0]
    if not isinstance(statement, ast.If):
        raise MutationError(f"{WORKFLOWS_PY} ({workflow.name} effect {index + 1}): the effect is not wrapped in an if")
    return statement


def effect_loop(text: str, workflow: Any, index: int) -> ast.For:
    """The `for <row> in <rows>:` a bulk effect compiled to (inside its `if`, if it has a condition)."""
    statement = effect_statements(text, workflow, index)[0]
    if workflow.effects[index].when is not None and isinstance(statement, ast.If) and statement.body:
        statement = statement.body[0]
    if not isinstance(statement, ast.For):
        raise MutationError(f"{WORKFLOWS_PY} ({workflow.name} effect {index + 1}): the effect is not wrapped in a loop")
    return statement


def set_parts(line: EffectLine) -> tuple[ast.Attribute, ast.expr]:
    """(target attribute, value) of a `row.column = value` effect (`get_row(…).column = value` on a related row)."""
    node = parse_line(line.line, line.where())
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute)
            and isinstance(node.targets[0].value, (ast.Name, ast.Call))):
        raise MutationError(f"{line.where()}: {line.line[:120]!r} is not `row.column = value`")
    return node.targets[0], node.value


def create_keywords(line: EffectLine) -> dict[str, ast.expr]:
    """column → value expression of a `new_row = Model(column=value, ...)` effect."""
    node = parse_line(line.line, line.where())
    if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
        raise MutationError(f"{line.where()}: {line.line[:120]!r} is not `new_row = Model(...)`")
    return {k.arg: k.value for k in node.value.keywords if k.arg is not None}


@dataclass(frozen=True)
class CheckLines:
    """One compiled precondition: `if <refusal>:` and its `raise PreconditionFailed(message, id)`."""

    start: int      # offset of the `    if` line
    if_end: int     # offset of the raise statement's line (just after the if header, however many lines)
    end: int        # offset just after the raise statement's last line
    message: str    # the message argument as written (a Python string literal)
    message_span: tuple[int, int]
    test: ast.expr  # the refusal condition, parsed from the whole file
    test_span: tuple[int, int]


def check_lines(text: str, workflow: Any, check: Any) -> CheckLines:
    where = f"{WORKFLOWS_PY} ({check.id})"
    function = function_def(text, workflow.name, where)
    found = [n for n in function.body if _check_id(n) == check.id]
    if len(found) != 1:
        raise MutationError(f"{where}: anchor `raise PreconditionFailed(..., {check.id!r})` not found once; "
                            "the generated code changed shape")
    stmt = found[0]
    assert isinstance(stmt, ast.If)
    raised = stmt.body[0]
    assert isinstance(raised, ast.Raise) and isinstance(raised.exc, ast.Call)
    message = raised.exc.args[0]
    start, end = line_span(text, stmt)
    return CheckLines(start, line_span(text, raised)[0], end, node_text(text, message), char_span(text, message),
                      stmt.test, char_span(text, stmt.test))


def _entry(text: str, workflow: str) -> ast.Tuple:
    """The value of one workflow's entry in the WORKFLOWS table: (function, parameter model, rules, refs, message)."""
    where = f"{WORKFLOWS_PY} (WORKFLOWS[{workflow!r}])"
    tables = [n.value for n in parse_module(text, where).body if isinstance(n, (ast.Assign, ast.AnnAssign))
              and isinstance(n.value, ast.Dict) and any(isinstance(t, ast.Name) and t.id == "WORKFLOWS"
                                                         for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]
    entries = [v for table in tables for k, v in zip(table.keys, table.values, strict=True)
               if isinstance(k, ast.Constant) and k.value == workflow]
    if len(entries) != 1 or not isinstance(entries[0], ast.Tuple) or len(entries[0].elts) != 5:
        raise MutationError(f"{where}: the entry was not found once as a 5-tuple; the generated code changed shape")
    return entries[0]


def workflow_entry(text: str, workflow: str) -> tuple[int, int]:
    """Offsets of one workflow's entry value in the WORKFLOWS table."""
    return char_span(text, _entry(text, workflow))


def entry_part(text: str, workflow: str, part: int) -> ast.expr:
    """One part of a workflow's WORKFLOWS entry: 1 parameter model, 2 rules, 3 reference map, 4 message."""
    return _entry(text, workflow).elts[part]


def params_class(text: str, workflow: str) -> str:
    model = entry_part(text, workflow, 1)
    if not isinstance(model, ast.Name):
        raise MutationError(f"{WORKFLOWS_PY} (WORKFLOWS[{workflow!r}]): the parameter model is not a name")
    return model.id


def dict_value(text: str, table: ast.expr, key: str, where: str) -> tuple[int, int]:
    """Offsets of the value of `key` in a dict display."""
    if not isinstance(table, ast.Dict):
        raise MutationError(f"{where}: expected a dict display")
    found = [v for k, v in zip(table.keys, table.values, strict=True) if isinstance(k, ast.Constant) and k.value == key]
    if len(found) != 1:
        raise MutationError(f"{where}: anchor {key!r} not found once; the generated code changed shape")
    return char_span(text, found[0])


def rule_of(text: str, workflow: str, key: str, where: str) -> tuple[int, int]:
    """Offsets of the `Rule(...)` of one parameter in the workflow's WORKFLOWS entry."""
    return dict_value(text, entry_part(text, workflow, 2), key, where)


# ---------------------------------------------------------------- schema.py


def entity_meta(text: str, entity: str) -> ast.Call:
    """The `EntityMeta(name=<entity>, ...)` call that schema.py registers."""
    where = f"{SCHEMA_PY} ({entity})"
    found = [n for n in ast.walk(parse_module(text, where)) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id == "EntityMeta" and any(k.arg == "name" and isinstance(k.value, ast.Constant)
                                                   and k.value.value == entity for k in n.keywords)]
    if len(found) != 1:
        raise MutationError(f"{where}: expected one EntityMeta(name={entity!r}), found {len(found)}")
    return found[0]


def entity_block(text: str, entity: str) -> tuple[int, int]:
    """Offsets of one entity's `EntityMeta(...)` call in schema.py."""
    return char_span(text, entity_meta(text, entity))


def meta_keyword(text: str, entity: str, name: str) -> ast.expr:
    """The value of one keyword of an entity's EntityMeta(...)."""
    found = [k.value for k in entity_meta(text, entity).keywords if k.arg == name]
    if len(found) != 1:
        raise MutationError(f"{SCHEMA_PY} ({entity}): EntityMeta has no {name}=; the generated code changed shape")
    return found[0]


def column_rule(text: str, entity: str, column: str, where: str) -> tuple[int, int]:
    """Offsets of the `Rule(...)` of one column in schema.py."""
    return dict_value(text, meta_keyword(text, entity, "rules"), column, where)
