"""Free texts agree with the kinds of their rows (`propose/kinds.py`): a text naming another kind
of the row, and none of its own, clashes; words are matched by their stem, not a list of slips."""

from __future__ import annotations

from factory.tasks.propose.text_shapes import clashes, kind_words, names_kind

CATEGORIES = ("collision", "glass", "theft", "water_damage", "storm", "burglary", "fire", "lost_baggage",
              "medical", "cancellation", "vet_bills")


def words(own: str) -> tuple[set[str], set[str]]:
    return kind_words(own), {w for v in CATEGORIES if v != own for w in kind_words(v)}


def test_a_text_naming_another_kind_clashes() -> None:
    own, others = words("lost_baggage")
    assert clashes("The vet has confirmed in writing that this is a new condition.", own, others)
    assert clashes("The damage was sudden, not wear and tear.", own, others)
    assert not clashes("I have now attached the police crime reference number.", own, others)


def test_a_stem_is_a_word_of_its_kind() -> None:
    own, others = words("medical")
    assert clashes("Trip cancelled after a family bereavement.", own, others)  # "cancellation"
    assert clashes("Back door forced and the flat burgled.", own, others)  # "burglary"
    own, others = words("cancellation")
    assert not clashes("Trip cancelled after a family bereavement.", own, others)
    assert names_kind("Trip cancelled after a family bereavement.", own)


def test_a_text_saying_its_own_kind_stands_beside_another() -> None:
    own, others = words("storm")
    assert not clashes("Storm lifted slates off the roof; water came through the ceiling.", own, others)
    assert names_kind("Storm lifted slates off the roof.", own)


def test_words_too_short_to_share_a_stem_must_be_equal() -> None:
    own, others = words("fire")
    assert not names_kind("Transport was late.", kind_words("transfer"))  # "trans…" is five letters, not all but two
    assert clashes("The vet bills arrived.", own, others)
    assert not clashes("A veteran driver.", own, others)  # "vet" is a word, not a stem of "veteran"


def test_a_plural_kind_stands_before_its_noun_only_as_a_compound_of_nouns() -> None:
    """"a vet bills claim" (a noun compound ending in its plural), never "a new arrivals claim" or
    "a two beds room" (an adjective or a number before the plural) or "a bills claim"."""
    from factory.tasks.language.modifiers import stands_before

    assert stands_before("vet bills", ["claim"]) and stands_before("savings", ["account"])
    for value in ("bills", "new arrivals", "two beds", "the goods"):
        assert not stands_before(value, ["claim"]), value
