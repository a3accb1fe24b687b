"""Load a seed file: YAML → JSON Schema validation → pydantic model, errors pointing at lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import yaml
from pydantic import ValidationError

from factory.errors import SeedError
from factory.seed.check import check_structure
from factory.seed.loaded import LoadedSeed
from factory.seed.model import Seed
from factory.seed.schema import shipped
from factory.seed.yaml_lines import Path as KeyPath
from factory.seed.yaml_lines import dotted, line_of, load_with_lines


def load_seed(path: str | Path) -> LoadedSeed:
    """Read, parse and validate a seed file; structural problems raise SeedError."""
    file = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise SeedError(file, None, "", f"cannot read seed: {exc.strerror or exc}") from exc
    return load_seed_text(text, file)


def load_seed_text(text: str, file: str = "<seed>") -> LoadedSeed:
    """Validate seed text (see `load_seed`)."""
    try:
        data, lines = load_with_lines(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        raise SeedError(file, line, "", f"YAML syntax error: {exc.problem or exc.context}") from exc
    except yaml.YAMLError as exc:
        raise SeedError(file, None, "", f"YAML error: {exc}") from exc
    if not isinstance(data, dict):
        raise SeedError(file, 1, "", "a seed must be a YAML mapping with keys world, title, scenario, ...")
    _validate_schema(data, file, lines)
    try:
        seed = Seed.model_validate(data)
    except ValidationError as exc:  # the schema should have caught it; keep the location anyway
        first = exc.errors()[0]
        loc = tuple(first["loc"])
        raise SeedError(file, line_of(lines, loc), dotted(loc), first["msg"]) from exc
    loaded = LoadedSeed(seed, file, text, lines)
    check_structure(loaded)
    return loaded


def _validate_schema(data: Any, file: str, lines: dict[KeyPath, int]) -> None:
    validator = jsonschema.Draft202012Validator(shipped(), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(data),
                    key=lambda e: (line_of(lines, tuple(e.absolute_path)) or 0, list(map(str, e.absolute_path))))
    if not errors:
        return
    err = _deepest(errors[0])
    path = tuple(err.absolute_path)
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        allowed = set(err.schema.get("properties", {}))
        extra = sorted(k for k in err.instance if k not in allowed)
        if extra:  # point at the offending key itself, not at its parent mapping
            path = path + (extra[0],)
            known = ", ".join(sorted(allowed))
            raise SeedError(file, line_of(lines, path), dotted(path), f"unknown key {extra[0]!r} (allowed here: {known})")
    raise SeedError(file, line_of(lines, path), dotted(path), _describe(err))


def _deepest(err: jsonschema.ValidationError) -> jsonschema.ValidationError:
    """For anyOf/oneOf failures, the most specific sub-error explains best."""
    if err.context:
        candidates = [c for c in err.context if c.validator != "type"] or list(err.context)
        return _deepest(max(candidates, key=lambda c: len(c.absolute_path)))
    return err


def _describe(err: jsonschema.ValidationError) -> str:
    if err.validator == "enum":
        allowed = ", ".join(map(str, err.validator_value))
        return f"{err.instance!r} is not allowed; expected one of: {allowed}"
    if err.validator == "additionalProperties":
        return f"unknown key(s); {err.message}"
    if err.validator == "required":
        return f"missing key: {err.message}"
    if err.validator == "pattern":
        return f"{err.instance!r} does not match {err.validator_value} (a name starting with a lower-case letter)"
    if err.validator == "format" and err.validator_value == "date":
        return f"{err.instance!r} is not a date (expected YYYY-MM-DD)"
    return err.message
