"""Input handling of the solver API (``solver/api.py``) and the game engine
(``solver/game.py``): defaults agree with the rest of the library, rules may be
given as text, and bad input is a ``RookError`` that quotes it."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

from rook_analyze.solver import Deal, Rules, api, card_values, game, needs_compile, play_line, solve, solve_batch
from rook_analyze.solver.cards import Card, Hand
from rook_analyze.solver.deal import random_deal
from rook_analyze.solver.errors import (DealError, IllegalActionError, InvalidCardError, RookError,
                                        RulesError)
from rook_analyze.solver.game import (Auction, HandResult, Match, Round, legal_plays, match_winner,
                                      party_count, party_of, trick_winner)

SMALL = "hasbro,hand_size=5"                      # short hands: quick solves
THREE = "hasbro,seats=3,teams=alone,hand_size=4"  # another table: the last seat is P3


def raises(kind, bad, fn, *args, **kwargs):
    """Assert ``fn`` raises ``kind`` (a RookError) whose message quotes ``bad``."""
    with pytest.raises(kind) as info:
        fn(*args, **kwargs)
    assert isinstance(info.value, RookError)
    assert repr(bad) in str(info.value), str(info.value)
    return str(info.value)


def last(rules) -> int:
    rules = Rules.from_spec(rules)
    return rules.seat_index(rules.last_seat)


# ------------------------------------------------- game: the default dealer
@pytest.mark.parametrize("spec", ["hasbro", "full", "kentucky", THREE])
@pytest.mark.parametrize("seed", [1, 7])
def test_round_deals_from_the_last_seat_by_default(spec, seed):
    rules = Rules.from_spec(spec)
    rnd = Round.new(rules, seed=seed)
    assert rnd.dealer == last(rules) == rules.seats - 1
    assert rnd.rules.seat_names[rnd.dealer] == rules.last_seat
    # the auction starts left of the dealer: the first seat
    assert rnd.to_act == rules.left_of(rnd.dealer) == rules.seat_index(rules.first_seat) == 0
    assert rnd.auction.dealer == rnd.dealer
    # the same as naming the last seat
    named = Round.new(rules, dealer=rules.last_seat, seed=seed)
    assert named.deal == rnd.deal and named.dealer == rnd.dealer and named.to_act == rnd.to_act


def test_auction_match_and_round_default_to_the_last_seat():
    for spec in ("hasbro", THREE):
        rules = Rules.from_spec(spec)
        a = Auction(rules)
        assert a.dealer == last(rules) and a.to_call == 0
        m = Match(rules, seed=3)
        assert m.dealer == last(rules)
        rnd = m.new_round()
        assert rnd.dealer == last(rules) and rnd.to_act == 0
        assert Round(random_deal(rules, 2)).dealer == last(rules)


def test_default_dealer_gives_the_solvers_default_leader():
    # the engine and the solver agree on who leads when no dealer is named
    rnd = Round.new(SMALL, seed=5, declarer="E", bid=None)
    rnd.name_trump("B")
    rnd.discard(list(rnd.hands[rnd.declarer])[:rnd.rules.nest_size])
    assert rnd.leader == 0  # hasbro: left of the dealer W
    pos = rnd.position()
    # the seat the solver puts on lead is the engine's: the cards it values are that seat's (the
    # values alone could not tell: here S on lead gives the 10 that N does)
    assert set(card_values(pos.deal, "B", "E")) == set(pos.deal.hands[rnd.leader])
    assert solve(pos.deal, "B", "E").declarer_points == \
        solve(pos.deal, "B", "E", leader=rnd.leader).declarer_points


def test_no_auction_round_leads_from_the_default_dealer():
    rnd = Round.new("bridge", seed=1, declarer="N")
    rnd.name_trump("none")
    assert rnd.dealer == 3 and rnd.phase == "play" and rnd.leader == 1  # left of the declarer


# ------------------------------------------------- game: rules as their text
def test_game_takes_rules_as_text():
    assert Auction("hasbro").rules == Rules.preset("hasbro")
    assert Auction("hasbro,bird=low", dealer="S").to_call == 3
    assert Match("full", seed=1).rules == Rules.preset("full")
    assert Round.new("full", seed=1).rules == Rules.preset("full")
    assert party_count("hasbro") == 2 and party_count(THREE) == 3
    assert party_of("hasbro", "E") == 1 and party_of(THREE, "P2") == 1
    hand = Hand.from_rdn("B14 B5 R10 Y7")
    trick = [Card.from_rdn("R5")]
    assert legal_plays(hand, trick, "G", "full") == legal_plays(hand, trick, "G", Rules.preset("full"))
    assert legal_plays(hand, trick, "G", "full").rdn() == "R10"
    assert trick_winner([Card.from_rdn(c) for c in ("R5", "R9", "B14", "R1")], "G", "full") == 1


def test_game_takes_cards_as_text():
    assert legal_plays("B14 B5 R10 Y7", "R5", "G", "full").rdn() == "R10"
    assert legal_plays("B14 B5 R10 Y7", ["R5"], "G", "full").rdn() == "R10"
    assert trick_winner("R5, R9, B14, R1", "G", "full") == 1
    assert trick_winner("R5 R9 B14 R1", "B", "full") == 2


@pytest.mark.parametrize("bad", [5, None, 1.5, ["hasbro"]])
def test_game_refuses_rules_that_are_not_rules(bad):
    raises(RulesError, bad, Auction, bad)
    raises(RulesError, bad, Match, bad)
    raises(RulesError, bad, Round.new, bad, seed=1)
    raises(RulesError, bad, party_count, bad)
    raises(RulesError, bad, legal_plays, Hand(0), [], "B", bad)


def test_round_refuses_text_and_says_how_to_build_a_deal():
    text = random_deal("hasbro", 1).rdn()
    msg = raises(DealError, text, Round, text)
    assert "Deal.from_rdn(text, rules)" in msg and "Round.new" in msg
    raises(DealError, None, Round, None)
    assert Round(Deal.from_rdn(text, "hasbro")).deal == random_deal("hasbro", 1)


def test_game_refuses_unknown_rules_text():
    raises(RulesError, "hasbrox", Auction, "hasbrox")


# ------------------------------------------------------------ game: seeds
@pytest.mark.parametrize("bad", [-1, "x", 1.7, 2.0, True, [1, 2], "3"])
def test_bad_seeds_are_refused(bad):
    msg = raises(RookError, bad, Round.new, "hasbro", seed=bad)
    assert msg.startswith(f"seed {bad!r}: expected a whole number 0 or more")
    raises(RookError, bad, Match, "hasbro", seed=bad)
    raises(RookError, bad, Match, "hasbro", bad)


def test_good_seeds_are_kept():
    assert Round.new("hasbro", seed=np.int64(4)).deal == Round.new("hasbro", seed=4).deal == random_deal("hasbro", 4)
    assert Round.new("hasbro", seed=0).deal == random_deal("hasbro", 0)
    gen = Round.new("hasbro", seed=np.random.default_rng(9)).deal
    assert gen == random_deal("hasbro", np.random.default_rng(9))
    assert Round.new("hasbro").phase == "auction"  # None: a fresh seed
    a, b = Match("hasbro", seed=np.random.default_rng(2)), Match("hasbro", seed=2)
    assert a.new_round().deal == b.new_round().deal


# ------------------------------------------------------ game: other inputs
@pytest.mark.parametrize("bad", [True, 7, -1, 1.0, None, "Q"])
def test_game_seats_are_checked(bad):
    raises(RulesError, bad, party_of, "hasbro", bad)
    if bad is not None:  # dealer None: the last seat; declarer None: the auction decides
        raises(RulesError, bad, Auction, "hasbro", dealer=bad)
        raises(RulesError, bad, Round.new, "hasbro", seed=1, dealer=bad)
        raises(RulesError, bad, Match, "hasbro", dealer=bad)
        raises(RulesError, bad, Round.new, "hasbro", seed=1, declarer=bad)
        raises(RulesError, bad, Auction("hasbro").call, 70, seat=bad)


def test_numpy_seats_are_indices():
    rnd = Round.new("hasbro", seed=1, dealer=np.int64(2), declarer=np.int32(1), bid=70)
    assert rnd.dealer == 2 and rnd.declarer == 1 and type(rnd.dealer) is int
    assert party_of("hasbro", np.int64(3)) == 1


def test_trump_must_be_a_name():
    rnd = Round.new("full", seed=1, declarer="N", bid=100)
    raises(IllegalActionError, None, rnd.name_trump, None)  # not the no-trump 'none'
    raises(IllegalActionError, 3, rnd.name_trump, 3)
    raises(IllegalActionError, None, legal_plays, Hand(0), [], None, "full")


def test_discard_refuses_what_is_not_cards():
    rnd = Round.new("full", seed=1, declarer="N", bid=100)
    raises(InvalidCardError, 5, rnd.discard, 5)
    raises(InvalidCardError, 14, rnd.discard, [14])
    rnd.discard(", ".join(c.rdn() for c in list(rnd.hands[0])[:5]))  # text with commas still works
    assert len(rnd.nest) == 5


def test_engine_functions_refuse_what_is_not_cards():
    raises(InvalidCardError, 5, legal_plays, 5, [], "B", "full")
    raises(InvalidCardError, 5, trick_winner, 5, "B", "full")
    raises(InvalidCardError, 5, trick_winner, [5], "B", "full")
    raises(InvalidCardError, "X9", trick_winner, "R5 X9", "B", "full")
    with pytest.raises(IllegalActionError, match="^trick '': an empty trick has no winner$"):
        trick_winner("", "B", "full")
    with pytest.raises(IllegalActionError, match=re.escape("trick []: an empty trick")):
        trick_winner([], "B", "full")


def test_match_record_refuses_what_is_not_a_hand():
    m = Match("hasbro", seed=1)
    raises(IllegalActionError, "x", m.record, "x")
    raises(IllegalActionError, None, m.record, None)
    result = HandResult(Rules.preset("hasbro"), dealer=3, declarer=0, bid=70, trump="B", forced=False,
                        tricks_won=(5, 4), captured=(80, 40), score=(80, 40))
    assert m.record(result) is None and m.totals == [80, 40]


def test_match_winner_checks_its_inputs():
    assert match_winner([310, 200], 300) == 0
    assert match_winner((np.int64(310), 200), np.int64(300)) == 0
    raises(RookError, "300", match_winner, [1, 2], "300")
    raises(RookError, True, match_winner, [1, 2], True)
    raises(RookError, 5, match_winner, 5, 300)
    raises(RookError, [1, None], match_winner, [1, None], 300)


# -------------------------------------------------------- api: deals
@pytest.fixture(scope="module")
def small():
    return random_deal(SMALL, 3)


def test_solve_refuses_text_and_says_how_to_build_a_deal(small):
    text = small.rdn()
    for fn in (solve, card_values, api.Solver().solve, api.Solver().card_values):
        msg = raises(DealError, text, fn, text, "B", "N")
        assert "Deal.from_rdn(text, rules)" in msg
    raises(DealError, None, solve, None, "B", "N")
    msg = raises(DealError, text, solve_batch, [small, text], "B", "N")
    assert "deals[1]" in msg and "Deal.from_rdn(text, rules)" in msg
    msg = raises(DealError, text, solve_batch, text, "B", "N")
    assert "Deal.from_rdn(text, rules)" in msg
    msg = raises(DealError, small.rdn(), solve_batch, small, "B", "N")  # one Deal, not a sequence
    assert "[deal]" in msg
    raises(DealError, 5, solve_batch, 5, "B", "N")


# -------------------------------------------------------- api: seats
@pytest.mark.parametrize("bad", [True, False, 1.0, None, [0], np.bool_(True)])
def test_solver_seats_must_be_names_or_indices(small, bad):
    if bad is not None:  # leader / dealer None: the default
        raises(RookError, bad, solve, small, "B", bad)
        raises(RookError, bad, card_values, small, "B", bad)
        raises(RookError, bad, solve_batch, [small], "B", [bad])
    else:
        raises(RookError, bad, solve, small, "B", bad)
    if bad is not None:
        raises(RookError, bad, solve, small, "B", "N", leader=bad)
        raises(RookError, bad, solve, small, "B", "N", dealer=bad)
        raises(RookError, bad, solve_batch, [small], "B", "N", dealer=bad)


def test_solve_batch_names_the_deal_a_seat_or_trump_does_not_suit(small):
    # deals of two tables: 'N' suits the first and not the second; the message named the seat
    # alone, and with many deals nothing said which one
    other = random_deal(THREE, 1)
    msg = raises(DealError, "N", solve_batch, [small, small, other], "B", "N")
    assert msg.startswith("deals[2]: ") and "P1 P2 P3" in msg
    msg = raises(RulesError, "none", solve_batch, [small, small], ["B", "none"], "N")
    assert msg.startswith("deals[1]: ")
    raises(DealError, 9, solve_batch, [small, small], "B", [0, 9])


def test_solver_seat_range_and_names(small):
    raises(RookError, 4, solve, small, "B", 4)
    raises(RookError, "Q", solve, small, "B", "Q")
    assert solve(small, "B", np.int64(1)).declarer_points == solve(small, "B", "E").declarer_points


def test_a_bad_dealer_is_refused_even_with_a_leader(small):
    raises(RookError, 9, solve, small, "B", "N", leader="E", dealer=9)


# -------------------------------------------------------- api: trump
@pytest.mark.parametrize("bad", [None, 3, ["B"]])
def test_solver_trump_must_be_a_name(small, bad):
    raises(RulesError, bad, solve, small, bad, "N")
    raises(RulesError, bad, solve_batch, [small], [bad], "N")


def test_no_trump_needs_its_name():
    deal = random_deal("bridge,hand_size=3", 1)
    assert solve(deal, "none", "N").declarer_points >= 0
    raises(RulesError, None, solve, deal, None, "N")  # once silently 'none'


# -------------------------------------------------------- api: trick
def _two_cards(deal, trump):
    rules = deal.rules
    lead = rules.first_leader(0, rules.seat_index(rules.last_seat))
    first = list(deal.hands[lead])[0]
    second = list(legal_plays(deal.hands[(lead + 1) % rules.seats], [first], trump, rules))[0]
    return first, second


def test_trick_as_text():
    # a spot where the position, N's lead and E's reply each have a value of their own (on
    # _two_cards' spot all three were 20: a trick read as nothing, or as its first card, passed)
    deal = random_deal(SMALL, 9)
    c1, c2 = Card.from_rdn("G10"), Card.from_rdn("R10")  # N leads (W deals); E, void in green, discards
    none = solve(deal, "B", "N").declarer_points
    one = solve(deal, "B", "N", trick=[c1]).declarer_points
    two = solve(deal, "B", "N", trick=[c1, c2]).declarer_points
    assert len({none, one, two}) == 3, (none, one, two)
    assert solve(deal, "B", "N", trick=c1.rdn()).declarer_points == one
    assert solve(deal, "B", "N", trick=[c1.rdn()]).declarer_points == one
    assert solve(deal, "B", "N", trick=(c1,)).declarer_points == one
    for text in (f"{c1.rdn()} {c2.rdn()}", f"{c1.rdn()},{c2.rdn()}", f" {c1.rdn()} , {c2.rdn()} "):
        assert solve(deal, "B", "N", trick=text).declarer_points == two
    assert card_values(deal, "B", "N", trick=c1.rdn()) == card_values(deal, "B", "N", trick=[c1])
    assert solve(deal, "B", "N", trick="").declarer_points == none
    assert solve(deal, "B", "N", trick=None).declarer_points == none


def test_bad_tricks_are_refused(small):
    raises(InvalidCardError, "X9", solve, small, "B", "N", trick="X9")
    raises(InvalidCardError, 5, solve, small, "B", "N", trick=5)
    raises(InvalidCardError, 5, solve, small, "B", "N", trick=[5])
    raises(InvalidCardError, ("R", 5), solve, small, "B", "N", trick=[("R", 5)])


def test_a_trick_too_long_is_quoted(small):
    """A trick in progress of as many cards as seats names the trick, as the game engine's do."""
    msg = raises(IllegalActionError, "B14 B13 B12 B11", solve, small, "B", "N", trick="B14, B13, B12, B11")
    assert "a trick in progress has at most 3 cards, not 4" in msg


