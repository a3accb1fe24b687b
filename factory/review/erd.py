"""The spec's entity–relationship diagram as SVG: a box per entity with its fields, an edge per reference.

Layout is computed, not searched: an entity's column is its reference depth (an entity that
references nothing is in column 0, one that references only those in column 1, ...), so every
reference runs leftwards, from the referencing field's row to the referenced entity's header.
Within a column, entities keep the spec's order. Self-references loop on the box's left side.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from factory.spec.model import EntitySpec, Spec

BOX_W = 230
COL_GAP = 120
HEAD_H = 26
ROW_H = 18
BOX_GAP = 28
MARGIN = 20


@dataclass(frozen=True)
class _Box:
    entity: EntitySpec
    x: int
    y: int

    @property
    def height(self) -> int:
        return HEAD_H + ROW_H * (len(self.entity.fields) + 1) + 6

    def field_y(self, index: int) -> int:
        """The middle of field `index`'s row (row 0 is the id)."""
        return self.y + HEAD_H + ROW_H * (index + 1) + ROW_H // 2


def depths(spec: Spec) -> dict[str, int]:
    """Each entity's column: 0 when it references no other entity, else one more than the deepest it
    references (a reference cycle stops growing after as many rounds as there are entities)."""
    names = [e.name for e in spec.entities]
    depth = dict.fromkeys(names, 0)
    refs = {e.name: sorted({f.ref for f in e.fields if f.ref and f.ref != e.name and f.ref in depth}) for e in spec.entities}
    for _ in range(len(names)):
        changed = False
        for name in names:
            want = 1 + max((depth[r] for r in refs[name]), default=-1)
            if want > depth[name]:
                depth[name], changed = want, True
        if not changed:
            break
    return depth


def _layout(spec: Spec) -> list[_Box]:
    depth = depths(spec)
    boxes: list[_Box] = []
    heights: dict[int, int] = {}
    for entity in spec.entities:
        column = depth[entity.name]
        y = heights.get(column, MARGIN)
        box = _Box(entity, MARGIN + column * (BOX_W + COL_GAP), y)
        boxes.append(box)
        heights[column] = y + box.height + BOX_GAP
    return boxes


def _field_text(kind: str, required: bool, unique: bool, ref: str | None) -> str:
    marks = ("" if required else "?") + (" unique" if unique else "")
    return f"→ {ref}{marks}" if ref else f"{kind}{marks}"


def _table_note(entity: EntitySpec) -> str:
    """The table's name when it is not the entity's, and whether the app builds the entity in."""
    parts = ([f"table {entity.table}"] if entity.table != entity.name else []) + (["builtin"] if entity.builtin else [])
    return escape(" · ".join(parts))


def _box_svg(box: _Box) -> list[str]:
    e = box.entity
    out = [f'<g class="erd-entity" id="erd-{escape(e.name)}">',
           f'<rect x="{box.x}" y="{box.y}" width="{BOX_W}" height="{box.height}" rx="4" class="erd-box"/>',
           f'<rect x="{box.x}" y="{box.y}" width="{BOX_W}" height="{HEAD_H}" rx="4" class="erd-head"/>',
           f'<text x="{box.x + 8}" y="{box.y + 18}" class="erd-name">{escape(e.name)}</text>',
           f'<text x="{box.x + BOX_W - 8}" y="{box.y + 18}" text-anchor="end" class="erd-table">'
           f'{_table_note(e)}</text>']
    rows = [("id", "integer key")] + [(f.column, _field_text(f.type, f.required, f.unique, f.ref)) for f in e.fields]
    for i, (name, kind) in enumerate(rows):
        y = box.field_y(i) + 4
        out.append(f'<text x="{box.x + 8}" y="{y}" class="erd-field">{escape(name)}</text>')
        out.append(f'<text x="{box.x + BOX_W - 8}" y="{y}" text-anchor="end" class="erd-type">{escape(kind)}</text>')
    out.append("</g>")
    return out


def _edge(source: _Box, index: int, target: _Box) -> str:
    y1 = source.field_y(index)
    if source.entity.name == target.entity.name:  # a self-reference: a loop on the left side
        x = source.x
        y2 = source.y + HEAD_H // 2
        return f'<path d="M{x},{y1} C{x - 40},{y1} {x - 40},{y2} {x},{y2}" class="erd-edge" marker-end="url(#erd-arrow)"/>'
    x1 = source.x
    x2 = target.x + BOX_W
    y2 = target.y + HEAD_H // 2
    if x2 >= x1:  # same column (a reference cycle): bow out to the left of both
        x2 = target.x
        bend = min(x1, x2) - 60
        return (f'<path d="M{x1},{y1} C{bend},{y1} {bend},{y2} {x2},{y2}" class="erd-edge" '
                'marker-end="url(#erd-arrow)"/>')
    middle = (x1 + x2) // 2
    return f'<path d="M{x1},{y1} C{middle},{y1} {middle},{y2} {x2},{y2}" class="erd-edge" marker-end="url(#erd-arrow)"/>'


def erd_svg(spec: Spec) -> str:
    """The diagram of every entity of `spec` (builtin ones included), as one SVG element."""
    boxes = _layout(spec)
    by_name = {b.entity.name: b for b in boxes}
    width = max(b.x + BOX_W for b in boxes) + MARGIN if boxes else 2 * MARGIN
    height = max(b.y + b.height for b in boxes) + MARGIN if boxes else 2 * MARGIN
    edges = [_edge(b, i + 1, by_name[f.ref]) for b in boxes for i, f in enumerate(b.entity.fields)
             if f.ref and f.ref in by_name]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="erd" role="img" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}"><title>Entities and references of {escape(spec.world)}</title>',
             '<defs><marker id="erd-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
             'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="erd-arrow"/></marker></defs>']
    for box in boxes:
        parts += _box_svg(box)
    parts += edges
    parts.append("</svg>")
    return "".join(parts)


__all__ = ["depths", "erd_svg"]
