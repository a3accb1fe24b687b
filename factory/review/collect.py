"""Read a world into the review's view models: the overview's counts and charts, the claims with
their evidence, and the red-team and mutation figures (the task corpus is `corpus`, the history
`history`).

Reads only: `claims.json`, `reports/verification.json`, `manifest.json`, `spec.json`,
`reports/mutation.json` when present and a red-team result when given. Pictures found here (a
UI claim's screenshot) are returned as site path → source file, for the builder to copy.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from factory.review.charts import count_chart, percent, rate_chart
from factory.review.errors import ReviewError
from factory.review.model import Bar, ClaimView, Count, Figure, RequestView, RowChange, TableDiff, TaskView
from factory.world.layout import CLAIMS, MUTATION, VERIFICATION, World

MAX_BODY = 4000  # characters of a response body shown; the JSON report has the rest
_WORKFLOW = re.compile(r"^workflows\[(?P<name>[^\]]+)\]")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")

Files = dict[str, Path]  # site path → source file


def anchor(prefix: str, key: str, taken: set[str]) -> str:
    """An HTML id for `key`: its safe characters, made unique among `taken` (which it joins)."""
    base = f"{prefix}-{_UNSAFE.sub('-', key).strip('-')}"
    found, n = base, 1
    while found in taken:
        n += 1
        found = f"{base}-{n}"
    taken.add(found)
    return found


def _read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ReviewError(f"{path}: cannot read {what}: {exc}") from exc


def _text(value: Any, limit: int = MAX_BODY) -> str:
    text = value if isinstance(value, str) else json.dumps(value, indent=1, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit} more characters in the report)"


def _cell(value: Any) -> str:
    return "NULL" if value is None else str(value)


def _diff(raw: dict[str, Any] | None) -> list[TableDiff]:
    """A row-level database diff (`verifiers` JSON form) as tables of changed rows."""
    out: list[TableDiff] = []
    for name, t in sorted(((raw or {}).get("tables") or {}).items()):
        columns = [str(c) for c in t.get("columns", [])]
        keys = [str(c) for c in t.get("key_columns", [])]

        def key_of(row: dict[str, Any], keys: list[str] = keys) -> str:
            return ", ".join(f"{k}={_cell(row.get(k))}" for k in keys)

        rows = [RowChange(change="inserted", key=key_of(r), columns=columns, before=None,
                          after=[_cell(r.get(c)) for c in columns]) for r in t.get("inserted", [])]
        rows += [RowChange(change="deleted", key=key_of(r), columns=columns, after=None,
                           before=[_cell(r.get(c)) for c in columns]) for r in t.get("deleted", [])]
        rows += [RowChange(change="updated", key=", ".join(map(_cell, u.get("key", []))), columns=columns,
                           before=[_cell(u["before"].get(c)) for c in columns],
                           after=[_cell(u["after"].get(c)) for c in columns], changed=list(u.get("changed", [])))
                 for u in t.get("updated", [])]
        out.append(TableDiff(table=name, schema_change=str(t.get("schema", "same")), rows=rows))
    return out


def read_claims(world: World) -> tuple[list[ClaimView], Files]:
    """Every claim in `claims.json` order with its result, and the screenshots its evidence names."""
    if not (world.root / CLAIMS).is_file():
        return [], {}
    claims = _read_json(world.root / CLAIMS, "the claims")
    report = _read_json(world.root / VERIFICATION, "the verification report") if (world.root / VERIFICATION).is_file() else {}
    results = {r["id"]: r for r in report.get("results", [])}
    taken: set[str] = set()
    files: Files = {}
    views: list[ClaimView] = []
    for c in claims.get("claims", []):
        r = results.get(c["id"])
        ev = (r or {}).get("evidence") or {}
        shot = None
        if ev.get("screenshot"):
            source = world.root / str(ev["screenshot"])
            if source.is_file():
                shot = f"evidence/{source.name}"
                files[shot] = source
        outcome = "not-run" if r is None else "passed" if r["passed"] else "failed"
        views.append(ClaimView(
            id=c["id"], anchor=anchor("claim", c["id"], taken), layer=c["layer"], kind=c["kind"],
            description=c.get("description", ""), provenance=c.get("provenance", ""), outcome=outcome,
            message=(r or {}).get("message", "not checked in the last verification"),
            getter=_text(c.get("getter")), predicate=_text(c.get("predicate")),
            requests=[RequestView(method=q["method"], path=q["path"], user=q.get("user"), status=int(q["status"]),
                                  body=_text(q.get("body"))) for q in ev.get("requests", [])],
            sql_rows=None if ev.get("sql_rows") is None else [[_cell(v) for v in row] for row in ev["sql_rows"]],
            diff=_diff(ev.get("db_diff")), screenshot=shot, console_errors=list(ev.get("console_errors", [])),
            server_log=list(ev.get("server_log", [])), error=ev.get("error")))
    return views, files


def _rates(items: list[tuple[str, bool]]) -> list[Bar]:
    """One bar per key, in key order: how many of its items passed."""
    passed: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for key, ok in items:
        total[key] += 1
        passed[key] += ok
    return [Bar(label=k, value=passed[k], total=total[k]) for k in sorted(total)]


def _counts(keys: list[str]) -> list[Bar]:
    found = Counter(keys)
    return [Bar(label=k, value=found[k]) for k in sorted(found)]


def overview(world: World, claims: list[ClaimView], tasks: list[TaskView],
             rounds: list[Bar]) -> tuple[list[Count], dict[str, str]]:
    """The counts at the top of the site and its charts (name → SVG)."""
    spec, m = world.spec, world.manifest
    checked = [c for c in claims if c.outcome != "not-run"]
    passed = sum(c.outcome == "passed" for c in checked)
    by_type = Counter(t.task_type for t in tasks)
    by_split = Counter(t.split for t in tasks)
    counts = [
        Count(label="entities", value=str(m.entities)),
        Count(label="rows in the seed database", value=f"{sum(m.counts.values()):,}"),
        Count(label="users", value=str(m.users)),
        Count(label="workflows", value=str(m.workflows)),
        Count(label="routes", value=str(m.routes)),
        Count(label="pages", value=str(m.pages)),
        Count(label="claims", value=f"{passed}/{len(checked)} passed" + (f" ({percent(passed / len(checked))})"
                                                                         if checked else "") +
              (f", {len(claims) - len(checked)} not run" if len(claims) > len(checked) else "")),
        Count(label="tasks", value=f"{m.tasks.accepted}/{m.tasks.drafted} accepted" if m.tasks.drafted else "none"),
        Count(label="tasks by type", value=", ".join(f"{by_type[k]} {k}" for k in sorted(by_type)) or "none"),
        Count(label="tasks by split", value=", ".join(f"{by_split[k]} {k}" for k in sorted(by_split)) or "none"),
        Count(label="spec sha256", value=m.spec_sha256[:16]),
    ]
    workflow_names = {w.name for w in spec.workflows}
    by_workflow = [(match["name"], c.outcome == "passed") for c in checked
                   if (match := _WORKFLOW.match(c.provenance)) and match["name"] in workflow_names]
    gates = [(g.name.split(":")[0], g.passed) for t in tasks for g in [*t.gates, *t.counterfactuals]]
    charts = {
        "rounds": rate_chart("claims passed per verification round", rounds),
        "layers": rate_chart("claims passed per layer", _rates([(c.layer, c.outcome == "passed") for c in checked])),
        "workflows": rate_chart("claims passed per workflow", _rates(by_workflow)),
        "task_workflows": rate_chart("tasks whose every gate passed, per workflow",
                                     _rates([(w, all(g.passed for g in [*t.gates, *t.counterfactuals]))
                                             for t in tasks for w in t.workflow.split()])),
        "gates": rate_chart("task gates passed, per gate", _rates(gates)),
        "task_types": count_chart("tasks by type and split", _counts([f"{t.task_type} · {t.split}" for t in tasks])),
        "difficulty": count_chart("tasks by difficulty", _counts([t.difficulty for t in tasks])),
    }
    return counts, charts


def mutation_figure(world: World) -> Figure | None:
    """The fault suite's kill and repair rates (`reports/mutation.json`), when the world has run one."""
    path = world.root / MUTATION
    if not path.is_file():
        return None
    data = _read_json(path, "the mutation report")
    rows = [[kind, str(s.get("layer", "")), str(s.get("faults", 0)), str(s.get("killed", 0)),
             "—" if s.get("repaired") is None else str(s["repaired"])] for kind, s in data.get("by_kind", {}).items()]
    layers = [Bar(label=f"{layer} killed", value=int(s.get("killed", 0)), total=int(s.get("faults", 0)))
              for layer, s in data.get("by_layer", {}).items()]
    layers += [Bar(label=f"{layer} repaired", value=int(s["repaired"]), total=int(s.get("killed", 0)))
               for layer, s in data.get("by_layer", {}).items() if s.get("repaired") is not None]
    repair = data.get("repair_rate")
    summary = (f"{data.get('suite', '?')} suite: {len(data.get('faults', []))} faults, kill rate "
               f"{percent(float(data.get('kill_rate', 0)))}, repair rate "
               f"{'not tried' if repair is None else percent(float(repair))}")
    return Figure(title="Mutation (seeded faults)", summary=summary, columns=["kind", "layer", "faults", "killed", "repaired"],
                  rows=rows, chart=rate_chart("faults killed and repaired, per layer", layers))