# -------------------------------------------------------- api: solve_batch
@pytest.mark.parametrize("bad", [0, -3, 1.5, True, "2"])
def test_solve_batch_threads_must_be_one_or_more(small, bad):
    msg = raises(RookError, bad, solve_batch, [small], "B", "N", threads=bad)
    assert "1 or more" in msg


def test_solve_batch_thread_counts_that_work(small):
    one = solve_batch([small, small], "B", "N", threads=1)
    assert list(solve_batch([small, small], "B", "N", threads=np.int64(2))) == list(one)
    assert list(solve_batch([small, small], "B", "N", threads=None)) == list(one)
    assert one[0] == solve(small, "B", "N").declarer_points


def test_solve_batch_other_arguments(small):
    raises(RookError, 5, solve_batch, [small], "B", "N", progress=5)
    raises(DealError, 1.5, solve_batch, [small], "B", 1.5)
    msg = raises(DealError, ["B", "R"], solve_batch, [small], ["B", "R"], "N")
    assert "2 values for 1 deals" in msg
    assert list(solve_batch([], "B", "N", threads=1)) == []
    for bad in ("soon", float("nan"), True, [1.0]):
        raises(RookError, bad, solve_batch, [small], "B", "N", deadline=bad)
    # a whole number beyond any float: as inf (far off), or as -inf (long past), as time_limit reads one
    assert list(solve_batch([small], "B", "N", threads=1, deadline=10 ** 400)) == list(
        solve_batch([small], "B", "N", threads=1))
    assert list(solve_batch([small], "B", "N", threads=1, deadline=-10 ** 400)) == [-1]


