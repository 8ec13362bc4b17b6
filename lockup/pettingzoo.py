"""Lockup as a PettingZoo environment: the AEC API of PettingZoo 1.27, four agents.

``env()`` is what reinforcement-learning code should use; ``raw_env`` is the same
environment without PettingZoo's checking wrappers. Agents ``player_0`` to ``player_3``
are the seats 0 South, 1 West, 2 North, 3 East (R1); the agent to act is the seat whose
card is due (R4). An action is a card number, ``Discrete(52)`` (see :mod:`lockup.cards`:
``suit * 13 + rank``, clubs first).

Each observation is ``{"observation": int8[OBS_SIZE], "action_mask": int8[52]}`` and holds
only what that seat may know (the same knowledge as :class:`lockup.engine.SeatView`): its
own hand, the current trick, the cards each seat played this hand, the cards lockup took
from each seat, the voids each seat has shown, locks, hand sizes, points and totals. Seats
are relative to the observer: row 0 is the observer, row 1 its left neighbour, and so on.
:data:`LAYOUT` gives each part's slice. The mask is 1 for the cards the agent may play now
(R5 to R7) and all 0 for an agent that is not to act.

Lockup discards (R10) are chance events: the environment draws them itself, from its own
generator, between the agents' moves; the deal (R3) too. ``reset(seed=s)`` makes an
episode reproducible. Options: ``reward="trick"`` (default: 1 to a trick's winner as the
trick completes) or ``"hand"`` (each seat's points as the hand ends, R13); ``episode="hand"``
(default: one hand, 13 tricks) or ``"game"`` (hands until the game has its winner, R15).

An illegal card: ``env()`` ends the game with reward -1 for the agent that played it, as
PettingZoo's classic games do (``TerminateIllegalWrapper``); ``raw_env`` raises
:class:`lockup.engine.IllegalMove` with the refusal (rule and reason), the state unchanged.

This module needs the ``rl`` extra: ``pip install 'lockup[rl]'`` (PettingZoo, Gymnasium,
NumPy). See docs/pettingzoo.md.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .cards import SUIT_NAMES, cards_of, format_cards, parse_card
from .engine import DISCARD, OVER, PLAY, SEAT_NAMES, Game, Rules, SeatView

Reward = Literal["trick", "hand"]
"""When rewards come: ``"trick"`` (1 to each trick's winner) or ``"hand"`` (points at its end)."""
Episode = Literal["hand", "game"]
"""How long an episode is: one hand, or a whole game to its winner (R15)."""

AGENTS = ("player_0", "player_1", "player_2", "player_3")
"""The agents, in seat order (R1)."""

LAYOUT: dict[str, slice] = {}
"""Where each part of an observation lies. Rows of 52 are card bits; "by seat" parts hold
one row or value per relative seat (observer, left, across, right)."""


def _layout() -> int:
    at = 0
    for name, size in (
        ("hand", 52),
        ("trick_by_seat", 4 * 52),  # the cards of the current trick, by who played them
        ("played_by_seat", 4 * 52),  # every card each seat played this hand (trick included)
        ("lost_by_seat", 4 * 52),  # the cards lockup took from each seat this hand (R10)
        ("voids_by_seat", 4 * 4),  # suits (clubs, diamonds, hearts, spades) shown lacking
        ("locks_by_seat", 4),  # tricks still to sit out (R9)
        ("hand_sizes_by_seat", 4),
        ("points_by_seat", 4),  # tricks taken this hand (R13)
        ("totals_by_seat", 4),  # game totals of the finished hands (at most 127)
        ("leader_by_seat", 4),  # 1 for the seat that led the current trick
        ("trick_number", 1),  # 0 to 12
    ):
        LAYOUT[name] = slice(at, at + size)
        at += size
    return at


OBS_SIZE = _layout()
"""The length of the ``observation`` vector."""
_CARD_ROWS = 13  # hand + 3 x 4 rows of card bits, converted in one go


def _card_bits(rows: list[int]) -> npt.NDArray[np.int8]:
    """Card masks to rows of 52 bits, all at once."""
    raw = np.array(rows, dtype="<u8").view(np.uint8)
    return np.unpackbits(raw, bitorder="little").reshape(len(rows), 64)[:, :52].view(np.int8)


def encode(
    seat: int,
    hand: int,
    trick: Sequence[tuple[int, int]],
    played_by: Sequence[int],
    lost: Sequence[int],
    voids: Sequence[int],
    locks: Sequence[int],
    hand_sizes: Sequence[int],
    points: Sequence[int],
    totals: Sequence[int],
    leader: int,
    trick_number: int,
    legal: int,
) -> dict[str, npt.NDArray[np.int8]]:
    """The observation of ``seat`` (see :data:`LAYOUT`) from what it may know.

    Per-seat arguments are in absolute seat order; card sets are masks. ``played_by`` holds
    each seat's cards played this hand, the current trick's included; ``leader`` is -1
    before the lead. The environment, :func:`observation_of` and
    :func:`observation_from_turn` all encode through this function.
    """
    order = (seat, (seat + 1) % 4, (seat + 2) % 4, (seat + 3) % 4)
    rows = [hand, 0, 0, 0, 0]
    for s, c in trick:
        rows[1 + (s - seat) % 4] |= 1 << c
    rows += [played_by[s] for s in order]
    rows += [lost[s] for s in order]
    rows.append(legal)
    bits = _card_bits(rows)
    small: list[int] = []
    for s in order:
        v = voids[s]
        small += [v & 1, v >> 1 & 1, v >> 2 & 1, v >> 3 & 1]
    small += [locks[s] for s in order]
    small += [hand_sizes[s] for s in order]
    small += [points[s] for s in order]
    small += [min(totals[s], 127) for s in order]  # (int8: a total past 127 reads 127)
    rel = (leader - seat) % 4 if leader >= 0 else -1
    small += [int(r == rel) for r in range(4)]
    small.append(min(trick_number, 12))
    observation = np.concatenate((bits[:_CARD_ROWS].ravel(), np.array(small, np.int8)))
    return {"observation": observation, "action_mask": bits[_CARD_ROWS].copy()}


def observation_of(view: SeatView) -> dict[str, npt.NDArray[np.int8]]:
    """The environment's observation for a :class:`~lockup.engine.SeatView`: how a policy
    trained in the environment plays as a :class:`~lockup.bots.base.Bot`."""
    played_by = [0, 0, 0, 0]
    for t in view.tricks:
        for s, c in t.plays:
            played_by[s] |= 1 << c
    for s, c in view.trick:
        played_by[s] |= 1 << c
    return encode(
        view.seat,
        view.hand_mask,
        view.trick,
        played_by,
        view.lost_masks,
        view.voids,
        view.locks,
        view.hand_sizes,
        view.points,
        view.totals,
        view.leader if view.trick else -1,
        view.trick_number,
        view.legal_mask,
    )


def observation_from_turn(message: dict[str, Any]) -> dict[str, npt.NDArray[np.int8]]:
    """The environment's observation for a ``lockup-bot`` ``turn`` message (version 2 or 1)
    (docs/bot-protocol.md): how a trained policy plays as an outside bot in the arena."""
    view = message["view"]

    def mask(cards: Sequence[str]) -> int:
        return sum(1 << parse_card(c) for c in cards)

    trick = [(p["seat"], parse_card(p["card"])) for p in view["trick"]]
    played_by = [0, 0, 0, 0]
    for t in message["tricks"]:
        for p in t["plays"]:
            played_by[p["seat"]] |= 1 << parse_card(p["card"])
    for s, c in trick:
        played_by[s] |= 1 << c
    voids = [sum(1 << SUIT_NAMES.index(x) for x in v) for v in view["voids"]]
    return encode(
        view["seat"],
        mask(view["hand"]),
        trick,
        played_by,
        [mask(cs) for cs in view["lost"]],
        voids,
        view["locks"],
        view["hand_sizes"],
        view["tricks"],
        view["totals"],
        view["leader"] if trick else -1,
        view["trick_number"],
        mask(view["legal"]),
    )


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's name for the unwrapped environment
    """Lockup for four agents, AEC API, without PettingZoo's wrappers (see :func:`env`)."""

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo reads it from the class
        "render_modes": ["human", "ansi"],
        "name": "lockup_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: Rules | None = None,
        reward: Reward = "trick",
        episode: Episode = "hand",
        render_mode: str | None = None,
    ) -> None:
        """An environment for ``rules`` (default: the defaults of docs/rules.md)."""
        super().__init__()
        if reward not in ("trick", "hand"):
            raise ValueError(f"reward must be 'trick' or 'hand', not {reward!r}")
        if episode not in ("hand", "game"):
            raise ValueError(f"episode must be 'hand' or 'game', not {episode!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', not {render_mode!r}")
        self.rules = rules or Rules()
        self.reward_kind: Reward = reward
        self.episode: Episode = episode
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self._seat = {a: s for s, a in enumerate(AGENTS)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0, 127, (OBS_SIZE,), np.int8),
                "action_mask": spaces.Box(0, 1, (52,), np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(52) for a in AGENTS}
        self._rng = random.Random()
        self.game = Game(self.rules, record=False)
        self._played_by = [0, 0, 0, 0]

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """``Dict(observation=Box(int8, OBS_SIZE), action_mask=Box(int8, 52))``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """``Discrete(52)``: the card to play."""
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ episode

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new hand (and a new game): a random dealer, a shuffled deck (R3).

        With ``seed`` the environment's generator restarts, so the deal, the lockup
        discards and everything after them repeat for the same actions.
        """
        if seed is not None:
            self._rng = random.Random(seed)
        self.game = Game.new(self._rng, self.rules, record=False)
        self._played_by = [0, 0, 0, 0]
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._chance()
        self.agent_selection = AGENTS[self.game.turn]

    def step(self, action: int | np.integer[Any] | None) -> None:
        """Play card ``action`` for the agent to act; then the chance events that follow.

        Raises :class:`lockup.engine.IllegalMove`, the state unchanged, for a card the
        rules forbid (``env()`` turns that into the end of the game).
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        seat = game.turn
        card = -1 if action is None else int(action)
        done_tricks = len(game.tricks)
        game.play(card, seat)
        self._played_by[seat] |= 1 << card
        self._cumulative_rewards[agent] = 0.0
        self._chance()
        gained = [0, 0, 0, 0]
        if self.reward_kind == "trick":
            for t in game.tricks[done_tricks:]:  # the trick this card completed, if any
                if t.winner is not None:  # (an empty trick, R12, scores nobody)
                    gained[t.winner] += 1
        if game.phase != PLAY:  # the hand is over (R13)
            if self.reward_kind == "hand":
                for s, p in enumerate(game.summaries[-1].points):
                    gained[s] += p
            if self.episode == "hand" or game.phase == OVER:
                self.terminations = dict.fromkeys(self.agents, True)
            else:
                game.chance_move(self._rng)  # the next deal (R3)
                self._played_by = [0, 0, 0, 0]
                self._chance()
        self.rewards = {a: float(gained[s]) for s, a in enumerate(AGENTS)}
        if game.phase == PLAY:
            self.agent_selection = AGENTS[game.turn]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _chance(self) -> None:
        """The lockup discards now due, drawn at random (R10)."""
        game = self.game
        while game.phase == DISCARD:
            game.chance_move(self._rng)

    # ------------------------------------------------------------------ knowledge

    def observe(self, agent: str) -> dict[str, npt.NDArray[np.int8]]:
        """What ``agent``'s seat may know, and its action mask (all 0 unless it is to act)."""
        me = self._seat[agent]
        game = self.game
        hands = game.hands
        return encode(
            me,
            hands[me],
            game.trick,
            self._played_by,
            game.lost,
            game.voids,
            game.locks,
            [h.bit_count() for h in hands],
            game.points,
            game.totals,
            game.leader if game.trick else -1,
            game.trick_number,
            game.legal_mask(me),
        )

    def legal_cards(self, agent: str | None = None) -> list[int]:
        """The cards ``agent`` (default: the agent to act) may play now."""
        return self.game.legal_cards(self._seat[agent or self.agent_selection])

    # ------------------------------------------------------------------ display

    def render(self) -> str | None:
        """The whole table as text (every hand shown: for debugging, not for agents)."""
        if self.render_mode is None:
            return None
        game = self.game
        lines = [f"trick {game.trick_number + 1}, points {game.points}, locks {game.locks}"]
        for s in range(4):
            mark = ">" if game.phase == PLAY and game.turn == s else " "
            lost = game.lost[s]
            lines.append(
                f"{mark} {SEAT_NAMES[s]:5} {format_cards(cards_of(game.hands[s]))}"
                + (f"  (lost {format_cards(cards_of(lost))})" if lost else "")
            )
        lines.append("trick: " + format_cards(c for _, c in game.trick))
        text = "\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


def env(**kwargs: Any) -> Any:
    """The Lockup environment with PettingZoo's wrappers, as its classic games have them:
    an illegal card ends the game with -1 for the agent that played it, an action outside
    0..51 is refused, and the AEC call order is enforced. Takes :class:`raw_env`'s options.
    """
    environment: Any = raw_env(**kwargs)
    environment = wrappers.TerminateIllegalWrapper(environment, illegal_reward=-1)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    return wrappers.OrderEnforcingWrapper(environment)
