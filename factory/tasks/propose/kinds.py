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

    def _row_kinds(self, entity: str, row: Row, depth: int = 1) -> tuple[set[str], set[str]]:
        """The words of a row's kinds (and of the rows it points at, `depth` levels), and of the
        values those kinds could have had; once per row (the seed's rows do not change)."""
        key = (entity, row.get("id"), depth)
        if key not in self._kinds_of_rows:
            own: set[str] = set()
            others: set[str] = set()
            ent = self.spec.entity(entity)
            for f in ent.fields:
                value = row.get(f.column)
                if value is None:
                    continue
                if f.type == "enum" and f.values and (ent.name, f.name) not in self.moved:
                    _add_kind(own, others, str(value), f.values)
                elif depth and f.ref and f.ref != "user" and isinstance(value, int):
                    pointed = self.world.row(f.ref, value)
                    if pointed is not None:
                        more = self._row_kinds(f.ref, pointed, depth - 1)
                        own, others = own | more[0], others | more[1]
            self._kinds_of_rows[key] = own, others
        return self._kinds_of_rows[key]

    def _kind_words(self, workflow: WorkflowSpec, values: dict[str, Any]) -> tuple[set[str], set[str]]:
        """The words of the run's own kinds and of the other values those kinds could have had."""
        own: set[str] = set()
        others: set[str] = set()
        for p in workflow.params:
            value = values.get(p.name)
            if value is None:
                continue
            if p.type == "enum" and p.values:
                _add_kind(own, others, str(value), p.values)
            elif p.ref and p.ref != "user" and isinstance(value, int):
                row = self.world.row(p.ref, value)
                if row is not None:
                    more = self._row_kinds(p.ref, row)
                    own, others = own | more[0], others | more[1]
        return own, others

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
            scored: dict[str, int] = {}
            for written, entity, row in self._apt_on(workflow.name, p):
                said = typed_in(written)
                if not fits_param(p, said) or clashes(said, own, others):
                    continue
                # the kinds of the row the world wrote it on: a made claim's own, or the claim a
                # reason was given for ("denied: pre-existing condition" on a vet-bills claim)
                score = 100 if names_kind(said, own) else len(self._row_kinds(entity, row)[0] & own)
                scored[said] = max(score, scored.get(said, 0))
            if not clashes(text, own, others):
                # a text that names no kind stays, unless the world has one saying the run's own
                scored = {t: sc for t, sc in scored.items() if sc == 100}
            if scored:
                best = max(scored.values())
                values[p.name] = self.rng.choice(sorted(t for t, sc in scored.items() if sc == best))
            elif not p.required and clashes(text, own, others):
                del values[p.name]


def _add_kind(own: set[str], others: set[str], value: str, values: list[str]) -> None:
    """Add the words of one kind's `value` to `own`, and of its other `values` to `others`."""
    own |= kind_words(value)
    others |= {w for v in values if v != value for w in kind_words(v)}
