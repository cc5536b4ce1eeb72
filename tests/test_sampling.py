"""The seeded dealer of analysis.sampling: constraints, known cards, reproducibility."""

from __future__ import annotations

import numpy as np
import pytest

from rook_analyze.analysis.sampling import PILOT_HITS, Constraint, DealSampler, feature_value, parse_known
from rook_analyze.solver import (ConstraintError, DealError, DuplicateCardError, Hand, InvalidCardError, Rules,
                                  RulesError)

FULL = Rules.preset("full")
HASBRO = Rules.preset("hasbro")
STRONG = "Rook B14 B13 B12 B11 B10 B9 B8 R14 R10 Y14 Y10 G14"
HASBRO_HAND = "Rook B14 B13 R10 R5 Y12 Y7 G11 G6"


def test_constraint_text_round_trip():
    for text in ("E:B>=3", "W:counters<=10", "S:rook=0", "nest:R=0", "E:G>2", "W:Y<4"):
        c = Constraint.parse(text)
        assert c.text() == text
        assert Constraint.parse(c.text()) == c
    assert Constraint.parse(" e : b == 3 ") == Constraint("E", "B", "=", 3)
    assert Constraint.parse("w:COUNTERS<=10").feature == "counters"


@pytest.mark.parametrize("text", ["E:B", "E B>=3", "E:hcp>=3", "E:B=>3", "E:B>=x", ""])
def test_constraint_parse_errors_quote_the_input(text):
    with pytest.raises(ConstraintError) as e:
        Constraint.parse(text)
    assert str(e.value).startswith(f"constraint {text!r}: ")


def test_feature_values():
    h = Hand.from_rdn("Rook B14 B10 B5 R1 Y13")
    assert feature_value("B", h, FULL) == 3
    assert feature_value("G", h, FULL) == 0
    assert feature_value("counters", h, FULL) == 20 + 10 + 10 + 5
    assert feature_value("rook", h, FULL) == 1
    assert feature_value("counters", "B5 B10 Rook", "hasbro") == 35   # a spec, as Constraint.holds takes
    with pytest.raises(RulesError, match="rules None"):
        feature_value("counters", h, None)                               # was an AttributeError
    assert Constraint.parse("N:B>=3").holds(h, FULL)
    assert not Constraint.parse("N:B>3").holds(h, FULL)
    # a card mask is read as text is, against the deck: B1 (bit 1) is no hasbro card
    r14, y5, b14 = 1 << 30, 1 << 37, 1 << 14  # card index: color * 16 + number
    assert not Constraint.parse("E:B>=1").holds(r14 | y5, HASBRO)
    assert Constraint.parse("E:B>=1").holds(r14 | b14, HASBRO)
    for bad in (1 << 1, Hand.from_rdn("B1 B14"), "B1"):
        with pytest.raises(InvalidCardError, match="'B1'"):
            Constraint.parse("E:B>=1").holds(bad, HASBRO)
        with pytest.raises(InvalidCardError, match="'B1'"):
            feature_value("counters", bad, HASBRO)


def test_known_cards_in_two_places_are_refused_where_they_are_read():
    with pytest.raises(DuplicateCardError, match="'B14' is given for both E and W"):
        parse_known(["E: B14 R5", "W: Y7 B14"], HASBRO)
    with pytest.raises(DuplicateCardError, match="'G6' is given for both nest and S"):
        parse_known({"nest": "G6", "s": "G6"}, HASBRO)
    assert parse_known(["E: B14", "E: R5", "W: Y7"], HASBRO) == {"E": Hand.from_rdn("B14 R5"), "W": Hand.from_rdn("Y7")}


def test_deals_hold_the_hand_and_have_the_right_sizes():
    s = DealSampler(FULL, "S", STRONG)
    for i in range(20):
        d = s.deal(i, seed=7)
        d.check_complete()
        assert d.hands[2] == Hand.from_rdn(STRONG)
        assert d.in_play_mask == FULL.deck_mask


