"""The plain-Python game engine: auction, nest, trump, legal plays, trick
winners, scoring and matches, against RULES.md."""

import re
import zlib

import numpy as np
import pytest

from rook_analyze.solver import (Card, Deal, DealError, Hand, IllegalActionError, Rules, RulesError,
                                 random_deal)
from rook_analyze.solver.game import (Auction, HandResult, Match, Round, legal_plays, match_winner,
                                      party_count, party_of, suit_of, trick_winner)


def cards(text):
    return [Card.from_rdn(t) for t in text.split()]


def hand(text):
    return Hand.from_rdn(text)


def legal(rules, held, trick, trump):
    return legal_plays(hand(held), cards(trick), trump, Rules.from_spec(rules)).rdn()


def winner(rules, trick, trump):
    return trick_winner(cards(trick), trump, Rules.from_spec(rules))


# ------------------------------------------------------------ legal plays
@pytest.mark.parametrize("play", ["trump_suit", "any_time"])
def test_lead_is_free(play):
    assert legal(f"hasbro,bird_play={play}", "Rook R5 B7 G9", "", "R") == "Rook B7 R5 G9"


@pytest.mark.parametrize("play", ["trump_suit", "any_time"])
def test_rook_led_is_trump_led(play):
    rules = f"hasbro,bird_play={play}"
    assert legal(rules, "R5 R12 B7 G9", "Rook", "R") == "R12 R5"
    assert legal(rules, "B7 G9 Y5", "Rook", "R") == "B7 Y5 G9"  # no trump: anything


@pytest.mark.parametrize("play", ["trump_suit", "any_time"])
def test_trump_led_with_the_rook_as_only_trump_must_play_it(play):
    rules = f"hasbro,bird_play={play}"
    assert legal(rules, "Rook B7 G9", "R9", "R") == "Rook"
    assert legal(rules, "Rook R5 B7", "R9", "R") == "Rook R5"


def test_off_color_led_while_holding_the_rook():
    # trump_suit: the Rook is a trump, so a seat that can follow must
    assert legal("hasbro,bird_play=trump_suit", "Rook B7 G9 R5", "B10", "R") == "B7"
    # any_time: the Rook may be played even when the seat could follow
    assert legal("hasbro,bird_play=any_time", "Rook B7 G9 R5", "B10", "R") == "Rook B7"
    # void in the led color: anything, in both
    for play in ("trump_suit", "any_time"):
        assert legal(f"hasbro,bird_play={play}", "Rook G9 R5", "B10 B5", "R") == "Rook R5 G9"


def test_double_bird_plays_like_the_rook():
    assert legal("hasbro,double_bird=true,bird_play=any_time", "Rook Rook2 B7 G9", "B10", "R") == \
        "Rook Rook2 B7"
    assert legal("hasbro,double_bird=true,bird_play=trump_suit", "Rook Rook2 B7 G9", "B10", "R") == "B7"
    assert legal("hasbro,double_bird=true", "Rook2 B7", "R9", "R") == "Rook2"
    assert legal("hasbro,double_bird=true", "Rook2 R5 B7", "Rook", "R") == "Rook2 R5"


def test_follow_is_by_the_led_card_not_the_trick_so_far():
    # B led, then trumped: the third seat still follows black
    assert legal("full", "B3 R2 G4", "B10 R5", "R") == "B3"


def test_no_trump_in_bridge():
    assert legal("bridge", "B3 R2 G4", "R10", "none") == "R2"
    assert legal("bridge", "B3 G4", "R10", "none") == "B3 G4"


def test_suit_of():
    assert suit_of(Card.rook(), "Y") == "Y"
    assert suit_of(Card.rook(second=True), "G") == "G"
    assert suit_of(Card("B", 4), "Y") == "B"


def test_legal_plays_rejects_a_trump_the_rules_do_not_allow():
    with pytest.raises(IllegalActionError, match="'none'"):
        legal("full", "B3", "B10", "none")


# ------------------------------------------------------------ trick winners
@pytest.mark.parametrize("trick, high, half, low", [
    ("R11 Rook R10 R14", 1, 3, 3),
    ("R9 Rook R10 B14", 1, 1, 2),
    ("R5 Rook R6 R7", 1, 1, 3),
    ("B5 Rook B14 G14", 1, 1, 1),   # the Rook is a trump whatever its rank
    ("Rook R5 B14 R6", 0, 0, 3),    # the Rook led is trump led
    ("R10 R9 Rook R11", 2, 3, 3),
])
def test_rook_rank_decides_the_trick(trick, high, half, low):
    assert winner("hasbro", trick, "R") == high
    assert winner("hasbro,bird=ten_and_half", trick, "R") == half
    assert winner("hasbro,bird=low", trick, "R") == low


