"""Lockup as an OpenSpiel game, through pyspiel's Python-game API: ``python_lockup``.

Importing this module registers the game, so ``pyspiel.load_game("python_lockup")`` works
(it needs ``open-spiel``, the ``bench`` or ``test`` extra). OpenSpiel's own algorithms
run on it: random simulations, ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` (see
:mod:`lockup.arena.ismcts` for the arena seat), MCTS with random rollouts.

One OpenSpiel game is **one Lockup hand** (13 tricks), which is what a search plays out:

- Chance first picks the dealer (4 outcomes), then deals the 52 cards one at a time
  (seat 0 gets the first 13 cards dealt, seat 1 the next 13, ...), and later makes every
  lockup discard (R10: a uniformly random card of the locked hand). Chance actions are
  the dealer seat (0..3) and then card numbers (0..51).
- A player action is the card played, as its card number (``suit * 13 + rank``, see
  :mod:`lockup.cards`); the legal actions are exactly the engine's legal cards (R4-R7).
- Returns are the tricks each seat took in the hand (R13), 0 to 13 each, given at the
  end (zeros before: a terminal reward model). They are not zero-sum (an empty trick,
  R12, scores nobody), so the game is ``GENERAL_SUM``.
- Game parameters: ``picture_exception`` and ``lock_discards`` (docs/rules.md options); the
  target does not matter within one hand.

The information state string of a player (perfect recall) is its dealer, its dealt hand
and every public event in order (plays and lockup discards); the observation string and
tensor are what the player sees now. :meth:`LockupState.resample_from_infostate` samples
the hidden hands uniformly among all those consistent with what the player has seen:
cards played, cards lockup took (public), voids shown (docs/rules.md R5, R6: a seat that did
not follow has none of the led suit) and hand sizes; it replays the hand's public history
through the engine, so the sampled state's ``history()`` is a real one.

:func:`state_from_view` builds a state agreeing with a :class:`~lockup.engine.SeatView`,
which is how an OpenSpiel bot plays a seat of a real game.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel

from .bots.sampling import sample_hidden_hands
from .cards import (
    FULL_DECK,
    SUIT_LETTERS,
    Card,
    CardMask,
    card_str,
    cards_of,
)
from .engine import DEAL, DISCARD, OVER, PLAY, SEAT_NAMES, Game, Rules, SeatView

GAME_NAME = "python_lockup"
"""The short name the game is registered under."""

_NUM_PLAYERS = 4
_DECK_SIZE = 52

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Lockup (one hand)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=_NUM_PLAYERS,
    min_num_players=_NUM_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={
        "picture_exception": "same-rank",
        "lock_discards": "per-trick",
    },
)
_GAME_INFO = pyspiel.GameInfo(
    num_distinct_actions=_DECK_SIZE,
    max_chance_outcomes=_DECK_SIZE,
    num_players=_NUM_PLAYERS,
    min_utility=0.0,
    max_utility=13.0,
    utility_sum=None,
    max_game_length=_DECK_SIZE,
)


class LockupGame(pyspiel.Game):
    """The OpenSpiel game: one Lockup hand under the given rule options."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        self.rules = Rules.from_dict(
            {
                "picture_exception": str(params.get("picture_exception", "same-rank")),
                "lock_discards": str(params.get("lock_discards", "per-trick")),
            }
        )
        super().__init__(_GAME_TYPE, _GAME_INFO, params)

    def new_initial_state(self) -> LockupState:
        """The state before the dealer is chosen (a chance node)."""
        return LockupState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> LockupObserver:
        """An observer: information state (perfect recall) or observation."""
        return LockupObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


class _Core:
    """Everything a state holds, in one object that copies fast (OpenSpiel clones by
    deep-copying a Python state's attributes)."""

    __slots__ = ("rules", "game", "dealer", "dealt", "initial", "played_by", "events")

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.game: Game | None = None
        self.dealer = -1
        self.dealt: list[Card] = []
        self.initial = [0, 0, 0, 0]
        self.played_by = [0, 0, 0, 0]
        self.events: list[tuple[int, Card]] = []
        """Public events after the deal: (seat, card) for a play, (seat - 4, card) for a
        lockup discard from seat."""

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        c = _Core.__new__(_Core)
        c.rules = self.rules
        c.game = None if self.game is None else self.game.clone()
        c.dealer = self.dealer
        c.dealt = self.dealt[:]
        c.initial = self.initial[:]
        c.played_by = self.played_by[:]
        c.events = self.events[:]
        return c


