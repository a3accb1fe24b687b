"""State claims: SQL over the seed database for field rules and references (each query selects the
rows that would be violations), and the seed invariants (evaluated by the factory from the spec's
sources, `factory.claims.invariants`). The plan, counts, totals and the storyline's additions are
data claims (`factory.claims.data`)."""

from __future__ import annotations

from factory.claims.context import ClaimContext
from factory.claims.model import Claim, InvariantGetter, NoRows, SqlGetter


def state_claims(ctx: ClaimContext) -> list[Claim]:
    out: list[Claim] = []
    for e in ctx.spec.entities:
        if e.builtin:
            continue
        t = f'"{e.table}"'
        for f in e.fields:
            c = f'"{f.column}"'
            where = f"entities[{e.name}].fields[{f.name}]"
            checks: list[tuple[str, str, str]] = []
            if f.required:
                checks.append(("required", f"{e.label}.{f.name} is never empty", f"SELECT id FROM {t} WHERE {c} IS NULL"))
            if f.ref:
                target = f'"{ctx.spec.entity(f.ref).table}"'
                checks.append(("reference", f"every {e.label}.{f.name} points at an existing {f.ref}",
                               f"SELECT x.id FROM {t} x LEFT JOIN {target} y ON x.{c} = y.id "
                               f"WHERE x.{c} IS NOT NULL AND y.id IS NULL"))
            if f.values:
                allowed = ", ".join("'" + v.replace("'", "''") + "'" for v in f.values)
                checks.append(("enum", f"{e.label}.{f.name} is one of {', '.join(f.values)}",
                               f"SELECT id FROM {t} WHERE {c} IS NOT NULL AND {c} NOT IN ({allowed})"))
            if f.unique:
                checks.append(("unique", f"{e.label}.{f.name} is unique",
                               f"SELECT {c} FROM {t} WHERE {c} IS NOT NULL GROUP BY {c} HAVING COUNT(*) > 1"))
            scale = 100 if f.type == "money" else 1
            if f.min is not None:
                checks.append(("range_min", f"{e.label}.{f.name} ≥ {f.min}",
                               f"SELECT id FROM {t} WHERE {c} < {round(f.min * scale)}"))
            if f.max is not None:
                checks.append(("range_max", f"{e.label}.{f.name} ≤ {f.max}",
                               f"SELECT id FROM {t} WHERE {c} > {round(f.max * scale)}"))
            if f.max_length is not None:
                checks.append(("max_length", f"{e.label}.{f.name} has at most {f.max_length} characters",
                               f"SELECT id FROM {t} WHERE length({c}) > {f.max_length}"))
            for kind, text, sql in checks:
                out.append(Claim(id=f"state:{kind}:{e.name}.{f.name}", layer="db", kind=f"db_{kind}", description=text,
                                 provenance=where, getter=SqlGetter(query=sql), predicate=NoRows()))
    for inv in ctx.spec.invariants:
        out.append(Claim(id=f"state:invariant:{inv.name}", layer="db", kind="db_invariant",
                         description=f"every {inv.entity}{f' of `{inv.for_each}`' if inv.for_each else ''}: {inv.message} "
                                     f"(`{inv.source}`)", provenance=f"invariants[{inv.name}]",
                         getter=InvariantGetter(name=inv.name), predicate=NoRows()))
    return out
