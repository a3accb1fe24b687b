"""Serve a built world to agents: many isolated episodes in one process, exact reset, a privileged
evaluator on its own port, and clients (HTTP, Gymnasium, MCP).

Standalone like `verifiers/` (a benchmark bundle ships both without the factory): it imports the
world's generated app, `verifiers/` for grading, and nothing of `factory/`.
"""