# -------------------------------------------------------- api: needs_compile
def test_needs_compile_names():
    raises(RookError, "x", needs_compile, ["x"])
    raises(RookError, "x", needs_compile, "x")
    raises(RookError, 5, needs_compile, 5)
    raises(RookError, ["solve"], needs_compile, [["solve"]])
    assert needs_compile("solve") is needs_compile(["solve"])
    assert isinstance(needs_compile("batch"), bool)
    assert isinstance(needs_compile(), bool)


# -------------------------------------------------------- docstrings
def _public_callables(module):
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj):
            yield name, obj
        elif inspect.isclass(obj):
            yield name, obj
            for attr, member in vars(obj).items():
                if attr.startswith("_"):
                    continue
                if isinstance(member, (staticmethod, classmethod)):
                    member = member.__func__
                if isinstance(member, property):
                    member = member.fget
                if inspect.isfunction(member):
                    yield f"{name}.{attr}", member


@pytest.mark.parametrize("module", [api, game], ids=["api", "game"])
def test_public_functions_and_methods_have_docstrings(module):
    missing = [name for name, obj in _public_callables(module) if not (obj.__doc__ or "").strip()]
    assert not missing, missing


def test_tricks_that_cannot_be_are_refused():
    rules = Rules.from_spec("hasbro,hand_size=3")
    assert trick_winner("B14 B12 B9 B8", "Y", rules) == 0 and trick_winner("B12 Y5", "Y", rules) == 1
    for bad, words in (("B14 B12 B9 B8 B6 Y5", "6 cards, at most 4 at 4 seats"),
                       ("B14 B14", "a card played twice"),
                       ("B14 B3", "B3 not in the deck"),
                       ({"B9", "Y13"}, "a set has no order"),
                       ({"B9": 0, "Y13": 1}, "not a mapping"),
                       ({"N": "R5"}, "not a mapping")):   # keys that are no cards: refused as a mapping too
        with pytest.raises(RookError, match=re.escape(words)):
            trick_winner(bad, "Y", rules)
    with pytest.raises(IllegalActionError, match="4 cards, at most 3"):
        legal_plays("Y12 Y11 Y5", "Y10 Y9 Y8 Y7", "Y", rules)
    with pytest.raises(IllegalActionError, match="holds Y12, already played to the trick"):
        legal_plays("Y12 Y11 Y5", "Y12", "Y", rules)
    with pytest.raises(InvalidCardError, match="B2 B1 not in the deck"):
        legal_plays("B1 B2", "", "Y", rules)


