"""Fault injectors, one module per part of a world they hit; `factory.mutate.run` is the verb that applies them."""

from __future__ import annotations

from factory.mutate.mutations import data, frontend, listing, routes, workflows
from factory.mutate.mutations.base import Applied, Mutation, MutationError, Target, WorldView

# The order the issue lists the kinds in; it fixes plan() and the rows of report tables.
ORDER = ("drop_route", "break_effect", "invert_precondition", "remove_form_field", "remove_button",
         "corrupt_seed_rows", "drop_ownership_filter", "break_list_filter", "break_pagination",
         "swallow_error_message", "break_login")
_BY_KIND = {m.kind: m for module in (routes, workflows, frontend, data, listing) for m in module.MUTATIONS}
MUTATIONS: dict[str, Mutation] = {kind: _BY_KIND[kind] for kind in ORDER}

__all__ = ["MUTATIONS", "ORDER", "Applied", "Mutation", "MutationError", "Target", "WorldView"]
