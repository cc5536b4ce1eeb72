"""Monte Carlo analysis on top of the double-dummy solver.

- ``sampling``: seeded random deals around one player's hand, with known
  cards and constraints (``DealSampler``, ``Constraint``);
- ``policy``: the declarer's nest policy, trump and discards from hand +
  nest alone (``HeuristicPolicy``, ``take_nest``);
- ``hand``: the bid advisor (``analyze_hand`` -> ``HandReport``);
- ``nest``: the nest advisor, trump and discards (``analyze_nest`` -> ``NestReport``);
- ``plots``: figures of the reports (``bid_curve``).
"""

from .hand import DECISION_RULE, HandReport, Recommendation, analyze_hand
from .nest import NestRecommendation, NestReport, analyze_nest, nest_candidates
from .plots import bid_curve
from .policy import DEFAULT_POLICY, HeuristicPolicy, NestChoice, NestPolicy, take_nest
from .sampling import Constraint, DealSampler, parse_known

__all__ = [
    "DealSampler", "Constraint", "parse_known",
    "HeuristicPolicy", "NestPolicy", "NestChoice", "DEFAULT_POLICY", "take_nest",
    "analyze_hand", "HandReport", "Recommendation", "DECISION_RULE",
    "analyze_nest", "NestReport", "NestRecommendation", "nest_candidates",
    "bid_curve",
]