@pytest.mark.parametrize("trick, expected", [
    ("B5 B14 G14 Y14", 1),     # highest of the led color
    ("B5 Y6 B14 B13", 2),
    ("B5 R5 B14 B13", 1),      # a trump beats the led color
    ("B5 R5 R6 B13", 2),
    ("G9 B14 Y14 B13", 0),     # nobody followed, nobody trumped
])
def test_led_color_and_trump(trick, expected):
    assert winner("hasbro", trick, "R") == expected


def test_one_high():
    assert winner("kentucky", "B14 B1 B13 G5", "R") == 1
    assert winner("kentucky", "R14 R1 Rook B1", "R") == 2
    assert winner("kentucky,one_high=false", "B14 B1 B13 G5", "R") == 0


@pytest.mark.parametrize("rules, trick, expected", [
    ("hasbro,double_bird=true", "Rook2 Rook R14 R5", 1),
    ("hasbro,double_bird=true", "Rook2 R14 R13 R5", 0),
    ("hasbro,double_bird=true", "B5 Rook2 B14 Rook", 3),
    ("hasbro,double_bird=true,bird=ten_and_half", "R10 Rook2 R11 R9", 2),
    ("hasbro,double_bird=true,bird=ten_and_half", "R10 Rook2 R9 R8", 1),
    ("hasbro,double_bird=true,bird=ten_and_half", "Rook2 Rook R9 R8", 1),
    ("hasbro,double_bird=true,bird=low", "Rook2 R5 B14 B13", 1),
    ("hasbro,double_bird=true,bird=low", "Rook2 Rook B14 B13", 1),
    ("hasbro,double_bird=true,bird=low", "B5 Rook2 B14 B13", 1),
])
def test_double_bird_ranks_just_below_the_rook(rules, trick, expected):
    assert winner(rules, trick, "R") == expected


def test_bridge_no_trump():
    assert winner("bridge", "B2 B14 R14 Y14", "none") == 1
    assert winner("bridge", "B2 B14 R14 Y14", "R") == 2


# ----------------------------------------------------------------- auction
def test_auction_order_and_declarer():
    a = Auction(Rules.preset("hasbro"), dealer="W")
    assert a.to_call == 0  # left of the dealer: N
    for bid in (70, 75, 80, None, 90, None, 95, None):  # N E S W N E S N
        a.call(bid)
    assert a.is_over and a.declarer == 2 and a.bid == 95 and not a.forced
    assert [c.seat for c in a.calls] == [0, 1, 2, 3, 0, 1, 2, 0]
    assert a.passed == {0, 1, 3}


def test_passed_seats_are_out():
    a = Auction(Rules.preset("full"), dealer=3)
    a.call("pass")        # N
    a.call("70")          # E
    a.call("Pass")        # S
    a.call(75)            # W
    assert a.to_call == 1  # N is skipped
    with pytest.raises(IllegalActionError, match="N has passed and is out of the auction"):
        a.call(80, seat="N")
    with pytest.raises(IllegalActionError, match="it is E's turn to call, not W"):
        a.call(80, seat="W")
    a.call(80, seat="E")
    assert a.to_call == 3
    a.call(None)
    assert a.is_over and a.declarer == 1 and a.bid == 80


@pytest.mark.parametrize("first, later, words", [
    (65, None, ["bid 65 by N", "at least min_bid 70"]),
    (72, None, ["bid 72 by N", "multiples of 5"]),
    (125, None, ["bid 125 by N", "above max_bid 120"]),
    (70, 70, ["bid 70 by E", "at least 75", "70 by N", "bid_step 5"]),
    (100, 95, ["bid 95 by E", "at least 105"]),
])
def test_bid_limits(first, later, words):
    a = Auction(Rules.preset("full"), dealer="W")
    bad = first if later is None else later
    if later is not None:
        a.call(first)
    with pytest.raises(IllegalActionError) as err:
        a.call(bad)
    for w in words:
        assert w in str(err.value), (w, str(err.value))
    assert len(a.calls) == (0 if later is None else 1)  # an illegal call changes nothing


def test_bid_step_knob():
    a = Auction(Rules.from_spec("full,bid_step=10,min_bid=80"), dealer="W")
    assert a.legal_calls() == [None] + list(range(80, 121, 5))
    a.call(80)
    assert a.min_next_bid() == 90
    with pytest.raises(IllegalActionError, match="at least 90"):
        a.call(85)
    a.call(90)


def test_max_bid_leaves_only_passes():
    a = Auction(Rules.preset("full"), dealer="W")
    a.call(120)
    assert a.min_next_bid() is None and a.legal_calls() == [None]
    with pytest.raises(IllegalActionError, match="above max_bid"):
        a.call(125)
    for _ in range(3):
        a.call(None)
    assert a.declarer == 0 and a.bid == 120


