"""reward-gen's sandbox against hostile policies: every escape is attempted for real and fails.

Each test writes a policy module into a folder of its own (passed as `policy_path`), with code
that runs at import time or when the policy is called, and runs it through `run_rewardgen` on the
mock world, laid out as stage two lays out its run folder: a golden database in
`run/tasks/golden/` beside the reward-gen folder `run/tasks/rewardgen-0/`. Two layers are tested:
the audit hook (Python-level reaches fail with kind "isolation", naming the attempt) and, with
the hook bypassed through libc (ctypes), the namespaces themselves (the host is simply absent).
Every test checks the host side too: the golden bytes are unchanged, a listener got nothing, no
file appeared, no process lives on.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from factory.spec.model import Spec
from factory.tasks.reward.gen import deterministic_policy, run_rewardgen
from factory.tasks.reward.sandbox import Limits, SandboxUnavailableError
from factory.world.assemble import build_world

REPO = Path(__file__).resolve().parents[2]
SEEDS = REPO / "seeds"
TASK_ID = "mock-write-archive_note-002"  # a task id names its workflow: it must never be visible
OTHER_ID = "mock-write-move_note-007"

# Helpers every hostile module starts with. ctypes is imported lazily: in unsafe mode the hook
# refuses it, and that refusal is itself one of the outcomes recorded.
PRELUDE = '''
import json, os, sys

def libc():
    import ctypes
    return ctypes.CDLL(None, use_errno=True)

def raw_call(name, *args):
    """Call libc directly: no audit hook sees this, only the kernel decides."""
    import ctypes
    lib = libc()
    result = getattr(lib, name)(*args)
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return result

def raw_open(path, flags=os.O_RDONLY):
    try:
        return raw_call("open", os.fsencode(str(path)), flags | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from None

def raw_read(path, limit=1 << 20):
    fd = raw_open(path)
    try:
        return os.read(fd, limit)
    finally:
        os.close(fd)

def attempt(fn, *args):
    try:
        return "ok: " + repr(fn(*args))[:300]
    except BaseException as exc:
        return f"{type(exc).__name__}: {exc}"[:300]

def report(findings):
    return {"schema_version": 1, "mode": "all", "checks": [
        {"id": "report", "type": "diff_within", "allowed": {}, "description": json.dumps(findings)}]}
'''


@dataclass
class Run:
    """A world and a run folder laid out like stage two's, with a golden database in it."""

    world: Path
    spec: Spec
    user: str
    root: Path  # the test's folder
    golden: Path  # run/tasks/golden/<task>.db
    initial: Path  # run/tasks/initial/<task>.db
    batch: Path  # run/tasks/rewardgen-0 (the `sandbox` folder)
    policies: Path

    def digest(self) -> str:
        return hashlib.sha256(self.golden.read_bytes()).hexdigest()

    def job(self, goal: str = "Archive my note.", task: str = TASK_ID, db: Path | None = None) -> dict[str, Any]:
        return {"id": task, "goal": goal, "user": self.user, "initial_db": str(db or self.initial)}

    def run(self, source: str, *, jobs: list[dict[str, Any]] | None = None, mode: str = "bwrap",
            limits: Limits | None = None, timeout: float | None = None,
            constants: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
        """Run the hostile policy `source` (with PRELUDE and `constants` prepended)."""
        header = "".join(f"{k} = {v!r}\n" for k, v in {"GOLDEN": str(self.golden), "RUN": str(self.root / "run"),
                                                         "ROOT": str(self.root), **(constants or {})}.items())
        (self.policies / "hostile.py").write_text(PRELUDE + header + source)
        return run_rewardgen(self.world / "spec.json", jobs or [self.job()], self.batch, "hostile:policy",
                             self.policies, timeout=timeout, mode=mode, limits=limits)


def findings(results: dict[str, Any], task: str = TASK_ID) -> Any:
    """What a hostile policy reported (it returns its findings inside a valid reward program)."""
    result = results if "ok" in results else results[task]
    assert result["ok"] is True, result
    return json.loads(result["reward"]["checks"][0]["description"])


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_world(SEEDS / "mock.yaml", tmp_path_factory.mktemp("sandbox-world"), frontend=False).path


@pytest.fixture()
def run(world: Path, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Run:
    spec = Spec.model_validate_json((world / "spec.json").read_text())
    tasks = tmp_path / "run" / "tasks"
    for sub in ("golden", "initial"):
        (tasks / sub).mkdir(parents=True)
    golden = tasks / "golden" / f"{TASK_ID}.db"
    initial = tasks / "initial" / f"{TASK_ID}.db"
    shutil.copyfile(world / "data" / "seed.db", golden)
    shutil.copyfile(world / "data" / "seed.db", initial)
    # Not inside the test's folder: a bound folder's parents exist (empty) in the sandbox.
    policies = tmp_path_factory.mktemp("policies")
    return Run(world, spec, spec.users[0].username, tmp_path, golden, initial, tasks / "rewardgen-0", policies)


# ---------------------------------------------------------------- files and databases ---------

def test_the_golden_database_beside_the_sandbox_cannot_be_read(run: Run) -> None:
    before = run.digest()
    found = findings(run.run('''
def policy(instruction, spec, db):
    return report({
        "python": attempt(lambda: open(GOLDEN, "rb").read(16)),
        "libc": attempt(raw_read, GOLDEN),
        "run_folder": attempt(raw_read, RUN + "/tasks/initial/" + os.path.basename(GOLDEN)),
        "listing": attempt(lambda: os.listdir(os.path.dirname(GOLDEN))),
        "sqlite": attempt(lambda: __import__("sqlite3").connect(GOLDEN).execute("select 1").fetchall()),
    })
'''))
    assert found["python"].startswith("IsolationError") and run.golden.name in found["python"], found
    assert found["libc"].startswith("FileNotFoundError"), found
    assert found["run_folder"].startswith("FileNotFoundError"), found
    assert found["listing"].startswith("IsolationError"), found
    assert found["sqlite"].startswith("IsolationError"), found
    # Let the attempt fail the job: the result names what was tried.
    result = run.run("def policy(instruction, spec, db):\n    return open(GOLDEN, 'rb').read()\n")[TASK_ID]
    assert result["ok"] is False and result["kind"] == "isolation" and str(run.golden) in result["error"], result
    assert run.digest() == before


@pytest.mark.parametrize("mode", ["bwrap", "unsafe"])
def test_attach_from_memory_can_neither_read_nor_write_the_golden_database(run: Run, mode: str) -> None:
    before = run.digest()
    siblings = sorted(p.name for p in run.golden.parent.iterdir())
    result = run.run('''
import sqlite3
def policy(instruction, spec, db):
    conn = sqlite3.connect(":memory:")
    conn.execute("ATTACH DATABASE ? AS g", (GOLDEN,))
    conn.execute("CREATE TABLE g.pwned (x)")
    conn.execute("UPDATE g.note SET title = 'pwned'")
    conn.commit()
    return report(conn.execute("SELECT count(*) FROM g.note").fetchall())
''', mode=mode)[TASK_ID]
    assert result["ok"] is False and result["kind"] == "error", result
    expected = "unable to open database" if mode == "bwrap" else "too many attached databases"
    assert "OperationalError" in result["error"] and expected in result["error"], result
    assert run.digest() == before
    assert sorted(p.name for p in run.golden.parent.iterdir()) == siblings  # no journal, no new file


@pytest.mark.parametrize("mode", ["bwrap", "unsafe"])
def test_vacuum_into_a_host_path_writes_nothing_on_the_host(run: Run, mode: str) -> None:
    beside = run.golden.parent / "stolen.db"  # the folder exists on the host, not in the sandbox
    in_tmp = Path("/tmp") / f"rewardgen-stolen-{uuid.uuid4().hex}.db"  # /tmp exists in both
    found = findings(run.run('''
import sqlite3
def policy(instruction, spec, db):
    def vacuum(target):
        conn = sqlite3.connect(":memory:")
        conn.execute("CREATE TABLE t (x)")
        conn.execute("INSERT INTO t VALUES (42)")
        conn.commit()
        conn.execute("VACUUM INTO ?", (target,))
        return "written"
    return report({"beside": attempt(vacuum, BESIDE), "tmp": attempt(vacuum, IN_TMP)})
''', mode=mode, constants={"BESIDE": str(beside), "IN_TMP": str(in_tmp)}))
    assert not beside.exists() and not in_tmp.exists(), found
    assert "unable to open database" in found["beside"] or "too many attached" in found["beside"], found
    if mode == "bwrap":
        assert found["tmp"] == "ok: 'written'", found  # written, but to the sandbox's own /tmp
    else:
        assert "too many attached databases" in found["tmp"], found


def test_links_of_host_files_into_the_job_folder_expose_nothing(run: Run) -> None:
    before, links = run.digest(), run.golden.stat().st_nlink
    found = findings(run.run('''
def policy(instruction, spec, db):
    return report({
        "python_link": attempt(os.link, GOLDEN, "/job/g.db"),
        "python_symlink": attempt(os.symlink, GOLDEN, "/tmp/g.db"),
        "libc_link": attempt(raw_call, "link", os.fsencode(GOLDEN), b"/job/g.db"),
        "libc_link_tmp": attempt(raw_call, "link", os.fsencode(GOLDEN), b"/tmp/g2.db"),
        "libc_symlink": attempt(raw_call, "symlink", os.fsencode(GOLDEN), b"/tmp/g3.db"),
        "through_symlink": attempt(raw_read, "/tmp/g3.db"),
        "job_is_read_only": attempt(raw_open, "/job/new", os.O_WRONLY | os.O_CREAT),
    })
'''))
    assert found["python_link"].startswith("IsolationError") and "os.link" in found["python_link"], found
    assert found["python_symlink"].startswith("IsolationError"), found
    assert found["libc_link"].startswith("FileNotFoundError"), found  # the host file is not there
    assert "No such file" in found["libc_link_tmp"], found
    assert found["libc_symlink"] == "ok: 0", found  # a dangling link in its own tmpfs ...
    assert "No such file" in found["through_symlink"], found  # ... that leads nowhere
    assert "Read-only file system" in found["job_is_read_only"], found
    assert run.digest() == before and run.golden.stat().st_nlink == links
    assert not list(run.batch.rglob("g*.db"))


def test_host_processes_and_the_parents_command_line_are_invisible(run: Run) -> None:
    found = findings(run.run('''
def policy(instruction, spec, db):
    fd = raw_open("/proc", os.O_RDONLY | os.O_DIRECTORY)
    pids = sorted(int(e.name) for e in os.scandir(fd) if e.name.isdigit())
    lines = {p: attempt(raw_read, f"/proc/{p}/cmdline") for p in pids}
    return report({
        "pids": pids, "cmdlines": lines, "ppid": os.getppid(),
        "parent": attempt(raw_read, f"/proc/{HOST_PID}/cmdline"),
        "parent_python": attempt(lambda: open(f"/proc/{HOST_PID}/cmdline").read()),
        "environ": sorted(v.split(b"=")[0].decode() for v in raw_read("/proc/1/environ").split(b"\\0") if v),
    })
''', constants={"HOST_PID": os.getpid()}))
    assert found["pids"] == [1], found  # itself, PID 1 of its own namespace
    assert found["ppid"] == 0  # its parent is outside the namespace
    assert found["parent"].startswith("FileNotFoundError"), found
    assert found["parent_python"].startswith("IsolationError"), found
    assert "pytest" not in json.dumps(found["cmdlines"]) and str(run.root / "run") not in json.dumps(found)
    assert found["environ"] == ["HOME", "LANG", "PWD", "PYDANTIC_DISABLE_PLUGINS", "PYTHONDONTWRITEBYTECODE",
                                "PYTHONHASHSEED", "PYTHONPATH"], found  # a cleared environment


def test_a_descriptor_the_parent_holds_is_not_inherited(run: Run) -> None:
    fd = os.open(run.golden, os.O_RDONLY)
    os.set_inheritable(fd, True)  # the worst case: even an inheritable descriptor
    held = run.golden.open("rb")  # and an ordinary Python file object
    try:
        st = os.fstat(fd)
        found = findings(run.run('''
def policy(instruction, spec, db):
    seen = []
    for n in range(0, 1024):
        try:
            st = os.fstat(n)
        except OSError:
            continue
        seen.append([n, st.st_dev, st.st_ino, attempt(os.readlink, f"/proc/self/fd/{n}")])
    return report({"seen": seen, "read_fd": attempt(os.read, FD, 16)})
''', constants={"FD": fd}))
    finally:
        os.close(fd)
        held.close()
    assert all((dev, ino) != (st.st_dev, st.st_ino) for _n, dev, ino, _target in found["seen"]), found
    assert found["read_fd"].startswith("OSError") and "Bad file descriptor" in found["read_fd"], found
    assert [n for n, *_ in found["seen"]] == [0, 1, 2, 3], found  # stdin, stdout, stderr, its result pipe


def test_libc_open_through_ctypes_finds_no_host_file(run: Run) -> None:
    host_files = [run.golden, run.initial, REPO / "README.md", REPO / "pyproject.toml", Path(__file__),
                  Path("/etc/passwd")]
    host_files = [p for p in host_files if p.exists()]
    assert len(host_files) >= 5
    found = findings(run.run('''
def policy(instruction, spec, db):
    return report({p: attempt(raw_read, p) for p in PATHS})
''', constants={"PATHS": [str(p) for p in host_files]}))
    assert all(outcome.startswith("FileNotFoundError") for outcome in found.values()), found
    result = run.run("def policy(instruction, spec, db):\n    return raw_read(GOLDEN)\n")[TASK_ID]
    assert result["ok"] is False and result["kind"] == "error" and "FileNotFoundError" in result["error"], result


def test_os_stat_does_not_reveal_whether_a_host_path_exists(run: Run) -> None:
    exists = [run.golden, run.golden.parent, run.root / "run", run.root, REPO / "README.md", REPO / ".git",
              REPO / "worlds", Path("/etc/passwd"), Path("/home"), Path("/var")]
    exists = [p for p in exists if p.exists()]
    missing = [run.golden.parent / "no-such.db", Path("/etc/no-such-file")]
    found = findings(run.run('''
def policy(instruction, spec, db):
    return report({p: attempt(lambda: os.stat(p).st_size) for p in PATHS})
''', constants={"PATHS": [str(p) for p in exists + missing]}))
    # One answer for a path that exists on the host and one that does not: "no such file".
    assert {v.split(":")[0] for v in found.values()} == {"FileNotFoundError"}, found


# ---------------------------------------------------------------- what the sandbox holds ------

def test_nothing_in_the_sandbox_names_the_task_or_another_task(run: Run) -> None:
    other_db = run.root / "run" / "tasks" / "initial" / f"{OTHER_ID}.db"
    shutil.copyfile(run.initial, other_db)
    with sqlite3.connect(other_db) as conn:  # the other task's initial state differs from this one's
        conn.execute("UPDATE note SET title = 'the other task''s row' WHERE id = (SELECT min(id) FROM note)")
    goals = {TASK_ID: "Archive my note titled alpha.", OTHER_ID: "Move my note titled beta."}
    jobs = [run.job(goals[TASK_ID], TASK_ID), run.job(goals[OTHER_ID], OTHER_ID, other_db)]
    results = run.run('''
def walk(path, names, depth=0):
    try:
        fd = raw_open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        entries = list(os.scandir(fd))
    finally:
        os.close(fd)
    for entry in entries:
        full = path.rstrip("/") + "/" + entry.name
        names.append(full)
        if entry.is_dir(follow_symlinks=False) and full not in ("/proc", "/dev") and depth < 40:
            walk(full, names, depth + 1)

def policy(instruction, spec, db):
    names = []
    walk("/", names)
    texts = {"argv": " ".join(sys.argv), "env": json.dumps(dict(os.environ))}
    mine = os.path.dirname(__file__)  # this module holds the needles itself
    # The factory's code and the Python installation are bound read-only at their host paths,
    # which may lie under /tmp (a CI checkout): their sources mention "golden" and are not task data.
    code = tuple(root.rstrip("/") + "/" for root in CODE_ROOTS)
    for path in [n for n in names if n.startswith(("/job/", "/tmp/")) and not n.startswith(mine)
                 and not n.startswith(code)] + [
            "/proc/self/cmdline", "/proc/self/environ", "/proc/self/mountinfo", "/proc/1/cmdline"]:
        try:
            texts[path] = raw_read(path, 1 << 24).decode("utf-8", "replace")
        except OSError as exc:
            texts[path] = str(exc)
    hits = [[needle, where] for needle in NEEDLES for where, text in texts.items() if needle in text]
    hits += [[needle, name] for needle in NEEDLES if needle != "golden" for name in names if needle in name]
    own = json.loads(texts["/job/job.json"])
    return report({"hits": hits, "names": len(names), "job_keys": sorted(own), "job": own["job"],
                   "job_files": sorted(n for n in names if n.startswith("/job/")),
                   "goal": instruction["goal"]})
''', jobs=jobs, constants={"NEEDLES": [TASK_ID, OTHER_ID, "golden", "archive_note-002", *goals.values(),
                                       "the other task's row", str(run.root / "run"), str(run.batch)],
                                       "CODE_ROOTS": [str(REPO / "factory"), str(REPO / "verifiers"),
                                                      sys.prefix, sys.base_prefix, sys.exec_prefix]})
    for task, goal in goals.items():
        found = findings(results[task])
        assert found["goal"] == goal
        other_goal = goals[OTHER_ID if task == TASK_ID else TASK_ID]
        unexpected = [h for h in found["hits"] if h[0] != goal and not (h[0] == "the other task's row" and task == OTHER_ID)]
        assert unexpected == [], (task, unexpected)
        assert [other_goal, "/job/job.json"] not in found["hits"]
        assert found["job_keys"] == ["instruction", "job"] and found["job"] not in (TASK_ID, OTHER_ID)
        assert found["job_files"] == ["/job/initial.db", "/job/job.json", "/job/spec.json"], found
        assert found["names"] > 1000  # the walk did see the whole (read-only) tree
    assert findings(results[TASK_ID])["job"] != findings(results[OTHER_ID])["job"]


# ---------------------------------------------------------------- the network -----------------

@pytest.mark.parametrize("via", ["python", "libc"])
def test_tcp_and_udp_to_the_hosts_loopback_arrive_nowhere(run: Run, via: str) -> None:
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        udp.bind(("127.0.0.1", 0))
        tcp.bind(("127.0.0.1", 0))
        tcp.listen(8)
        found = findings(run.run('''
import socket, struct
def sockaddr(port):
    return struct.pack("=HH4s8x", socket.AF_INET, socket.htons(port), socket.inet_aton("127.0.0.1"))

def libc_udp():
    fd = raw_call("socket", socket.AF_INET, socket.SOCK_DGRAM, 0)
    addr = sockaddr(UDP_PORT)
    return raw_call("sendto", fd, b"leak", 4, 0, addr, len(addr))

def libc_tcp():
    fd = raw_call("socket", socket.AF_INET, socket.SOCK_STREAM, 0)
    addr = sockaddr(TCP_PORT)
    raw_call("connect", fd, addr, len(addr))
    return raw_call("send", fd, b"leak", 4, 0)

def py_udp():
    return socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"leak", ("127.0.0.1", UDP_PORT))

def py_tcp():
    s = socket.create_connection(("127.0.0.1", TCP_PORT), timeout=2)
    return s.send(b"leak")

def policy(instruction, spec, db):
    if VIA == "python":
        return report({"udp": attempt(py_udp), "tcp": attempt(py_tcp)})
    return report({"udp": attempt(libc_udp), "tcp": attempt(libc_tcp),
                   "interfaces": attempt(lambda: open("/proc/net/dev").read().count(":"))})
''', constants={"UDP_PORT": udp.getsockname()[1], "TCP_PORT": tcp.getsockname()[1], "VIA": via}))
        udp.settimeout(1.0)
        with pytest.raises(TimeoutError):
            udp.recvfrom(64)
        tcp.settimeout(0.5)
        with pytest.raises(TimeoutError):
            tcp.accept()
    finally:
        udp.close()
        tcp.close()
    if via == "python":
        assert found["udp"].startswith("IsolationError") and "socket.sendto" in found["udp"], found
        assert found["tcp"].startswith("IsolationError") and "socket.connect" in found["tcp"], found
    else:
        # The datagram goes out on the namespace's own loopback, where nothing listens; the
        # connection is refused there. The host's listeners never hear of either.
        assert "Connection refused" in found["tcp"], found
        assert found["udp"] == "ok: 4" or "refused" in found["udp"], found


# ---------------------------------------------------------------- limits ----------------------

def test_huge_output_fails_the_job_at_the_output_limits(run: Run) -> None:
    limits = Limits(file_bytes=1 << 20, output_bytes=1 << 20)
    printed = run.run("def policy(instruction, spec, db):\n"
                      "    for _ in range(200):\n"
                      "        print('x' * (1 << 20))\n", limits=limits)[TASK_ID]
    assert printed["ok"] is False and printed["kind"] == "limit" and "RLIMIT_FSIZE" in printed["error"], printed
    returned = run.run("def policy(instruction, spec, db):\n"
                       "    out = report('x' * (50 << 20))\n    return out\n", limits=limits)[TASK_ID]
    assert returned["ok"] is False and returned["kind"] == "limit", returned
    assert returned["error"].startswith("output size") and str(1 << 20) in returned["error"], returned
    written = run.run("def policy(instruction, spec, db):\n"
                      "    fd = raw_open('/tmp/big', os.O_WRONLY | os.O_CREAT)\n"
                      "    while True:  # a write that crosses the limit is cut short; the next one fails\n"
                      "        os.write(fd, b'x' * (1 << 18))\n", limits=limits)[TASK_ID]
    assert written["kind"] == "limit" and "RLIMIT_FSIZE" in written["error"], written
    assert sum(p.stat().st_size for p in run.batch.rglob("*") if p.is_file()) < 1 << 20  # nothing kept


def test_an_infinite_loop_is_killed_at_the_cpu_limit_and_a_sleeper_at_the_wall_clock(run: Run) -> None:
    start = time.monotonic()
    spun = run.run("def policy(instruction, spec, db):\n    while True:\n        pass\n",
                   limits=Limits(cpu_seconds=1))[TASK_ID]
    assert spun["ok"] is False and spun["kind"] == "limit", spun
    assert spun["error"].startswith("CPU time") and "RLIMIT_CPU 1 s" in spun["error"], spun
    ignored = run.run("import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\n"
                      "def policy(instruction, spec, db):\n    while True:\n        pass\n",
                      limits=Limits(cpu_seconds=1))[TASK_ID]
    assert ignored["kind"] == "limit" and ignored["error"].startswith("CPU time"), ignored
    slept = run.run("import time\ndef policy(instruction, spec, db):\n    time.sleep(600)\n", timeout=2)[TASK_ID]
    assert slept["ok"] is False and slept["kind"] == "limit" and slept["error"].startswith("wall-clock"), slept
    assert time.monotonic() - start < 30


def test_allocating_4_gb_fails_at_the_memory_limit(run: Run) -> None:
    result = run.run("def policy(instruction, spec, db):\n    hog = bytearray(4 << 30)\n    return report(len(hog))\n")
    assert result[TASK_ID]["ok"] is False and result[TASK_ID]["kind"] == "limit", result
    assert "RLIMIT_AS" in result[TASK_ID]["error"] and result[TASK_ID]["error"].startswith("memory")


def _alive(name: str) -> list[int]:
    alive = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "comm").read_text().strip() == name:
                alive.append(int(entry.name))
        except OSError:
            continue
    return alive


@pytest.mark.parametrize("via", ["python", "libc"])
def test_a_forked_process_does_not_outlive_its_job(run: Run, via: str) -> None:
    name = f"rg-{uuid.uuid4().hex[:10]}"  # a process name to look for on the host
    start = time.monotonic()
    result = run.run('''
import time
def fork():
    if VIA == "python":
        return os.fork()
    return raw_call("fork")

def policy(instruction, spec, db):
    pid = fork()
    if pid == 0:  # the child: rename, leave the session, fork again, live on
        try:
            lib = libc()
            lib.prctl(15, NAME.encode(), 0, 0, 0)  # PR_SET_NAME
            lib.setsid()
            if lib.fork() == 0:
                lib.prctl(15, NAME.encode(), 0, 0, 0)
                time.sleep(120)
        finally:
            os._exit(0)
    time.sleep(0.5)  # let the grandchild start
    return report({"forked": pid})
''', constants={"NAME": name, "VIA": via})[TASK_ID]
    assert time.monotonic() - start < 20  # nothing it left behind kept the job open
    if via == "python":
        assert result["ok"] is False and result["kind"] == "isolation" and "os.fork" in result["error"], result
    else:
        assert findings(result)["forked"] > 1
    deadline = time.monotonic() + 5
    while _alive(name) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _alive(name) == []


# ---------------------------------------------------------------- import-time code ------------

def test_import_time_code_runs_inside_the_sandbox(run: Run) -> None:
    before = run.digest()
    read = run.run("STOLEN = open(GOLDEN, 'rb').read()\ndef policy(instruction, spec, db):\n    return report(len(STOLEN))\n")
    assert read[TASK_ID]["kind"] == "isolation" and str(run.golden) in read[TASK_ID]["error"], read
    found = findings(run.run('''
KEPT = {
    "golden": attempt(raw_open, GOLDEN),
    "parent": attempt(raw_read, f"/proc/{HOST_PID}/cmdline"),
    "run": attempt(os.stat, RUN),
    "own_db": attempt(raw_open, "/job/initial.db"),
}
def policy(instruction, spec, db):
    fd = int(KEPT["own_db"][4:])
    KEPT["own_db_is"] = os.readlink(f"/proc/self/fd/{fd}")
    return report(KEPT)
''', constants={"HOST_PID": os.getpid()}))
    assert found["golden"].startswith("FileNotFoundError") and found["parent"].startswith("FileNotFoundError")
    assert found["run"].startswith("FileNotFoundError"), found
    assert found["own_db_is"] == "/job/initial.db", found  # what it keeps is its own input
    assert run.digest() == before


# ---------------------------------------------------------------- honest work and the modes ---

def test_the_deterministic_policy_writes_the_same_rewards_in_every_mode(run: Run) -> None:
    from factory.tasks.propose.proposer import Plan, Proposer

    seed_db = run.world / "data" / "seed.db"
    proposer = Proposer(run.spec, seed_db)
    drafts = [d for d in proposer.propose(Plan.for_total(16)) if not d.setup]
    proposer.close()
    jobs = [{"id": d.key, "goal": d.goal, "user": d.user, "initial_db": str(seed_db)} for d in drafts]
    sandboxed = run_rewardgen(run.world / "spec.json", jobs, run.batch)
    unsafe = run_rewardgen(run.world / "spec.json", jobs, run.root / "unsafe", mode="unsafe")
    assert sandboxed == unsafe
    assert sum(r["ok"] for r in sandboxed.values()) >= len(jobs) - 2
    for d in drafts:
        if sandboxed[d.key]["ok"]:
            direct = deterministic_policy({"goal": d.goal, "user": d.user}, run.spec, seed_db)
            assert sandboxed[d.key]["reward"] == json.loads(json.dumps(direct)), d.key
    assert set(json.loads((run.batch / "results.json").read_text())) == set(sandboxed)


def test_a_policy_folder_that_holds_the_run_is_refused(run: Run) -> None:
    from factory.errors import TaskError

    with pytest.raises(TaskError, match=r"policy_path .* holds"):
        run_rewardgen(run.world / "spec.json", [run.job()], run.batch, "hostile:policy", run.root)


def test_unsafe_sandbox_is_recorded_in_the_manifest_and_the_report(world: Path, tmp_path: Path) -> None:
    from factory.tasks.graph import run_stage_two

    unsafe = tmp_path / "unsafe" / "mock"
    shutil.copytree(world, unsafe)
    done = subprocess.run([sys.executable, "-m", "factory", "tasks", str(unsafe), "--no-ui", "--tasks", "6",
                           "--unsafe-sandbox"], cwd=REPO, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads((unsafe / "manifest.json").read_text())["rewardgen_sandbox"] == "unsafe"
    assert json.loads((unsafe / "tasks" / "report.json").read_text())["rewardgen_sandbox"] == "unsafe"
    safe = tmp_path / "safe" / "mock"
    shutil.copytree(world, safe)
    result = run_stage_two(safe, total=6, ui=False)
    assert result.accepted > 0
    assert json.loads((safe / "manifest.json").read_text())["rewardgen_sandbox"] == "bwrap"
    assert json.loads((safe / "tasks" / "report.json").read_text())["rewardgen_sandbox"] == "bwrap"


def test_stage_two_refuses_at_once_where_namespaces_cannot_be_made(world: Path, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from factory.tasks.graph import run_stage_two

    copy = tmp_path / "mock"
    shutil.copytree(world, copy)
    monkeypatch.setenv("FACTORY_BWRAP", str(tmp_path / "no-such-bwrap"))
    with pytest.raises(SandboxUnavailableError, match="apt-get install bubblewrap"):
        run_stage_two(copy, total=6, ui=False)
    assert not (copy / "run" / "tasks").exists()  # refused before any work
