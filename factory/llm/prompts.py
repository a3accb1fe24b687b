"""Prompt templates: Jinja files under `templates/prompts/`, rendered strictly (a missing variable is
an error, never an empty string), so the words sent to a model live beside the other templates."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2

from factory.llm.errors import PromptError

PROMPTS = Path(__file__).resolve().parents[2] / "templates" / "prompts"


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(PROMPTS)), undefined=jinja2.StrictUndefined,
                              keep_trailing_newline=False, trim_blocks=True, lstrip_blocks=True, autoescape=False)


def render_prompt(name: str, **context: Any) -> str:
    """The text of prompt `name` (a path under templates/prompts/) with `context`."""
    try:
        return _environment().get_template(name).render(**context).strip() + "\n"
    except jinja2.TemplateNotFound as exc:
        raise PromptError(f"templates/prompts/{name}: no such prompt template") from exc
    except jinja2.UndefinedError as exc:
        raise PromptError(f"templates/prompts/{name}: {exc.message}") from exc


__all__ = ["PROMPTS", "render_prompt"]
