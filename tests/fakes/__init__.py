"""Fakes for the tests: the scripted OpenAI-compatible server (the only stand-in for a model)."""