def test_bids_take_ascii_digits_only():
    raises(IllegalActionError, "\u0967\u0966\u0966", Auction("hasbro").call, "\u0967\u0966\u0966")


def test_a_match_keeps_its_own_dealer():
    match = Match("hasbro", seed=1)
    with pytest.raises(IllegalActionError, match="passes the deal itself"):
        match.new_round(dealer="N")


def test_rules_helpers_check_their_seats_and_cards():
    rules = Rules.preset("hasbro")
    assert rules.left_of("W") == 0 and rules.first_leader("N", "W") == 0
    for bad in (None, -1, 2**70, True, 1):   # index 1 is B1: not in hasbro's deck
        raises(RulesError, bad, rules.card_points, bad)
    for bad in (1.5, 99, "Q"):
        with pytest.raises(RulesError, match=re.escape(repr(bad) if not isinstance(bad, str) else "'Q'")):
            rules.left_of(bad)
    with pytest.raises(RulesError, match="array"):
        rules.seat_index(np.array([1, 2]))


def test_numpy_integers_are_card_indices_and_numbers():
    rules = Rules.preset("full")
    assert rules.card_points(np.int64(30)) == rules.card_points(30) == 10  # R14
    assert Card.from_index(np.int64(30)) == Card.from_index(30) == Card("R", 14)
    card = Card("R", np.int64(14))
    assert type(card.number) is int and card == Card("R", 14) and hash(card) == hash(Card("R", 14))
    for bad in (np.bool_(True), np.array([1, 2]), 1.0):
        raises(InvalidCardError, bad, Card.from_index, bad)


