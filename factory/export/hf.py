"""`factory export hf WORLD --out DIR`: the task corpus as a Hugging Face dataset.

    DIR/<world>/README.md              the dataset card: YAML front matter (license, configs with one data file
                                       per split, dataset_info features and split sizes), then what the columns mean
    DIR/<world>/data/<split>.parquet   one file per split (or `<split>.jsonl` with `fmt="jsonl"`)
    DIR/<world>/export.json            what was exported, every file's SHA-256

A row is a task record with its irregular parts (reward program, golden steps, setup steps,
grounding rows, UI trajectory) as JSON text, so every split has one Arrow schema; `record_of(row)`
gives the task record back exactly. Loads with `datasets.load_dataset("parquet", data_files=...)`.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path
from typing import Any, Literal

from factory import __version__
from factory.export.common import Exported, Source, json_bytes, jsonl_bytes, load_source, render, sha256, write_tree
from factory.export.errors import ExportError
from factory.export.models import ExportManifest
from factory.tasks.model import TaskRecord

Fmt = Literal["parquet", "jsonl"]
SPLITS = ("train", "test")
JSON_COLUMNS = ("golden_steps", "reward", "setup_steps", "grounding_evidence", "trajectory")
# column → (YAML dtype for the card, what it holds)
COLUMNS: dict[str, tuple[Any, str]] = {
    "id": ("string", "the task id"),
    "goal": ("string", "the instruction given to the agent"),
    "task_type": ("string", "read, write or read_write"),
    "difficulty": ("string", "easy, medium or hard"),
    "estimated_actions": ("int64", "UI actions of the verified demonstration"),
    "category": ("string", "the question's kind (reads) or the workflow"),
    "reference_answer": ("string", "a READ's answer as a person types it (null for others)"),
    "reference_state_change": ("string", "the sqldiff SQL from the initial to the golden database"),
    "state_change_summary": ("string", "that change in words"),
    "verification_query": ("string", "SQL showing what the reward looks at"),
    "starting_url": ("string", "the page the agent starts on"),
    "acting_user_id": ("int64", "the user the agent acts as"),
    "acting_user": ("string", "that user's login"),
    "required_entities": ([{"name": "entity", "dtype": "string"}, {"name": "id", "dtype": "int64"},
                           {"name": "label", "dtype": "string"}], "the rows the task is about"),
    "grounding_evidence": ("string", "JSON: up to five of those rows with their values"),
    "capabilities": ("string[]", "what the task exercises beyond its workflow"),
    "phrasing": ("string", "which phrasing wrote the goal"),
    "db_file": ("string", "the seed database, relative to the world"),
    "setup_steps": ("string", "JSON: the workflow calls that made the initial state"),
    "setup_patch": ("string", "their effect as sqldiff SQL on the seed database (empty: the seed itself)"),
    "setup_patch_sha256": ("string", "SHA-256 of setup_patch"),
    "setup_how": ("string", "how the initial state is made, in a sentence"),
    "golden_steps": ("string", "JSON: the API calls that do the task"),
    "reward": ("string", "JSON: the reward program the world's `verifiers.grade` runs"),
    "gates": ([{"name": "name", "dtype": "string"}, {"name": "passed", "dtype": "bool"},
               {"name": "score", "dtype": "float64"}, {"name": "detail", "dtype": "string"}], "every executed gate"),
    "trajectory": ("string", "JSON: the verified UI demonstration (null when not run)"),
    "repairs": ("string[]", "the repairs the task went through"),
    "split": ("string", "train or test"),
}


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def row_of(record: TaskRecord) -> dict[str, Any]:
    """A task record as a row of the dataset (see the module's docstring)."""
    r = record.model_dump(mode="json")
    meta, setup = r["metadata"], r["setup"]
    row = {
        "id": r["id"], "goal": r["goal"], "task_type": r["task_type"], "difficulty": r["difficulty"],
        "estimated_actions": r["estimated_actions"], "category": r["category"], "reference_answer": r["reference_answer"],
        "reference_state_change": r["reference_state_change"]["sql"],
        "state_change_summary": r["reference_state_change"]["summary"],
        "verification_query": r["verification_query"], "starting_url": meta["starting_url"],
        "acting_user_id": meta["acting_user_id"], "acting_user": meta["acting_user"],
        "required_entities": meta["required_entities"], "grounding_evidence": _text(meta["grounding_evidence"]),
        "capabilities": meta["capabilities"], "phrasing": meta["phrasing"], "db_file": r["db_file"],
        "setup_steps": _text(setup["steps"]), "setup_patch": setup["patch"], "setup_patch_sha256": setup["patch_sha256"],
        "setup_how": setup["how"], "golden_steps": _text(r["golden_steps"]), "reward": _text(r["reward"]),
        "gates": r["gates"], "trajectory": None if r["trajectory"] is None else _text(r["trajectory"]),
        "repairs": r["repairs"], "split": r["split"],
    }
    assert list(row) == list(COLUMNS)
    return row


def record_of(row: dict[str, Any]) -> dict[str, Any]:
    """The task record (its JSON form) a row was made from."""
    return {
        "id": row["id"], "goal": row["goal"], "task_type": row["task_type"], "difficulty": row["difficulty"],
        "estimated_actions": row["estimated_actions"], "category": row["category"], "reference_answer": row["reference_answer"],
        "reference_state_change": {"summary": row["state_change_summary"], "sql": row["reference_state_change"]},
        "verification_query": row["verification_query"],
        "metadata": {"starting_url": row["starting_url"], "acting_user_id": row["acting_user_id"],
                     "acting_user": row["acting_user"], "required_entities": [dict(e) for e in row["required_entities"]],
                     "grounding_evidence": json.loads(row["grounding_evidence"]), "capabilities": list(row["capabilities"]),
                     "phrasing": row["phrasing"]},
        "db_file": row["db_file"],
        "setup": {"steps": json.loads(row["setup_steps"]), "patch": row["setup_patch"],
                  "patch_sha256": row["setup_patch_sha256"], "how": row["setup_how"]},
        "golden_steps": json.loads(row["golden_steps"]), "reward": json.loads(row["reward"]),
        "gates": [dict(g) for g in row["gates"]],
        "trajectory": None if row["trajectory"] is None else json.loads(row["trajectory"]),
        "repairs": list(row["repairs"]), "split": row["split"],
    }


def _schema() -> Any:
    import pyarrow as pa  # imported here: only this export needs it

    def arrow(dtype: Any) -> Any:
        if isinstance(dtype, list):
            return pa.list_(pa.struct([(f["name"], arrow(f["dtype"])) for f in dtype]))
        return {"string": pa.string(), "int64": pa.int64(), "bool": pa.bool_(), "float64": pa.float64(),
                "string[]": pa.list_(pa.string())}[dtype]

    return pa.schema([(name, arrow(dtype)) for name, (dtype, _what) in COLUMNS.items()])


def parquet_bytes(rows: list[dict[str, Any]]) -> bytes:
    """One split as Parquet: a fixed schema, zstd, no pandas metadata, so the same rows give the same bytes."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise ExportError("the Parquet export needs pyarrow (pip install pyarrow), or use --format jsonl") from exc
    table = pa.Table.from_pylist(rows, schema=_schema())
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd", store_schema=True)
    return sink.getvalue()


def _feature(name: str, dtype: Any) -> dict[str, Any]:
    if isinstance(dtype, list):
        return {"name": name, "list": dtype}
    if dtype == "string[]":
        return {"name": name, "list": "string"}
    return {"name": name, "dtype": dtype}


def card_front_matter(source: Source, fmt: Fmt, sizes: dict[str, tuple[int, int]]) -> dict[str, Any]:
    """The card's YAML front matter: license, configs, features and splits."""
    license_id = source.license.lower().replace(" ", "-") if source.license else "unknown"
    return {
        "license": license_id,
        "pretty_name": f"{source.spec.title} tasks ({source.name})",
        "task_categories": ["other"],
        "tags": ["computer-use", "web-agents", "world-factory", source.name],
        "configs": [{"config_name": "default",
                     "data_files": [{"split": s, "path": f"data/{s}.{fmt}"} for s in SPLITS if s in sizes]}],
        "dataset_info": {"features": [_feature(n, d) for n, (d, _w) in COLUMNS.items()],
                         "splits": [{"name": s, "num_bytes": sizes[s][1], "num_examples": sizes[s][0]}
                                    for s in SPLITS if s in sizes]},
    }


def export_hf(world: str | Path, out: str | Path, fmt: Fmt = "parquet") -> Exported:
    """Write `<out>/<world>/` (see the module's docstring), replacing an earlier export of the same world."""
    import yaml

    source = load_source(world)
    rows = {s: [row_of(r) for r in source.records if r.split == s] for s in SPLITS}
    files: dict[str, bytes] = {}
    sizes: dict[str, tuple[int, int]] = {}
    for split, split_rows in rows.items():
        if split_rows:
            data = parquet_bytes(split_rows) if fmt == "parquet" else jsonl_bytes(split_rows)
            files[f"data/{split}.{fmt}"] = data
            sizes[split] = (len(split_rows), len(data))
    front = yaml.safe_dump(card_front_matter(source, fmt, sizes), sort_keys=False, allow_unicode=True, width=1000)
    types = Counter(r.task_type for r in source.records)
    files["README.md"] = render("hf/README.md.j2", front=front, title=source.spec.title, world=source.name,
                                license=source.license, fmt=fmt, sizes=sizes, types=dict(sorted(types.items())),
                                columns={n: w for n, (_d, w) in COLUMNS.items()}, json_columns=JSON_COLUMNS,
                                version=__version__)
    manifest = ExportManifest(
        format="hf", world=source.name, title=source.spec.title, factory_version=__version__,
        spec_sha256=sha256(source.world.spec_file.read_bytes()), seed_db_sha256=sha256(source.world.seed_db.read_bytes()),
        license=source.license, tasks={"total": len(source.records), **{s: n for s, (n, _b) in sizes.items()},
                                       **dict(sorted(types.items()))},
        files={path: sha256(data) for path, data in sorted(files.items())})
    files["export.json"] = json_bytes(manifest.model_dump(mode="json"))
    root = Path(out) / source.name
    count, size = write_tree(root, files)
    notes = [f"{split}: {n} rows in {root / 'data' / f'{split}.{fmt}'} ({b} bytes)" for split, (n, b) in sizes.items()]
    return Exported("hf", root, count, size, len(source.records), notes)
