"""Fingerprint what the factory makes, to prove a restructuring changed no byte of it.

    python scripts/fingerprint.py record [SEED ...]   build each seed, write scripts/fingerprints.json
    python scripts/fingerprint.py check  [SEED ...]   build again, compare, exit 1 on any difference
    python scripts/fingerprint.py record --out worlds  the same, building into worlds/ (kept)

Each seed (default: mock, echobank, echomail) is built with `factory world` exactly as `make world`
does, into a temporary directory, and the sha256 of the four artifacts a user relies on is kept:
the spec (`spec.json`), the seed database (`data/seed.db`), the locked claims (`claims.json`) and
the task corpus (`tasks/tasks.jsonl`). The same factory must give the same bytes (determinism is a
contract), so any difference after moving code is a behaviour change, named file by file.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RECORD = REPO / "scripts" / "fingerprints.json"
DEFAULT_SEEDS = ("seeds/mock.yaml", "seeds/echobank.yaml", "seeds/echomail.yaml")
ARTIFACTS = ("spec.json", "data/seed.db", "claims.json", "tasks/tasks.jsonl")


# Wall-clock fields, the only bytes a build may not repeat: the UI replay's time per trajectory.
WALL_CLOCK = {"tasks/tasks.jsonl": ("trajectory", "seconds")}


def _sha256(path: Path, name: str = "") -> str:
    """The file's sha256; a task corpus is hashed with its wall-clock field left out (each line
    re-serialised with sorted keys, so nothing else about it is forgiven)."""
    if not path.is_file():
        return "missing"
    if name not in WALL_CLOCK:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    outer, inner = WALL_CLOCK[name]
    lines = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if isinstance(record.get(outer), dict):
            record[outer].pop(inner, None)
        lines.append(json.dumps(record, sort_keys=True))
    return hashlib.sha256(("\n".join(lines) + "\n").encode()).hexdigest()


def fingerprint(seed: str, out: Path) -> dict[str, str]:
    """Build one seed into `out` and hash its artifacts."""
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "factory", "world", str(REPO / seed), "--out", str(out), "--fresh"],
                   cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    world = out / Path(seed).stem
    found = {name: _sha256(world / name, name) for name in ARTIFACTS}
    sys.stderr.write(f"{seed}: built and hashed in {time.monotonic() - started:.0f} s\n")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("record", "check"))
    parser.add_argument("seeds", nargs="*", default=list(DEFAULT_SEEDS))
    parser.add_argument("--out", type=Path, help="build into this folder and keep the worlds (default: a temporary one)")
    args = parser.parse_intermixed_args(argv)  # `record --out worlds SEED …`
    if args.out is not None:
        found = {seed: fingerprint(seed, args.out.resolve()) for seed in args.seeds}
    else:
        with tempfile.TemporaryDirectory(prefix="fingerprint-") as tmp:
            found = {seed: fingerprint(seed, Path(tmp)) for seed in args.seeds}
    if args.mode == "record":
        recorded = json.loads(RECORD.read_text()) if RECORD.is_file() else {}
        RECORD.write_text(json.dumps({**recorded, **found}, indent=1, sort_keys=True) + "\n")
        sys.stderr.write(f"written to {RECORD}\n")
        return 0
    recorded = json.loads(RECORD.read_text())
    differences = [f"{seed}: {name} {recorded.get(seed, {}).get(name, 'unrecorded')[:12]} → {digest[:12]}"
                   for seed, hashes in found.items() for name, digest in hashes.items()
                   if recorded.get(seed, {}).get(name) != digest]
    for line in differences:
        sys.stderr.write(line + "\n")
    sys.stderr.write(f"{len(differences)} difference(s) over {len(found)} seed(s)\n")
    return 1 if differences else 0


if __name__ == "__main__":
    raise SystemExit(main())
