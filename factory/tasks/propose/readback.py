"""Whether a draft's text reads back as the task proposed: the check every text passes before
a draft is emitted.

Reward-gen reads nothing but the text, so a text that parses to another task (or to nothing) is
dropped, and why is kept for the report. This part parses with the whole instruction language
(`phrasing.parse`, the seed's phrasings included), the deepest import of the proposer, which is
why it is a part of its own and not a lookup of `ProposerBase`.
"""

from __future__ import annotations

from factory.errors import FactoryError
from factory.tasks.language.asks import Ask, ParseError, RefText
from factory.tasks.language.phrasing import parse
from factory.tasks.language.resolve import arg_value
from factory.tasks.propose.base import ProposerBase


class ReadBackMixin(ProposerBase):
    """Part of `Proposer`: texts parsed back and compared with the asks they were rendered from."""

    def _reads_back(self, goal: str, ask: Ask) -> bool:
        """The text parses back to the same ask (else it is not emitted): reward-gen reads nothing
        but the text, so the same question, or the same workflows with every row named the same
        way and every value the same (a seed phrasing may also fit a generic text, and the
        other way round)."""
        problem = self.read_back_problem(goal, ask)
        if problem:
            self.skipped.append(problem)
            return False
        return True

    def read_back_problem(self, goal: str, ask: Ask) -> str:
        """Why `goal` does not read back as `ask` ('' when it does): the gate itself, for any text
        (a model's rewording of a draft passes the same one, `rewording.py`)."""
        try:
            back = parse(self.spec, goal)
        except ParseError as exc:
            return f"phrasing: {exc}"
        if not self._same_ask(back, ask):
            return f"phrasing: {goal!r} reads back as another task"
        return ""

    def _same_ask(self, back: Ask, ask: Ask) -> bool:
        """`back` (texts, as parsed) asks what `ask` (API values, as proposed) asks."""
        if back.kind != ask.kind or back.question != ask.question or len(back.steps) != len(ask.steps):
            return False
        for got, want in zip(back.steps, ask.steps, strict=True):
            if got.workflow != want.workflow or got.pick != want.pick or set(got.args) != set(want.args):
                return False
            workflow = next(w for w in self.spec.workflows if w.name == want.workflow)
            params = {p.name: p for p in workflow.params}
            for name, value in want.args.items():
                text = got.args[name]
                if isinstance(value, RefText) or isinstance(text, RefText):
                    if text != value:
                        return False
                    continue
                try:
                    if arg_value(params[name], text) != value:
                        return False
                except FactoryError:  # a value that does not read as its type is not the same
                    return False
        return True
