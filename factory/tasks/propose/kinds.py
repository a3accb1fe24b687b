"""Free texts that agree with the kinds of the rows they are written on.

A text a run types (a claim's description, an appeal's grounds, a reason) is drawn from the world's
own words, and the world's rows do not always keep them apart: a storyline may write "The vet has
confirmed …" on any denied claim. A person never writes about a vet on a lost-baggage claim. The
rule is general, not a list of slips: the kinds of a run are the values of its enum parameters and
of the enum fields that no workflow moves (a claim's type of loss, a policy's cover, never a status)
on the rows it names. A text that says a word of another value of one of those kinds, and of none
of its own, names a kind the row is not; it is drawn again, first from the texts that say one of the
run's own kinds, then from those the world wrote on rows of the most kinds in common.
"""

from __future__ import annotations

from typing import Any

from factory.predict.rows import Row
from factory.spec.model import WorkflowSpec
from factory.tasks.propose.base import ProposerBase, fits_param
from factory.tasks.propose.text_shapes import clashes, kind_words, names_kind, typed_in


class KindsMixin(ProposerBase):
    """Part of `Proposer`: texts drawn to fit the kinds of the rows a run names."""

    def _moved(self) -> set[tuple[str, str]]:
        """(entity, field) of every field some workflow sets: states, not kinds."""
        return {(e.entity, e.field or "") for w in self.spec.workflows for e in w.effects if e.kind == "set"}

    def _row_kinds(self, entity: str, row: Row, depth: int = 1) -> tuple[set[str], set[str]]:
        """The words of a row's kinds (and of the rows it points at, `depth` levels), and of the
        values those kinds could have had."""
        own: set[str] = set()
        others: set[str] = set()
        ent = self.spec.entity(entity)
        moved = self._moved()
        for f in ent.fields:
            value = row.get(f.column)
            if value is None:
                continue
            if f.type == "enum" and f.values and (ent.name, f.name) not in moved:
                own |= kind_words(str(value))
                others |= {w for v in f.values if v != value for w in kind_words(v)}
            elif depth and f.ref and f.ref != "user" and isinstance(value, int):
                pointed = self.world.row(f.ref, value)
                if pointed is not None:
                    more = self._row_kinds(f.ref, pointed, depth - 1)
                    own, others = own | more[0], others | more[1]
        return own, others

    def _kind_words(self, workflow: WorkflowSpec, values: dict[str, Any]) -> tuple[set[str], set[str]]:
        """The words of the run's own kinds and of the other values those kinds could have had."""
        own: set[str] = set()
        others: set[str] = set()
        for p in workflow.params:
            value = values.get(p.name)
            if value is None:
                continue
            if p.type == "enum" and p.values:
                own |= kind_words(str(value))
                others |= {w for v in p.values if v != value for w in kind_words(v)}
            elif p.ref and p.ref != "user" and isinstance(value, int):
                row = self.world.row(p.ref, value)
                if row is not None:
                    more = self._row_kinds(p.ref, row)
                    own, others = own | more[0], others | more[1]
        return own, others

    def _written_on(self, workflow: WorkflowSpec, param: str) -> list[tuple[str, Row]]:
        """Each text the world's rows hold in a field a run of `workflow` writes `param` into, with
        the row that holds it (display fields aside: a new name must be new)."""
        fields = {(e.entity, e.field) for e in workflow.effects if e.kind == "set" and e.field and e.to == param}
        fields |= {(e.entity, f) for e in workflow.effects for f, source in (e.values or {}).items() if source == param}
        out: list[tuple[str, Row]] = []
        for entity, fname in sorted(fields):
            ent = self.spec.entity(entity)
            f = ent.field_named(fname)
            if f.type in ("string", "text") and fname not in ent.display_fields:
                out += [(typed_in(str(r[f.column])), r) for r in self.world.rows(entity) if r.get(f.column)]
        return out

    def _texts_fit_kinds(self, workflow: WorkflowSpec, values: dict[str, Any]) -> None:
        """Each free text of the run that names a kind its rows are not is drawn again from the
        world's texts for that parameter that do not: those saying one of the run's own kinds
        first, then those written on rows of the most kinds in common; an optional one with none
        left is left unsaid. A text naming no kind gives way only to one saying the run's own."""
        own, others = self._kind_words(workflow, values)
        # only the words that tell the run's kinds from the others: "damage" is said of water and
        # of accidental damage alike, so "Chip pan fire damaged …" says "fire", not "water damage"
        own -= others
        if not others:
            return
        for p in workflow.params:
            text = values.get(p.name)
            if p.type not in ("string", "text") or not isinstance(text, str) or names_kind(text, own):
                continue
            entity = next((e.entity for e in workflow.effects if e.kind == "create"
                           and p.name in (e.values or {}).values()), None)
            scored: dict[str, int] = {}
            for said, row in self._written_on(workflow, p.name):
                if not fits_param(p, said) or '"' in said or clashes(said, own, others):
                    continue
                kinds = self._row_kinds(entity, row)[0] if entity else set()
                score = 100 if names_kind(said, own) else len(kinds & own)
                scored[said] = max(score, scored.get(said, 0))
            if not clashes(text, own, others):
                # a text that names no kind stays, unless the world has one saying the run's own
                scored = {t: sc for t, sc in scored.items() if sc == 100}
            if scored:
                best = max(scored.values())
                values[p.name] = self.rng.choice(sorted(t for t, sc in scored.items() if sc == best))
            elif not p.required and clashes(text, own, others):
                del values[p.name]
