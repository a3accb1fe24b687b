"""Stage one: prove a built world against its claims. `graph` wires builder → claims → verifier →
(triager → repairer → verifier)*; `nodes` holds one function per node; `triage` clusters failed
claims by cause; `repair` runs the fixers and keeps or reverts each by the verifier's verdict.
With a model configured: `placer` names a cause for the clusters the signature table cannot place,
and `patcher` asks for a diff (checked and applied by `diff_apply`) for those the fixers leave failing."""
