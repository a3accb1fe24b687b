"""Visible labels that two things on one page of the generated app share, as `factory check` warnings.

The UI automation finds a form input by its label (`get_by_label(label, exact=True)`), and an agent
reads a page by its words; a label that names two things on one page finds both, and every task
that needs it fails the UI gate, to be dropped with no word to the seed's author. What a page holds
is read from the frontend templates (`templates/frontend/runtime/`):

- a workflow's form page: the form itself, named by its title (`aria-labelledby` → the workflow's
  label), one `<label>` per parameter, and the submit button with the workflow's label;
- a row's page: every field under its label, and one action button per workflow whose subject is
  that entity, under the workflow's label;
- the navigation: one link per workflow a user can run, under its label (only the workflows of a
  role show to that role, so workflows of disjoint roles never meet).

Labels are compared case-insensitively with spaces collapsed, as a person (and Playwright's
default, inexact matching) would tell them apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from factory.seed.loaded import LoadedSeed
from factory.seed.yaml_lines import Path as KeyPath
from factory.seed.yaml_lines import line_of
from factory.spec.model import EntitySpec, Spec, WorkflowSpec


@dataclass(frozen=True)
class _Shown:
    """One labelled thing on a page: what it is in words and where the seed sets its label."""

    label: str
    what: str  # "field 'status' of ticket", "workflow reply", "parameter 'body' of reply"
    path: KeyPath  # the seed key whose `label:` names it


def _same(a: str, b: str) -> bool:
    return " ".join(a.lower().split()) == " ".join(b.lower().split())


def label_clash_warnings(loaded: LoadedSeed, spec: Spec) -> list[str]:
    """Every pair of things one page shows under the same label, as `file:line: key: message`."""
    seed_entities = {e.name: ei for ei, e in enumerate(loaded.seed.entities)}
    seed_workflows = {w.name: wi for wi, w in enumerate(loaded.seed.workflows)}
    fields = {e.name: _fields(e, seed_entities[e.name], loaded) for e in spec.entities if e.name in seed_entities}
    workflows = [w for w in spec.workflows if not w.system]
    warnings: list[str] = []

    def warn(first: _Shown, second: _Shown, why: str) -> None:
        # located at the later of the two, the one more likely just written; the other's line is named
        line = line_of(loaded.lines, first.path)
        at = f" (line {line})" if line else ""
        warnings.append(str(loaded.error(second.path, (
            f"{second.what} and {first.what}{at} are both labelled {second.label!r}: {why}; give one a different "
            "`label:`"))))

    for entity in spec.entities:
        shown = fields.get(entity.name, [])
        for i, later in enumerate(shown):
            earlier = next((f for f in shown[:i] if _same(f.label, later.label)), None)
            if earlier is not None:
                warn(earlier, later, f"a {entity.label.lower()}'s page shows both under it (and so do its list, "
                                     "forms and filters where both appear), so a locator or an instruction by that "
                                     "label finds two")
    for wf in workflows:
        wi = seed_workflows[wf.name]
        own = _Shown(wf.label, f"workflow {wf.name}", ("workflows", wi, "label"))
        params = [_Shown(p.label, f"parameter {p.name!r} of {wf.name}",
                         ("workflows", wi, "params", pi, "label")) for pi, p in enumerate(wf.params)]
        for i, later in enumerate(params):
            if _same(later.label, wf.label):
                warn(own, later, f"the form page is named by its title {wf.label!r} and the input by its label, so "
                                 f"get_by_label({later.label!r}) finds both and every task that fills the input fails")
            earlier = next((p for p in params[:i] if _same(p.label, later.label)), None)
            if earlier is not None:
                warn(earlier, later, f"the form of {wf.name} shows two inputs under that label, so get_by_label "
                                     "finds both and every task that fills one fails")
        subject = wf.subject_entity
        if subject is not None and subject in fields:
            shown_field = next((f for f in fields[subject] if _same(f.label, wf.label)), None)
            if shown_field is not None:
                warn(shown_field, own, f"a {spec.entity(subject).label.lower()}'s page shows the field and, beside "
                                       "it, the workflow's action button under the same words, so a locator or an "
                                       "instruction by that text finds both")
    for i, wf in enumerate(workflows):
        for other in workflows[:i]:
            if not _same(other.label, wf.label) or not _meet(other, wf):
                continue
            where = "the navigation shows two links under that label, so neither can be told apart"
            if other.subject_entity is not None and other.subject_entity == wf.subject_entity:
                where = (f"a {spec.entity(wf.subject_entity).label.lower()}'s page shows two action buttons and "
                         "the navigation two links under that label, so neither can be told apart")
            warn(_Shown(other.label, f"workflow {other.name}", ("workflows", seed_workflows[other.name], "label")),
                 _Shown(wf.label, f"workflow {wf.name}", ("workflows", seed_workflows[wf.name], "label")), where)
            break  # one warning per workflow: a third namesake says nothing new
    return warnings


def _fields(entity: EntitySpec, ei: int, loaded: LoadedSeed) -> list[_Shown]:
    """The fields a row's page shows (stored and computed), in the seed's order, each with its seed key."""
    order = {f.name: fi for fi, f in enumerate(loaded.seed.entities[ei].fields)}
    shown = [*entity.fields, *entity.computed]
    return [_Shown(f.label, f"field {f.name!r} of {entity.name}", ("entities", ei, "fields", order[f.name], "label"))
            for f in sorted((f for f in shown if f.name in order), key=lambda f: order[f.name])]


def _meet(a: WorkflowSpec, b: WorkflowSpec) -> bool:
    """Whether one user can see both workflows: a workflow without roles is for every role."""
    return not a.roles or not b.roles or bool(set(a.roles) & set(b.roles))
