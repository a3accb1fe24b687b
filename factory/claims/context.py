"""What every claim generator shares: the spec, the seed database's rows, the witnesses and the
oracle that found them, and the users claims are made as (a viewer per entity, an owner and a stranger for ownership)."""

from __future__ import annotations

import sqlite3
from typing import Any

from factory.claims.model import Claim, HttpGetter, HttpStep
from factory.claims.oracle import Oracle
from factory.claims.search import Witness
from factory.claims.witness import SeedRows
from factory.spec.model import EntitySpec, Spec, WorkflowSpec
from factory.spec.roles import may_run, sees


class ClaimContext:
    """The read-only world a claim generator looks at while compiling."""

    def __init__(self, spec: Spec, rows: SeedRows, witnesses: dict[str, Witness], oracle: Oracle) -> None:
        self.spec, self.rows, self.witnesses, self.oracle = spec, rows, witnesses, oracle
        self.user = spec.users[0]
        self.other = spec.users[1] if len(spec.users) > 1 else spec.users[0]
        self.usernames = {u.id: u.username for u in spec.users}
        self.unwitnessed: list[str] = []

    # ---- routes ---------------------------------------------------------------------------

    @staticmethod
    def ordered_ids(rows: list[sqlite3.Row], sort: str) -> list[int]:
        """Row ids in the app's order: the sort column (NULLs first ascending, as SQLite), then id."""
        column, descending = sort.lstrip("-"), sort.startswith("-")

        def key(row: sqlite3.Row) -> tuple[int, Any]:
            value = row[column]
            return (0, 0) if value is None else (1, value)

        ordered = sorted(rows, key=lambda r: r["id"])
        ordered = sorted(ordered, key=key, reverse=descending)
        if descending:  # ties keep ascending ids, as the app's secondary order does
            groups: dict[Any, list[sqlite3.Row]] = {}
            for r in ordered:
                groups.setdefault(key(r), []).append(r)
            ordered = [r for k in sorted(groups, reverse=True) for r in sorted(groups[k], key=lambda r: r["id"])]
        return [r["id"] for r in ordered]

    def viewer(self, entity: str | None) -> Any:
        """The first user (personas first) who sees rows of `entity`: hosts see their listings'
        blocks, guests their trips; claims about an entity's pages are made as such a user."""
        if entity is None:
            return self.user
        e = self.spec.entity(entity)
        fallback = next((u for u in self.spec.users if sees(self.spec, e, u.id)), self.user)  # a role that sees it
        return next((u for u in self.spec.users if self.rows.visible_ids(e.name, u.id, limit=1)), fallback)

    def runner(self, workflow: WorkflowSpec) -> Any:
        """The first user (personas first) whose role may run `workflow` (everyone in a world
        without roles): claims that expect the call to get past the role check are made as them."""
        return next((u for u in self.spec.users if may_run(self.spec, workflow, u.id)), self.user)

    def concrete(self, path: str, entity: str | None) -> str | None:
        """Fill path parameters with values that exist for the entity's viewer."""
        if "{id}" in path:
            e = self.spec.entity(entity or "")
            rid = self.row_of(e, self.viewer(entity).id)
            if rid is None:
                return None
            path = path.replace("{id}", str(rid))
        if "{field}" in path:
            e = self.spec.entity(entity or "")
            if not e.filters:
                return None
            path = path.replace("{field}", e.filters[0].field)
        return path

    def row_of(self, e: EntitySpec, user: int, exclude_user: int | None = None) -> int | None:
        visible = self.rows.visible_ids(e.name, user, limit=200)
        if exclude_user is not None:
            hidden = set(self.rows.visible_ids(e.name, exclude_user, limit=10**6))
            visible = [i for i in visible if i not in hidden]
        return visible[0] if visible else None

    def http(self, cid: str, kind: str, where: str, text: str, steps: list[HttpStep], predicate: Any,
              fresh: bool = False, plant: list[str] | None = None) -> Claim:
        return Claim(id=cid, layer="backend", kind=kind, description=text, provenance=where,
                     getter=HttpGetter(steps=steps, fresh_db=fresh, plant=list(plant or [])), predicate=predicate)

    def visible_rows(self, e: EntitySpec, user: int) -> list[sqlite3.Row]:
        ids = self.rows.visible_ids(e.name, user, limit=10**6)
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        return list(self.rows.conn.execute(f'SELECT * FROM "{e.table}" WHERE id IN ({marks}) ORDER BY id', ids))
