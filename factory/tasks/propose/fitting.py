"""Texts that fit the row a run writes them on: a reason for denying a claim, a fix for a ticket,
a reply on it is one the world wrote on a row like it (what it is about first, then its kinds),
never a text the app writes itself. Part of the proposer's values (`values.ValuesMixin`)."""

from __future__ import annotations

import re
from typing import Any

from factory.spec.model import ParamSpec, WorkflowSpec
from factory.tasks.language import grammar
from factory.tasks.language.things import person
from factory.tasks.propose.base import fits_param
from factory.tasks.propose.kinds import KindsMixin
from factory.tasks.propose.text_shapes import typed_in


class FittingMixin(KindsMixin):
    """Part of `Proposer`: a run's texts drawn again to fit the row they are written on."""

    def _fit_subject(self, workflow: WorkflowSpec, values: dict[str, Any], names_only: bool = False) -> None:
        """A text the run writes on the row it acts on (a reason for denying a claim), or on a row it
        makes for it (a reply to a ticket), is one the world wrote on a row of the same kinds: a
        storm claim is not denied over "the vet records", an "Emails bouncing back" ticket is not
        fixed by "Reseated the monitor cable"."""
        params = {p.name: p for p in workflow.params}
        moved = {(e.entity, e.field or "") for w in self.spec.workflows for e in w.effects if e.kind == "set"}
        for effect in workflow.effects:
            if effect.for_each is not None:
                continue
            if effect.kind == "set" and effect.field is not None and effect.target in values and effect.to in params:
                said = [(effect.entity, effect.field, effect.to, effect.target, "id")]
            elif effect.kind == "create" and effect.values:  # a reply made on the ticket: its body
                ent = self.spec.entity(effect.entity)
                hold = [(fname, src) for fname, src in effect.values.items() if src in values and src in params
                        and params[src].ref and ent.field_named(fname).ref == params[src].ref]
                said = [(effect.entity, fname, src, hold[0][1], hold[0][0]) for fname, src in effect.values.items()
                        if src in params and not params[src].ref] if len(hold) == 1 else []
            else:
                continue
            for entity, fname, text_param, subject_param, link in said:
                if params[text_param].type not in ("string", "text") or text_param not in values:
                    continue
                if names_only and fname not in self.spec.entity(entity).display_fields:
                    continue  # only what the row is called ("INC-171 VPN keeps dropping"): its other texts stay
                # a row filed under the same issue may lend its words; the row acted on may not
                shared = link != "id" and subject_param != workflow.subject
                self._text_of_kind(workflow.name, entity, fname, params[text_param], subject_param, link, values,
                                   params, moved, shared)

    def _text_of_kind(self, workflow: str, entity: str, fname: str, p: ParamSpec, subject_param: str, link: str,
                      values: dict[str, Any], params: dict[str, ParamSpec], moved: set[tuple[str, str]],
                      shared: bool = False) -> None:
        """`values[p]` drawn again from the texts of `entity.fname` on rows whose subject (the row
        itself, or the one its `link` field points at) has most kinds in common with the run's;
        only among the texts fit for the run (`_apt_on`: a question where it asks one)."""
        ent = self.spec.entity(entity)
        f = ent.field_named(fname)
        subject_entity = params[subject_param].ref or ""
        own = self.world.row(subject_entity, values[subject_param])
        # a row's name is its own; a new ticket's summary may say what others of its issue say
        if own is None or f.unique or (f.name in ent.display_fields and not shared):
            return
        # its kinds, not its states: a field some workflow moves (a status) says nothing of the text;
        # a kind is a choice, or a row of the world it is filed under that is no person (its issue type)
        kinds = [g for g in self.spec.entity(subject_entity).fields if (subject_entity, g.name) not in moved
                 and own.get(g.column) is not None and g.name not in self.spec.entity(subject_entity).owner_fields
                 and (g.type == "enum" or (g.ref and g.ref != subject_entity and not person(self.spec, g.ref)))]
        if not kinds:
            return
        # the words of what the subject is ("Emails bouncing back"): a text that says one of them
        # fits it before any other, where the world's own texts were written at random
        about = _content_words(" ".join([self._label(subject_entity, own), *(
            self._label(g.ref, row) for g in kinds if g.ref
            for row in [self.world.row(g.ref, own[g.column])] if row is not None)]))
        # texts the app writes itself ("Reopened: " + the reason) are no one's words to type
        made = tuple(m[1] for w in self.spec.workflows for e in w.effects if e.kind == "create" and e.entity == entity
                     for m in [re.match(r"\s*'([^']+)'\s*\+", str((e.values or {}).get(fname, "")))] if m)
        apt = {t for t, _e, _r in self._apt_on(workflow, p)}
        scored = []
        for r in self.world.rows(entity):
            if (made and str(r.get(f.column) or "").startswith(made)) or (apt and str(r.get(f.column)) not in apt):
                continue
            pointed = r.get(ent.field_named(link).column) if link != "id" else None
            held = r if link == "id" else self.world.row(subject_entity, pointed) if isinstance(pointed, int) else None
            # the row's own text is no new one; but a ticket filed under the same issue as the one
            # the run files says best what such a ticket is about (its summary, its details)
            if not r.get(f.column) or held is None or (held["id"] == own["id"] and not shared) \
                    or not fits_param(p, r[f.column]):
                continue
            words = len(_content_words(str(r[f.column])) & about)
            scored.append((10 * words + sum(1 for g in kinds if held.get(g.column) == own[g.column]), r))
        if not scored or max(sc for sc, _r in scored) == 0:
            return
        best = [r for sc, r in scored if sc == max(s for s, _r in scored)]
        values[p.name] = typed_in(str(self.rng.choice(best)[f.column]))


def _content_words(text: str) -> set[str]:
    """The words of a text that say what it is about: no function words, no short ones."""
    return {w for w in re.findall(r"[a-z][a-z-]+", text.lower()) if len(w) > 3 and w not in grammar.CLOSED}
