"""The home page's panels: what a seed's `home` asks for, resolved into list queries the app answers.

A panel is a few of the user's rows of one entity with one value each (accounts with their
balances, bills due with their amounts, the latest transactions), fetched through the entity's own
list API, so it shows exactly what the list page would with the same filters and sort. Filters
are named by field, as the seed names them; a value is said as the seed says values (money in
major units, dates ISO or `today`). A seed without `home` gets the latest rows of its first
entity listed newest first, with an amount or their date.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from factory.seed.loaded import LoadedSeed
from factory.seed.model import HomePanel
from factory.spec.model import EntitySpec, FilterSpec, HomePanelSpec

DEFAULT_ROWS = 5


def _scalar(value: Any, type_: str, today: str) -> str:
    """One filter value as the list API's query string takes it."""
    if value == "today" and type_ in ("date", "datetime"):
        return today
    if isinstance(value, bool):
        return "true" if value else "false"
    if type_ == "money" and isinstance(value, int | float):
        return str(round(value * 100))  # the API holds money in cents
    if isinstance(value, dt.date):
        return value.isoformat()
    return str(value)


def _query(loaded: LoadedSeed, where: tuple[Any, ...], panel: HomePanel, entity: EntitySpec) -> dict[str, str]:
    today = loaded.seed.today.isoformat()
    query: dict[str, str] = {}
    for name, value in panel.where.items():
        flt: FilterSpec | None = next((f for f in entity.filters if f.field == name), None)
        if flt is None:
            offered = ", ".join(f.field for f in entity.filters) or "none"
            raise loaded.error(where + ("where", name), f"{entity.name} has no list filter on {name!r} (filters: {offered})")
        type_ = entity.field_named(name).type
        if flt.kind in ("range", "date_range"):
            if not isinstance(value, dict) or not value or set(value) - {"min", "max"}:
                raise loaded.error(where + ("where", name), "a range filter takes {min: …, max: …} (either may be left out)")
            for end in ("min", "max"):
                if end in value:
                    query[f"{flt.param}_{end}"] = _scalar(value[end], type_, today)
        else:
            if isinstance(value, dict | list):
                raise loaded.error(where + ("where", name), f"the {name} filter takes one value")
            query[flt.param] = _scalar(value, type_, today)
    return query


def _panel(loaded: LoadedSeed, index: int, panel: HomePanel, entities: dict[str, EntitySpec]) -> HomePanelSpec:
    where: tuple[Any, ...] = ("home", index)
    entity = entities.get(panel.entity)
    if entity is None or entity.builtin or "list" not in entity.operations:
        listed = ", ".join(n for n, e in entities.items() if not e.builtin and "list" in e.operations)
        raise loaded.error(where + ("entity",), f"{panel.entity!r} is not a listed entity ({listed})")
    fields = {f.name: f for f in entity.fields}
    if panel.show is not None and panel.show not in fields:
        raise loaded.error(where + ("show",), f"{entity.name} has no field {panel.show!r}")
    if panel.total and (panel.show is None or fields[panel.show].type != "money"):
        raise loaded.error(where + ("total",), "a total adds up a money field: set `show` to one")
    if panel.sort is not None and panel.sort.lstrip("-") not in entity.sort_fields:
        raise loaded.error(where + ("sort",), f"{entity.name} lists sort by {', '.join(entity.sort_fields)}, "
                                              f"not {panel.sort.lstrip('-')!r}")
    return HomePanelSpec(title=panel.title, entity=entity.name, show=panel.show,
                         query=_query(loaded, where, panel, entity), sort=panel.sort, limit=panel.limit,
                         total=panel.total)


def _default(entities: list[EntitySpec]) -> list[HomePanelSpec]:
    """The latest rows of the first entity a list shows newest first, with its first amount."""
    for entity in entities:
        if entity.builtin or not entity.nav or "list" not in entity.operations:
            continue
        sort = entity.default_sort
        field = next((f for f in entity.fields if f.name == sort.lstrip("-")), None)
        if sort.startswith("-") and field is not None and field.type in ("date", "datetime"):
            money = next((f.name for f in entity.fields if f.type == "money" and f.in_list), None)
            return [HomePanelSpec(title=f"Latest {entity.plural.lower()}", entity=entity.name, show=money or field.name,
                                  sort=sort, limit=DEFAULT_ROWS)]
    return []


def plan_home(loaded: LoadedSeed, entities: list[EntitySpec]) -> list[HomePanelSpec]:
    """The home page's panels, from the seed's `home` or drawn from the entities."""
    if loaded.seed.home is None:
        return _default(entities)
    by_name = {e.name: e for e in entities}
    return [_panel(loaded, i, panel, by_name) for i, panel in enumerate(loaded.seed.home)]