def test_same_seed_and_index_same_deal_whatever_came_before():
    s = DealSampler(HASBRO, "N", HASBRO_HAND, constraints=["E:B>=2"])
    batch = s.deals(30, seed=11)
    assert [s.deal(i, 11) for i in (29, 3, 17)] == [batch[29], batch[3], batch[17]]
    assert s.deals(10, seed=11, start=20) == batch[20:30]
    assert s.deals(5, seed=12) != batch[:5]
    # a fresh sampler with the same inputs deals the same
    assert DealSampler(HASBRO, "N", HASBRO_HAND, constraints=["E:B>=2"]).deals(30, seed=11) == batch


def test_constraints_hold_in_every_deal():
    cons = ["E:B>=3", "W:counters<=10", "S:rook=0", "nest:Y=0"]
    s = DealSampler(HASBRO, "N", "B14 B13 R10 R5 Y12 Y7 G11 G6 G5", constraints=cons)
    for d in s.deals(50, seed=3):
        assert d.hands[1].count("B") >= 3
        assert HASBRO.points_of_mask(d.hands[3].mask) <= 10
        assert not d.hands[2].has_bird()
        assert d.nest.count("Y") == 0


def test_a_dealer_without_a_bidder_meets_known_cards_and_constraints():
    s = DealSampler(HASBRO, known=["N: Rook B14"], constraints=["N:B>=5", "nest:counters>=20", "E:R<=1"])
    deals = s.deals(40, seed=4)
    assert deals == DealSampler(HASBRO, None, None, ["N: Rook B14"], ["N:B>=5", "nest:counters>=20",
                                                                      "E:R<=1"]).deals(40, seed=4)
    hands = set()
    for d in deals:
        assert Hand.from_rdn("Rook B14").mask & ~d.hands[0].mask == 0 and d.hands[0].count("B") >= 5
        assert HASBRO.points_of_mask(d.nest.mask) >= 20 and d.hands[1].count("R") <= 1
        assert all(len(h) == HASBRO.hand_size for h in d.hands) and len(d.nest) == HASBRO.nest_size
        hands.add(d.hands[0].mask)
    assert len(hands) > 30  # N's other cards are dealt, not fixed
    # the known cards' Rook may sit nowhere else
    assert not any(d.hands[k].has_bird() for d in deals for k in (1, 2, 3))
    with pytest.raises(InvalidCardError, match="hand None: expected the cards of seat 'N'"):
        DealSampler(HASBRO, "N")
    with pytest.raises(ConstraintError, match="give the seat that holds the hand"):
        DealSampler(HASBRO, hand=HASBRO_HAND)


def test_unconstrained_deals_are_uniform():
    # the nest's share of the Rook: 5 of the 32 unseen cards under hasbro (9 held)
    s = DealSampler(HASBRO, "N", "B14 B13 R10 R5 Y12 Y7 G11 G6 G5")
    n = 3000
    hits = sum(s.deal(i, 5).nest.has_bird() for i in range(n))
    p = 5 / 32
    assert abs(hits / n - p) < 4 * np.sqrt(p * (1 - p) / n)


def test_constrained_counts_follow_the_conditional_hypergeometric():
    from math import comb

    # hasbro, N holds 2 black cards: 8 of the 32 unseen are black; E gets 9 of them
    s = DealSampler(HASBRO, "N", "B14 B13 R10 R5 Y12 Y7 G11 G6 G5", constraints=["E:B>=3"])
    n = 1500
    counts = np.bincount([s.deal(i, 9).hands[1].count("B") for i in range(n)], minlength=9)
    assert counts[:3].sum() == 0
    p = np.array([comb(8, k) * comb(24, 9 - k) for k in range(9)], dtype=float)
    p[:3] = 0
    p /= p.sum()
    for k in (3, 4, 5):
        assert abs(counts[k] / n - p[k]) < 4 * np.sqrt(p[k] * (1 - p[k]) / n)


