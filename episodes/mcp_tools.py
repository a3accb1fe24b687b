"""A world's reads and workflows as MCP tool definitions, derived from its `spec.json` alone.

One tool per route the app serves to a signed-in user, named after the spec so names are stable
across builds of the same seed:

- `list_<plural>` / `get_<entity>` (and `create_<entity>`, `update_<entity>`, `delete_<entity>`
  where the entity allows them): the route's `operation_id`; a list tool takes the list page's
  search (`q`), filters (`<param>`, or `<param>_min`/`<param>_max` for ranges), `sort`, `page`
  and `page_size` as optional typed arguments;
- `<workflow>`: the workflow's own name (`transfer_funds`), one typed argument per parameter;
- `options_<workflow>`: the rows a workflow's reference parameters may name (argument `param`),
  for workflows that have any.

A tool is a request description (method, path template, query or JSON body); `episodes.mcp_server`
sends it to the agent's port with the episode's cookies. Money is in cents everywhere, as the API
takes and returns it; the spec's money bounds are in major units and are converted for the
descriptions.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from episodes.errors import WorldNotServable
from episodes.world import SPEC

JsonSchema = dict[str, Any]
Spec = Mapping[str, Any]
Refs = Mapping[str, str]  # entity name → how a reference to it is described (its label and read tools)
MAX_PAGE_SIZE = 100  # the generated app's cap on page_size
ENTITY_KINDS = ("list", "read", "create", "update", "delete")
PLACEHOLDER = re.compile(r"\{(\w+)\}")
MONEY_NOTE = "in cents (an integer: 5000 means 50.00)"


@dataclass(frozen=True)
class ToolSpec:
    """One MCP tool and the HTTP request a call to it makes."""

    name: str
    title: str
    description: str
    input_schema: JsonSchema
    method: str
    path: str  # `{argument}` placeholders are filled from the call's arguments
    body: bool  # arguments (other than the path's) go in a JSON body, else in the query string
    read_only: bool
    destructive: bool = False

    def request(self, arguments: Mapping[str, Any]) -> tuple[str, str, dict[str, str], dict[str, Any] | None]:
        """(method, path, query, JSON body) for a call with already-validated `arguments`."""
        rest = dict(arguments)
        path = PLACEHOLDER.sub(lambda m: quote(str(rest.pop(m[1])), safe=""), self.path)
        if self.body:
            return self.method, path, {}, rest
        return self.method, path, {k: _query_value(v) for k, v in rest.items()}, None


def load_spec(world: Path) -> Spec:
    """A world's spec.json (the only file of the world the MCP tools need)."""
    path = Path(world) / SPEC
    if not path.is_file():
        raise WorldNotServable(f"{world}: no {SPEC}; is this a built world (make world SEED=...)?")
    spec: dict[str, Any] = json.loads(path.read_text())
    return spec


def tools_from_spec(spec: Spec) -> list[ToolSpec]:
    """Every tool of the world, in the order of the spec's routes."""
    entities: dict[str, Mapping[str, Any]] = {str(e["name"]): e for e in spec.get("entities", [])}
    workflows: dict[str, Mapping[str, Any]] = {str(w["name"]): w for w in spec.get("workflows", [])}
    routes: list[Mapping[str, Any]] = list(spec.get("routes", []))
    readers: dict[str, list[str]] = {}
    for route in routes:
        if route.get("kind") in ("list", "read") and route.get("entity") in entities:
            readers.setdefault(str(route["entity"]), []).append(str(route["operation_id"]))
    refs: Refs = {name: str(e["label"]).lower() + (f" (see {' / '.join(readers[name])})" if name in readers else "")
                  for name, e in entities.items()}
    option_params: dict[str, list[str]] = {}
    for route in routes:
        if route.get("kind") == "param_options" and route.get("workflow") in workflows:
            option_params.setdefault(str(route["workflow"]), []).append(str(route["path"]).rsplit("/", 1)[-1])
    tools: list[ToolSpec] = []
    for route in routes:
        kind = route.get("kind")
        if kind in ENTITY_KINDS and route.get("entity") in entities:
            tools.append(_entity_tool(str(kind), route, entities[str(route["entity"])], refs))
        elif kind == "workflow" and route.get("workflow") in workflows:
            workflow = workflows[str(route["workflow"])]
            tools.append(_workflow_tool(route, workflow, refs, option_params.get(str(workflow["name"]), [])))
            if workflow["name"] in option_params:
                tools.append(_options_tool(route, workflow, refs, option_params[str(workflow["name"])]))
    seen: set[str] = set()
    for tool in tools:
        if tool.name in seen:
            raise WorldNotServable(f"two MCP tools would be called {tool.name!r}; the spec's names must differ")
        seen.add(tool.name)
    return tools


