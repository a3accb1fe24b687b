"""Which rows can differ between two SQLite files, found from their pages without reading a row.

A final database is usually a copy of the initial one with a few rows changed, so almost every
page keeps its bytes. This module maps each file's pages to the b-trees that own them (walking
every table's and index's tree from its root page, plus the freelist), compares the two files page
by page, and returns, per table:

- nothing, when the table's leaf pages are the same page numbers on both sides and every one is
  byte for byte equal (the table holds the same rows: "untouched");
- for a rowid table, the rowids of the cells on its changed leaf pages, read from both files:
  a row that lives on a leaf page the two trees share with equal bytes is the same row on both
  sides (equal cells hold equal rowids and payloads, and equal overflow chains by the rule below),
  so only these rowids need comparing;
- None for a table that must be compared in full (a WITHOUT ROWID table with a changed page).

Any doubt gives no answer at all (`None` for the whole call), and the caller diffs every table
row by row: a write-ahead log or rollback journal beside either file, different page sizes, a
page this walk cannot parse, a b-tree cycle, pointer-map pages, or a changed page that no tree
or freelist owns on either side (an overflow page: its row cannot be told from the page alone).

Pages are read through `mmap`, so only the pages compared are touched, and files are never
written. The caller holds a read transaction on both files while this runs, so no writer can
change them underneath.
"""

from __future__ import annotations

import mmap
import struct
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

# b-tree page types (the first byte of the page header).
TABLE_LEAF, TABLE_INTERIOR, INDEX_LEAF, INDEX_INTERIOR = 0x0D, 0x05, 0x0A, 0x02
# Beyond this many candidate rows, listing them costs more than comparing the table.
MAX_CANDIDATES = 5000
# Pages compared at once before a differing run is split page by page.
RUN = 32


class _Unparsable(Exception):
    """A page or tree this walk does not understand: the caller falls back to a full diff."""


class PageFile:
    """A database file's pages, read through a read-only memory map."""

    def __init__(self, data: mmap.mmap) -> None:
        self.data = data
        raw = struct.unpack(">H", data[16:18])[0]
        self.page_size = 65536 if raw == 1 else raw
        self.pages = len(data) // self.page_size if self.page_size else 0
        self.autovacuum = struct.unpack(">I", data[52:56])[0] != 0

    def page(self, number: int) -> bytes:
        """The bytes of page `number` (1-based)."""
        if not 1 <= number <= self.pages:
            raise _Unparsable(f"page {number} is outside the file")
        start = (number - 1) * self.page_size
        return self.data[start:start + self.page_size]

    def freelist(self) -> set[int]:
        """Every page on the freelist (trunk and leaf pages)."""
        pages: set[int] = set()
        trunk = struct.unpack(">I", self.data[32:36])[0]
        while trunk:
            if trunk in pages:
                raise _Unparsable("freelist cycle")
            pages.add(trunk)
            data = self.page(trunk)
            count = struct.unpack(">I", data[4:8])[0]
            if count > (self.page_size - 8) // 4:
                raise _Unparsable("freelist trunk overflows its page")
            pages.update(struct.unpack(f">{count}I", data[8:8 + 4 * count]))
            trunk = struct.unpack(">I", data[0:4])[0]
        return pages


@dataclass
class Tree:
    """The pages of one b-tree: leaves (which hold the rows) and interior pages."""

    leaves: set[int] = field(default_factory=set)
    interior: set[int] = field(default_factory=set)
    rowid_leaves: bool = True  # every leaf is a table leaf (cells start with a rowid)


def _header(number: int) -> int:
    return 100 if number == 1 else 0  # page 1 starts with the file header


def _children(pf: PageFile, number: int) -> list[int]:
    """The child page numbers of an interior page, read in place (no copy of the page)."""
    at = (number - 1) * pf.page_size + _header(number)
    cells = struct.unpack_from(">H", pf.data, at + 3)[0]
    pointers = struct.unpack_from(f">{cells}H", pf.data, at + 12)
    base = (number - 1) * pf.page_size
    # Each interior cell starts with its left child's page number; the header holds the
    # right-most child.
    out = [struct.unpack_from(">I", pf.data, base + p)[0] for p in pointers]
    out.append(struct.unpack_from(">I", pf.data, at + 8)[0])
    return out


