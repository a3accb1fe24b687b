"""A small, safe expression language for preconditions, effects and storylines.

Source text is tokenised and parsed into an AST (`syntax`), type-checked against the seed's
entities (`typecheck`), and rendered as readable Python for the generated backend (`pycode`).
Nothing is ever `eval`'d: an expression can only name parameters, fields and a fixed set of
functions.
"""