def test_rejection_matches_the_conditional_distribution():
    from math import comb

    # E:rook=1 -> the Rook is never in S's or W's hand nor the nest, always in E's
    s = DealSampler(HASBRO, "N", "B14 B13 R10 R5 Y12 Y7 G11 G6 G5", constraints=["E:rook=1"])
    deals = [s.deal(i, 1) for i in range(2000)]
    for d in deals:
        assert d.hands[1].has_bird()
        assert not (d.hands[2].has_bird() or d.hands[3].has_bird() or d.nest.has_bird())
    # and the rest is uniform given that: E's other 8 cards are 8 of the 31 unseen
    # non-Rook cards, 8 of them black (B12..B5), so E's black count is
    # hypergeometric(31, 8, 8) (mean 64/31 = 2.06), not the unconstrained
    # hypergeometric(32, 8, 9) (mean 2.25)
    n = len(deals)
    counts = np.bincount([d.hands[1].count("B") for d in deals], minlength=9)
    p = np.array([comb(8, k) * comb(23, 8 - k) for k in range(9)], dtype=float) / comb(31, 8)
    for k in (0, 1, 2, 3, 4):
        assert abs(counts[k] / n - p[k]) < 4 * np.sqrt(p[k] * (1 - p[k]) / n), (k, counts[k], p[k] * n)
    mean, sd = 64 / 31, np.sqrt(8 * (8 / 31) * (23 / 31) * (23 / 30))
    assert abs(counts @ np.arange(9) / n - mean) < 4 * sd / np.sqrt(n)


def test_known_cards_are_placed():
    s = DealSampler(FULL, "N", STRONG, known=["E:B7 B6", "nest:G1"])
    for d in s.deals(10, 2):
        assert d.hands[1].mask & Hand.from_rdn("B7 B6").mask == Hand.from_rdn("B7 B6").mask
        assert Hand.from_rdn("G1").mask & d.nest.mask
    assert parse_known({"e": "b7"}, FULL) == {"E": Hand.from_rdn("B7")}


@pytest.mark.parametrize("known, message", [
    (["E:B14"], "already in the bidder's hand"),
    (["E:B7", "W:B7"], "known card 'B7' is given for both E and W"),
    (["X:B7"], "place 'X'"),
    (["N:B7"], "known cards for N ('B7'): that is the bidder's own hand"),
    (["E:B99"], "B99"),
    (["nest:B1 B2 B3 B4 B5 B6"], "6 known cards for nest"),
    (["E B7"], "PLACE:CARDS"),
    (["E:"], "known cards for E: none given"),
    (["nest:  "], "known cards for nest: none given"),
    # case is ignored in ASCII only: the long s uppers to 'S', the Kelvin sign lowers to 'k'
    (["\u017f:B7"], "place '\u017f'"),
    (["ne\u017ft:B7"], "place 'ne\u017ft'"),
])
def test_bad_known_cards(known, message):
    with pytest.raises((ConstraintError, DuplicateCardError, InvalidCardError)) as e:
        DealSampler(FULL, "N", STRONG, known=known)
    assert message in str(e.value)


def test_a_feature_that_only_folds_to_ascii_is_refused():
    with pytest.raises(ConstraintError, match="feature 'roo\u212a'"):
        Constraint("E", "roo\u212a", "=", 1)
    assert Constraint("e", "ROOK", "=", 1) == Constraint("E", "rook", "=", 1)