class LockupState(pyspiel.State):
    """A state of one Lockup hand; the rules are the engine's (:class:`~lockup.engine.Game`)."""

    def __init__(self, game: LockupGame) -> None:
        super().__init__(game)
        self._c = _Core(game.rules)

    # ------------------------------------------------------------------ reading

    @property
    def lockup_game(self) -> Game | None:
        """The engine's game under this state (None before the dealer is chosen)."""
        return self._c.game

    def _stage(self) -> str:
        c = self._c
        if c.dealer < 0:
            return "choose-dealer"
        if len(c.dealt) < _DECK_SIZE:
            return "dealing"
        assert c.game is not None
        return c.game.phase

    def current_player(self) -> int:
        """The seat to play, ``CHANCE`` for the dealer, the deal and discards, or ``TERMINAL``."""
        stage = self._stage()
        if stage == PLAY:
            assert self._c.game is not None
            return int(self._c.game.turn)
        if stage in (DEAL, OVER):
            return int(pyspiel.PlayerId.TERMINAL)
        return int(pyspiel.PlayerId.CHANCE)

    def _legal_actions(self, player: int) -> list[int]:
        """The cards ``player`` may play (R4-R7), as card numbers in ascending order."""
        game = self._c.game
        assert game is not None and player == game.turn
        return cards_of(game.legal_mask())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The dealer (uniform), the next card dealt (uniform), or the card lockup takes (R10)."""
        c = self._c
        stage = self._stage()
        if stage == "choose-dealer":
            return [(d, 0.25) for d in range(4)]
        if stage == "dealing":
            seen = 0
            for x in c.dealt:
                seen |= 1 << x
            rest = cards_of(FULL_DECK & ~seen)
        else:
            assert c.game is not None and c.game.phase == DISCARD
            rest = cards_of(c.game.hands[c.game.pending[0]])
        p = 1.0 / len(rest)
        return [(x, p) for x in rest]

    def is_terminal(self) -> bool:
        """True once the hand's 13 tricks are played."""
        return self._stage() in (DEAL, OVER)

    def returns(self) -> list[float]:
        """Tricks each seat took in the hand (R13) once it is over; zeros before."""
        game = self._c.game
        if game is None or not self.is_terminal():
            return [0.0, 0.0, 0.0, 0.0]
        return [float(p) for p in game.points]

    # ------------------------------------------------------------------ moves

    def _apply_action(self, action: int) -> None:
        """Apply a chance outcome or a card played; an illegal one raises IllegalMove."""
        c = self._c
        stage = self._stage()
        action = int(action)
        if stage == "choose-dealer":
            if not 0 <= action < 4:
                raise ValueError(f"the dealer is a seat 0..3, not {action}")
            c.dealer = action
            c.game = Game(c.rules, action, record=False)
            return
        if stage == "dealing":
            if not 0 <= action < _DECK_SIZE or action in c.dealt:
                raise ValueError(f"{action} is not a card left to deal")
            c.dealt.append(action)
            c.initial[(len(c.dealt) - 1) // 13] |= 1 << action
            if len(c.dealt) == _DECK_SIZE:
                assert c.game is not None
                c.game.deal([c.dealt[13 * s : 13 * s + 13] for s in range(4)])
            return
        game = c.game
        assert game is not None
        if stage == DISCARD:
            seat = game.pending[0]
            game.discard(action)
            c.events.append((seat - 4, action))
        else:
            seat = game.turn
            game.play(action)
            c.played_by[seat] |= 1 << action
            c.events.append((seat, action))

    def _action_to_string(self, player: int, action: int) -> str:
        """``Dealer West``, ``Deal QD``, ``Lockup takes 7H``, or the card played (``QD``)."""
        if player >= 0:
            return card_str(int(action))
        stage = self._stage()
        if stage == "choose-dealer":
            return f"Dealer {SEAT_NAMES[int(action)]}" if 0 <= action < 4 else str(action)
        if not 0 <= action < _DECK_SIZE:
            return str(action)
        return ("Deal " if stage == "dealing" else "Lockup takes ") + card_str(int(action))

    def __str__(self) -> str:
        """Every hand, the trick, points and locks (for debugging; shows hidden cards)."""
        c = self._c
        if c.game is None:
            return "dealer not chosen"
        if len(c.dealt) < _DECK_SIZE:
            return f"dealer {c.dealer}; {len(c.dealt)} cards dealt"
        g = c.game
        lines = [f"dealer {c.dealer} trick {g.trick_number} phase {g.phase}"]
        for s in range(4):
            lines.append(
                f"{SEAT_NAMES[s]}: {_cards(g.hands[s])} | lost {_cards(g.lost[s])} "
                f"| points {g.points[s]} lock {g.locks[s]}"
            )
        lines.append("trick: " + " ".join(f"{s}:{card_str(x)}" for s, x in g.trick))
        return "\n".join(lines)

    # ------------------------------------------------------------------ knowledge

    def public_events(self) -> list[tuple[str, int, Card]]:
        """The plays and lockup discards after the deal, as ("play"|"discard", seat, card)."""
        return [("play", s, x) if s >= 0 else ("discard", s + 4, x) for s, x in self._c.events]

    def resample_from_infostate(
        self, player_id: int, probability_sampler: Callable[[], float] | random.Random
    ) -> LockupState:
        """A state in ``player_id``'s information set, the hidden hands sampled.

        Hidden hands are drawn uniformly among all deals consistent with what the player
        has seen: its own cards, every card played, every card lockup took, the voids
        each seat has shown (R5, R6) and hand sizes. ``probability_sampler`` is a pyspiel
        ``UniformProbabilitySampler`` (or any callable giving floats in [0, 1), or a
        ``random.Random``). The public history is replayed through the engine.
        """
        if isinstance(probability_sampler, random.Random):
            rng = probability_sampler
        else:
            rng = random.Random(int(float(probability_sampler()) * (1 << 53)))
        c = self._c
        game = self.get_game()
        if c.dealer < 0:
            return self.clone()  # type: ignore[no-any-return]
        if len(c.dealt) < _DECK_SIZE:
            return self._resample_during_deal(player_id, rng)
        g = c.game
        assert g is not None
        hidden = sample_hidden_hands(
            player_id,
            unseen=_unseen(g, player_id),
            sizes=[h.bit_count() for h in g.hands],
            voids=list(g.voids),
            rng=rng,
        )
        initial = [
            c.initial[s] if s == player_id else hidden[s] | c.played_by[s] | g.lost[s]
            for s in range(4)
        ]
        return _replay(game, c.dealer, initial, [x for _, x in c.events])

    def _resample_during_deal(self, player_id: int, rng: random.Random) -> LockupState:
        c = self._c
        mine = {x for i, x in enumerate(c.dealt) if i // 13 == player_id}
        pool = [x for x in range(_DECK_SIZE) if x not in mine]
        rng.shuffle(pool)
        st: LockupState = self.get_game().new_initial_state()
        st.apply_action(c.dealer)
        for i, x in enumerate(c.dealt):
            st.apply_action(x if i // 13 == player_id else pool.pop())
        return st

    def information_state_string(self, player: int | None = None) -> str:
        """The player's information state (perfect recall); see the module docs."""
        if player is None:
            player = self.current_player()
        return _infostate_string(self, int(player))

    def observation_string(self, player: int | None = None) -> str:
        """What the player sees now (no history): see the module docs."""
        if player is None:
            player = self.current_player()
        return _observation_string(self, int(player), private=True)


def _cards(mask: CardMask) -> str:
    return " ".join(card_str(x) for x in cards_of(mask)) or "-"


def _unseen(game: Game, seat: int) -> CardMask:
    seen = game.hands[seat] | game.played
    for m in game.lost:
        seen |= m
    return FULL_DECK & ~seen


def _replay(game: Any, dealer: int, initial: list[CardMask], actions: list[Card]) -> LockupState:
    st: LockupState = game.new_initial_state()
    st.apply_action(dealer)
    for s in range(4):
        for x in cards_of(initial[s]):
            st.apply_action(x)
    for a in actions:
        st.apply_action(a)
    return st


# ---------------------------------------------------------------------- from a SeatView


def load(rules: Rules | None = None) -> Any:
    """The pyspiel game for these rule options (defaults if None)."""
    rules = rules or Rules()
    return pyspiel.load_game(
        GAME_NAME,
        {"picture_exception": rules.picture_exception, "lock_discards": rules.lock_discards},
    )


def _void_deadlines(view: SeatView) -> dict[tuple[int, int], int]:
    """For (seat, suit): the index of the play at which seat first showed it lacks suit,
    as the engine recorded it (:attr:`~lockup.engine.SeatView.voids_shown`)."""
    return {(v.seat, v.suit): v.play for v in view.voids_shown}


def state_from_view(view: SeatView, rng: random.Random, game: Any = None) -> LockupState:
    """A state agreeing with ``view`` (it must be ``view.seat``'s turn), hidden hands sampled.

    The hidden hands are drawn as :func:`sample_hidden_hands` does; the hand's public
    history (the plays in ``view.tricks`` and ``view.trick``) is replayed, with each seat's
    lockup discards (the view gives the lost cards, not their order) put in an order
    consistent with the voids shown.
    """
    if view.turn != view.seat:
        raise ValueError("state_from_view needs a view at its own seat's turn")
    if game is None:
        game = load(view.rules)
    seat = view.seat
    plays = [p for t in view.tricks for p in t.plays] + list(view.trick)
    played_by = [0, 0, 0, 0]
    for s, x in plays:
        played_by[s] |= 1 << x
    hidden = sample_hidden_hands(
        seat,
        unseen=view.unseen_mask,
        sizes=list(view.hand_sizes),
        voids=list(view.voids),
        rng=rng,
    )
    lost = view.lost_masks
    initial = [
        (view.hand_mask if s == seat else hidden[s]) | played_by[s] | lost[s] for s in range(4)
    ]
    deadlines = _void_deadlines(view)
    left_lost = [cards_of(m) for m in lost]
    st: LockupState = game.new_initial_state()
    st.apply_action(view.dealer)
    for s in range(4):
        for x in cards_of(initial[s]):
            st.apply_action(x)
    no_deadline = 1 << 30
    i = 0
    while True:
        if st.is_chance_node():
            g = st.lockup_game
            assert g is not None
            s = g.pending[0]
            if not left_lost[s]:
                raise ValueError(f"the view shows fewer lost cards for seat {s} than lockup took")
            best = min(left_lost[s], key=lambda x: (deadlines.get((s, x // 13), no_deadline), x))
            left_lost[s].remove(best)
            st.apply_action(best)
        elif i < len(plays):
            s, x = plays[i]
            if st.current_player() != s:
                raise ValueError("the view's plays do not follow the turn order")
            st.apply_action(x)
            i += 1
        else:
            break
    if st.current_player() != seat or any(left_lost):
        raise ValueError("the view could not be rebuilt as an OpenSpiel state")
    return st


# ---------------------------------------------------------------------- observer


def _infostate_string(state: LockupState, player: int) -> str:
    c = state._c
    if c.dealer < 0:
        return f"p{player} dealer ?"
    mine = 0
    for i, x in enumerate(c.dealt):
        if i // 13 == player:
            mine |= 1 << x
    head = f"p{player} dealer {c.dealer} dealt {len(c.dealt)} hand {_cards(mine)}"
    if not c.events:
        return head
    evs = " ".join(f"{s}{card_str(x)}" if s >= 0 else f"x{s + 4}{card_str(x)}" for s, x in c.events)
    return f"{head} | {evs}"


def _observation_string(state: LockupState, player: int, private: bool) -> str:
    c = state._c
    g = c.game
    if g is None:
        return f"p{player} dealer ?"
    if len(c.dealt) < _DECK_SIZE:
        mine = 0
        for i, x in enumerate(c.dealt):
            if i // 13 == player:
                mine |= 1 << x
        return f"p{player} dealer {c.dealer} dealt {len(c.dealt)} hand {_cards(mine) if private else '?'}"
    lines = [
        f"p{player} dealer {c.dealer} trick {g.trick_number} turn "
        f"{g.turn if g.phase == PLAY else '-'}",
        f"hand {_cards(g.hands[player]) if private else '?'}",
        "trick " + (" ".join(f"{s}:{card_str(x)}" for s, x in g.trick) or "-"),
        f"played {_cards(g.played)}",
        "lost " + " | ".join(_cards(m) for m in g.lost),
        "locks " + " ".join(map(str, g.locks)) + " points " + " ".join(map(str, g.points)),
        "voids "
        + " ".join(
            "".join(SUIT_LETTERS[x] for x in range(4) if (v >> x) & 1) or "-" for v in g.voids
        ),
    ]
    return "\n".join(lines)


class LockupObserver:
    """An observer in the PyObserver interface of ``open_spiel.python.observation``.

    Perfect recall: the information state string (no tensor). Otherwise the observation:
    a string and a tensor of 552 floats: ``player`` (4, one-hot), ``hand`` (52),
    ``trick`` (4 x 52, the card each seat has put in the current trick), ``played``
    (52, cards played this hand), ``lost`` (4 x 52), ``locks`` (4, tricks left / 12),
    ``points`` (4, tricks / 13), ``voids`` (4 x 4), ``dealer`` (4, one-hot).
    """

    def __init__(self, iig_obs_type: Any, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.tensor: np.ndarray | None
        self.dict: dict[str, np.ndarray]
        if self.perfect_recall:
            self.tensor = None
            self.dict = {}
            return
        pieces = [
            ("player", (4,)),
            ("hand", (52,)),
            ("trick", (4, 52)),
            ("played", (52,)),
            ("lost", (4, 52)),
            ("locks", (4,)),
            ("points", (4,)),
            ("voids", (4, 4)),
            ("dealer", (4,)),
        ]
        size = sum(int(np.prod(shape)) for _, shape in pieces)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {}
        i = 0
        for name, shape in pieces:
            n = int(np.prod(shape))
            self.dict[name] = self.tensor[i : i + n].reshape(shape)
            i += n

    def set_from(self, state: LockupState, player: int) -> None:
        """Fill the tensor from ``player``'s point of view."""
        if self.tensor is None:
            return
        self.tensor.fill(0)
        d = self.dict
        d["player"][player] = 1
        c = state._c
        g = c.game
        if g is None:
            return
        d["dealer"][c.dealer] = 1
        if len(c.dealt) < _DECK_SIZE:
            if self.private:
                for i, x in enumerate(c.dealt):
                    if i // 13 == player:
                        d["hand"][x] = 1
            return
        if self.private:
            for x in cards_of(g.hands[player]):
                d["hand"][x] = 1
        if g.phase in (PLAY, DISCARD):
            for s, x in g.trick:
                d["trick"][s, x] = 1
        for x in cards_of(g.played):
            d["played"][x] = 1
        for s in range(4):
            for x in cards_of(g.lost[s]):
                d["lost"][s, x] = 1
            d["locks"][s] = g.locks[s] / 12.0
            d["points"][s] = g.points[s] / 13.0
            for x in range(4):
                if (g.voids[s] >> x) & 1:
                    d["voids"][s, x] = 1

    def string_from(self, state: LockupState, player: int) -> str:
        """The information state string (perfect recall) or the observation string."""
        if self.perfect_recall:
            return _infostate_string(state, player)
        return _observation_string(state, player, self.private)


pyspiel.register_game(_GAME_TYPE, LockupGame)

__all__ = [
    "GAME_NAME",
    "LockupGame",
    "LockupObserver",
    "LockupState",
    "load",
    "sample_hidden_hands",
    "state_from_view",
]
