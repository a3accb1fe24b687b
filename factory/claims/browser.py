"""Browser claims: every page renders with its actions (and a form page its field labels, a list page
its column headers, as the spec names them), every workflow completes through its form filled by
visible labels and option words, and every list filter and search box, set through its visible
control, makes the list show exactly the rows the seed database says (plus nested filters'
options and pagination).

Expected rows are computed here, from the spec and the seed database (as `routes.py` does for the
API's list answers), so the claims stay a deterministic function of the two.
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Any

from factory.claims.behaviour import footprint
from factory.claims.context import ClaimContext
from factory.claims.model import Claim, UiGetter, UiPasses
from factory.claims.roles import first_of_each_role
from factory.compiler.frontend import holder_column
from factory.compiler.lists import first_columns, list_columns
from factory.predict.rows import UserView
from factory.spec.model import (
    EntitySpec,
    FieldSpec,
    FilterSpec,
    ParamSpec,
    WorkflowSpec,
)
from factory.spec.roles import may_run, sees

Rows = list[sqlite3.Row]


def browser_claims(ctx: ClaimContext) -> list[Claim]:
    world = UserView(ctx.spec, ctx.rows.conn)  # reads the seed database only; labels rows as the app does
    out: list[Claim] = []
    for page in ctx.spec.pages:
        if page.kind == "login":
            continue
        path = ctx.concrete(page.path.replace(":id", "{id}"), page.entity)
        if path is None:
            continue
        form_of = next((w for w in ctx.spec.workflows if w.name == page.workflow), None)
        viewer = ctx.runner(form_of) if form_of is not None else ctx.viewer(page.entity)  # a role the page is for
        buttons, hidden = _buttons(ctx, page.kind, page.entity, viewer.id)
        text = f"{path} renders for {viewer.username} without console errors"
        args: dict[str, Any] = {"path": path, "buttons": buttons}
        if hidden:
            args["hidden"] = hidden
        words = ""
        workflow = next((w for w in ctx.spec.workflows if w.name == page.workflow), None) if page.kind == "form" else None
        if workflow is not None:
            args["labels"] = form_labels(workflow)
            words = ", labels its fields as the spec does"
        elif page.kind == "list" and page.entity is not None:
            args["columns"] = column_headers(ctx.spec.entity(page.entity))
            words = ", heads its columns as the spec does"
        out.append(Claim(id=f"ui:page:{page.id}", layer="frontend", kind="ui_page",
                         description=text + words + (f" and offers {', '.join(buttons)}" if buttons else "")
                         + (f", but not {', '.join(hidden)} (not for this row or this role)" if hidden else ""),
                         provenance=f"pages[{page.id}]",
                         getter=UiGetter(script="page", user=viewer.username, args=args),
                         predicate=UiPasses()))
    for wf in ctx.spec.workflows:
        if wf.system:
            continue
        w = ctx.witnesses[wf.name]
        if w.params is None:  # the behaviour claim already fails for the missing witness
            ctx.unwitnessed.append(f"ui:workflow:{wf.name}: no values that complete it")
            continue
        args = {"workflow": wf.name, "values": w.params}
        choices = _choices(world, wf, w.params)
        if choices:
            args["choices"] = choices
        runner = ctx.usernames.get(w.user or 0, ctx.runner(wf).username)
        out.append(Claim(id=f"ui:workflow:{wf.name}", layer="frontend", kind="ui_workflow",
                         description=f"{wf.label} can be completed through its form and the database shows its effects",
                         provenance=f"workflows[{wf.name}]",
                         getter=UiGetter(script="workflow", user=runner, args=args, plant=w.plant),
                         predicate=UiPasses(effects=footprint(ctx, wf))))
    out += _capabilities(ctx, world)
    out += _role_pages(ctx)
    return out


def _role_pages(ctx: ClaimContext) -> list[Claim]:
    """Per role, as its first user: the home page's navigation links exactly the lists and actions
    the role has (and none of the others'); a page for other roles (a list, a form) says so."""
    out: list[Claim] = []
    navigable = [e for e in ctx.spec.entities if e.nav and not e.builtin]
    actions = [w for w in ctx.spec.workflows if not w.system and w.form_path is not None]
    for u in first_of_each_role(ctx.spec, ctx.spec.roles):
        shown = [f"nav-{e.name}" for e in navigable if sees(ctx.spec, e, u.id)]
        shown += [f"nav-action-{w.name}" for w in actions if may_run(ctx.spec, w, u.id)]
        kept = [f"nav-{e.name}" for e in navigable if not sees(ctx.spec, e, u.id)]
        kept += [f"nav-action-{w.name}" for w in actions if not may_run(ctx.spec, w, u.id)]
        if kept:
            out.append(Claim(id=f"ui:role:home@{u.role}", layer="frontend", kind="ui_role",
                             description=f"{u.username} ({u.role}) is shown links to {', '.join(shown) or 'nothing'} "
                                         f"and none to {', '.join(kept)}, which are for other roles",
                             provenance="users.roles",
                             getter=UiGetter(script="page", user=u.username,
                                             args={"path": "/", "buttons": shown, "hidden": kept}),
                             predicate=UiPasses()))
        closed = [(f"entities[{e.name}].roles", e.name, f"/{e.path.strip('/')}") for e in navigable
                  if not sees(ctx.spec, e, u.id) and "list" in e.operations]
        closed += [(f"workflows[{w.name}].roles", w.name, w.form_path) for w in actions
                   if not may_run(ctx.spec, w, u.id) and w.form_path]
        for where, name, path in closed[:3]:  # a few pages per role: one renderer shows them all
            out.append(Claim(id=f"ui:role:{name}@{u.role}", layer="frontend", kind="ui_role",
                             description=f"{path}, opened by {u.username} ({u.role}), says it is for other roles",
                             provenance=where,
                             getter=UiGetter(script="page", user=u.username, args={"path": path, "forbidden": True}),
                             predicate=UiPasses()))
    return out


def _buttons(ctx: ClaimContext, kind: str, entity: str | None, viewer: int) -> tuple[list[str], list[str]]:
    """Test ids of the actions a page must offer and of those it must not (from the spec's
    workflows and operations). On a row's page, a workflow whose subject filters its rows
    (`where`) is offered only when its option list holds the row (`frontend.offered_url`)."""
    if entity is None:
        return [], []
    e = ctx.spec.entity(entity)
    if kind == "list":
        return ([f"new-{e.name}"] if "create" in e.operations else []), []
    if kind != "detail":
        return [], []
    rid = ctx.row_of(e, viewer)
    row = next((r for r in ctx.visible_rows(e, viewer) if r["id"] == rid), None)
    buttons: list[str] = []
    hidden: list[str] = []
    for w in ctx.spec.workflows:
        if w.system or w.subject_entity != e.name:
            continue
        subject = next((p for p in w.params if p.name == w.subject and p.ref), None)
        if not may_run(ctx.spec, w, viewer):  # another role's action: never shown to this user
            hidden.append(f"action-{w.name}")
            continue
        takes = subject is None or not subject.where or rid in ctx.oracle.options(w, subject.name, viewer)
        holder = holder_column(w, e)  # a rule that names who acts (`listing.host == me`)
        takes = takes and (holder is None or (row is not None and row[holder] == viewer))
        (buttons if takes else hidden).append(f"action-{w.name}")
    buttons += [f"{op}-{e.name}" for op, verb in (("edit", "update"), ("delete", "delete")) if verb in e.operations]
    return buttons, hidden


# ---- what the spec says the user reads -----------------------------------------------------------
def form_labels(wf: WorkflowSpec) -> list[str]:
    """A workflow form's field labels in page order: one per parameter, a date range's end right
    after its start (the two share one widget)."""
    by_name = {p.name: p for p in wf.params}
    labels: list[str] = []
    for p in wf.params:
        if p.range_of:
            continue
        labels.append(p.label)
        if p.range_end and p.range_end in by_name:
            labels.append(by_name[p.range_end].label)
    return labels


def column_headers(e: EntitySpec) -> list[str]:
    """A list page's column headers: the row's label column (named after its one display field, else
    after the entity), then the label of every column it shows before "All columns" is pressed
    (`lists.first_columns`)."""
    lead, _shown = list_columns(e)
    return [lead.label if lead else e.label] + [f.label for f in first_columns(e)]


def humanize(value: str) -> str:
    """An enum value as its option reads: "in_progress" → "In progress"."""
    text = value.replace("_", " ")
    return text[:1].upper() + text[1:]


def _choices(world: UserView, wf: WorkflowSpec, values: dict[str, Any]) -> dict[str, str]:
    """The words of the option a person picks for each select and reference parameter."""
    out: dict[str, str] = {}
    for p in wf.params:
        value = values.get(p.name)
        if value is None:
            continue
        text = param_choice(world, p, value)
        if text is not None:
            out[p.name] = text
    return out


def param_choice(world: UserView, p: ParamSpec, value: Any) -> str | None:
    """The words of the form's option for `value`: an enum value in words, a row by its display label
    (None for a parameter that is no select, or a row the seed database lacks)."""
    if p.widget == "select":
        return humanize(str(value))
    if p.widget == "reference" and p.ref:
        row = world.row(p.ref, int(value))
        return world.label(p.ref, row) if row is not None else None
    return None


# ---- list capabilities: filters, search, nested options, pagination ------------------------------
def _capabilities(ctx: ClaimContext, world: UserView) -> list[Claim]:
    out: list[Claim] = []
    for e in ctx.spec.entities:
        if e.builtin or "list" not in e.operations:
            continue
        user = ctx.viewer(e.name)
        visible = ctx.visible_rows(e, user.id)
        if not visible:
            continue
        lists = _Lists(ctx, e)
        for flt in e.filters:
            if flt.kind == "date_range":
                out += lists.claim(f"ui:date_range:{e.name}.{flt.field}", "ui_date_range", flt,
                                   f"the {flt.label} date-range filter on {e.plural}, typed in, shows exactly the rows in range",
                                   partial(range_case, e, flt))
            elif flt.kind == "range":
                out += lists.claim(f"ui:filter:{e.name}.{flt.field}", "ui_filter", flt,
                                   f"the {flt.label} range filter on {e.plural}, typed in, shows exactly the rows in range",
                                   partial(range_case, e, flt))
            else:
                out += lists.claim(f"ui:filter:{e.name}.{flt.field}", "ui_filter", flt,
                                   f"choosing a {flt.label} in the {e.plural} filter shows exactly its rows",
                                   partial(choice_case, world, e, flt))
            if flt.parent is not None:
                out += _nested(e, flt, user, visible)
        if e.search_fields:
            out += lists.claim(f"ui:search:{e.name}", "ui_search", None,
                               f"searching {e.plural} through the search box shows exactly the matching rows",
                               partial(search_case, e))
        if len(visible) > e.page_size:
            out.append(_ui_cap(user, f"ui:pagination:{e.name}", "ui_pagination", e, None,
                               f"pagination on {e.plural} reaches the last page", {"entity": e.name}))
    return out


# A case: the steps a person takes on the list page, the rows they must then see, and those rows in words.
Case = tuple[list[dict[str, Any]], Rows, str]


class _Lists:
    """Turns a filter case of one entity into its claim, with the rows the first page must show.

    The case is looked for among the rows of the entity's viewer first, then of the next users in
    turn: a user with a single card cannot show that a card filter narrows anything.
    """

    USERS = 8  # users tried per filter, in the spec's order

    def __init__(self, ctx: ClaimContext, e: EntitySpec) -> None:
        self.ctx, self.e = ctx, e
        viewer = ctx.viewer(e.name)
        self.users = [viewer] + [u for u in ctx.spec.users[: self.USERS] if u.id != viewer.id]
        self.rows: dict[int, Rows] = {}

    def visible(self, user: Any) -> Rows:
        if user.id not in self.rows:
            self.rows[user.id] = self.ctx.visible_rows(self.e, user.id)
        return self.rows[user.id]

    def claim(self, cid: str, kind: str, flt: FilterSpec | None, text: str,
              find: Callable[[Rows], Case | None]) -> list[Claim]:
        for user in self.users:
            visible = self.visible(user)
            case = find(visible) if visible else None
            if case is None:
                continue
            return [_ui_cap(user, cid, kind, self.e, flt.field if flt else None, text, filter_args(self.e, case),
                            script="filter")]
        return []


def filter_args(e: EntitySpec, case: Case) -> dict[str, Any]:
    """The "filter" script's arguments for a case: its steps, and the rows the first page must show
    (in the list's default order) with their total."""
    steps, rows, where = case
    ids = ClaimContext.ordered_ids(rows, e.default_sort)[: e.page_size]
    return {"entity": e.name, "steps": steps, "ids": ids, "total": len(rows), "where": where}


def _column(e: EntitySpec, name: str) -> FieldSpec:
    return e.field_named(name)


def _option(world: UserView, e: EntitySpec, flt: FilterSpec, value: Any) -> str | None:
    """The words of a filter's option for `value`, as the list page's select shows it."""
    f = _column(e, flt.field)
    if flt.kind == "bool":
        return "Yes" if value else "No"
    if flt.kind == "reference" and f.ref:
        row = world.row(f.ref, value)
        return world.label(f.ref, row) if row is not None else None
    return humanize(value) if isinstance(value, str) else str(value)


def _pick(e: EntitySpec, kept: dict[Any, Rows], total: int, texts: dict[Any, str | None]) -> Any:
    """The value to choose: it narrows the list, its option reads unlike any other, and (if one can)
    its rows fit on the first page, so the page shows all of them; most rows first, then by value."""
    seen = Counter(t for t in texts.values() if t is not None)
    fit = [v for v in kept if 0 < len(kept[v]) < total and _unique(texts.get(v), seen)]
    if not fit:
        return None
    return min(fit, key=lambda v: (len(kept[v]) > e.page_size, -len(kept[v]), str(v)))


def _unique(text: str | None, seen: Counter[str]) -> bool:
    """Whether an option with these words exists and no other reads the same."""
    return text is not None and seen[text] == 1


def _groups(rows: Rows, column: str) -> dict[Any, Rows]:
    groups: dict[Any, Rows] = {}
    for r in rows:
        if r[column] is not None:
            groups.setdefault(r[column], []).append(r)
    return groups


def choice_case(world: UserView, e: EntitySpec, flt: FilterSpec, visible: Rows) -> Case | None:
    """Choose one option of a select, reference or yes/no filter (a nested one after its parent's)."""
    column = _column(e, flt.field).column
    if flt.parent is None:
        groups = _groups(visible, column)
        value = _pick(e, groups, len(visible), {v: _option(world, e, flt, v) for v in groups})
        if value is None:
            return None
        step = {"field": flt.field, "option": _option(world, e, flt, value)}
        return [step], groups[value], f"{column} = {value!r}"
    parent = e.filter_on(flt.parent)
    parent_column = _column(e, parent.field).column
    by_parent = _groups(visible, parent_column)
    parent_texts = {v: _option(world, e, parent, v) for v in by_parent}
    parent_seen = Counter(t for t in parent_texts.values() if t is not None)
    for pv in sorted(by_parent, key=lambda v: (-len(by_parent[v]), str(v))):
        if not _unique(parent_texts[pv], parent_seen):
            continue
        within = by_parent[pv]
        groups = _groups(within, column)  # the child's options once the parent is chosen
        value = _pick(e, groups, len(within), {v: _option(world, e, flt, v) for v in groups})
        if value is None:
            continue
        steps = [{"field": parent.field, "option": parent_texts[pv]},
                 {"field": flt.field, "option": _option(world, e, flt, value)}]
        return steps, groups[value], f"{parent_column} = {pv!r} and {column} = {value!r}"
    return None


def _typed(f: FieldSpec, value: Any) -> str:
    """A range bound as a person types it: dollars for money, the day for dates."""
    if f.type == "money":
        return f"{int(value) / 100:.2f}"
    if f.type in ("date", "datetime"):
        return str(value)[:10]
    return str(value)


def range_case(e: EntitySpec, flt: FilterSpec, visible: Rows) -> Case | None:
    """A lower and an upper bound that each leave out rows the other keeps, so both must reach the list."""
    f = _column(e, flt.field)
    column = f.column
    dated = flt.kind == "date_range"
    key: Callable[[Any], Any] = (lambda v: str(v)[:10]) if dated else (lambda v: v)
    present = [r for r in visible if r[column] is not None]
    distinct = sorted({key(r[column]) for r in present})
    n = len(distinct)
    if n < 3:
        return None
    found: list[tuple[Any, Any, Rows]] = []
    for a, b in ((n // 4, (3 * n) // 4), (n // 3, (2 * n) // 3), (1, n - 2), (n // 2 - 1, n // 2), (0, n - 2), (1, n - 1)):
        if not 0 <= a < b < n:
            continue
        lo, hi = distinct[a], distinct[b]
        if dated and any(key(r[column]) == hi and str(r[column])[11:19] == "23:59:59" and len(str(r[column])) > 19
                         for r in present):
            continue  # the app's day ends at 23:59:59 sharp; a later fraction of that second is outside
        kept = [r for r in present if lo <= key(r[column]) <= hi]
        above = sum(1 for r in present if key(r[column]) >= lo)
        below = sum(1 for r in present if key(r[column]) <= hi)
        if kept and len(kept) < above and len(kept) < below:
            found.append((lo, hi, kept))
    if not found:
        return None
    lo, hi, kept = min(found, key=lambda c: len(c[2]) > e.page_size)  # the first that fits on a page
    step = {"field": flt.field, "min": _typed(f, lo), "max": _typed(f, hi)}
    return [step], kept, f"{lo!r} <= {column}{'[:10]' if dated else ''} <= {hi!r}"


_WORD = re.compile(r"[A-Za-z0-9]{3,}")


def _fold(text: str) -> str:
    """Lower-case as SQLite's lower() does: ASCII letters only."""
    return "".join(c.lower() if c.isascii() else c for c in text)


def search_case(e: EntitySpec, visible: Rows) -> Case | None:
    """A word from the rows' own text that some rows hold and others do not (the app's `q`: a
    case-insensitive substring of any search field)."""
    columns = [next((f.column for f in e.fields if f.name == name), name) for name in e.search_fields]
    texts = [[_fold(str(r[c] or "")) for c in columns] for r in visible]
    tried: set[str] = set()
    best: tuple[str, Rows] | None = None
    for r in visible:
        for c in columns:
            for word in _WORD.findall(str(r[c] or "")):
                needle = _fold(word)
                if needle in tried or len(tried) >= 200:  # enough candidates; keeps compiling fast
                    continue
                tried.add(needle)
                kept = [row for row, fields in zip(visible, texts, strict=True) if any(needle in t for t in fields)]
                if 0 < len(kept) < len(visible) and (best is None or len(best[1]) > e.page_size):
                    best = (word, kept)
    if best is None:
        return None
    word, kept = best
    return [{"text": word}], kept, f"{' or '.join(columns)} contains {word!r}"


def _nested(e: EntitySpec, flt: FilterSpec, user: Any, visible: Rows) -> list[Claim]:
    """A parent's value narrows its nested filter's options and the rows."""
    parent = next(f for f in e.filters if f.field == flt.parent)
    counts: dict[Any, int] = {}
    for r in visible:
        counts[r[parent.param]] = counts.get(r[parent.param], 0) + 1
    children = {r[flt.param] for r in visible}
    best = sorted((v for v in counts if v is not None), key=lambda v: (-counts[v], str(v)))
    for value in best:
        narrowed = {r[flt.param] for r in visible if r[parent.param] == value}
        if narrowed < children:
            return [_ui_cap(user, f"ui:nested:{e.name}.{flt.field}", "ui_nested_filter", e, flt.field,
                            f"choosing {parent.label} narrows the {flt.label} filter on {e.plural}",
                            {"entity": e.name, "parent": parent.field, "child": flt.field, "parent_value": value})]
    return []


_SCRIPTS = {"ui_nested_filter": "nested_filter", "ui_pagination": "pagination"}


def _ui_cap(user: Any, cid: str, kind: str, e: EntitySpec, field: str | None, text: str, args: dict[str, Any],
            script: str | None = None) -> Claim:
    where = f"entities[{e.name}].fields[{field}].filter" if field else (
        f"entities[{e.name}].search_fields" if kind == "ui_search" else f"entities[{e.name}].page_size")
    return Claim(id=cid, layer="frontend", kind=kind, description=text, provenance=where,
                 getter=UiGetter(script=script or _SCRIPTS[kind], user=user.username, args=args),  # type: ignore[arg-type]
                 predicate=UiPasses())