def test_points_of_mask_checks_its_mask():
    rules = Rules.preset("hasbro")
    hand = Hand.from_rdn("Rook B14 B5 R10")
    assert rules.points_of_mask(hand) == rules.points_of_mask(hand.mask) == 45
    assert rules.points_of_mask(np.uint64(hand.mask)) == 45
    for bad in (-2, 1 << 64, 1 << 1, 1.5, "B5"):  # 1 << 1 is B1: not in hasbro's deck
        with pytest.raises(RulesError) as e:
            rules.points_of_mask(bad)
        assert (f"{bad:#x}" if isinstance(bad, int) else repr(bad)) in str(e.value)


def test_color_order_reads_trump_and_color_as_the_rest_of_the_api():
    rules = Rules.preset("full")
    assert rules.color_order("b", "b") == rules.color_order("B", "B") == rules.color_order(" B", "B ")
    assert rules.color_order("B", "B")[-1] == 0  # the Rook on top of trump
    assert 0 not in rules.color_order("R", "B") and 0 not in rules.color_order(None, "B")
    raises(RulesError, "X", rules.color_order, "X", "B")
    assert rules.color_order("none", "B") == rules.color_order("NONE", "B") == rules.color_order(None, "B")
    raises(RulesError, "Q", rules.color_order, "B", "Q")


