"""Under one_high (kentucky) the 1 ranks above the 14 and every output writes it
first in its color; the error messages that quote a hand, a nest or a set of
cards write it so too (they wrote it last, as Hand.rdn() without rules does)."""

from __future__ import annotations

import pytest

from rook_analyze.analysis.features import hand_features
from rook_analyze.analysis.inputs import as_hand
from rook_analyze.analysis.nest import analyze_nest
from rook_analyze.analysis.sampling import DealSampler, check_cards
from rook_analyze.solver import Deal, Hand, Rules
from rook_analyze.solver.errors import RookError
from rook_analyze.solver.game import Round, legal_plays

K = Rules.from_spec("kentucky")


def _message(call) -> str:
    with pytest.raises(RookError) as info:
        call()
    return str(info.value)


def test_deal_errors_write_the_1_first():
    small = Rules.from_spec("kentucky,hand_size=3")
    text = "N: B1 B14 B12 B13 / E: R1 R14 R12 R5 / S: Y1 Y14 Y12 Y5 / W: G1 G14 G12 G5"
    assert "'B1 B14 B13 B12'" in _message(lambda: Deal.from_rdn(text, small))
    nest = "N: B1 B14 B12 / E: R1 R14 R12 / S: Y1 Y14 Y12 / W: G1 G14 G12 / nest: Rook G13 G11 G10 G9 G8 G7"
    # a nest that is too big: its cards as the rules write them
    msg = _message(lambda: Deal.from_rdn(nest.replace("G13", "B1").replace("N: B1", "N: B5"), small))
    assert "'Rook B1 G11 G10 G9 G8 G7'" in msg
    short = "N: B1 B14 / E: R1 R14 / S: Y1 Y14 / W: G1 G14 / nest: B13 B12 B11 B10 B9"
    assert "'B1 B14'" in _message(lambda: Deal.from_rdn(short, K, complete=True))


def test_sampling_and_input_errors_write_the_1_first():
    hand = Hand.from_rdn("B1 B14 B12 R1 R14 Y1 Y14 G1 G14")
    assert "'B1 B14 B12 R1 R14 Y1 Y14 G1 G14'" in _message(
        lambda: check_cards(hand, "hand", K, 10, "deals 10 a seat"))
    ten = Hand.from_rdn("B1 B14 B12 R1 R14 Y1 Y14 G1 G14 G12")
    msg = _message(lambda: DealSampler(K, "N", ten, known={"E": "R13 R12 R11 R10 R9 R8 R7 R6 R5 Y13 Y12 B13 B11"}))
    assert "'B13 B11 R13 R12 R11 R10 R9 R8 R7 R6 R5 Y13 Y12'" in msg
    msg = _message(lambda: as_hand(Hand.from_rdn("B1 B14 B2"), K, "hand"))
    assert "'B1 B14 B2'" in msg
    msg = _message(lambda: hand_features(K, Hand.from_rdn("B1 B14 B2")))
    assert "'B1 B14 B2'" in msg


def test_nest_known_errors_write_the_1_first():
    msg = _message(lambda: analyze_nest("B14 B12 B11 B10 B9 B8 R14 Y14 G14 G12", "B13 R13 Y13 G13 B7", K,
                                        known=["nest:R1 R5"], samples=2))
    assert "('R1 R5')" in msg


def test_game_errors_write_the_1_first():
    small = Rules.from_spec("kentucky,hand_size=3,nest_size=0")
    deal = Deal.from_rdn("N: B12 G5 G6 / E: B1 B14 R1 / S: Y1 Y14 Y12 / W: G1 G14 G12", small)
    rnd = Round(deal, declarer="N", bid=100)
    rnd.name_trump("Y")
    rnd.play("B12")
    msg = _message(lambda: rnd.play("R1"))
    assert "must follow with B1 B14; legal: B1 B14" in msg
    msg = _message(lambda: legal_plays("R1 B12 B1 B14", "B12", "Y", small))
    assert "'B1 B14 B12 R1'" in msg


def test_the_one_card_a_message_names_is_the_first_the_rules_write():
    # a duplicate B1 and B14: under one_high the 1 comes first, so the message names it
    both = "N: B1 B14 B12 / E: R1 R14 R12 / S: Y1 Y14 Y12 / W: G1 G14 G12 / nest: B1 B14 B13 B11 B10"
    assert "duplicate card 'B1'" in _message(lambda: Deal.from_rdn(both, Rules.from_spec("kentucky,hand_size=3")))
    plain = Rules.from_spec("kentucky,hand_size=3,one_high=false")
    assert "duplicate card 'B14'" in _message(lambda: Deal.from_rdn(both, plain))
