"""The proposer: drafts of tasks (reads, writes, compound errands, setups) from the spec and the seed rows."""