def walk(pf: PageFile, root: int) -> Tree:
    """Every page of the b-tree rooted at `root`.

    A b-tree is balanced: every leaf is at the same depth. The walk goes down level by level
    and reads only interior pages; the children of the last interior level are the leaves, and
    only their first header byte is read, to check that they are leaves.
    """
    tree = Tree()
    level = [root]
    seen: set[int] = set()
    data, size = pf.data, pf.page_size
    while level:
        if min(level) < 1 or max(level) > pf.pages:
            raise _Unparsable(f"b-tree at page {root} points outside the file")
        # The page-type byte of every page of the level (page 1's header follows the file's).
        kinds = {data[(n - 1) * size] for n in level if n != 1}
        if 1 in level:
            kinds.add(data[100])
        if kinds <= {TABLE_LEAF, INDEX_LEAF}:
            tree.leaves.update(level)
            tree.rowid_leaves = kinds == {TABLE_LEAF}
            return tree
        if not kinds <= {TABLE_INTERIOR, INDEX_INTERIOR}:
            raise _Unparsable(f"b-tree at page {root} mixes page types {sorted(kinds)}")
        tree.interior.update(level)
        below: list[int] = []
        for number in level:
            below += _children(pf, number)
        if seen.intersection(below) or len(set(below)) != len(below) or set(below) & tree.interior:
            raise _Unparsable(f"b-tree cycle under page {root}")
        seen.update(below)
        level = below
    return tree


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """SQLite's big-endian varint at `at`: (value, offset after it)."""
    value = 0
    for i in range(8):
        byte = data[at + i]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + i + 1
    return (value << 8) | data[at + 8], at + 9


def leaf_rowids(data: bytes, number: int) -> list[int]:
    """The rowids of the cells on a table leaf page."""
    h = _header(number)
    cells = struct.unpack(">H", data[h + 3:h + 5])[0]
    out: list[int] = []
    for pointer in struct.unpack(f">{cells}H", data[h + 8:h + 8 + 2 * cells]):
        _, at = _varint(data, pointer)  # the payload's size, then the rowid
        rowid, _ = _varint(data, at)
        out.append(rowid - (1 << 64) if rowid >= 1 << 63 else rowid)  # a signed 64-bit integer
    return out


@dataclass(frozen=True)
class PageDiff:
    """Per table: absent when untouched, a set of rowids to compare, or None for all rows."""

    changed: dict[str, frozenset[int] | None]

    def untouched(self, table: str) -> bool:
        """True when the table provably holds the same rows on both sides."""
        return table not in self.changed

    def rowids(self, table: str) -> frozenset[int] | None:
        """The only rowids that can differ (None: compare every row)."""
        return self.changed.get(table)


@contextmanager
def _mapped(path: Path) -> Iterator[PageFile]:
    with path.open("rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
        yield PageFile(data)


def page_diff(before: Path, after: Path, roots_before: dict[str, int],
              roots_after: dict[str, int], tables: set[str]) -> PageDiff | None:
    """What can differ per table of `tables`, or None when the pages cannot tell.

    `roots_*` map every b-tree of each side (tables, indexes, `sqlite_schema` at page 1) to its
    root page; every page a changed tree owns must be accounted for.
    """
    for path in (before, after):
        if any(Path(f"{path}{suffix}").exists() for suffix in ("-wal", "-journal")):
            return None
    try:
        with ExitStack() as stack:
            old = stack.enter_context(_mapped(before))
            new = stack.enter_context(_mapped(after))
            return _compare(old, new, roots_before, roots_after, tables)
    except (_Unparsable, ValueError, IndexError, struct.error, OSError):
        # ValueError: an empty file cannot be mapped; IndexError/struct.error: a truncated page.
        return None


def _dirty_pages(old: PageFile, new: PageFile) -> set[int]:
    """Page numbers whose bytes differ (or exist on one side only). Runs of pages are compared
    first, so equal stretches cost one comparison each; only differing runs are split."""
    dirty = set(range(min(old.pages, new.pages) + 1, max(old.pages, new.pages) + 1))
    size = old.page_size
    for first in range(1, min(old.pages, new.pages) + 1, RUN):
        last = min(first + RUN, min(old.pages, new.pages) + 1)
        lo, hi = (first - 1) * size, (last - 1) * size
        if old.data[lo:hi] != new.data[lo:hi]:
            dirty.update(n for n in range(first, last) if old.page(n) != new.page(n))
    return dirty


def _compare(old: PageFile, new: PageFile, roots_before: dict[str, int],
             roots_after: dict[str, int], tables: set[str]) -> PageDiff | None:
    if old.page_size != new.page_size or not old.page_size or old.autovacuum or new.autovacuum:
        return None
    dirty = _dirty_pages(old, new)
    trees_old = {name: walk(old, root) for name, root in roots_before.items()}
    trees_new = {name: walk(new, root) for name, root in roots_after.items()}
    owned: set[int] = old.freelist() | new.freelist()
    for tree in (*trees_old.values(), *trees_new.values()):
        owned |= tree.leaves | tree.interior
    if dirty - owned:
        return None  # an overflow page (or another page no tree owns) changed
    changed: dict[str, frozenset[int] | None] = {}
    empty = Tree()
    for name in tables:
        a, b = trees_old.get(name, empty), trees_new.get(name, empty)
        pages = (a.leaves ^ b.leaves) | (a.leaves & b.leaves & dirty)
        if not pages:
            continue
        if not (a.rowid_leaves and b.rowid_leaves):
            changed[name] = None
            continue
        rowids: set[int] = set()
        for number in sorted(pages):
            if number in a.leaves:
                rowids.update(leaf_rowids(old.page(number), number))
            if number in b.leaves:
                rowids.update(leaf_rowids(new.page(number), number))
        changed[name] = frozenset(rowids) if len(rowids) <= MAX_CANDIDATES else None
    return PageDiff(changed)
