"""A list page as the generated frontend draws it: the filter panel's groups and the table's
columns (which fields, in which order, which come first and which wait for "All columns").

Pure functions of the spec, shared by the frontend's view model (`frontend.view_model`) and by the
claims that check what a list page heads its columns with (`claims/browser.py`).
"""

from __future__ import annotations

from typing import Any

from factory.spec.model import EntitySpec, FieldSpec, FilterSpec


def _filter_keys(flt: FilterSpec) -> list[str]:
    """The query parameters one filter writes."""
    if flt.kind in ("range", "date_range"):
        return [f"{flt.param}_min", f"{flt.param}_max"]
    return [flt.param]


def filters_view(entity: EntitySpec) -> list[dict[str, Any]]:
    """Filters grouped into panel sections (first-seen group order), nested ones knowing their parent."""
    by_field = {f.field: f for f in entity.filters}
    fields = {f.name: f for f in entity.fields}
    api = f"/api/{entity.path.strip('/')}"

    def descendants(name: str, seen: frozenset[str] = frozenset()) -> list[str]:
        keys: list[str] = []
        for child in entity.filters:
            if child.parent == name and child.field not in seen:  # `seen` guards a parent cycle
                keys += _filter_keys(child) + descendants(child.field, seen | {name})
        return keys

    groups: dict[str, list[dict[str, Any]]] = {}
    for flt in entity.filters:
        field = fields.get(flt.field)
        parent = by_field.get(flt.parent) if flt.parent else None
        groups.setdefault(flt.group, []).append({
            "field": flt.field,
            "param": flt.param,
            "label": flt.label,
            "kind": flt.kind,
            "keys": _filter_keys(flt),
            "money": bool(field and field.type == "money"),
            "values": field.values if field else None,
            "parent": flt.parent,
            "parentParam": parent.param if parent else None,
            "resets": sorted(set(descendants(flt.field))),
            "optionsUrl": f"{api}/options/{flt.field}",
        })
    return [{"group": name, "filters": items} for name, items in groups.items()]


# Columns a list shows at first beside its label column; the others come with "All columns" (a
# table of 24 columns fits no screen: the first that do are those a person sorts, filters and
# compares by).
FIRST_COLUMNS = 7


def first_columns(entity: EntitySpec) -> list[FieldSpec]:
    """The columns a list shows before "All columns" is pressed, in field order: up to
    `FIRST_COLUMNS` of `list_columns`, those the list sorts or filters by first, then amounts,
    dates, choices and counts, then references, then text."""
    _lead, shown = list_columns(entity)
    if len(shown) <= FIRST_COLUMNS:
        return shown
    keys = set(entity.sort_fields) | {flt.field for flt in entity.filters}

    def rank(f: FieldSpec) -> int:
        if f.name in keys or f.column in keys:
            return 0
        if f.type in ("money", "date", "datetime", "enum", "bool", "int"):
            return 1
        return 2 if f.type == "reference" else 3

    kept = {f.name for f in sorted(shown, key=rank)[:FIRST_COLUMNS]}  # sorted() is stable: field order breaks ties
    return [f for f in shown if f.name in kept]


def list_columns(entity: EntitySpec) -> tuple[FieldSpec | None, list[FieldSpec]]:
    """What a list page shows: the field heading its label column (its one display field, else
    none: the column is then named after the entity) and the other columns, in field order.

    Two columns never share a header: a text named like a shown reference ("Payee name", "Listing
    title" or "Neighbourhood" beside the "Payee", "Listing" or "Neighbourhood" link), or like the label column it is
    part of, is left to the row's page. In a
    table wider than `FIRST_COLUMNS`, so are columns that say again what another says: a field of
    a label made of several fields ("{description} {posted_on}") unless the list sorts by it, and
    a copy of a shown reference's row ("City", copied from the neighbourhood a listing links to)."""
    fields = {f.name: f for f in entity.fields}
    sortable = set(entity.sort_fields)
    lead = fields.get(entity.display_fields[0]) if len(entity.display_fields) == 1 else None
    shown = [f for f in [*entity.fields, *entity.computed] if f.in_list and f is not lead]
    in_label = set(entity.display_fields) if lead is None else set()
    refs = {f.name: f.label.lower() for f in shown if f.type == "reference"}

    header = (lead.label if lead is not None else entity.label).lower()

    def named_like_a_link(f: FieldSpec) -> bool:
        if f.name in in_label and f.label.lower() == header:  # "Neighbourhood" beside a label column of that name
            return True
        return f.type in ("string", "text") and any(f.label.lower() in (r, f"{r} name", f"{r} title", f"{r} label")
                                                    for r in refs.values())

    def repeats(f: FieldSpec) -> bool:
        if f.name in in_label and f.column not in sortable and f.name not in sortable:
            return True
        return f.copy_of is not None and f.copy_of.split(".")[0] in refs

    shown = [f for f in shown if not named_like_a_link(f)]
    if len(shown) > FIRST_COLUMNS:
        shown = [f for f in shown if not repeats(f)]
    return lead, shown


def columns_view(entity: EntitySpec) -> dict[str, Any]:
    """The label column (links to the row) plus the other list columns, each with its sort key."""
    sortable = set(entity.sort_fields)

    def sort_key(field: FieldSpec) -> str | None:
        if field.column in sortable:
            return field.column
        return field.name if field.name in sortable else None

    lead, shown = list_columns(entity)
    first = {f.name for f in first_columns(entity)}
    if lead is not None:
        label_column = {"header": lead.label, "sortKey": sort_key(lead)}
    else:
        label_column = {"header": entity.label, "sortKey": None}
    return {"label": label_column,
            "columns": [{"name": f.name, "sortKey": sort_key(f), **({} if f.name in first else {"more": True})}
                        for f in shown]}
