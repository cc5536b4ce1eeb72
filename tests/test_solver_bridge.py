"""The `bridge` preset against endplay's DDS, the reference bridge
double-dummy solver.

B, R, Y, G are spades, hearts, diamonds, clubs; 14 is the ace. Under
`bridge` a trick is worth 1 point and there are no counters, so the
declaring side's points are its tricks. DDS's ``solve_board`` gives, for
each card of the side on lead, the tricks that side takes from here."""

from __future__ import annotations

import os
import random
import time

import pytest

endplay = pytest.importorskip("endplay")
from endplay.dds import solve_board  # noqa: E402
from endplay.types import Deal as EDeal, Denom, Player  # noqa: E402

from naive import random_endgame  # noqa: E402
from rook_analyze.solver import Card, Rules, card_values, random_deal, random_deals, solve  # noqa: E402

BRIDGE = Rules.preset("bridge")
RANKS = {14: "A", 13: "K", 12: "Q", 11: "J", 10: "T"}


def pbn(deal) -> str:
    """A deal (or an equal-handed position) in PBN, N first."""
    hands = []
    for hand in deal.hands:
        suits = []
        for color in "BRYG":  # spades, hearts, diamonds, clubs
            suits.append("".join(RANKS.get(c.number, str(c.number)) for c in hand if c.color == color))
        hands.append(".".join(suits))
    return "N:" + " ".join(hands)


def dds(deal, trump: str, leader: int) -> dict[Card, int]:
    """Tricks for the leader's side after each card the leader may lead."""
    e = EDeal(pbn(deal))
    e.first = Player(leader)
    e.trump = Denom.nt if trump == "none" else Denom("BRYG".index(trump))
    return {Card("BRYG"[int(card.suit)], _rank_number(card.rank)): tricks for card, tricks in solve_board(e)}


def _rank_number(rank) -> int:
    # endplay ranks are bit flags: R2 = 1 << 2 ... RA = 1 << 14
    return int(rank).bit_length() - 1


def test_pbn_mapping():
    d = next(random_deals(BRIDGE, 1, seed=0))
    text = pbn(d)
    e = EDeal(text)
    # every card comes back as the same card
    for seat, hand in enumerate(d.hands):
        got = {f"{int(c.suit)}:{_rank_number(c.rank)}" for c in e[Player(seat)]}
        want = {f"{'BRYG'.index(c.color)}:{c.number}" for c in hand}
        assert got == want


def _declarer_points(deal, trump, declarer, leader, by_card):
    """DDS's tricks for the leader's side turned into the declaring side's tricks."""
    k = deal.cards_per_hand
    best = max(by_card.values())
    if BRIDGE.side_of(leader, declarer):
        return best, {c: t for c, t in by_card.items()}
    return k - best, {c: k - t for c, t in by_card.items()}


def test_bridge_endings_equal_dds():
    """200 random 8-card endings: the value and every card's value."""
    rng = random.Random(2024)
    for _ in range(200):
        d = random_endgame(BRIDGE, 8, rng)
        trump = rng.choice(BRIDGE.trumps)
        declarer, leader = rng.randrange(4), rng.randrange(4)
        where = f"{d.rdn()!r} trump {trump} declarer {declarer} leader {leader}"
        want, want_cards = _declarer_points(d, trump, declarer, leader, dds(d, trump, leader))
        res = solve(d, trump, declarer, leader)
        assert res.declarer_points == want, where
        assert res.defender_points == 8 - want, where
        got_cards = card_values(d, trump, declarer, leader)
        assert got_cards == want_cards, where


# Full deals take from under a second to minutes each, so the 200-deal run
# is opt-in: ROOK_BRIDGE_DEALS=200 pytest -m slow -s tests/test_solver_bridge.py
# (-s shows a line a deal; ROOK_BRIDGE_START=k skips the first k deals, to go
# on from where an earlier run stopped).
FULL_DEALS = int(os.environ.get("ROOK_BRIDGE_DEALS", "0"))
FULL_START = int(os.environ.get("ROOK_BRIDGE_START", "0"))


def _check_full(d, trump, declarer, leader):
    lead = (declarer + 1) % 4 if leader is None else leader
    want, _ = _declarer_points(d, trump, declarer, lead, dds(d, trump, lead))
    res = solve(d, trump, declarer, leader)
    where = f"{d.rdn()!r} trump {trump} declarer {declarer} leader {lead}"
    assert (res.declarer_points, res.defender_points) == (want, 13 - want), where


def _full_deal_check(count: int, seed: int, start: int = 0):
    rng = random.Random(seed)
    for i, d in enumerate(random_deals(BRIDGE, count, seed=seed)):
        trump = rng.choice(BRIDGE.trumps)
        declarer = rng.randrange(4)
        # the preset's own first lead (left of declarer) half the time, any seat otherwise
        leader = None if i % 2 == 0 else rng.randrange(4)
        if i < start:
            continue
        t0 = time.perf_counter()
        _check_full(d, trump, declarer, leader)
        print(f"bridge full deal {i}: equal to DDS ({time.perf_counter() - t0:.1f} s)", flush=True)


def test_bridge_full_deals_equal_dds_smoke():
    """Full 13-card deals in the default run: two that solve in about a second
    (some deals take minutes, those are left to the slow test)."""
    d = random_deal(BRIDGE, 2)
    _check_full(d, "B", 0, None)
    _check_full(d, "none", 2, 1)


def test_bridge_full_deals_equal_dds_first_ten():
    """The first 10 of the 200 random full deals of the opt-in run (the same
    seeded sequence, not chosen for speed): about half a minute."""
    _full_deal_check(10, seed=13)


@pytest.mark.slow
@pytest.mark.skipif(FULL_DEALS <= 0, reason="set ROOK_BRIDGE_DEALS=200 to compare full deals with DDS")
def test_bridge_full_deals_equal_dds():
    """ROOK_BRIDGE_DEALS random full deals, trump including none, against DDS."""
    _full_deal_check(FULL_DEALS, seed=13, start=FULL_START)
