"""Render the review site: strict Jinja templates (`templates/review/`) over the `Review` model.

The environment is strict (`StrictUndefined`: a missing name is an error, never an empty string)
and escapes every value; the only markup passed in is the SVG the charts and the diagram draw in
Python. What a page needs beyond the model (the rates as text, a diff's lines with their kind) is
computed here, so the templates only lay it out.
"""

from __future__ import annotations

import shutil
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from factory.review.charts import percent
from factory.review.history import MAX_DIFF_LINES
from factory.review.model import PageShot, Review
from factory.review.screens import SIGNED_OUT

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "review"
ASSETS = ("review.css", "review.js")
NAV = [("index.html", "Overview"), ("pages.html", "Pages"), ("claims.html", "Claims"), ("tasks.html", "Tasks"),
       ("history.html", "History")]
CHART_ORDER = ["rounds", "layers", "workflows", "task_workflows", "gates", "task_types", "difficulty"]


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), undefined=jinja2.StrictUndefined,
                              autoescape=True, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


def _rate(value: float | None) -> str:
    return "—" if value is None else percent(value)


def _diff_line(line: str) -> tuple[str, str]:
    if line.startswith(("+++", "---", "diff --git")):
        return "file", line
    if line.startswith("@@"):
        return "hunk", line
    if line.startswith("+"):
        return "add", line
    if line.startswith("-"):
        return "del", line
    return "ctx", line


def _shot_groups(shots: list[PageShot], review: Review) -> list[dict[str, Any]]:
    names = {p.username: p.name for p in review.personas}
    groups: dict[str, list[PageShot]] = {}
    for s in shots:
        groups.setdefault(s.persona, []).append(s)
    return [{"key": persona.replace(" ", "-"), "shots": found,
             "title": "Signed out" if persona == SIGNED_OUT else f"{persona} ({names.get(persona, '')})"}
            for persona, found in groups.items()]


def render_site(review: Review, out: Path) -> list[Path]:
    """Write every page and the local assets into `out`; the files written, in a stable order."""
    env = environment()
    base = {"review": review, "nav": NAV}
    pages: dict[str, dict[str, Any]] = {
        "index.html": {"page_title": "Overview", "chart_order": [n for n in CHART_ORDER if n in review.charts],
                       "charts": {k: Markup(v) for k, v in review.charts.items()},  # SVG drawn in Python
                       "erd": Markup(review.erd),
                       "charts_of_figures": [Markup(f.chart) for f in review.figures]},
        "pages.html": {"page_title": "Pages", "shot_groups": _shot_groups(review.shots, review)},
        "claims.html": {"page_title": "Claims"},
        "tasks.html": {"page_title": "Tasks"},
        "history.html": {"page_title": "History", "max_diff_lines": MAX_DIFF_LINES,
                         "rates": {c.sha: (_rate(c.rate_before), _rate(c.rate_after)) for c in review.commits},
                         "diff_lines": {c.sha: [_diff_line(line) for line in c.diff.splitlines()] for c in review.commits},
                         "patch_lines": [[_diff_line(line) for line in p.diff.splitlines()] for p in review.patches]},
    }
    written: list[Path] = []
    for name, context in pages.items():
        target = out / name
        target.write_text(env.get_template(name).render(**base, **context, current=name), encoding="utf-8")
        written.append(target)
    (out / "assets").mkdir(exist_ok=True)
    for asset in ASSETS:
        written.append(Path(shutil.copyfile(TEMPLATES / asset, out / "assets" / asset)))
    return written


__all__ = ["render_site"]
