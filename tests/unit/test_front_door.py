"""The front door as a new user meets it: `--version`, help on every argument, one default target,
a bad seed refused before anything is written, and the counted-progress seam the CLI draws on."""

from __future__ import annotations

import argparse
import io
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from rich.console import Console

import factory
from factory import cli, progress
from factory.prove.graph import run_stage_one

REPO = Path(__file__).resolve().parents[2]


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    found = {"factory": parser}
    for action in parser._actions:  # argparse keeps no public list of subparsers
        if isinstance(action, argparse._SubParsersAction):
            found.update(action.choices)
    return found


def test_version_prints_the_factory_version() -> None:
    result = subprocess.run([sys.executable, "-m", "factory", "--version"], cwd=REPO, capture_output=True, text=True,
                            timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"factory {factory.__version__}"


def test_every_argument_of_every_subcommand_has_help() -> None:
    commands = _subcommands(cli.parser())
    assert {"world", "prove", "tasks", "check", "serve", "mutate", "redteam", "setup", "bench"} <= set(commands)
    missing = [f"{name} {action.option_strings or action.dest}"
               for name, p in commands.items() for action in p._actions
               if not isinstance(action, argparse._SubParsersAction) and not (action.help or "").strip()]
    assert missing == []


def test_world_and_prove_share_one_default_target_shown_in_help() -> None:
    commands = _subcommands(cli.parser())
    targets = {name: next(a for a in commands[name]._actions if a.dest == "target") for name in ("world", "prove")}
    assert {a.default for a in targets.values()} == {progress.DEFAULT_TARGET}
    assert run_stage_one.__defaults__ is not None and progress.DEFAULT_TARGET in run_stage_one.__defaults__
    for name in ("world", "prove"):
        assert f"(default {progress.DEFAULT_TARGET})" in " ".join(commands[name].format_help().split())
    assert progress.DEFAULT_TARGET == 1.0  # repair every claim the repairer can fix (proven means at least 95%)


def test_a_bad_seed_fails_through_the_cli_and_writes_no_world(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    seed = tmp_path / "bad.yaml"
    text = (REPO / "seeds" / "mock.yaml").read_text()
    assert "    display: title\n" in text
    seed.write_text(text.replace("    display: title\n", "    dispaly: title\n", 1))
    line = text.splitlines().index("    display: title") + 1
    out = tmp_path / "worlds"
    code = cli.main(["world", str(seed), "--out", str(out), "--no-ui", "--no-tasks"])
    assert code != 0
    err = " ".join(capsys.readouterr().err.split())
    assert f"{seed}:{line}: entities[0].dispaly: unknown key 'dispaly'" in err
    assert not out.exists() or list(out.iterdir()) == []  # no world, no half-built one, no checkpoint


def test_counted_tasks_reach_the_installed_counter_with_their_counts() -> None:
    calls: list[tuple[str, int, int]] = []

    @contextmanager
    def counter(name: str, total: int) -> Iterator[progress.Advance]:
        done = 0

        def advance(n: int = 1) -> None:
            nonlocal done
            done += n
            calls.append((name, total, done))

        yield advance
        calls.append((name, total, -1))  # the end of the task

    progress.set_counter(counter)
    try:
        with progress.task("verify claims", total=3) as advance:
            advance(1)
            advance(2)
    finally:
        progress.set_counter(None)
    assert calls == [("verify claims", 3, 1), ("verify claims", 3, 3), ("verify claims", 3, -1)]
    with progress.task("after", total=2) as advance:  # back to logging: the counter hears nothing more
        advance(2)
    assert len(calls) == 3


def test_the_default_counter_logs_at_debug_only(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="factory"), progress.task("replay", total=4) as advance:
        for _ in range(4):
            advance(1)
    assert [r.levelno for r in caplog.records] == [logging.DEBUG, logging.DEBUG]
    assert caplog.records[-1].getMessage().startswith("replay: 4/4 in ")


def test_the_cli_display_counts_from_threads_and_reads_well_in_a_pipe() -> None:
    stream = io.StringIO()  # not a terminal: nothing is redrawn, each line is plain text
    console = Console(file=stream, width=100, highlight=False, soft_wrap=True)
    with cli.Display(console, "working ..."):
        progress.say("claims: 20 compiled [abc]")
        with progress.task("verify claims", total=20) as advance:
            threads = [threading.Thread(target=lambda: [advance(1) for _ in range(5)]) for _ in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "  · claims: 20 compiled [abc]"  # markup-like text is shown as said
    tenths = [line for line in lines[1:-1] if line.startswith("  · verify claims: ")]
    assert [line.split(": ")[1].split(",")[0] for line in tenths] == [f"{2 * k}/20" for k in range(1, 10)]
    assert lines[-1].startswith("  · verify claims: 20/20 in ")
    assert "\x1b" not in stream.getvalue()  # no cursor movement or colour codes in a log
    progress.say("after")  # the display is uninstalled with its block
    assert "after" not in stream.getvalue()


def test_apt_install_waits_for_a_busy_package_lock_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fake apt-get refuses twice for a held lock, then works: the install retries, says it is
    waiting, and passes apt-get the lock timeout; a refusal for another reason fails at once."""
    from factory.errors import BootstrapError
    from factory.runtime import bootstrap

    if os.geteuid() != 0:
        pytest.skip("the apt-get path runs as root only: run the tests as root (as .ci/run does) to cover it")
    calls, refusals = tmp_path / "calls", tmp_path / "refusals"
    refusals.write_text("2")
    fake = tmp_path / "bin" / "apt-get"
    fake.parent.mkdir()
    fake.write_text(f"""#!/bin/sh
echo "$@" >> {calls}
left=$(cat {refusals})
if [ "$left" -gt 0 ]; then
  echo $((left - 1)) > {refusals}
  echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (apt-get)" >&2
  exit 100
fi
case "$*" in *no-such-package*) echo "E: Unable to locate package no-such-package" >&2; exit 100;; esac
exit 0
""")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(bootstrap, "APT_RETRY_SECONDS", 0.0)
    monkeypatch.setattr(bootstrap, "DPKG_LOCKS", ())  # the machine's own locks are not this test's
    said: list[str] = []
    progress.set_reporter(said.append)
    try:
        assert bootstrap._apt_install("chromium") is True
        with pytest.raises(BootstrapError, match="Unable to locate package"):
            bootstrap._apt_install("no-such-package")
    finally:
        progress.set_reporter(None)
    lines = calls.read_text().splitlines()
    assert lines[:4] == ["-o DPkg::Lock::Timeout=600 update -qq"] * 3 + ["-o DPkg::Lock::Timeout=600 install -y -qq chromium"]
    # the refusal that is not about a lock is not retried: one update, one install, then the error
    assert lines[4:] == ["-o DPkg::Lock::Timeout=600 update -qq", "-o DPkg::Lock::Timeout=600 install -y -qq no-such-package"]
    assert sum("package lock is busy" in line for line in said) == 2