def test_not_a_call():
    a = Auction(Rules.preset("full"), dealer="W")
    with pytest.raises(IllegalActionError, match="'seventy'"):
        a.call("seventy")
    with pytest.raises(IllegalActionError, match="7.5"):
        a.call(7.5)


def test_all_pass_redeal():
    a = Auction(Rules.preset("full"), dealer="S")
    for _ in range(4):
        a.call(None)
    assert a.is_over and a.redeal and a.declarer is None and a.bid is None
    with pytest.raises(IllegalActionError, match="auction is over.*redeal"):
        a.call(70)


def test_all_pass_dealer_forced():
    a = Auction(Rules.preset("kentucky"), dealer="S")
    assert a.to_call == 3
    for _ in range(4):
        a.call(None)
    assert a.is_over and not a.redeal and a.forced
    assert a.declarer == 2 and a.bid == 100
    with pytest.raises(IllegalActionError, match="S declares at 100"):
        a.call(None)


def test_dealer_forced_dealer_may_bid_higher():
    a = Auction(Rules.preset("dixie40"), dealer="E")
    for _ in range(3):
        a.call(None)
    assert a.to_call == 1 and not a.is_over  # all but one passed, but nobody bid yet
    a.call(80)
    assert a.declarer == 1 and a.bid == 80 and not a.forced


def test_last_seat_may_still_bid_under_redeal():
    a = Auction(Rules.preset("hasbro"), dealer="N")
    for _ in range(3):
        a.call(None)
    a.call(70)
    assert a.declarer == 0 and a.bid == 70


def test_no_auction_in_bridge():
    with pytest.raises(RulesError, match="no bidding"):
        Auction(Rules.preset("bridge"))
    deal = random_deal("bridge", 1)
    with pytest.raises(RulesError, match="no bidding"):
        Round(deal)
    rnd = Round(deal, dealer="N", declarer="S")
    assert rnd.phase == "exchange" and rnd.bid is None


# ---------------------------------------------------------- the exchange
def started(spec="hasbro", seed=3, dealer="W", declarer="N", bid=90):
    return Round.new(spec, dealer=dealer, seed=seed, declarer=declarer, bid=bid)


def test_declarer_takes_the_nest_and_discards():
    rnd = Round.new("hasbro", dealer="W", seed=11)
    nest = rnd.deal.nest
    for bid in (70, None, None, None):
        rnd.call(bid)
    assert rnd.phase == "exchange" and rnd.declarer == 0 and rnd.to_act == 0
    assert len(rnd.hands[0]) == 14 and rnd.hands[0] == rnd.deal.hands[0] | nest
    counters = [c for c in rnd.hands[0] if rnd.rules.card_points(c)][:5]
    away = (counters + [c for c in rnd.hands[0] if c not in counters])[:5]  # counters may be discarded
    rnd.discard(away)
    assert rnd.phase == "exchange"  # trump not yet named
    rnd.name_trump("g")
    assert rnd.trump == "G" and rnd.phase == "play"
    assert len(rnd.hands[0]) == 9 and rnd.nest == Hand.from_cards(away)
    assert rnd.leader == 0  # hasbro: left of the dealer (W)


def test_trump_before_discard_also_works():
    rnd = started("full", declarer="E")
    rnd.name_trump("B")
    assert rnd.phase == "exchange"
    rnd.discard(" ".join(c.rdn() for c in list(rnd.hands[1])[:5]))
    assert rnd.phase == "play" and rnd.leader == 1  # full: the declarer leads


def test_first_lead_by_preset():
    for spec, expected in [("full", 1), ("hasbro", 0), ("full,first_lead=left_of_declarer", 2)]:
        rnd = started(spec, declarer="E", dealer="W")
        rnd.name_trump("B")
        rnd.discard(list(rnd.hands[1])[:5])
        assert rnd.to_act == expected, spec
    rnd = started("bridge", declarer="E", bid=None, dealer="N")
    rnd.name_trump("none")
    assert rnd.phase == "play" and rnd.to_act == 2  # no nest, bridge: left of the declarer


