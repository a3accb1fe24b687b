"""Which roles see an entity and may run a workflow, as the generated app decides.

A world without roles (`spec.roles` empty) lets everyone see and do everything its visibility and
preconditions allow; with roles, an entity or a workflow naming some is for those roles only.
Every reader of the spec that predicts what a user sees or may do (the effect interpreter, the
claims, the proposer, the exports) asks here, so the rule is written once.
"""

from __future__ import annotations

from factory.spec.model import EntitySpec, Spec, WorkflowSpec


def role_of(spec: Spec, user_id: int) -> str:
    """The user's role ("" in a world without roles or for an unknown user)."""
    return next((u.role for u in spec.users if u.id == user_id), "")


def sees(spec: Spec, entity: EntitySpec, user_id: int) -> bool:
    """Whether the user's role sees the entity at all (its rows are then subject to visibility)."""
    return not entity.roles or role_of(spec, user_id) in entity.roles


def may_run(spec: Spec, workflow: WorkflowSpec, user_id: int) -> bool:
    """Whether the user's role may run the workflow."""
    return not workflow.roles or role_of(spec, user_id) in workflow.roles


def refusal(workflow: WorkflowSpec) -> str:
    """The app's 403 message for a role outside the workflow's (`workflows.require_workflow_role`)."""
    return f"{workflow.label} is for the {' or '.join(workflow.roles)} role only"

