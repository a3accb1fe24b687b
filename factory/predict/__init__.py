"""The spec's semantics over a database, shared by the claims oracle (stage one) and stage two: the
expression interpreter that predicts what a sequence of workflow calls does (`effects`,
`interpreter`, `overlay`) and the reader of a world database as its users see it (`rows`)."""