@pytest.mark.parametrize("cons, message", [
    (["E:B>=8"], "E can only hold 0 to 5 B cards"),        # only 5 black cards unseen besides B7 B6... all 7
    (["E:rook=1"], "impossible constraint 'E:rook=1'"),    # the bidder holds the Rook
    (["E:B>=4", "E:B<3"], "contradictory constraints 'E:B>=4' and 'E:B<3'"),
    (["E:B>=4", "W:B>=4"], "together they need 8 B cards"),
    (["N:B<3"], "the bidder's hand"),
    (["E:counters>200"], "impossible constraint"),
    # within 0 to 120 points yet out of reach: counters come in 5s and 10s (the bidder holds the Rook)
    (["E:counters=7"], "no hand E can be dealt here holds 7 points in counters (the unseen counters are worth "
                       "5, 10)"),
    (["E:counters>=6", "E:counters<=9"], "holds 6 to 9 points in counters"),
    (["S:rook=2"], "S can only hold 0 birds here"),
])
def test_impossible_constraints_fail_up_front(cons, message):
    with pytest.raises(ConstraintError) as e:
        DealSampler(FULL, "N", STRONG, known=["W:B7 B6"] if "0 to 5" in message else None, constraints=cons)
    assert message in str(e.value)


def test_bounds_the_unseen_cards_force_are_judged_up_front():
    # 27 of the 31 cards outside black are known: W's 9 cards come from 10 black and 4 others,
    # so W holds at least 5 black cards
    known = ["N:R14 R13 R12 R11 R10 R9 R8 R7 R6", "E:Y14 Y13 Y12 Y11 Y10 Y9 Y8 Y7 Y6",
             "S:G14 G13 G12 G11 G10 G9 G8 G7 G6"]
    with pytest.raises(ConstraintError, match="impossible constraint 'W:B<=4': W can only hold 5 to 9 B cards here"):
        DealSampler(HASBRO, known=known, constraints=["W:B<=4"])
    # a place whose known cards already pass its lower bound (N holds 20 of N:counters>=5)
    # leaves the others' needs as they are: 50 + 55 of the 100 unseen points
    with pytest.raises(ConstraintError, match="together they need 105 points in counters among the unseen cards, "
                                              "which hold 100"):
        DealSampler(HASBRO, known=["N:B14 B10"], constraints=["N:counters>=5", "E:counters>=50", "W:counters>=55"])


def test_every_operator_and_two_birds():
    h = Hand.from_rdn("B14 B10 B5 R1")
    for text, holds in (("N:B<3", False), ("N:B<4", True), ("N:B<=3", True), ("N:B<=2", False), ("N:B=3", True),
                        ("N:B==2", False), ("N:B>2", True), ("N:B>=4", False)):
        assert Constraint.parse(text).holds(h, FULL) is holds, text
    # the rook feature counts the birds held: two under double_bird
    two = Rules.from_spec("hasbro,double_bird=true")
    assert feature_value("rook", "Rook Rook2 B14", two) == 2
    assert Constraint.parse("E:rook=2").holds("Rook Rook2", two) and not Constraint.parse("E:rook<2").holds(
        "Rook Rook2", two)


def test_sample_i_is_the_i_th_child_of_the_seed():
    """The documented seeding: sample i of seed s is dealt from
    default_rng(SeedSequence(s).spawn(...)[i]), whatever came before it."""
    for seed, index in ((0, 0), (5, 3), (2 ** 40, 17)):
        child = np.random.SeedSequence(seed).spawn(index + 1)[index]
        assert DealSampler.generator(seed, index).integers(0, 2 ** 62, 8).tolist() == \
            np.random.default_rng(child).integers(0, 2 ** 62, 8).tolist()


def test_impossible_constraint_messages_count_in_english():
    with pytest.raises(ConstraintError, match="N can only hold 1 bird here"):
        DealSampler(HASBRO, None, None, known=["N:Rook"], constraints=["N:rook=0"])
    with pytest.raises(ConstraintError, match="N can only hold 0 or 1 birds here"):  # not '0 to 1'
        DealSampler(HASBRO, None, None, constraints=["N:rook>=2"])


def test_counter_totals_in_reach():
    from rook_analyze.analysis.sampling import _sums_of

    assert _sums_of(np.array([0, 0, 5, 10, 20]), 2) == {0, 5, 10, 20, 15, 25, 30}
    assert _sums_of(np.array([5, 10, 20]), 2) == {15, 25, 30}    # no zeros: two counters must be taken
    assert _sums_of(np.array([0, 5, 5]), 3) == {10}
    assert _sums_of(np.array([0, 5]), 0) == {0}