# ---- entities ------------------------------------------------------------------------------------
def _entity_tool(kind: str, route: Mapping[str, Any], entity: Mapping[str, Any], refs: Refs) -> ToolSpec:
    label, plural = str(entity["label"]), str(entity["plural"])
    name = str(route.get("operation_id") or f"{kind}_{entity['name']}")
    method, path = str(route["method"]), str(route["path"])
    fields = _fields_doc(entity, refs)
    row_id = {"type": "integer", "description": f"the {label.lower()}'s id (the `id` of an item of its list)"}
    if kind == "list":
        return ToolSpec(name=name, title=f"List {plural.lower()}", description=_list_doc(entity, fields),
                        input_schema=_object(_list_arguments(entity, refs), []), method=method, path=path,
                        body=False, read_only=True)
    if kind == "read":
        return ToolSpec(name=name, title=f"Get {_a(label.lower())}",
                        description=f"One {label.lower()} you can see, by id, as JSON: {fields}",
                        input_schema=_object({"id": row_id}, ["id"]), method=method, path=path, body=False,
                        read_only=True)
    editable = [f for f in entity.get("fields", []) if f.get("editable")]
    if kind == "create":
        props = {str(f["column"]): _value_schema(f, refs) for f in editable}
        required = [str(f["column"]) for f in editable if f.get("required") and f.get("default") is None]
        return ToolSpec(name=name, title=f"Create {_a(label.lower())}",
                        description=f"Create {_a(label.lower())} owned by you; returns it as JSON: {fields}",
                        input_schema=_object(props, required), method=method, path=path, body=True, read_only=False)
    if kind == "update":
        props = {"id": row_id, **{str(f["column"]): _value_schema(f, refs) for f in editable}}
        return ToolSpec(name=name, title=f"Change {_a(label.lower())}",
                        description=f"Change the given fields of {_a(label.lower())} you own (others are kept); "
                                    f"returns it as JSON: {fields}",
                        input_schema=_object(props, ["id"]), method=method, path=path, body=True, read_only=False)
    return ToolSpec(name=name, title=f"Delete {_a(label.lower())}", description=f"Delete {_a(label.lower())} you own, by id.",
                    input_schema=_object({"id": row_id}, ["id"]), method=method, path=path, body=False,
                    read_only=False, destructive=True)


def _list_doc(entity: Mapping[str, Any], fields: str) -> str:
    plural = str(entity["plural"]).lower()
    size = int(entity.get("page_size") or 10)
    search = ", ".join(str(f) for f in entity.get("search_fields", []))
    sort = str(entity.get("default_sort") or "id")
    return (f"List the {plural} you can see: JSON {{items, total, page, page_size}} with `total` counting every "
            f"match (not only this page). {size} per page unless page_size says otherwise (at most {MAX_PAGE_SIZE}); "
            f"sorted by {sort} unless sort says otherwise."
            + (f" q searches {search} (case-insensitive, part of the text)." if search else "")
            + f" Each item: {fields}")


def _list_arguments(entity: Mapping[str, Any], refs: Refs) -> dict[str, JsonSchema]:
    by_name = {str(f["name"]): f for f in entity.get("fields", [])}
    props: dict[str, JsonSchema] = {}
    if entity.get("search_fields"):
        searched = ", ".join(str(f) for f in entity["search_fields"])
        props["q"] = {"type": "string", "description": f"search text, matched within {searched}"}
    for flt in entity.get("filters", []):
        field = by_name.get(str(flt["field"]))
        if field is None:
            continue
        param, label = str(flt["param"]), str(flt["label"])
        schema = _value_schema(field, refs)
        schema.pop("default", None)  # a filter left out filters nothing, whatever the field's default
        if flt.get("kind") in ("range", "date_range"):
            props[f"{param}_min"] = {**schema, "description": f"{label} at least (inclusive): {schema['description']}"}
            props[f"{param}_max"] = {**schema, "description": f"{label} at most (inclusive): {schema['description']}"}
        else:
            props[param] = {**schema, "description": f"only rows whose {label} is this: {schema['description']}"}
    sortable = list(dict.fromkeys([*(str(s) for s in entity.get("sort_fields", [])), "id"]))
    props["sort"] = {"type": "string", "enum": [*sortable, *(f"-{s}" for s in sortable)],
                     "description": f"the column to sort by; a leading '-' sorts descending (default "
                                    f"{entity.get('default_sort') or 'id'})"}
    props["page"] = {"type": "integer", "minimum": 1, "description": "page number, from 1 (default 1)"}
    props["page_size"] = {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE,
                          "description": f"rows per page (default {entity.get('page_size') or 10})"}
    return props


def _fields_doc(entity: Mapping[str, Any], refs: Refs) -> str:
    """What an item of the entity holds, one phrase per field."""
    parts = ["id"]
    for f in entity.get("fields", []):
        note = _value_schema(f, refs)["description"]
        parts.append(f"{f['column']} ({note})")
    named = [f"{str(f['column']).removesuffix('_id')}_label" for f in entity.get("fields", []) if f.get("type") == "reference"]
    parts.append("label (how the app names it)" + (f", {', '.join(named)} (the referenced rows' names)" if named else ""))
    return "; ".join(parts) + "."


