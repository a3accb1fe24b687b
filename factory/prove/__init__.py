"""Stage one: prove a built world against its claims. `graph` wires builder → claims → verifier →
(triager → repairer → verifier)*; `nodes` holds one function per node; `triage` clusters failed
claims by cause; `repair` runs the fixers and keeps or reverts each by the verifier's verdict."""
