"""Seed-data plan: deterministic base rows per entity (seeded Faker), before the storyline.

Rows are planned in reference order (a row only points at rows planned before it), owned
rows reference rows of the same owner, and every value respects its field's constraints.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from typing import Any

from faker import Faker

from factory.builder.pools import FILLER_PROVIDERS, TOPICS, kind_of, pick
from factory.errors import BuildError
from factory.seed.loaded import LoadedSeed
from factory.seed.model import EntityDef, FieldDef, Seed
from factory.spec.labels import value_label
from factory.spec.model import PlanTable, SeedPlan

_NAME_HINTS = [  # (pattern over the field name, faker provider) for strings without a gen rule
    (r"first_name", "first_name"), (r"last_name", "last_name"), (r"(^|_)name$", "name"),
    (r"city", "city"), (r"country", "country"), (r"street|address", "street_address"), (r"phone", "phone_number"),
    (r"company|merchant|payee|employer", "company"),
    (r"zip|postal", "postcode"), (r"url|website", "url"), (r"last4|last_four", "__last4"),
]



def plan_users(seed: Seed) -> list[dict[str, Any]]:
    """Hand-written personas first, then `generate` Faker users with unique usernames."""
    fake = Faker("en_US")
    fake.seed_instance(seed.random_seed)
    users: list[dict[str, Any]] = []
    taken: set[str] = set()
    domain = f"{seed.world.replace('_', '-')}.example"
    default = seed.users.roles[0] if seed.users.roles else ""  # a generated user holds the first role
    for u in seed.users.accounts:
        taken.add(u.username)
        users.append({"id": len(users) + 1, "username": u.username, "name": u.name,
                      "email": u.email or f"{u.username}@{domain}", "password": u.password or f"{u.username}-pass",
                      "persona": u.persona or "", "role": u.role or default})
    while len(users) < len(seed.users.accounts) + seed.users.generate:
        first, last = fake.first_name(), fake.last_name()
        username = re.sub(r"[^a-z0-9_]", "", f"{first}_{last}".lower())
        if username in taken or not username[:1].isalpha():
            continue
        taken.add(username)
        users.append({"id": len(users) + 1, "username": username, "name": f"{first} {last}",
                      "email": f"{username}@{domain}", "password": f"{username}-pass", "persona": "",
                      "role": default})
    return users


def plan_seed_data(seed: Seed, users: list[dict[str, Any]], loaded: LoadedSeed) -> SeedPlan:
    """Every entity's base rows, with ids, in insertion order."""
    planner = _Planner(seed, users, loaded)
    for entity in _reference_order(seed.entities):
        planner.plan(entity)
    return SeedPlan(tables=[PlanTable(entity=name, rows=rows) for name, rows in planner.rows.items()])  # parents first


def _reference_order(entities: list[EntityDef]) -> list[EntityDef]:
    """Entities ordered so that required references point backwards (the seed has no cycles)."""
    by_name = {e.name: e for e in entities}
    done: list[str] = []

    def visit(e: EntityDef, stack: set[str]) -> None:
        if e.name in done or e.name in stack:
            return
        for f in e.fields:
            if f.type == "reference" and f.to in by_name and f.to != e.name:
                visit(by_name[f.to], stack | {e.name})
        done.append(e.name)

    for e in entities:
        visit(e, set())
    return [by_name[n] for n in done]


def _stage(field: FieldDef) -> int:
    """Generation order: plain values, then copies from referenced rows, then templates."""
    if field.gen is not None and field.gen.copy_from is not None:
        return 1
    if field.gen is not None and field.gen.template is not None:
        return 2
    return 0