@pytest.mark.parametrize("action, words", [
    (lambda r: r.discard(list(r.hands[0])[:4]), ["discards 4 cards", "exactly 5 (nest_size)"]),
    (lambda r: r.discard(list(r.hands[0])[:6]), ["discards 6 cards", "exactly 5"]),
    (lambda r: r.discard([list(r.hands[0])[0]] * 5), ["twice"]),
    (lambda r: r.discard(list(r.hands[0])[:4] + list(r.hands[1])[:1]), ["not in N's hand"]),
    (lambda r: r.discard(list(r.hands[0])[:5], seat="E"), ["E cannot discard", "N is the declarer"]),
    (lambda r: r.name_trump("none"), ["'none'", "Rook is always a trump"]),
    (lambda r: r.name_trump("P"), ["'P'"]),
    (lambda r: r.name_trump("B", seat="S"), ["S cannot name trump"]),
    (lambda r: r.play(list(r.hands[0])[0]), ["cannot play", "has not yet named trump"]),
    (lambda r: r.call(70), ["cannot call", "has not yet named trump"]),
    (lambda r: r.result(), ["cannot score the hand"]),
])
def test_illegal_exchange(action, words):
    rnd = started()
    before = (list(rnd.hands), rnd.trump, rnd.discards)
    with pytest.raises(IllegalActionError) as err:
        action(rnd)
    for w in words:
        assert w in str(err.value), (w, str(err.value))
    assert (list(rnd.hands), rnd.trump, rnd.discards) == before


def test_trump_and_discard_only_once():
    rnd = started()
    rnd.name_trump("B")
    with pytest.raises(IllegalActionError, match="trump is already B"):
        rnd.name_trump("R")
    rnd.discard(list(rnd.hands[0])[:5])
    with pytest.raises(IllegalActionError, match="the play of the tricks has begun"):
        rnd.discard(list(rnd.hands[0])[:5])


def test_a_second_discard_names_the_cards():
    rnd = started()
    rnd.discard(list(rnd.hands[0])[:5])
    with pytest.raises(IllegalActionError, match=re.escape("N cannot discard 'B5 B6 B7 B8 B9': already discarded")):
        rnd.discard("B5 B6 B7 B8 B9")
    rnd = started("bridge", declarer="E", bid=None, dealer="N")
    with pytest.raises(IllegalActionError, match=re.escape("E cannot discard ['B2']: there is no nest")):
        rnd.discard(["B2"])


def test_bid_without_auction_is_checked():
    with pytest.raises(IllegalActionError, match="bid 93"):
        started(bid=93)
    with pytest.raises(IllegalActionError, match="without a declarer"):
        Round(random_deal("hasbro", 1), bid=90)


# ---------------------------------------------------------------- the play
# hasbro, dealer W, N declares in red; N leads (left of the dealer)
PLAY_DEAL = ("N: Rook B14 B10 R9 Y8 G7 G6 B5 R12 / E: B13 B12 R14 R13 Y14 Y13 G14 G13 G12 / "
             "S: B11 B9 R11 R10 Y12 Y11 G11 G10 G9 / W: B8 B7 R8 R7 Y10 Y9 G8 R6 R5 / "
             "nest: B6 Y7 Y6 Y5 G5")


def play_round(spec="hasbro"):
    rnd = Round(Deal.from_rdn(PLAY_DEAL, spec), dealer="W", declarer="N", bid=95)
    rnd.discard("B6 Y7 Y6 Y5 G5")
    rnd.name_trump("R")
    return rnd


def test_illegal_plays_say_why():
    rnd = play_round()
    with pytest.raises(IllegalActionError, match="N cannot play B13: N does not hold it"):
        rnd.play("B13")
    with pytest.raises(IllegalActionError, match="it is N's turn to play, not E"):
        rnd.play("B13", seat="E")
    rnd.play("B5")
    assert rnd.legal_plays().rdn() == "B13 B12"
    with pytest.raises(IllegalActionError) as err:
        rnd.play("R14")
    msg = str(err.value)
    assert "E cannot play R14" in msg and "B5 led black" in msg and "follow with B13 B12" in msg
    rnd.play("B12")
    rnd.play("B9")
    assert rnd.legal_plays().rdn() == "B8 B7"
    trick = rnd.play("B8")
    assert trick.winner == 1 and trick.cards == tuple(cards("B5 B12 B9 B8"))
    assert trick.points(rnd.rules) == 5
    assert rnd.to_act == 1 and rnd.trick == []


def test_any_time_rook_and_trump_led_errors():
    rnd = play_round("hasbro")  # any_time
    rnd.play("B5")
    rnd.play("B13")
    rnd.play("B11")
    rnd.play("B7")          # E wins, leads trump
    rnd.play("R14")
    assert rnd.legal_plays().rdn() == "R11 R10"
    rnd.play("R10")
    rnd.play("R5")
    # N holds Rook R12 R9: all trumps
    assert rnd.legal_plays().rdn() == "Rook R12 R9"
    with pytest.raises(IllegalActionError, match=r"led trump \(red\).*follow with Rook R12 R9"):
        rnd.play("B14")
    rnd.play("Rook")
    assert rnd.tricks[-1].winner == 0


