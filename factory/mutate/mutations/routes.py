"""Faults in the HTTP surface: a route that is never registered, and a login that no longer works."""

from __future__ import annotations

import random
import re

from factory.mutate.mutations.base import Applied, Mutation, MutationError, Target, WorldView, match_once, replace_once, splice
from factory.world.layout import BACKEND

ROUTERS = f"{BACKEND}/routers"
AUTH = f"{ROUTERS}/auth.py"
# Health is the readiness probe (a world without it never starts), and login belongs to break_login.
_UNDROPPABLE = ("health", "auth")


def _route_targets(view: WorldView) -> list[Target]:
    return [Target(f"{r.method} {r.path}", r) for r in view.spec.routes if r.kind not in _UNDROPPABLE]


def _drop_route(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    route = target.ref
    # The decorator names its operation id, which is unique across the app: that is the anchor.
    pattern = rf'^@router\.(get|post|patch|put|delete)\(\s*"[^"\n]*",\s*operation_id="{re.escape(route.operation_id)}"[^)]*\)\n'
    hits = [(path, m) for path in sorted((view.root / ROUTERS).glob("*.py"))
            for m in re.finditer(pattern, path.read_text(), re.MULTILINE)]
    if len(hits) != 1:
        raise MutationError(f"{view.root / ROUTERS}: expected one decorator with operation_id="
                            f"{route.operation_id!r}, found {len(hits)}")
    path, match = hits[0]
    if match.group(1).upper() != route.method:
        raise MutationError(f"{path}: {route.operation_id} is registered as {match.group(1).upper()}, "
                            f"the spec says {route.method}")
    rel = path.relative_to(view.root).as_posix()
    view.write(rel, splice(path.read_text(), match.start(), match.end(), ""))
    return Applied(f"{route.method} {route.path} is no longer registered: removed the @router.{match.group(1)} "
                   f"decorator of {route.operation_id} in {rel}", (rel,))


def _login_targets(_view: WorldView) -> list[Target]:
    return [Target("POST /api/auth/login: correct password refused", "refuse"),
            Target("POST /api/auth/login: wrong password accepted", "accept"),
            Target("POST /api/auth/login: no session cookie", "cookie")]


def _break_login(view: WorldView, target: Target, _rng: random.Random) -> Applied:
    text = view.read(AUTH)
    check = "hash_password(user.username, body.password)"
    if target.ref == "refuse":
        # Salting with the display name instead of the username: every stored hash mismatches.
        new = replace_once(text, check, "hash_password(user.name, body.password)", AUTH)
        what = "the password is hashed with the user's name instead of the username, so correct passwords fail"
    elif target.ref == "accept":
        new = replace_once(text, f"if user is None or user.password_hash != {check}:", "if user is None:", AUTH)
        what = "the password comparison was dropped, so any password logs in"
    else:
        match = match_once(r"^ +response\.set_cookie\(SESSION_COOKIE, [^\n]*\n", text, AUTH)
        new = splice(text, match.start(), match.end(), "")
        what = "login answers 200 but never sets the session cookie, so the user stays logged out"
    view.write(AUTH, new)
    return Applied(f"login: {what} ({AUTH})", (AUTH,))


MUTATIONS = (
    Mutation("drop_route", "backend", _route_targets, _drop_route),
    Mutation("break_login", "backend", _login_targets, _break_login),
)