class _Planner:
    def __init__(self, seed: Seed, users: list[dict[str, Any]], loaded: LoadedSeed) -> None:
        self.seed, self.users, self.loaded = seed, users, loaded
        self.today = seed.today
        self.rows: dict[str, list[dict[str, Any]]] = {}
        self.entities = {e.name: e for e in seed.entities}
        self.fake = Faker("en_US")
        self.fake.seed_instance(seed.random_seed + 1)
        self.rng = random.Random(seed.random_seed)
        self.usernames = {u["username"]: u["id"] for u in users}
        self.phones: set[str] = set()
        self.used: dict[tuple[str, str, int | None], set[str]] = {}  # pool phrases each owner's rows already hold

    def plan(self, entity: EntityDef) -> None:
        rows: list[dict[str, Any]] = []
        self.rows[entity.name] = rows
        ei = self.seed.entities.index(entity)
        for ri, explicit in enumerate(entity.seed.rows):
            owner = None
            rows.append(self._row(entity, len(rows) + 1, owner, 0, explicit, ("entities", ei, "seed", "rows", ri)))
        rule = entity.seed
        if rule.per_user is not None:
            for user in self.users:
                count = (rule.per_user if rule.per_user_max is None
                         else self.rng.randint(rule.per_user, max(rule.per_user, rule.per_user_max)))
                for i in range(count):
                    rows.append(self._row(entity, len(rows) + 1, user["id"], i, {}, ("entities", ei, "seed")))
        for i in range(rule.count or 0):
            rows.append(self._row(entity, len(rows) + 1, None, i, {}, ("entities", ei, "seed")))

    def _row(self, entity: EntityDef, row_id: int, owner: int | None, index: int, explicit: dict[str, Any],
             path: tuple) -> dict[str, Any]:
        row: dict[str, Any] = {"id": row_id}
        context: dict[str, Any] = {"n": row_id, "i": index + 1}
        unknown = set(explicit) - {f.name for f in entity.fields}
        if unknown:
            raise self.loaded.error(path, f"explicit row names unknown field(s): {', '.join(sorted(unknown))}")
        main_owner = entity.owner[0] if entity.owner else None
        # Copies and templates read other fields, so they come last (templates after copies); the owner comes first,
        # since same-owner references and `{owner_first}` templates depend on it.
        order = sorted(entity.fields, key=lambda f: (_stage(f), f.name != main_owner))
        values: dict[str, Any] = {}
        for field in order:
            column = f"{field.name}_id" if field.type == "reference" else field.name
            if field.name in explicit:
                value = self._explicit(field, explicit[field.name], path + (field.name,))
            elif explicit and field.type == "reference" and not field.required:
                value = None  # a row written out by hand keeps what it leaves out empty, never a random row
            elif owner is not None and field.name == main_owner:
                value = owner
            else:
                value = self._generate(entity, field, row, context, owner)
            if field.name == main_owner and value is not None:
                owner = value
                user = self.users[owner - 1]
                context["owner_first"], context["owner_last"] = user["name"].split(" ")[0], user["name"].split(" ")[-1]
            row[column] = value
            values[column] = value
            context[field.name] = value
        # columns in declaration order, so the plan reads like the seed
        columns = [f"{f.name}_id" if f.type == "reference" else f.name for f in entity.fields]
        return {"id": row_id, **{column: values[column] for column in columns}}

    def _explicit(self, field: FieldDef, value: Any, path: tuple) -> Any:
        if field.type == "reference" and value is not None:
            return self._referenced(field, value, path)
        if field.type == "money" and value is not None:
            return round(float(value) * 100)
        return value

    def _generate(self, entity: EntityDef, field: FieldDef, row: dict[str, Any], context: dict[str, Any],
                  owner: int | None) -> Any:
        gen = field.gen
        if gen is not None and gen.null_rate and not field.required and self.rng.random() < gen.null_rate:
            return None
        if gen is not None and gen.copy_from:
            ref_name, _, attr = gen.copy_from.partition(".")
            ref_field = next((f for f in entity.fields if f.name == ref_name and f.type == "reference"), None)
            target = row.get(f"{ref_name}_id")
            if ref_field is None or target is None:
                return None
            source = self.rows.get(ref_field.to or "", []) if ref_field.to != "user" else self.users
            found = source[target - 1]
            return found.get(attr, found.get(f"{attr}_id"))
        if field.type == "reference":
            return self._reference(field, owner)
        if gen is not None and gen.choices is not None:
            return self._money(self.rng.choices(gen.choices, weights=gen.weights)[0], field)
        if gen is not None and gen.template is not None:
            if "{word}" in gen.template:  # a topic a person names things by ("Travel notes"), not a lorem word
                used = self.used.setdefault((entity.name, "{word}", owner), set())
                fresh = [w for w in TOPICS if w not in used] or list(TOPICS)
                context["word"] = self.fake.random_element(fresh)
                used.add(context["word"])
            try:
                return gen.template.format(**context)
            except (KeyError, IndexError, ValueError) as exc:
                ei = self.seed.entities.index(entity)
                raise self.loaded.error(("entities", ei, "fields", entity.fields.index(field), "gen", "template"),
                                        f"template {gen.template!r} cannot be filled ({exc!r}); it may use the row's "
                                        "fields, n, i, word, owner_first, owner_last") from exc
        if field.default is not None and gen is None:
            return self._money(field.default, field)
        return self._by_type(entity, field, gen, owner)

    def _referenced(self, field: FieldDef, value: Any, path: tuple) -> int:
        """The id an explicit row's reference names: a user by username or full name, any other
        row by id, display label or a unique field's value; one row exactly, or a SeedError that
        says what matched."""
        target = self.entities.get(field.to or "")
        rows = self.users if target is None else self.rows.get(target.name, [])

        def labels(r: dict[str, Any]) -> set[str]:
            if target is None:  # a user
                return {r["username"], r["name"]}
            keys = [f.name for f in target.fields if f.unique or f.name == target.display]
            # a row labelled by its user ("{member}") is also named by that user's username
            users = [self.users[r[f"{f.name}_id"] - 1]["username"] for f in target.fields
                     if f.type == "reference" and f.to == "user" and "{" + f.name + "}" in target.display
                     and r.get(f"{f.name}_id") is not None]
            return {self._label(target, r), *users, *(str(r[k]) for k in keys if r.get(k) is not None)}
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise self.loaded.error(path, f"a reference to {field.to} is an id or a label, not {value!r}")
        if isinstance(value, int):
            if not 1 <= value <= len(rows):
                raise self.loaded.error(path, f"no {field.to} has id {value} (the seed makes {len(rows)} "
                                              f"{field.to} row(s) before this one; ids start at 1)")
            return value
        want = value.casefold()  # "visa card ··4599" names the row the app labels "Visa card ··4599"
        found = [r["id"] for r in rows if want in {text.casefold() for text in labels(r)}]
        if len(found) != 1:
            what = (f"no {field.to} row is" if not found
                    else f"{len(found)} {field.to} rows (ids {', '.join(map(str, found[:5]))}) are")
            raise self.loaded.error(path, f"{what} labelled {value!r}; name one row by its label, a unique "
                                          "field's value or its id")
        return int(found[0])

    def _label(self, entity: EntityDef, row: dict[str, Any]) -> str:
        """A planned row's display label: its display field, or its display template filled with
        its values (a reference by its row's label, a user by name)."""
        if "{" not in entity.display:
            shown = next((f for f in entity.fields if f.name == entity.display), None)
            return value_label(shown.type if shown is not None else None, row.get(entity.display, ""))
        values: dict[str, Any] = {}
        for f in entity.fields:
            if f.type != "reference":
                values[f.name] = value_label(f.type, row.get(f.name))  # as the app writes it ($12.50, not 1250)
                continue
            ref = row.get(f"{f.name}_id")
            if ref is None:
                values[f.name] = ""
            elif f.to == "user":
                values[f.name] = self.users[ref - 1]["name"]
            else:
                values[f.name] = self._label(self.entities[f.to or ""], self.rows[f.to or ""][ref - 1])
        try:
            return entity.display.format(**values)
        except (KeyError, IndexError, ValueError):
            return ""

    def _money(self, value: Any, field: FieldDef) -> Any:
        return round(float(value) * 100) if field.type == "money" and value is not None else value

    def _reference(self, field: FieldDef, owner: int | None) -> int | None:
        if field.to == "user":
            choices = [u["id"] for u in self.users if u["id"] != owner]
            return self.rng.choice(choices) if choices else None
        candidates = self.rows.get(field.to or "", [])
        target = self.entities[field.to or ""]
        same_owner = field.gen.same_owner if field.gen else True
        if same_owner and owner is not None and target.owner:
            candidates = [r for r in candidates if r.get(f"{target.owner[0]}_id") == owner]
        if not candidates:
            if field.required:
                raise BuildError(f"{self.loaded.file}: cannot fill required reference {field.name!r} to {field.to}: "
                                 "no suitable rows (give the target entity seed rows for every owner)")
            return None
        return self.rng.choice(candidates)["id"]

    def _by_type(self, entity: EntityDef, field: FieldDef, gen: Any, owner: int | None) -> Any:
        lo = gen.min if gen and gen.min is not None else field.min
        hi = gen.max if gen and gen.max is not None else field.max
        kind = field.type
        if kind == "int":
            return self.rng.randint(int(lo if lo is not None else 0), int(hi if hi is not None else 100))
        if kind == "money":
            return self.rng.randint(round((lo if lo is not None else 1) * 100), round((hi if hi is not None else 500) * 100))
        if kind in ("date", "datetime"):
            start = gen.days_from if gen and gen.days_from is not None else -365
            end = gen.days_to if gen and gen.days_to is not None else 0
            day = self.today + dt.timedelta(days=self.rng.randint(start, end))
            if kind == "date":
                return day.isoformat()
            return f"{day.isoformat()}T{self.rng.randint(7, 21):02d}:{self.rng.choice([0, 15, 30, 45]):02d}:00"
        if kind == "enum":
            return self.rng.choice(field.values or [""])
        if kind == "bool":
            return self.rng.random() < 0.5
        if kind == "email":
            return self.fake.unique.email() if not (gen and gen.faker) else str(getattr(self.fake.unique, gen.faker)())
        filler = not (gen and gen.faker) or gen.faker in FILLER_PROVIDERS
        pool_kind = kind_of(entity.name, field.name) if filler else None
        if kind == "text" and filler and pool_kind is None:  # free text no pool names: still what a person writes
            pool_kind = "note"
        if (gen and gen.pool) or pool_kind is not None:  # free text a person would write, not lorem filler
            used = self.used.setdefault((entity.name, field.name, owner), set())
            value = pick(pool_kind, self.rng, gen.pool if gen else None, field.max_length, used,
                         about=f"{entity.name}.{field.name}")
            used.add(value)
            return value
        provider = gen.faker if gen and gen.faker else self._hint(field.name)
        if provider == "__last4":
            return f"{self.rng.randint(0, 9999):04d}"
        if provider == "phone_number":  # contact data: a plain US number, one per row, never another row's
            while True:
                phone = f"({self.rng.randint(201, 989)}) {self.rng.randint(201, 989)}-{self.rng.randint(0, 9999):04d}"
                if phone not in self.phones:
                    self.phones.add(phone)
                    return phone
        value = str(getattr(self.fake, provider)())
        if provider == "sentence":
            value = value.rstrip(".")
        if field.max_length:
            value = value[: field.max_length].rstrip()
        return value

    def _hint(self, name: str) -> str:
        for pattern, provider in _NAME_HINTS:
            if re.search(pattern, name):
                return provider
        return "word"