@pytest.mark.parametrize("text, words", [
    ("N:B>=-1", "constraint 'N:B>=-1': a count cannot be -1 (counts are 0 or more)"),
])
def test_negative_counts_are_refused(text, words):
    with pytest.raises(ConstraintError) as e:
        Constraint.parse(text)
    assert words in str(e.value)
    with pytest.raises(ConstraintError, match="counts are 0 or more"):
        Constraint("N", "B", ">=", -1)


def test_counts_too_long_to_write_are_refused():
    # more digits than Python reads or writes in decimal (4,300): a ValueError from int() or
    # from text() (a sampler's message writes it), not the project's error
    with pytest.raises(ConstraintError, match="a count of 5,000 digits is too large"):
        Constraint.parse("N:B>=" + "9" * 5000)
    with pytest.raises(ConstraintError, match="a count of 5,000 digits is below 0"):
        Constraint.parse("N:B>=-" + "9" * 5000)
    with pytest.raises(ConstraintError, match="value an int of about 5,000 digits is too large"):
        Constraint("N", "B", ">=", 10 ** 5000)
    long = Constraint.parse("N:B<=" + "9" * 4000)  # long, yet written out: taken, and always met
    assert long.text() == "N:B<=" + "9" * 4000
    assert DealSampler(HASBRO, None, None, constraints=[long]).deal(0, 1)
    with pytest.raises(ConstraintError) as e:
        DealSampler(HASBRO, None, None, constraints=["N:B>=" + "9" * 4000])
    assert str(e.value).startswith("impossible constraint 'N:B>=999") and len(str(e.value)) < 300


def test_out_keeps_its_lower_case_as_typed():
    assert Constraint.parse("out:B>=1").text() == "out:B>=1"
    with pytest.raises(ConstraintError, match="constraint 'out:B>=1': out-of-play cards take no constraints"):
        DealSampler(HASBRO, None, None, constraints=["out:B>=1"])


def test_impossible_combinations_are_found_exactly():
    # each check is possible alone and no color's total is exceeded, but E cannot
    # hold 7 black and 7 red cards in 13: the checks one feature at a time pass, and
    # the exact count of the deals that meet them all is 0
    s = DealSampler(FULL, "N", STRONG, constraints=["E:B=7", "E:R=7", "W:Y=0", "S:Y=0", "nest:Y=0"],
                    max_tries=2000)
    with pytest.raises(ConstraintError, match="impossible constraints 'E:B=7', 'E:R=7', 'W:Y=0', 'S:Y=0', "
                                              "'nest:Y=0': no deal meets them all"):
        s.deal(0, 1)
    # the Rook is worth 20, so E cannot hold it in under 20 points
    s = DealSampler(HASBRO, "N", REDS, constraints=["E:rook=1", "E:counters<20"])
    with pytest.raises(ConstraintError, match="no deal meets them all"):
        s.deal(0, 1)


def test_too_rare_to_count_and_to_meet_stops_instead_of_hanging(monkeypatch):
    # where the exact count would grow too big, a set no trial deal meets is one error
    from rook_analyze.analysis import sampling

    monkeypatch.setattr(sampling._ExactDealer, "MAX_WORK", 3)
    s = DealSampler(HASBRO, "N", REDS, constraints=["E:counters>=90"])
    with pytest.raises(ConstraintError, match=r"'E:counters>=90': no deal in 200,000 tries .* too rare"):
        s.deal(0, 1)