def test_a_set_is_no_trick(small):
    c1, c2 = _two_cards(small, "B")
    for fn in (solve, card_values):
        with pytest.raises(IllegalActionError, match="a set has no order"):
            fn(small, "B", "N", trick={c1.rdn(), c2.rdn()})
        with pytest.raises(IllegalActionError, match="a set has no order"):
            fn(small, "B", "N", trick=frozenset([c1]))
        # a mapping's keys were taken for the cards, whatever its values said
        with pytest.raises(IllegalActionError, match="expected the cards from the lead.*not a mapping"):
            fn(small, "B", "N", trick={c1.rdn(): 0})
    with pytest.raises(IllegalActionError, match="not a mapping"):
        play_line(small, "B", "N", trick={c1.rdn(): 0})


def test_total_points_with_no_card_left_gives_the_nest_to_nobody():
    for spec, total in (("hasbro", 0), ("hasbro,nest_to=declarer", 5)):
        deal = Deal.from_rdn("N: / E: / S: / W: / nest: R5", spec)
        res = solve(deal, "B", "N")
        assert deal.total_points() == res.declarer_points + res.defender_points == total


def test_yes_no_arguments_take_booleans_only():
    deal = random_deal("hasbro,hand_size=2", 1)
    raises(InvalidCardError, "no", Card.rook, "no")
    raises(DealError, "no", Deal.from_rdn, deal.rdn(), "hasbro,hand_size=2", complete="no")
    raises(RookError, "no", solve_batch, [deal], "B", "N", return_nodes="no")
    assert Card.rook(True).rdn() == "Rook2" and Card.rook().rdn() == "Rook"


