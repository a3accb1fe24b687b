"""How instructions name the rows they act on: "my card", "the listing", "my profile".

The renderer (`render.py`) writes these words and the parser (`parse.py`) reads them back, and
`resolve.py` matches "my profile" against a database; they sit here, below all three, so each
imports them without importing another direction of the language.
"""

from __future__ import annotations

from factory.spec.model import EntitySpec, ParamSpec, Spec, WorkflowSpec


def scope_word(entity: EntitySpec) -> str:
    """How an instruction possesses a row: "the" for rows everyone sees, "my" for the user's own."""
    return "the" if entity.visibility == "public" else "my"


def my_only(entity: EntitySpec) -> str:
    """How an instruction names the acting user's single row of an entity: `my profile`."""
    return f"my {entity.label.lower()}"


def subject_entity(spec: Spec, workflow: WorkflowSpec) -> tuple[ParamSpec, EntitySpec] | None:
    """The parameter naming the row `workflow` acts on, and that row's entity (None: no such row)."""
    p = next((p for p in workflow.params if p.name == workflow.subject), None)
    if p is None or p.ref is None:
        return None
    return p, spec.entity(p.ref)


def possessed_head(spec: Spec, workflow: WorkflowSpec) -> str | None:
    """The workflow's label with the row it acts on possessed, when the label ends with that row's
    noun: "Lock card" → "Lock my card", "Pay a bill" → "Pay my bill" (rows everyone sees: "the")."""
    found = subject_entity(spec, workflow)
    if found is None:
        return None
    words, noun = workflow.label.split(), found[1].label.lower().split()
    if len(words) <= len(noun) or [w.lower() for w in words[-len(noun):]] != noun:
        return None
    verb = words[:-len(noun)]
    if verb[-1].lower() in ("a", "an", "the", "my", "your"):  # "Pay a bill": the article gives way
        verb = verb[:-1]
    if not verb:
        return None
    return " ".join([*verb, scope_word(found[1]), *words[-len(noun):]])