def test_trump_suit_rook_must_follow():
    rnd = play_round("hasbro,bird_play=trump_suit")
    rnd.play("B5")
    rnd.play("B13")
    rnd.play("B11")
    rnd.play("B7")
    rnd.play("G12")  # E leads green; N holds G7 G6 and the Rook
    rnd.play("G11")
    rnd.play("G8")
    assert rnd.legal_plays().rdn() == "G7 G6"
    with pytest.raises(IllegalActionError, match="N cannot play Rook"):
        rnd.play("Rook")


def test_position_for_the_solver():
    rnd = play_round()
    pos = rnd.position()
    assert pos.deal.rdn() == Deal.from_rdn(PLAY_DEAL, "hasbro").rdn()
    assert (pos.trump, pos.declarer, pos.leader, pos.trick) == ("R", 0, 0, ())
    assert pos.deal.total_points() == 120
    rnd.play("B5")
    rnd.play("B13")
    pos = rnd.position()
    assert pos.trick == tuple(cards("B5 B13")) and pos.leader == 0
    assert pos.deal.cards_per_hand == 9  # the trick's cards are still in the hands


# ---------------------------------------------------------------- scoring
def random_playout(rules, rng, dealer=None):
    """A hand played with uniformly random legal actions (a random auction too)."""
    dealer = int(rng.integers(rules.seats)) if dealer is None else dealer
    while True:
        if rules.has_auction:
            rnd = Round(random_deal(rules, rng), dealer)
            while rnd.phase == "auction":
                calls = rnd.auction.legal_calls()
                rnd.call(None if rng.random() < 0.4 else calls[int(rng.integers(len(calls)))])
        else:
            rnd = Round(random_deal(rules, rng), dealer, declarer=int(rng.integers(rules.seats)))
        if rnd.phase != "redeal":
            break
    rnd.name_trump(rules.trumps[int(rng.integers(len(rules.trumps)))])
    if rnd.phase == "exchange":
        held = list(rnd.hands[rnd.declarer])
        rnd.discard([held[i] for i in rng.choice(len(held), rules.nest_size, replace=False)])
    plays = []
    while rnd.phase == "play":
        seat = rnd.to_act
        options = rnd.legal_plays()
        plays.append((seat, rnd.hands[seat], tuple(rnd.trick), options))
        choices = list(options)
        rnd.play(choices[int(rng.integers(len(choices)))])
    return rnd, plays


def expected_legal(held, trick, trump, bird_play):
    """Legal plays from RULES.md, written out card by card."""
    if not trick:
        return set(held)
    lead = trick[0]
    led = trump if lead.is_bird else lead.color
    follow = {c for c in held if (c.is_bird and led == trump) or c.color == led}
    if not follow:
        return set(held)
    if bird_play == "any_time":
        follow |= {c for c in held if c.is_bird}
    return follow


def expected_winner(trick, trump, rules):
    """Trick winner from RULES.md with the ranks written out as numbers."""
    bird = {"high": 100, "ten_and_half": 10.5, "low": -100}

    def rank(c):
        if c.is_bird:
            return bird[rules.bird] - (0.25 if c.number == 2 else 0)
        return 15 if (rules.one_high and c.number == 1) else c.number

    trumps = [i for i, c in enumerate(trick) if c.is_bird or c.color == trump]
    if trumps:
        return max(trumps, key=lambda i: rank(trick[i]))
    led = trick[0].color
    return max((i for i, c in enumerate(trick) if c.color == led), key=lambda i: rank(trick[i]))


def seats_rules(spec, seats, teams):
    return Rules.from_spec(spec).with_knobs(seats=seats, teams=teams)


COMBOS = [
    "full", "hasbro", "kentucky", "dixie40", "bridge",
    "full,bird=low",
    "full,bird=ten_and_half,bird_play=any_time",
    "hasbro,bird=low,bird_play=trump_suit,nest_to=declarer",
    "hasbro,bird=ten_and_half,nest_to=declarer",
    "full,nest_to=last_trick,most_tricks=7:20",
    "full,double_bird=true,bird_play=any_time",
    "hasbro,double_bird=true,bird=ten_and_half,last_trick_bonus=20",
    "kentucky,double_bird=true,bird=low,bird_play=trump_suit",
    "full,trick_points=1,last_trick_bonus=10,nest_to=last_trick",
    "full,nest_size=0",
    "hasbro,nest_size=0,most_tricks=6:20,bird=low",
    "kentucky,bird=ten_and_half,nest_to=declarer,most_tricks=6:15",
    "dixie40,nest_size=0,most_tricks=6:20,all_pass=redeal",
    "full,nest_size=6,last_trick_bonus=20,trick_points=2",
    ("hasbro", 3, None),                            # cutthroat: the declarer alone, points per player
    ("full,bird=none,nest_size=2", 6, (0, 1, 0, 1, 0, 1)),
    ("full,bird=none,nest_size=6", 5, None),
    ("full,nest_size=1", 2, None),
]


