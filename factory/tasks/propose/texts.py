"""The free texts a draft's run types: names, titles, reasons and notes, contact data, account numbers
and codes. The world's own words come first (the values its rows hold in the fields the run writes, or
in fields named like the parameter), or a new one of the world's series ("Midterm" → "Midterm 2"); the
built-in pools are the last resort. Contact data and numbers are made up for the user, never copied
from another row. The other values of a run, and the order they are drawn in, are `values.py`'s.
"""

from __future__ import annotations

import re

from factory.builder.pools import kind_of, pick
from factory.predict.rows import Row
from factory.spec.model import ParamSpec
from factory.spec.naming import identifier
from factory.spec.roles import role_of
from factory.tasks.language.frame_params import set_fields
from factory.tasks.language.spoken import FOR_NOUNS, field_noun
from factory.tasks.propose.base import ProposerBase, text_limit
from factory.tasks.propose.text_shapes import CODE, fit_text, in_series, next_of, typed, typed_in

# Contact data belongs to one person: a value is made up for the user, never copied from another row.
CONTACT = ("phone", "email", "street", "address", "postal", "zip")


class TextsMixin(ProposerBase):
    """Part of `Proposer`: the free texts among a workflow's values."""

    def _existing(self, p: ParamSpec, workflow: str = "") -> list[str]:
        """Values the world already holds in fields named like the parameter (a wishlist's name,
        a category): what a user of this world would type. Only the entities the run stores the
        parameter in, when it stores it (a note's title is not a notebook's). People's names are
        not among them: a trip called "Mary Zhang" is another user's name, not a trip's."""
        key = f"existing:{workflow}:{p.name}"
        if key not in self._existing_cache:
            stored = {e.entity for w in self.spec.workflows if w.name == workflow for e in w.effects
                      if (e.kind == "set" and e.to == p.name) or p.name in (e.values or {}).values()}
            values: set[str] = set()
            for ent in self.spec.entities:
                if ent.builtin or (stored and ent.name not in stored):
                    continue
                for f in ent.fields:
                    if f.name == p.name and f.type in ("string", "text"):
                        values |= {str(r[f.column]) for r in self.world.rows(ent.name) if r.get(f.column)}
            self._existing_cache[key] = sorted(v for v in values if '"' not in v and ";" not in v)
        return self._existing_cache[key]

    def _text(self, p: ParamSpec, workflow: str = "") -> str:
        name = p.name.lower()
        fake = self.fake
        contact = any(c in name for c in CONTACT)
        # A new name for a row is not another row's name ("rename my checking account to Cashback
        # Rewards Card"): a field the run sets on its row draws from the pools, never the world.
        sets = any(p.name in set_fields(w) for w in self.spec.workflows if w.name == workflow)
        limit = text_limit(p)
        if p.type == "string" and not contact and ("number" in name or identifier(p) or self._coded(name)):
            # an account number, a member ID, a code: the user's own, shaped like the world's
            return fit_text(self._identifier(name), limit)  # (a phone number is contact data: 555-01xx below)
        # Only values that fit whole: a body cut at its limit ("…keep this email for your re") is no
        # text a person types.
        # A value a precondition says must not exist yet ("not exists(c in client where c.name ==
        # name)") is often new: where every user holds the same names, every draft drawing one
        # would be refused.
        fresh = any(re.search(rf"not exists\(.*\b{re.escape(p.name)}\b", c.source)
                    for w in self.spec.workflows if w.name == workflow for c in w.preconditions)
        existing = [] if contact or sets else [v for v in typed(self._existing(p, workflow)) if len(v) <= limit]
        # a text said as a reason ("Why" → the reason) is drawn as one, whatever its name says
        kind = "reason" if field_noun(p) in FOR_NOUNS else kind_of(workflow, name)
        written = [] if contact or fresh else \
            [v for v in typed(sorted({text for text, _e, _r in self._apt_on(workflow, p)})) if len(v) <= limit]
        # Three or more of the world's own values say what this field holds better than a pool
        # shared by every domain ("The book drop was closed" as a reason to reject an expense).
        # The world's words come first wherever it has any: the built-in pools are shared by every
        # domain and know only a kind of text, so they are the last resort, never the first.
        made_from = [v for v in typed(self._existing(p, workflow)) if len(v) < limit - 2 and in_series(v)] \
            if fresh else []
        if made_from and not (name == "name" or name.endswith("_name")) and self.rng.random() < 0.5:
            # a new one of the world's kind ("Midterm" → "Midterm 2", "Problem set 3" → "Problem set
            # 4"), never another domain's title ("Summer trip" as a history assignment)
            taken = set(self._existing(p, workflow))
            for _ in range(20):
                value = next_of(self.rng.choice(made_from))
                if value not in taken:
                    return fit_text(value, limit)
        if written and (len(written) >= 3 or self.rng.random() < 0.85):
            # a reason the world's own rows give ("Missing receipts"); with three or more, never a
            # pool's ("Documentation provided" as a reason to ask for cover)
            value = self.rng.choice(written)
        elif existing and self.rng.random() < (0.5 if fresh and len(existing) < 3 else 0.85):
            # a value that must be new to its owner is still often one other users hold (a payee
            # name, a tier another event has): mostly the world's own, some new ones, so some
            # draft of every run passes the check; a new name from a pool is no name of this kind
            # of row ("Cole Inc" as a ticket tier) where the world has three or more of its own
            value = self.rng.choice(existing)
        elif existing and p.type == "string" and not (name == "name" or name.endswith("_name")):
            # the world's kind of title, never another domain's: the next of a series, else one of
            # the world's own ("Slow internet at a site", never "Slow internet at a site 2")
            series = [v for v in existing if in_series(v)]
            value = next_of(self.rng.choice(series)) if series else self.rng.choice(existing)
        elif contact:
            value = self._contact(name)
        elif "state" in name:  # one of the fifty states, not "FM" (Micronesia) or "GU"
            value = fake.state_abbr(include_territories=False, include_freely_associated_states=False)
        elif "city" in name:
            value = fake.city()
        elif kind is not None:  # the same pools the seed data is drawn from
            value = pick(kind, self.rng, None, text_limit(p), about=f"{workflow}.{name}", neutral=True)
        elif name == "name" or name.endswith("_name"):
            value = fake.company() if name == "name" else fake.name()
        elif "number" in name:
            value = fake.numerify("##-####")
        else:
            value = pick("title" if p.type == "string" else "note", self.rng, None, text_limit(p), neutral=True)
        return fit_text(typed_in(value.replace('"', "").replace(";", ",")), limit)

    def _written(self, workflow: str, param: str) -> list[str]:
        """The values the world's rows hold in the fields a run of `workflow` writes `param` into
        (a rejection's reason into `report.reject_reason`), display fields aside (a new name must
        be new): the domain's own words, where the generic pools know only a kind of text."""
        key = f"written:{workflow}:{param}"
        if key not in self._existing_cache:
            values = {text for text, _entity, _row in self._written_on(workflow, param)}
            self._existing_cache[key] = sorted(v for v in values if '"' not in v and ";" not in v)
        return self._existing_cache[key]

    def _apt_on(self, workflow: str, p: ParamSpec) -> list[tuple[str, str, Row]]:
        """`_written_on` narrowed to the texts fit for `p` where the world has such: those written
        on rows in the state the run puts its row in (a reason to decline from a declined row,
        never an applicant's reason for withdrawing), and for a question, those that ask one
        ("Which version of the file were you opening?", never "Looking into this now")."""
        # a text the app writes itself ("Reopened: " + the reason) is no one's words to type
        made = {(e.entity, m[1]) for w in self.spec.workflows for e in w.effects if e.kind == "create"
                for v in (e.values or {}).values() for m in [re.match(r"\s*'([^']+)'\s*\+", str(v))] if m}
        found = [(t, e, r) for t, e, r in self._written_on(workflow, p.name) if '"' not in t and ";" not in t
                 and not any(e == ent and t.startswith(lead) for ent, lead in made)]
        states = {(e.entity, e.field, e.to.strip().strip("'")) for w in self.spec.workflows if w.name == workflow
                  for e in w.effects if e.kind == "set" and e.field and e.to and re.fullmatch(r"'[^']*'", e.to.strip())}
        found = [(t, e, r) for t, e, r in found if any(
            e == ent and str(r.get(self.world.field(ent, f).column)) == v for ent, f, v in states)] or found
        if "question" in field_noun(p).split():
            found = [x for x in found if x[0].rstrip().endswith("?")] or found
        return self._in_voice(workflow, found)

    def _in_voice(self, workflow: str, found: list[tuple[str, str, Row]]) -> list[tuple[str, str, Row]]:
        """`found` narrowed to the texts written by users of the acting user's role, where the run
        signs the row it writes (`author: me`): a requester's reply never says "Can you restart
        and let me know?", a technician's words. All of `found` where none is in that voice."""
        role = role_of(self.spec, self._acting.id) if self._acting is not None else ""
        signed = {(e.entity, fname) for w in self.spec.workflows if w.name == workflow for e in w.effects
                  if e.kind == "create" for fname, source in (e.values or {}).items() if str(source).strip() == "me"}
        if not role or not signed:
            return found
        voiced = [(t, e, r) for t, e, r in found if any(
            e == ent and role_of(self.spec, int(r.get(self.world.field(ent, f).column) or 0)) == role for ent, f in signed)]
        return voiced or found

    def _written_on(self, workflow: str, param: str) -> list[tuple[str, str, Row]]:
        """Each value of `_written` with the entity and the row that hold it (once per run)."""
        if (workflow, param) not in self._written_rows:
            fields: set[tuple[str, str, str]] = set()  # (entity, field, the app's own words before the text)
            for e in (e for w in self.spec.workflows if w.name == workflow for e in w.effects):
                if e.kind == "set" and e.field and e.to == param:
                    fields.add((e.entity, e.field, ""))
                fields |= {(e.entity, f, "") for f, source in (e.values or {}).items() if source == param}
                # "'Reopened: ' + reason": the user's words are what follows the app's own
                fields |= {(e.entity, f, m[1]) for f, source in (e.values or {}).items()
                           for m in [re.fullmatch(rf"\s*'([^']+)'\s*\+\s*{re.escape(param)}\s*", str(source))] if m}
            found: list[tuple[str, str, Row]] = []
            for entity, fname, lead in sorted(fields):
                ent = self.spec.entity(entity)
                f = ent.field_named(fname)
                if f.type in ("string", "text") and fname not in ent.display_fields:
                    found += [(str(r[f.column])[len(lead):], entity, r) for r in self.world.rows(entity)
                              if r.get(f.column) and str(r[f.column]).startswith(lead) and len(str(r[f.column])) > len(lead)]
            self._written_rows[(workflow, param)] = found
        return self._written_rows[(workflow, param)]

    def _contact(self, name: str) -> str:
        """A phone number, email or address no row of the world holds: the user's own."""
        taken = set(self._existing_contact(name))
        for _ in range(50):
            if "phone" in name:
                value = f"({self.rng.randint(201, 989)}) 555-01{self.rng.randint(0, 99):02d}"  # reserved for fiction
            elif "email" in name:
                value = self.fake.email()
            elif "postal" in name or "zip" in name:
                value = self.fake.postcode()
            else:
                value = self.fake.street_address()
            if value not in taken:
                return value
        return value

    def _identifier(self, name: str) -> str:
        """A number in the shape the world writes such numbers ("EL-520062" → "EL-318804"), with
        digits drawn anew so no other row holds it: an account number at a payee is one's own, not
        copied from another customer's row."""
        taken = set(self._existing_contact(name))
        shapes = sorted(v for v in taken if re.search(r"\d", v) and len(v) <= 30) or ["##-####"]
        shape = self.rng.choice(shapes)
        value = shape
        for _ in range(50):
            value = re.sub(r"[\d#]", lambda _m: str(self.rng.randint(0, 9)), shape)
            if value not in taken:
                return value
        return value

    def _coded(self, name: str) -> bool:
        """Whether the world writes the field `name` as codes ("PO-40950", "EXP/6760"): nearly every
        value one word with a digit. A reference typed into it is then one of that shape, never a
        title ("Ski season" as a shipment's reference)."""
        values = self._existing_contact(name)
        shaped = [v for v in values if CODE.fullmatch(v)]
        return len(values) >= 3 and len(shaped) >= 0.8 * len(values)

    def _existing_contact(self, name: str) -> list[str]:
        """Every value the world holds in fields named `name` (whoever's row it is)."""
        key = f"contact:{name}"
        if key not in self._existing_cache:
            self._existing_cache[key] = sorted(
                {str(r[f.column]) for ent in self.spec.entities for f in ent.fields
                 if f.name == name for r in self.world.rows(ent.name) if r.get(f.column)})
        return self._existing_cache[key]