def test_upper_bounds_that_leave_no_room_fail_up_front():
    # the one Rook is unseen, but no place may hold it; the unseen counters (120 points:
    # the hand holds none) cannot all go to a 5-card nest
    hand = "B13 B12 R13 R12 Y13 Y12 G13 G12 G11"
    for cons, message in [
        (["E:rook=0", "S:rook=0", "W:rook=0", "nest:rook=0"], "hold 1 bird, but with these constraints the "
                                                               "places they go to can take only 0"),
        (["E:counters=0", "S:counters=0", "W:counters<=0"], "hold 120 points in counters, but with these "
                                                             "constraints the places they go to can take only 60"),
        # counters come in 5s: a bound of 39 holds at most 35, a bound of 9 at most 5
        (["E:counters<=39", "S:counters<=39", "W:counters<=39", "nest:counters<=9"],
         "hold 120 points in counters, but with these constraints the places they go to can take only 110"),
    ]:
        with pytest.raises(ConstraintError) as e:
            DealSampler(HASBRO, "N", hand, constraints=cons)
        assert message in str(e.value)
        assert all(repr(c) in str(e.value) for c in cons)
    # with room left somewhere, the same bounds deal
    d = DealSampler(HASBRO, "N", hand, constraints=["E:rook=0", "S:rook=0", "W:rook=0"]).deal(0, 1)
    assert d.nest.has_bird()


def test_rare_but_possible_constraints_sample_whatever_the_seed():
    # E holds 8 or 9 of the 10 unseen black cards in about 1 deal in 28,000: rare, but
    # possible, so every sample of every seed is dealt (none stops part way through a run)
    s = DealSampler(HASBRO, "N", REDS, constraints=["E:B>=8"])
    for seed in (1, 2):
        for d in s.deals(20, seed):
            assert d.hands[1].count("B") >= 8
    # rarer still (E holds 90 of the 100 unseen points, about 1 deal in 4,700,000): dealt exactly
    s = DealSampler(HASBRO, "N", REDS, constraints=["E:counters>=90"])
    for seed in (1, 2):
        for d in s.deals(20, seed):
            assert HASBRO.points_of_mask(d.hands[1].mask) >= 90
    assert s.deals(5, 3) == s.deals(5, 3)


REDS = "R14 R13 R12 R11 R10 R9 R8 R7 R6"  # unseen: 10 each of B Y G, R5 and the Rook


def test_exact_dealer_counts_the_deals_that_meet_the_constraints():
    # E:B>=8 with nine reds in hand: E's 9 cards take 8 or 9 of the 10 unseen blacks, the
    # rest of the 32 unseen cards go anywhere: a hypergeometric count
    from math import comb, factorial

    s = DealSampler(HASBRO, "N", REDS, constraints=["E:B>=8"])
    s.deal(0, 1)
    assert s._exact is not None  # about 1 deal in 28,000: too rare to reject
    # ones the pilot meets PILOT_HITS times are rejected, not dealt exactly (module docstring):
    # about 1 deal in 80 and in 1,000, each met 16 times within the pilot's 200,000 tries
    for rule in ("E:B>=6", "E:B>=7"):
        common = DealSampler(HASBRO, "N", REDS, constraints=[rule])
        common.deal(0, 1)
        assert common._exact is None and common._pilot[0] >= PILOT_HITS, rule
    rest = factorial(23) // (factorial(9) * factorial(9) * factorial(5))
    assert s._exact.deals == (comb(10, 8) * comb(22, 1) + comb(10, 9)) * rest


def _chi2_same(a_rows: np.ndarray, b_rows: np.ndarray) -> list[float]:
    """Per column, a two-sample chi-square statistic over its values (thin tails pooled),
    and the bound far above chance that only a real difference passes."""
    out = []
    for k in range(a_rows.shape[1]):
        values = np.union1d(a_rows[:, k], b_rows[:, k])
        a = np.array([(a_rows[:, k] == v).sum() for v in values])
        b = np.array([(b_rows[:, k] == v).sum() for v in values])
        keep = (a + b) >= 10
        a, b = np.append(a[keep], a[~keep].sum()), np.append(b[keep], b[~keep].sum())
        a, b = a[(a + b) > 0], b[(a + b) > 0]
        mid = (a + b) / 2
        out.append((float((((a - mid) ** 2 + (b - mid) ** 2) / mid).sum()), 3 * len(a) + 10))
    return out


