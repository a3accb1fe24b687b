"""Labels the grammar cannot phrase with confidence, found before a world is built.

`factory check` prints one warning per label, at its line in the seed, with the `say:` hint that
would fix it: a workflow label whose first word is no verb the grammar knows (its tasks would say
"update the no-show for …"), a field or entity label that is no noun phrase ("Logged by" asked as
"the logged by of my report"), a `say:` hint that is not what its place needs. The rules are the
grammar's (`grammar.py`), the same the renderer and the parser use, so a label this finds nothing
wrong with is one the tasks can say.
"""

from __future__ import annotations

from dataclasses import dataclass

from factory.seed.loaded import LoadedSeed
from factory.spec.model import EntitySpec, FieldSpec, Spec, WorkflowSpec
from factory.tasks.language import grammar
from factory.tasks.language.spoken import field_noun, noun, said, verb_phrase, verb_words


@dataclass(frozen=True)
class LabelWarning:
    """One label: where it is in the seed (a key path) and what to do."""

    path: tuple[str | int, ...]
    message: str


def label_warnings(spec: Spec, seed_entities: list[str], seed_workflows: list[str]) -> list[LabelWarning]:
    """Every label of `spec` the grammar cannot phrase with confidence; `seed_entities` and
    `seed_workflows` are the seed's names in file order (to locate each warning)."""
    out: list[LabelWarning] = []
    for wf in spec.workflows:
        if wf.system or wf.name not in seed_workflows:
            continue
        out += _workflow(wf, ("workflows", seed_workflows.index(wf.name)))
    for ent in spec.entities:
        if ent.builtin or ent.name not in seed_entities:
            continue
        where: tuple[str | int, ...] = ("entities", seed_entities.index(ent.name))
        out += _entity(ent, where)
        names = [f.name for f in ent.fields] + [f.name for f in ent.computed]
        for f in [*ent.fields, *ent.computed]:
            out += _field(f, (*where, "fields", names.index(f.name)))
    return out


def _workflow(wf: WorkflowSpec, where: tuple[str | int, ...]) -> list[LabelWarning]:
    words = noun(said(wf)).split()
    if not words:
        return []
    if wf.say is not None:
        if grammar.verb_head(words) is None:
            return [LabelWarning((*where, "say"), f"say {wf.say!r} must start with a verb in its base form "
                                 "(\"deny the refill request\", \"check out\")")]
        return []
    if verb_words(wf) is not None:
        return []
    first = words[0]
    said_as = verb_phrase(wf)
    if not grammar.known(first):
        why = f"{first!r} is no English word the grammar knows"
    elif first == "new" or said_as.startswith("create "):
        return []  # "New expense report" is said "create a new expense report"
    else:
        why = f"{first!r} is no verb ({'/'.join(sorted(grammar.tags(first)))})"
    return [LabelWarning((*where, "label"), f"{wf.label!r}: {why}, so its tasks will say {said_as!r}; "
                         f"if that is not how a person asks for it, add `say: \"<verb> …\"` "
                         f"(e.g. `say: \"mark {a_row(wf)} as a {noun(wf.label)}\"`)")]


def a_row(wf: WorkflowSpec) -> str:
    return f"the {wf.subject_entity.replace('_', ' ')}" if wf.subject_entity else "it"


def _entity(ent: EntitySpec, where: tuple[str | int, ...]) -> list[LabelWarning]:
    words = noun(said(ent)).split()
    if not words or grammar.is_noun(words[-1]) or ent.say is not None:
        return []
    tags = "/".join(sorted(grammar.tags(words[-1])))
    return [LabelWarning((*where, "label"), f"{ent.label!r} does not end in a noun ({tags}), "
                         "so \"my …\" and \"how many …\" will not read; add `say: \"<noun phrase>\"`")]


def _field(f: FieldSpec, where: tuple[str | int, ...]) -> list[LabelWarning]:
    if f.say is not None:
        words = noun(f.say).split()
        if words and not grammar.is_noun(words[-1]):
            return [LabelWarning((*where, "say"), f"say {f.say!r} must be a noun phrase (it follows \"the\")")]
        return []
    spoken = field_noun(f)
    words = spoken.split()
    if not words or grammar.is_noun(words[-1]) or f.type == "bool":
        return []  # yes/no fields are said as states ("starred", "with wifi"), not as nouns
    tags = "/".join(sorted(grammar.tags(words[-1]))) or "unknown"
    return [LabelWarning((*where, "label"), f"{f.label!r} is no noun phrase (it ends in {words[-1]!r}: {tags}), so tasks "
                         f"will say \"the {spoken} of …\"; add `say: \"<noun phrase>\"` (e.g. \"the person who …\" "
                         "as one noun: \"assignee\", \"amount spent\")")]


def confidence_warnings(loaded: LoadedSeed, spec: Spec) -> list[str]:
    """`label_warnings` located in the seed file: `file:line: key: message`, for `factory check`."""
    seed = loaded.seed
    found = label_warnings(spec, [e.name for e in seed.entities], [w.name for w in seed.workflows])
    return [str(loaded.error(w.path, w.message)) for w in found]


__all__ = ["LabelWarning", "confidence_warnings", "label_warnings"]
