"""The red team: adversarial final states and answers for every task of a world, graded with each
task's own reward program; a reward of 1 on any of them is a false positive of that program.

`run_redteam(world)` (in `run.py`) returns a `RedTeamReport` (`report.py`); the probe kinds are
listed in `probes.py`, the states are built in `states.py` and `schema.py` (over `context.py`),
the answers in `answers.py`, and the task states are rebuilt on copies in `corpus.py`.
`python -m factory redteam WORLD` runs it.
"""

from factory.redteam.probes import KINDS, RedTeamError
from factory.redteam.report import RedTeamReport
from factory.redteam.run import run_redteam

__all__ = ["KINDS", "RedTeamError", "RedTeamReport", "run_redteam"]