def redteam_figure(path: Path | None) -> Figure | None:
    """The red team's probes per kind, from a `factory redteam WORLD --json FILE` result."""
    if path is None:
        return None
    data = _read_json(path, "the red-team result")
    if not isinstance(data, dict) or "counts" not in data:
        raise ReviewError(f"{path}: not a red-team result (`factory redteam WORLD --json FILE` writes one)")
    rows = [[str(c["kind"]), str(c["probes"]), str(c["graded_0"]), str(c["false_positives"]), str(c["errors"]),
             str(c["equivalent"]), str(c["not_applicable"])] for c in data["counts"]]
    false = int(data.get("false_positive_count", 0))
    summary = (f"{data.get('probes', 0)} probes over {data.get('tasks', 0)} tasks (seed {data.get('seed')}): "
               f"{false} false positive{'' if false == 1 else 's'}")
    bars = [Bar(label=str(c["kind"]), value=int(c["graded_0"]), total=int(c["probes"])) for c in data["counts"]]
    return Figure(title="Red team (adversarial final states and answers)", summary=summary,
                  columns=["probe kind", "probes", "graded 0", "graded 1 (false positive)", "errors", "equivalent", "n/a"],
                  rows=rows, chart=rate_chart("probes graded 0, per kind", bars))


OUTCOMES = ["passed", "failed", "not-run"]


def filters(rows: list[dict[str, list[str]]], names: list[str],
            always: dict[str, list[str]] | None = None) -> dict[str, list[str]]:
    """The options of each filter: every value the rows carry, sorted, after those it `always` offers."""
    fixed = always or {}
    return {name: [*fixed.get(name, []), *sorted({v for row in rows for v in row[name]} - set(fixed.get(name, [])))]
            for name in names}


__all__ = ["OUTCOMES", "Files", "anchor", "filters", "mutation_figure", "overview", "read_claims", "redteam_figure"]
