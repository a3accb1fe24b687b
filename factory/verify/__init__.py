"""Verifier: runs every claim against the running world and gathers evidence."""
