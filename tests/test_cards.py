"""Cards and hands in Rook deal notation: canonical output, round trips, errors."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rook_analyze.solver import (COLORS, Card, DuplicateCardError, Hand, InvalidCardError,
                                 NotationError, Rules)
from rook_analyze.solver.cards import mask_indices

ALL_CARDS = [Card(c, n) for c in COLORS for n in range(1, 15)] + [Card.rook(), Card.rook(second=True)]
CANONICAL = [Card.rook(), Card.rook(second=True)] + [Card(c, n) for c in COLORS for n in range(14, 0, -1)]


def test_card_indices_are_distinct_and_stable():
    indices = {c.index for c in ALL_CARDS}
    assert len(indices) == 58
    assert Card.rook().index == 0 and Card.rook(second=True).index == 15
    assert Card("R", 5).index == 16 + 5
    for c in ALL_CARDS:
        assert Card.from_index(c.index) == c
        assert c.bit == 1 << c.index


@pytest.mark.parametrize("card", ALL_CARDS, ids=str)
def test_card_round_trip(card):
    text = card.rdn()
    assert Card.from_rdn(text) == card
    assert Card.from_rdn(text.lower()).rdn() == text
    assert Card.from_rdn(f"  {text.upper()} ").rdn() == text


@pytest.mark.parametrize("text, canonical", [
    ("b14", "B14"), ("rook", "Rook"), ("ROOK", "Rook"), ("rOoK2", "Rook2"), ("g1", "G1"), ("Y05", "Y5"),
])
def test_card_parse_ignores_case(text, canonical):
    assert Card.from_rdn(text).rdn() == canonical


@pytest.mark.parametrize("token, reason", [
    ("X5", "expected a color"),
    ("B15", "1 to 14"),
    ("B0", "1 to 14"),
    ("Rook3", "expected a color"),
    ("B", "expected a color"),
    ("14", "expected a color"),
    ("B1 4", "expected a color"),
    ("", "expected a color"),
])
def test_card_errors_name_the_token(token, reason):
    with pytest.raises(InvalidCardError) as err:
        Card.from_rdn(token)
    assert repr(token) in str(err.value)
    assert reason in str(err.value)
    assert isinstance(err.value, NotationError) and isinstance(err.value, ValueError)


def test_card_constructor_checks():
    with pytest.raises(InvalidCardError, match="'P'"):
        Card("P", 3)
    with pytest.raises(InvalidCardError, match="15"):
        Card("B", 15)
    with pytest.raises(InvalidCardError, match="3"):
        Card(None, 3)
    with pytest.raises(InvalidCardError, match="index 64"):
        Card.from_index(64)


def test_canonical_hand_order():
    hand = Hand.from_cards(ALL_CARDS)
    assert hand.cards() == CANONICAL
    assert hand.rdn().split()[:4] == ["Rook", "Rook2", "B14", "B13"]
    assert Hand.from_rdn("g1 B3 rook y14 B14 R5").rdn() == "Rook B14 B3 R5 Y14 G1"


cards_subset = st.lists(st.sampled_from(ALL_CARDS), unique=True, max_size=len(ALL_CARDS))


@st.composite
def messy_text(draw, cards):
    """The cards written any way RDN accepts: any order, any case, commas and spaces."""
    order = draw(st.permutations(cards))
    tokens = []
    for c in order:
        t = c.rdn()
        t = "".join(ch.upper() if draw(st.booleans()) else ch.lower() for ch in t)
        tokens.append(t)
    seps = [draw(st.sampled_from([" ", ",", ", ", "  ", " ,", "\t", ",,", "\n"])) for _ in tokens]
    lead = draw(st.sampled_from(["", " ", "  ", ","]))
    trail = draw(st.sampled_from(["", " ", ","]))
    return lead + "".join(t + s for t, s in zip(tokens, seps)) + trail


@settings(max_examples=200, deadline=None)
@given(data=st.data(), cards=cards_subset)
def test_hand_round_trip(data, cards):
    hand = Hand.from_cards(cards)
    text = hand.rdn()
    # parse(format(v)) == v, and format is canonical
    assert Hand.from_rdn(text) == hand
    assert [Card.from_rdn(t) for t in text.split()] == sorted(cards, key=CANONICAL.index)
    assert len(hand) == len(cards)
    # format(parse(x)) is canonical for any accepted spelling
    messy = data.draw(messy_text(cards))
    assert Hand.from_rdn(messy) == hand
    assert Hand.from_rdn(messy).rdn() == text


@settings(max_examples=100, deadline=None)
@given(a=cards_subset, b=cards_subset)
def test_hand_set_operations(a, b):
    ha, hb = Hand.from_cards(a), Hand.from_cards(b)
    assert set((ha | hb).cards()) == set(a) | set(b)
    assert set((ha & hb).cards()) == set(a) & set(b)
    assert set((ha - hb).cards()) == set(a) - set(b)
    for c in ALL_CARDS:
        assert (c in ha) == (c in a)
        assert ha.add(c).remove(c) == ha.remove(c)
    for color in COLORS:
        assert ha.count(color) == sum(1 for c in a if c.color == color)
    assert ha.has_bird() == any(c.is_bird for c in a)
    assert mask_indices(ha.mask) == [c.index for c in ha]


def test_hand_errors():
    with pytest.raises(InvalidCardError, match="'Q7'"):
        Hand.from_rdn("B14 Q7 R5")
    with pytest.raises(DuplicateCardError) as err:
        Hand.from_rdn("B14 R5 b14")
    assert "'B14'" in str(err.value) and "duplicate" in str(err.value)
    with pytest.raises(DuplicateCardError, match="'Rook'"):
        Hand.from_cards([Card.rook(), Card.rook()])


def test_card_not_in_this_deck():
    hasbro = Rules.preset("hasbro")
    with pytest.raises(InvalidCardError) as err:
        Hand.from_rdn("B14 b1 R5", deck_mask=hasbro.deck_mask)
    assert "'b1'" in str(err.value) and "not in this deck" in str(err.value)
    with pytest.raises(InvalidCardError, match="'Rook'"):
        Hand.from_rdn("Rook", deck_mask=Rules.preset("dixie40").deck_mask)
    with pytest.raises(InvalidCardError, match="'Rook2'"):
        Hand.from_rdn("Rook2", deck_mask=Rules.preset("full").deck_mask)
    assert Hand.from_rdn("Rook2 Rook", deck_mask=Rules.from_spec("full,double_bird=true").deck_mask).rdn() \
        == "Rook Rook2"
