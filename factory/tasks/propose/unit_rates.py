"""Amounts that are rates, read from how the seed computes with them, not from their labels.

A ticket tier's price is multiplied by a quantity to make an order's total (`total: "tier.price *
quantity"`): it is the price of one, and "the total price of the ticket tiers for an event" adds
up prices of different things, which no one asks. A field the seed's expressions multiply by a
parameter or another field (in an effect's values, a set's value or a computed field) is such a rate; `spoken.additive`
judges the label's words, this judges the arithmetic.
"""

from __future__ import annotations

from functools import cache

from factory.errors import ExpressionError
from factory.expr.syntax import Attr, Binary, Call, Name, Node, Query, Unary, parse
from factory.spec.model import Spec


@cache
def _rated(expressions: tuple[str, ...]) -> frozenset[str]:
    names: set[str] = set()
    for source in expressions:
        try:
            names |= _scaled(parse(source))
        except ExpressionError:
            continue  # a value that is no expression (a literal the compiler took as is)
    return frozenset(names)


def unit_rates(spec: Spec) -> frozenset[str]:
    """The names of fields the seed's expressions multiply by a count."""
    expressions = [str(v) for w in spec.workflows for e in w.effects
                   for v in [*(e.values or {}).values(), e.to] if v]
    expressions += [f.compute for ent in spec.entities for f in ent.fields if f.compute]
    return _rated(tuple(sorted(set(expressions))))


def _scaled(node: Node | None) -> set[str]:
    """Fields multiplied by a count in `node`: "tier.price" of "tier.price * quantity", where the
    other factor is a parameter or a field (a quantity, a party size), never a constant ("balance
    / 20" takes a share, "(id - 1) * 12" is arithmetic on ids)."""
    if node is None:
        return set()
    found: set[str] = set()
    if isinstance(node, Binary):
        if node.op == "*":
            for one, other in ((node.left, node.right), (node.right, node.left)):
                if isinstance(one, Attr) and isinstance(other, (Attr, Name)):
                    found.add(one.name)
        return found | _scaled(node.left) | _scaled(node.right)
    if isinstance(node, Attr):
        return _scaled(node.obj)
    if isinstance(node, Unary):
        return _scaled(node.operand)
    if isinstance(node, Call):
        return set().union(*(_scaled(a) for a in node.args)) if node.args else set()
    if isinstance(node, Query):
        return _scaled(node.where) | _scaled(node.value)
    return set()