@pytest.mark.parametrize("combo", COMBOS, ids=str)
def test_random_playouts_conserve_points(combo):
    rules = seats_rules(*combo) if isinstance(combo, tuple) else Rules.from_spec(combo)
    rng = np.random.default_rng(zlib.crc32(str(combo).encode()))
    parties = party_count(rules)
    made = failed = 0
    for _ in range(300):
        rnd, plays = random_playout(rules, rng)
        res = rnd.result()
        # every play was legal by RULES.md and every trick went to the right seat
        for seat, held, trick, options in plays:
            assert set(options) == expected_legal(list(held), trick, rnd.trump, rules.bird_play)
        assert len(rnd.tricks) == rules.tricks
        leader = rules.first_leader(rnd.declarer, rnd.dealer)
        played = 0
        for t in rnd.tricks:
            assert t.leader == leader
            pos = expected_winner(t.cards, rnd.trump, rules)
            assert t.winner == (t.leader + pos) % rules.seats
            leader = t.winner
            for c in t.cards:
                assert not played & c.bit
                played |= c.bit
        dealt = rnd.deal
        assert played | rnd.nest.mask == dealt.in_play_mask
        # the total in play: counters of hands and nest, trick points, bonuses
        tricks_by_party = [0] * parties
        for t in rnd.tricks:
            tricks_by_party[party_of(rules, t.winner)] += 1
        assert res.tricks_won == tuple(tricks_by_party)
        total = rules.points_of_mask(dealt.in_play_mask) + rules.trick_points * rules.tricks \
            + rules.last_trick_bonus
        if rules.most_tricks:
            reached = [p for p in range(parties) if tricks_by_party[p] >= rules.most_tricks[0]]
            assert len(reached) <= 1  # the bonus goes to one side at most
            total += rules.most_tricks[1] * len(reached)
        assert sum(res.captured) == res.points_in_play == total
        assert res.declaring_points + res.defending_points == total
        # the nest goes per nest_to
        last = party_of(rules, rnd.tricks[-1].winner)
        nest_party = party_of(rules, rnd.declarer) if rules.nest_to == "declarer" else last
        nest_points = rules.points_of_mask(rnd.nest.mask)
        recount = [0] * parties
        for t in rnd.tricks:
            recount[party_of(rules, t.winner)] += rules.points_of_mask(sum(c.bit for c in t.cards)) \
                + rules.trick_points
        recount[last] += rules.last_trick_bonus
        recount[nest_party] += nest_points
        if rules.most_tricks:
            for p in reached:
                recount[p] += rules.most_tricks[1]
        assert tuple(recount) == res.captured
        # the score: all or minus the bid for the declaring side, what they took for the others
        dp = res.declaring_party
        for p in range(parties):
            if p != dp or res.bid is None:
                assert res.score[p] == res.captured[p]
            elif res.captured[p] >= res.bid:
                assert res.score[p] == res.captured[p] and res.made
                made += 1
            else:
                assert res.score[p] == -res.bid and not res.made
                failed += 1
    if rules.has_auction:
        assert failed > 0  # random play misses bids: the minus branch was exercised


def test_worked_example_seed_004():
    """Bid 95, the declaring side captures 75 of 120: it scores -95, the defenders 45."""
    rules = Rules.preset("hasbro")
    rng = np.random.default_rng(4)
    for seed in range(2000):
        rnd = Round.new(rules, dealer="W", seed=seed)
        for bid in (70, 75, 80, None, 90, None, 95, None):  # N E S W N E S N: S declares 95
            rnd.call(bid)
        assert rnd.declarer == 2 and rnd.bid == 95
        rnd.name_trump("B")
        rnd.discard(list(rnd.hands[2])[-5:])
        while rnd.phase == "play":
            options = list(rnd.legal_plays())
            rnd.play(options[int(rng.integers(len(options)))])
        res = rnd.result()
        if res.declaring_points == 75:
            break
    else:
        pytest.fail("no random hand with 75 points for the declaring side")
    assert res.declaring_party == 0  # N-S
    assert res.captured == (75, 45)
    assert res.score == (-95, 45)
    assert res.made is False


