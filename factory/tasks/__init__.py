"""Stage two: a task corpus grounded in a proven world's database.

proposer → setup-gen (initial state as a replayable patch, golden state through the real backend)
→ reward-gen (an isolated process: instruction, schema, initial database) → executed gates
(initial=0, golden=1, counterfactuals=0, determinism, UI feasibility) → triage and repair →
`tasks/tasks.jsonl`.
"""