@pytest.mark.parametrize("cons", [["E:B>=3", "W:counters<=10", "nest:rook=0", "S:Y<3"], ["E:B>=3"]])
def test_exact_dealer_matches_rejection_on_common_constraints(cons):
    # the exact dealer forced on constraints rejection meets often: its share of all deals
    # equals rejection's hit rate, and its deals are distributed as rejection's, in the
    # constrained places and in the others
    from math import factorial

    from rook_analyze.analysis import sampling

    s = DealSampler(HASBRO, "N", HASBRO_HAND, constraints=cons)
    exact = sampling._ExactDealer.build(s._pool, s._free, s._checks)
    total = factorial(32) // (factorial(9) ** 3 * factorial(5))
    share = exact.deals / total
    rng = np.random.default_rng(11)
    block = np.broadcast_to(s._pool, (100_000, len(s._pool)))
    hits = len(s._hits(rng.permuted(block, axis=1)))
    se = (share * (1 - share) / 100_000) ** 0.5
    assert abs(hits / 100_000 - share) < 4 * se, (hits, share)

    def stats(deals):
        return np.array([(d.hands[1].count("B"), HASBRO.points_of_mask(d.hands[3].mask) // 5, d.hands[2].count("Y"),
                          d.nest.count("G"), d.hands[2].count("B"), d.hands[3].count("R"), int(d.hands[2].has_bird()))
                         for d in deals])

    rng = np.random.default_rng(6)
    drawn = [s._assemble(exact.draw(rng)) for _ in range(3000)]
    for d in drawn:
        assert all(Constraint.parse(c).holds(d.nest if c.startswith("nest") else d.hands[HASBRO.seat_index(c[0])],
                                             HASBRO) for c in cons)
    for k, (chi2, bound) in enumerate(_chi2_same(stats(drawn), stats(s.deals(3000, 5)))):
        assert chi2 < bound, (k, chi2)


def test_bad_hands():
    with pytest.raises(DealError, match="has 12 cards"):
        DealSampler(FULL, "N", "Rook B14 B13 B12 B11 B10 B9 B8 R14 R10 Y14 Y10")
    with pytest.raises(InvalidCardError):
        DealSampler(HASBRO, "N", "Rook B14 B13 R10 R5 Y12 Y7 G11 G1")
    with pytest.raises(DuplicateCardError):
        DealSampler(HASBRO, "N", "Rook B14 B14 R10 R5 Y12 Y7 G11 G6")


def test_sample_hands_file_holds_one_valid_hand_per_preset():
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "data" / "sample_hands.txt"
    presets = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            preset, cards = line.split(":", 1)
            DealSampler(preset.strip(), "N", cards.strip())  # raises on a bad hand
            presets.append(preset.strip())
    assert presets == ["full", "hasbro", "kentucky", "dixie40"]


def test_exact_dealer_walks_no_dead_ends(monkeypatch):
    # every place constrained, so no card may be left over: the ways to split a kind that
    # leave cards over are never walked, and the count costs what MAX_WORK counts (a
    # million splits, a few seconds), not twenty times more (the walk took 20 million steps)
    import math
    import types

    from rook_analyze.analysis import sampling

    steps = [0]

    def comb(n, k):
        steps[0] += 1
        return math.comb(n, k)

    monkeypatch.setattr(sampling, "math", types.SimpleNamespace(comb=comb, factorial=math.factorial))
    monkeypatch.setattr(sampling._ExactDealer, "MAX_WORK", 20_000)
    s = DealSampler(FULL, None, None, constraints=["N:counters<=30", "E:counters<=30", "S:counters<=30",
                                                   "W:counters<=30", "nest:counters<=20"])
    assert sampling._ExactDealer.build(s._pool, s._free, s._checks) is None  # too big at 20,000
    assert steps[0] < 5 * 20_000, steps[0]