def play_to_points(rules, bid, points, seeds=2000):
    """The first seeded random hand (N declares at ``bid``) where N-S capture ``points``."""
    rng = np.random.default_rng(bid)
    for seed in range(seeds):
        rnd = Round.new(rules, dealer="W", seed=seed, declarer="N", bid=bid)
        rnd.name_trump("Y")
        rnd.discard(list(rnd.hands[0])[:rules.nest_size])
        while rnd.phase == "play":
            options = list(rnd.legal_plays())
            rnd.play(options[int(rng.integers(len(options)))])
        if rnd.result().declaring_points == points:
            return rnd.result()
    pytest.fail(f"no random hand with {points} points for the declaring side")


def test_exactly_the_bid_is_made():
    res = play_to_points(Rules.preset("hasbro"), 70, 70)
    assert res.made and res.score == (70, 50)


def test_made_bid_scores_everything_captured():
    res = play_to_points(Rules.preset("hasbro"), 70, 85)
    assert res.made and res.score == (85, 35)
    res = play_to_points(Rules.preset("hasbro"), 90, 85)
    assert not res.made and res.score == (-90, 35)


def test_discarded_counters_count_for_the_declarer_under_nest_to_declarer():
    rnd = Round(Deal.from_rdn(PLAY_DEAL, "hasbro,nest_to=declarer"), dealer="W", declarer="E", bid=70)
    rnd.discard("R14 Y14 G14 B13 B12")   # 30 points buried by E
    rnd.name_trump("G")
    rng = np.random.default_rng(0)
    while rnd.phase == "play":
        options = list(rnd.legal_plays())
        rnd.play(options[int(rng.integers(len(options)))])
    res = rnd.result()
    tricks_ew = sum(rules_points(rnd, t) for t in rnd.tricks if t.winner % 2 == 1)
    assert res.captured[1] == tricks_ew + 30
    assert sum(res.captured) == 120


def rules_points(rnd, trick):
    return rnd.rules.points_of_mask(sum(c.bit for c in trick.cards))


def test_most_tricks_goes_to_each_side_that_reaches_it():
    # RULES.md: the side that wins at least n tricks gets p more; n = 1 of 2 tricks
    r = Rules.from_spec("hasbro,hand_size=2,most_tricks=1:20")
    d = Deal.from_rdn("N: B14 R6 / E: R14 R7 / S: G6 G7 / W: G8 G9 / nest: Y5 Y6 Y7 Y8 Y9", r)
    rnd = Round(d, declarer="N", bid=70)
    rnd.name_trump("B")
    rnd.discard("Y5 Y6 Y7 Y8 Y9")
    for card in "B14 R7 G6 G8 R6 R14 G7 G9".split():   # N takes the first trick, E the last
        rnd.play(card)
    res = rnd.result()
    assert res.tricks_won == (1, 1)
    # N-S: B14 10 + 20; E-W: R14 10 + the nest's Y5 (last trick) + 20
    assert res.captured == (30, 35)
    assert res.score == (-70, 35)


def test_round_after_the_end():
    rnd, _ = random_playout(Rules.preset("hasbro"), np.random.default_rng(1))
    assert rnd.phase == "done" and rnd.is_over and rnd.to_act is None
    with pytest.raises(IllegalActionError, match="the hand is over"):
        rnd.play("B5")
    with pytest.raises(IllegalActionError, match="the hand is over"):
        rnd.legal_plays()


def test_redeal_round():
    rnd = Round.new("full", dealer="N", seed=2)
    for _ in range(4):
        rnd.call("pass")
    assert rnd.phase == "redeal" and rnd.is_over and rnd.to_act is None
    with pytest.raises(IllegalActionError, match="every seat passed"):
        rnd.name_trump("B")


def test_dealer_forced_round():
    rnd = Round.new("dixie40", dealer="N", seed=2)
    for _ in range(4):
        rnd.call("pass")
    assert rnd.phase == "exchange" and rnd.declarer == 0 and rnd.bid == 65 and rnd.forced


def test_incomplete_deal_is_refused():
    deal = random_deal("hasbro", 1)
    short = Deal(deal.rules, tuple(h.remove(next(iter(h))) for h in deal.hands), deal.nest)
    with pytest.raises(DealError, match="8 cards"):
        Round(short)


# ------------------------------------------------------------------ match
@pytest.mark.parametrize("totals, expected", [
    ([310, 200], 0),
    ([250, 305], 1),
    ([300, 299], 0),          # at the target is enough
    ([310, 320], 1),          # both over: the higher total
    ([310, 310], None),       # equal: another hand
    ([299, 299], None),
    ([-150, 290], None),      # totals may be negative
    ([-150, 300], 1),
    ([310, 310, 305], None),
    ([305, 310, 320], 2),
    ([305, 100, 40], 0),
])
def test_match_winner(totals, expected):
    assert match_winner(totals, 300) == expected


