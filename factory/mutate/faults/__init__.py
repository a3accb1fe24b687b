"""The independent fault suite: 38 kinds of defects a code generator or a careless edit makes, beside the
classic suite of `factory.mutate.mutations`, to measure how much of a world its claims really pin down.

The kinds are written as real defects look (a number one cent off, a check's `>` become `>=`, a route
without its owner filter, a label on the wrong input), not tuned to what any claim checks. Each kind
lists every site of a world it can hit; `factory.mutate.run.inject(world, kind, seed, suite="independent")`
applies one and commits it. Kind names differ from the classic suite's, so either suite's kinds can be
looked up by name alone.
"""

from __future__ import annotations

from factory.mutate.faults import data, effect_scope, effects, frontend, ownership, roles, rules, validation
from factory.mutate.mutations.base import Mutation

# Grouped by the part of the world they hit; the order fixes plan() and the rows of report tables.
ORDER: tuple[str, ...] = (
    # effects
    "effect_off_by_one", "effect_wrong_sign", "effect_wrong_column", "created_field_wrong", "effect_wrong_row",
    # where an effect applies: its condition, its rows, its related row
    "condition_dropped", "condition_negated", "bulk_first_row_only", "bulk_where_ignored", "related_row_wrong",
    # preconditions
    "precondition_removed", "precondition_negated", "boundary_operator", "boundary_literal", "message_swapped",
    # ownership
    "leak_list", "leak_detail", "leak_filter_options", "leak_param_options", "leak_param_load",
    # roles (only a world whose seed names roles has targets)
    "workflow_role_dropped", "entity_role_opened", "role_link_shown",
    # validation
    "max_length_raised", "min_bound_removed", "max_bound_raised", "enum_extra_value", "required_dropped",
    # frontend
    "form_labels_swapped", "filter_param_renamed", "money_scale", "select_options_misaligned",
    "column_header_changed", "search_sends_nothing",
    # data
    "row_deleted", "total_off_by_cent", "reference_repointed", "invariant_masked",
)
_MODULES = (effects, effect_scope, rules, ownership, roles, validation, frontend, data)
GROUPS: dict[str, str] = {m.kind: module.__name__.rsplit(".", 1)[-1] for module in _MODULES for m in module.MUTATIONS}
_BY_KIND = {m.kind: m for module in _MODULES for m in module.MUTATIONS}
SUITE: dict[str, Mutation] = {kind: _BY_KIND[kind] for kind in ORDER}

__all__ = ["GROUPS", "ORDER", "SUITE"]