# ---- workflows -----------------------------------------------------------------------------------
def _workflow_tool(route: Mapping[str, Any], workflow: Mapping[str, Any], refs: Refs, with_options: list[str]) -> ToolSpec:
    name, label = str(workflow["name"]), str(workflow["label"])
    props: dict[str, JsonSchema] = {}
    required: list[str] = []
    for p in workflow.get("params", []):
        schema = _value_schema(p, refs)
        schema["description"] = f"{p['label']}: {schema['description']}"
        if p.get("name") in with_options:
            schema["description"] += f"; options_{name} with param={p['name']!r} lists the ones allowed here"
        props[str(p["name"])] = schema
        if p.get("required") and p.get("default") is None:
            required.append(str(p["name"]))
    about = str(workflow.get("description") or "").strip().rstrip(".")
    description = (f"{label}: {about}." if about and about.lower() != label.lower() else f"{label}.")
    if workflow.get("confirm"):
        description += f" The app asks to confirm \"{workflow['confirm']}\"; calling this tool is that confirmation."
    description += (" Acts as you on this episode's data. Returns JSON {ok, message, created: {entity: [ids]}}; "
                    "when the app refuses (a rule or precondition fails), the call is an error with the app's reason.")
    return ToolSpec(name=name, title=label, description=description, input_schema=_object(props, required),
                    method=str(route["method"]), path=str(route["path"]), body=True, read_only=False,
                    destructive=bool(workflow.get("confirm")))


def _options_tool(route: Mapping[str, Any], workflow: Mapping[str, Any], refs: Refs, params: list[str]) -> ToolSpec:
    name, label = str(workflow["name"]), str(workflow["label"])
    by_name = {str(p["name"]): p for p in workflow.get("params", [])}
    choices = "; ".join(f"{p} ({by_name[p]['label']}: {_ref_label(by_name[p], refs)})" for p in params if p in by_name)
    schema = _object({"param": {"type": "string", "enum": params, "description": f"which parameter of {name}: {choices}"}},
                     ["param"])
    return ToolSpec(name=f"options_{name}", title=f"Options of {label}",
                    description=f"The rows a reference parameter of {name} ({label}) may name, as the app's form offers "
                                "them: JSON {items: [{id, label}]}. Pass an item's id as that parameter.",
                    input_schema=schema, method="GET", path=f"{route['path']}/options/{{param}}", body=False,
                    read_only=True)


# ---- values --------------------------------------------------------------------------------------
def _value_schema(item: Mapping[str, Any], refs: Refs) -> JsonSchema:
    """The JSON Schema of a field's or parameter's value, with a description of its unit and range."""
    kind = str(item.get("type") or "string")
    lo, hi = item.get("min"), item.get("max")
    if kind == "reference":
        return {"type": "integer", "description": f"the id of {_a(_ref_label(item, refs))}"}
    if kind == "money":
        bounds = _bounds(_major(lo), _major(hi))
        return {"type": "integer", "description": f"money {MONEY_NOTE}" + (f"; {bounds} in major units" if bounds else "")}
    schema: JsonSchema
    if kind == "enum" and item.get("values"):
        values = [str(v) for v in item["values"]]
        schema = {"type": "string", "enum": values, "description": "one of " + ", ".join(values)}
    elif kind == "bool":
        schema = {"type": "boolean", "description": "true or false"}
    elif kind in ("int", "float", "number", "decimal"):
        schema = {"type": "integer" if kind == "int" else "number",
                  "description": "a whole number" if kind == "int" else "a number"}
        if bounds := _bounds(_plain(lo), _plain(hi)):
            schema["description"] += f", {bounds}"
    elif kind == "date":
        schema = {"type": "string", "format": "date", "description": "a date, YYYY-MM-DD"}
    elif kind == "datetime":
        schema = {"type": "string", "format": "date-time", "description": "a date and time, YYYY-MM-DDTHH:MM:SS"}
    else:
        schema = {"type": "string", "description": "an email address" if kind == "email" else "text"}
        if item.get("max_length"):  # bounds are described, not enforced: the app judges them
            schema["description"] += f", at most {int(item['max_length'])} characters"
    if item.get("default") is not None:
        schema["default"] = item["default"]
    return schema


def _ref_label(item: Mapping[str, Any], refs: Refs) -> str:
    ref = str(item.get("ref") or "")
    return refs.get(ref, ref or "row")


def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def _bounds(lo: str | None, hi: str | None) -> str:
    if lo is not None and hi is not None:
        return f"from {lo} to {hi}"
    if lo is not None:
        return f"at least {lo}"
    return f"at most {hi}" if hi is not None else ""


def _major(value: Any) -> str | None:
    return None if value is None else f"{float(value):,.2f}"


def _plain(value: Any) -> str | None:
    if value is None:
        return None
    number = float(value)
    return str(int(number)) if number.is_integer() else str(number)


def _object(props: dict[str, JsonSchema], required: list[str]) -> JsonSchema:
    schema: JsonSchema = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