def _count_card_by_card(s: DealSampler) -> int:
    """The deals that meet a sampler's constraints, counted one card at a time: each unseen
    card goes to each place with room, every constraint's whole value (known cards
    included) carried along; independent of the exact dealer's kinds and bounds."""
    from collections import defaultdict

    rules = s.rules
    cons = []
    for c in s.constraints:
        p = s._names.index(c.place)
        value = {i: feature_value(c.feature, 1 << i, rules) for i in s._pool.tolist()}
        cons.append((p, value, *c.bounds))
    states = {(tuple(s._free), tuple(feature_value(c.feature, s._fixed[p], rules) if s._fixed[p] else 0
                                     for c, (p, *_) in zip(s.constraints, cons))): 1}
    for card in s._pool.tolist():
        nxt: dict = defaultdict(int)
        for (rooms, sums), ways in states.items():
            for p, room in enumerate(rooms):
                if room:
                    got = tuple(v + (value[card] if q == p else 0) for v, (q, value, _, _) in zip(sums, cons))
                    nxt[(rooms[:p] + (room - 1,) + rooms[p + 1:], got)] += ways
        states = nxt
    return sum(ways for (_, sums), ways in states.items()
               if all(lo <= v <= hi for v, (_, _, lo, hi) in zip(sums, cons)))


NO_BIDS = ",min_bid=none,bid_step=none,max_bid=none"


@pytest.mark.parametrize("spec, seat, hand, known, cons", [
    # two birds, a known bird in a constrained seat (its 20 points already count), the nest barred from birds
    ("full,seats=3,teams=alone,numbers=4-7,hand_size=3,nest_size=2,double_bird=true" + NO_BIDS, "P1", "B4 R5 Y6",
     ["P2:Rook"], ["P2:counters>=25", "P3:B>=1", "nest:rook=0"]),
    # the 1s worth 15, a known counter in E and in the nest, out-of-play cards
    ("kentucky,numbers=1+12-14,hand_size=2,nest_size=3,bird=low" + NO_BIDS, None, None, ["E:G1", "nest:B14"],
     ["E:counters>=25", "nest:counters<=20", "W:G<=1", "S:rook=0"]),
    # five seats, a card known out of play, an exact counter total
    ("dixie40,seats=5,teams=alone,most_tricks=none,numbers=9-13,hand_size=3,nest_size=1" + NO_BIDS, "P2",
     "B13 R10 G9", ["out:Y13"], ["P1:counters=20", "P3:B>=2", "P4:R<2"]),
    # six seats; P1's known cards already pass its lower bound (a bound below 0 on its unseen share)
    ("hasbro,seats=6,teams=alone,numbers=10-14,bird=none,hand_size=2,nest_size=2" + NO_BIDS, None, None,
     ["P1:B14 B10"], ["P1:counters>=5", "P2:counters>15", "nest:Y=1", "P6:G<=0"]),
])
def test_exact_dealer_counts_as_a_card_by_card_count_does(spec, seat, hand, known, cons):
    from math import factorial

    from rook_analyze.analysis import sampling

    s = DealSampler(spec, seat, hand, known, cons)
    exact = sampling._ExactDealer.build(s._pool, s._free, s._checks)
    total = factorial(len(s._pool))
    for k in s._free:
        total //= factorial(k)
    assert 0 < exact.deals < total
    assert exact.deals == _count_card_by_card(s)


def test_a_constraint_parsed_for_a_table_names_a_place_it_lacks():
    # with rules, parse checks the place as the sampler would, quoting the text as typed
    rules = Rules.from_spec("hasbro,seats=3,teams=alone")
    assert Constraint.parse("p2:B>=3", rules).place == "P2"
    with pytest.raises(ConstraintError, match=r"constraint 'E:B>=3': place 'E' must be a seat \(P1 P2 P3\) or nest"):
        Constraint.parse("E:B>=3", rules)
    with pytest.raises(ConstraintError, match="out-of-play cards take no constraints"):
        Constraint.parse("out:counters>=5", rules)
    assert Constraint.parse("E:B>=3").place == "E"  # without rules no table to check against
