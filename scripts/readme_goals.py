"""Five goals per built world, drawn at random (seeded by the world's name) and written into the
README between its `goals` markers, unedited, so a reader sees what the corpus asks.

    python scripts/readme_goals.py            # every world under worlds/ with a task corpus
    python scripts/readme_goals.py --check    # exit 1 when the README's block differs

The draw depends only on the corpus and the world's name: the same corpus gives the same block.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
START, END = "<!-- goals:start -->", "<!-- goals:end -->"
PER_WORLD = 5


def goals_block(worlds: Path, per_world: int = PER_WORLD) -> str:
    """The Markdown between the markers: per world, `per_world` goals with their kind and user."""
    lines: list[str] = []
    for corpus in sorted(worlds.glob("*/tasks/tasks.jsonl")):
        name = corpus.parents[1].name
        tasks = [json.loads(line) for line in corpus.read_text().splitlines() if line.strip()]
        picked = random.Random(name).sample(tasks, min(per_world, len(tasks)))
        lines.append(f"**{name}** ({len(tasks)} tasks):")
        lines.append("")
        for task in sorted(picked, key=lambda t: t["id"]):
            lines.append(f"- `{task['id']}` ({task['metadata']['acting_user']}): {task['goal']}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def with_block(readme: str, block: str) -> str:
    """The README with its goals block replaced; a README without both markers is an error."""
    if START not in readme or END not in readme or readme.index(START) > readme.index(END):
        raise SystemExit(f"{README}: no {START} … {END} block to fill")
    head, rest = readme.split(START, 1)
    _old, tail = rest.split(END, 1)
    return f"{head}{START}\n{block}{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=Path, default=REPO / "worlds")
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    text = README.read_text()
    updated = with_block(text, goals_block(args.worlds))
    if args.check:
        if updated != text:
            sys.stderr.write("README goals differ from the built worlds' corpora\n")
            return 1
        return 0
    README.write_text(updated)
    sys.stderr.write(f"written to {README}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