def test_match_winner_checks_totals_and_target():
    raises(RookError, b"B14", match_winner, b"B14", 300)
    raises(RookError, -5, match_winner, [1, 2], -5)
    assert match_winner([310, 200], 300) == 0 and match_winner([310, 310], 300) is None


ARRAY = np.array([0, 1])  # an array where one name belongs: its == compares every element


@pytest.mark.parametrize("knob", ["bird", "double_bird", "first_lead", "bird_play", "nest_to", "all_pass"])
def test_an_array_is_no_knob_value(knob):
    raises(RulesError, ARRAY, Rules.preset("hasbro").with_knobs, **{knob: ARRAY})


def test_an_array_is_no_color():
    rules = Rules.preset("full")
    raises(InvalidCardError, ARRAY, Card, ARRAY, 5)
    raises(RulesError, ARRAY, rules.color_order, ARRAY, "B")
    raises(RulesError, ARRAY, rules.color_order, None, ARRAY)


def test_a_trick_given_as_an_iterator_is_read_once(small):
    # play_line reads the trick twice (the position, then the cards of its line): an
    # iterator was spent by the first read and the line went on as if nothing was played
    c1, c2 = _two_cards(small, "B")
    want = api.play_line(small, "B", "N", trick=[c1, c2])
    assert api.play_line(small, "B", "N", trick=iter([c1, c2])) == want
    assert api.play_line(small, "B", "N", trick=(c for c in (c1.rdn(), c2.rdn()))) == want
    assert len(want) == sum(len(h) for h in small.hands) - 2 and want[0].card not in (c1, c2)


@pytest.mark.parametrize("arg", ["trumps", "declarers", "leaders", "groups"])
def test_solve_batch_values_a_deal_are_no_set(small, arg):
    # a set's order follows the hash seed: which deal got which value changed from run to run
    values = {"trumps": {"B", "R"}, "declarers": {"N", "E"}, "leaders": {"N", "E"},
              "groups": frozenset([1, 2])}[arg]
    kwargs = {"trumps": "B", "declarers": "N", arg: values}
    msg = raises(DealError, values, solve_batch, [small, small], **kwargs)
    assert "a set has no order" in msg


def test_bytes_are_no_cards(small):
    # bytes iterate as numbers: the message named a number (78) rather than what was given
    raises(InvalidCardError, b"B5", Hand.from_cards, b"B5")
    c1, _ = _two_cards(small, "B")
    raises(InvalidCardError, c1.rdn().encode(), solve, small, "B", "N", trick=c1.rdn().encode())


def test_a_trick_too_long_at_two_seats_and_a_preset_bonus_without_sides_say_how_to_go_on():
    two = Rules.from_spec("hasbro,seats=2,teams=01,hand_size=8,nest_size=5")
    deal = random_deal(two, 1)
    cards = sorted(deal.hands[0], key=lambda c: c.index)[:2]
    with pytest.raises(RookError, match="a trick in progress has at most 1 card, not 2"):
        solve(deal, "B", "P1", "P1", None, cards)
    # dixie40's own most_tricks, at a table without sides: the message names the way out
    with pytest.raises(RookError, match="add most_tricks=none to play without the bonus"):
        Rules.from_spec("dixie40,seats=3,teams=alone")
    assert Rules.from_spec("dixie40,seats=3,teams=alone,most_tricks=none").most_tricks is None


def test_every_name_the_solver_package_exports_has_docstrings():
    """What ``help()`` shows of ``rook_analyze.solver``: each exported class
    and function, and their public methods (``Rules.spec_unchecked`` showed
    the comment above it instead)."""
    import rook_analyze.solver as package

    missing = []
    for name in package.__all__:
        obj = getattr(package, name)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        missing += [n for n, o in _public_callables(inspect.getmodule(obj))
                    if (n == name or n.startswith(name + ".")) and not (o.__doc__ or "").strip()]
    assert not missing, missing
