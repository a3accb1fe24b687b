"""The command line as a user runs it: check, serve."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx

from factory.runtime.server import free_port

REPO = Path(__file__).resolve().parents[2]


def test_check_reports_a_valid_seed() -> None:
    result = subprocess.run([sys.executable, "-m", "factory", "check", "seeds/mock.yaml"], cwd=REPO,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "ok seeds/mock.yaml" in result.stderr and "5 workflows" in result.stderr


def test_serve_keep_prints_url_and_logins_and_answers(mock_world: Path) -> None:
    """`--keep`: the old single app on run/app.db, which keeps changes between runs."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "factory", "serve", str(mock_world), "--port", str(port),
                                "--keep", "--fresh"], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        page = httpx.get(f"http://127.0.0.1:{port}/notes")
        assert page.status_code == 200 and '<div id="root">' in page.text
        assert (mock_world / "run" / "app.db").is_file()
    finally:
        process.terminate()
        output = process.communicate(timeout=10)[0]
    assert f"http://127.0.0.1:{port}/" in output
    assert "alice" in output and "alice-pass" in output