def scored(rules, score, dealer=0):
    return HandResult(rules, dealer, 0, 70, "B", False, (7, 6), tuple(max(s, 0) for s in score), score)


def test_match_totals_and_end():
    rules = Rules.preset("full")
    m = Match(rules, seed=1, dealer="W")
    assert m.record(scored(rules, (120, 0))) is None
    assert m.dealer == 0  # the deal passes clockwise
    assert m.record(scored(rules, (-120, 100))) is None
    assert m.totals == [0, 100]
    assert m.record(scored(rules, (-70, 50))) is None
    assert m.totals == [-70, 150]          # negative totals are kept
    m.record(scored(rules, (120, 0)))
    m.record(scored(rules, (120, 0)))
    m.record(scored(rules, (120, 0)))       # 290 against 150
    assert not m.is_over
    assert m.record(scored(rules, (80, 160))) == 0  # both over: 370 beats 310
    assert m.totals == [370, 310]
    assert len(m.results) == 7 and m.dealer == 2


def test_match_both_over_and_tie():
    rules = Rules.preset("hasbro")
    m = Match(rules)
    m.record(scored(rules, (250, 250)))
    assert m.record(scored(rules, (60, 60))) is None and m.totals == [310, 310]  # tie: another hand
    assert m.record(scored(rules, (0, 10))) == 1
    assert m.is_over and m.winner == 1
    with pytest.raises(IllegalActionError, match="the match is over"):
        m.new_round()
    with pytest.raises(IllegalActionError, match="the match is over"):
        m.record(scored(rules, (0, 0)))


def test_match_higher_total_wins_when_both_pass_the_target():
    rules = Rules.preset("full")
    m = Match(rules)
    m.record(scored(rules, (280, 250)))
    assert m.record(scored(rules, (30, 80))) == 1 and m.totals == [310, 330]


def test_match_redeal_keeps_the_dealer():
    m = Match("full", seed=5, dealer="S")
    rnd = m.new_round()
    assert rnd.dealer == 2 and rnd.to_act == 3
    for _ in range(4):
        rnd.call(None)
    assert m.record(rnd) is None
    assert m.dealer == 2 and m.redeals == 1 and m.results == [] and m.totals == [0, 0]


def test_match_refuses_other_rules():
    m = Match("full")
    with pytest.raises(IllegalActionError, match="'hasbro'"):
        m.record(scored(Rules.preset("hasbro"), (10, 10)))


def power(card, trump, rules):
    """How hard a card is to beat: trumps first, then the rank inside its color."""
    order = rules.color_order(trump, trump if card.is_bird else card.color)
    return (card.is_bird or card.color == trump, order.index(card.index))


@pytest.mark.parametrize("combo", ["hasbro", "kentucky", ("hasbro", 3, None)], ids=str)
def test_random_match_to_the_end(combo):
    rules = seats_rules(*combo) if isinstance(combo, tuple) else Rules.from_spec(combo)
    m = Match(rules, seed=9)
    rng = np.random.default_rng(9)
    hands = 0
    while not m.is_over and hands < 500:
        rnd = m.new_round()
        # a seat holding the Rook bids the minimum, the others pass
        while rnd.phase == "auction":
            has_rook = rnd.hands[rnd.to_act].has_bird() and rnd.auction.high_bid is None
            rnd.call(rules.min_bid if has_rook and rng.random() < 0.8 else None)
        if rnd.phase == "exchange":
            held = rnd.hands[rnd.declarer]
            trump = max("BRYG", key=held.count)
            rnd.name_trump(trump)
            rnd.discard(sorted(held, key=lambda c: power(c, trump, rules))[:rules.nest_size])
            # the declaring side plays its highest card, the defenders their lowest: bids get made
            while rnd.phase == "play":
                strong = rules.side_of(rnd.to_act, rnd.declarer)
                options = sorted(rnd.legal_plays(), key=lambda c: power(c, rnd.trump, rules))
                rnd.play(options[-1] if strong else options[0])
        dealer = m.dealer
        m.record(rnd)
        hands += 1
        assert m.dealer == (dealer if rnd.phase == "redeal" else rules.left_of(dealer))
    assert m.is_over and len(m.results) >= 3
    assert m.totals == [sum(r.score[p] for r in m.results) for p in range(party_count(rules))]
    assert m.totals[m.winner] >= rules.target
    assert m.totals[m.winner] == max(m.totals)
    assert m.totals.count(max(m.totals)) == 1
    # before the last hand nobody had won
    before = [t - s for t, s in zip(m.totals, m.results[-1].score)]
    assert match_winner(before, rules.target) is None


def test_module_example():
    import doctest

    from rook_analyze.solver import game
    result = doctest.testmod(game)
    assert result.attempted > 0 and result.failed == 0
