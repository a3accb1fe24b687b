"""Structural checks of computed fields, currencies and parameter lookups (their expressions are
type-checked by the builder): what each may be combined with, each problem a located SeedError."""

from __future__ import annotations

import re

from factory.seed.loaded import LoadedSeed
from factory.seed.model import EntityDef, FieldDef
from factory.spec.labels import CURRENCIES

_TEMPLATE_FIELD = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
# keys that describe a stored value: a computed field has none of them
_STORED_ONLY = ("unique", "default", "gen", "filter", "filter_parent", "filter_group", "searchable", "min", "max",
                "max_length")


def check_derived(loaded: LoadedSeed) -> None:
    """Raise the first problem of a computed field, a currency or a lookup as a located SeedError."""
    seed = loaded.seed
    for ei, entity in enumerate(seed.entities):
        for fi, field in enumerate(entity.fields):
            path = ("entities", ei, "fields", fi)
            if field.compute is not None:
                _check_computed(loaded, path, entity, field)
            _check_currency(loaded, path, entity, field)
        _check_uses(loaded, ei, entity)
    for wi, wf in enumerate(seed.workflows):
        for pi, param in enumerate(wf.params):
            where = ("workflows", wi, "params", pi)
            if param.currency is not None and param.type != "money":
                raise loaded.error(where + ("currency",), f"`currency` applies to money parameters, not {param.type}")
            if param.currency is not None and param.currency not in CURRENCIES:
                raise loaded.error(where + ("currency",), f"unknown currency {param.currency!r} "
                                                         f"(known: {', '.join(sorted(CURRENCIES))})")
            if param.lookup is None:
                continue
            if param.type != "reference":
                raise loaded.error(where + ("lookup",), "`lookup` only applies to reference parameters")
            if param.default is not None:
                raise loaded.error(where + ("lookup",), "give a parameter a `default` or a `lookup`, not both")
    for hi, panel in enumerate(seed.home or []):
        shown = next((e for e in seed.entities if e.name == panel.entity), None)
        computed = {f.name for f in shown.fields if f.compute is not None} if shown else set()
        for key, name in (("show", panel.show), ("sort", (panel.sort or "").lstrip("-") or None)):
            if name in computed:
                raise loaded.error(("home", hi, key), f"{panel.entity}.{name} is computed: a panel lists stored fields")


def _check_computed(loaded: LoadedSeed, path: tuple, entity: EntityDef, field: FieldDef) -> None:
    if field.type == "reference":
        raise loaded.error(path + ("compute",), "a computed field cannot be a reference; compute a count, an amount, "
                                                "a date or a text")
    given = field.model_fields_set
    for key in _STORED_ONLY:
        if key in given:
            raise loaded.error(path + (key,), f"`{key}` does not apply to a computed field (it is worked out on every "
                                              "read, never stored, filtered or searched)")


def _check_currency(loaded: LoadedSeed, path: tuple, entity: EntityDef, field: FieldDef) -> None:
    if field.currency is None and field.currency_field is None:
        return
    key = "currency" if field.currency is not None else "currency_field"
    if field.type != "money":
        raise loaded.error(path + (key,), f"`{key}` applies to money fields, not {field.type}")
    if field.currency is not None and field.currency_field is not None:
        raise loaded.error(path + ("currency_field",), "give a money field a `currency` or a `currency_field`, not both")
    known = ", ".join(sorted(CURRENCIES))
    if field.currency is not None and field.currency not in CURRENCIES:
        raise loaded.error(path + ("currency",), f"unknown currency {field.currency!r} (known: {known})")
    if field.currency_field is not None:
        other = next((f for f in entity.fields if f.name == field.currency_field), None)
        if other is None or other.type != "enum" or other.compute is not None:
            raise loaded.error(path + ("currency_field",), f"{field.currency_field!r} is not a stored enum field of "
                                                           f"{entity.name}")
        wrong = [v for v in other.values or [] if v not in CURRENCIES]
        if wrong:
            raise loaded.error(path + ("currency_field",), f"{entity.name}.{other.name} holds {wrong[0]!r}, which is "
                                                           f"not a currency code (known: {known})")


def _check_uses(loaded: LoadedSeed, ei: int, entity: EntityDef) -> None:
    """A computed field has no column: a row's label, its list order, its owners and its explicit seed
    rows name stored fields only."""
    computed = {f.name for f in entity.fields if f.compute is not None}
    if not computed:
        return
    base = ("entities", ei)
    shown = _TEMPLATE_FIELD.findall(entity.display) if "{" in entity.display else [entity.display]
    for name in shown:
        if name in computed:
            raise loaded.error(base + ("display",), f"{name!r} is computed: a row's label names stored fields")
    if entity.sort is not None and entity.sort.lstrip("-") in computed:
        raise loaded.error(base + ("sort",), f"{entity.sort.lstrip('-')!r} is computed: lists sort by stored fields")
    for ri, row in enumerate(entity.seed.rows):
        for name in row:
            if name in computed:
                raise loaded.error(base + ("seed", "rows", ri, name), f"{name!r} is computed: the app works it out")


__all__ = ["check_derived"]
