"""Can a policy learned from strong play make better rollouts? (issue 13)

The expert's search is one card deep: each candidate is rolled out by a rule-based policy
(:func:`lockup.bots._kernel.policy`), and docs/bots.md shows that the rollouts' bias, not
the number of deals, is what limits it. The step the issue names next is a playout
policy learned by self-play. This script learns one and measures it: a linear softmax
over features of each legal card (:func:`lockup.bots._kernel.card_features`, what the
seat can see; numpy only), fitted to the cards strong players chose in self-play, then
played alone against three ``normal`` beside the bolder rules the expert rolls itself out
by now. The weights it fits go into ``LEARNED_W`` in the kernel, where the expert's
``learn`` option rolls out by them (:func:`lockup.bots._kernel.learned`).

Run, in order::

    python bench/learned.py collect OUT --hands 400 --seed 21 --workers 2
    python bench/learned.py train OUT
    LEARNED=OUT/weights.json python bench/learned.py arena --bots learned,normal,normal,normal --hands 2000 --seed 3
    python bench/learned.py arena --bots bold,normal,normal,normal --hands 2000 --seed 3

``collect`` runs ``lockup arena`` (``--time-per-move 0.05``, ``--bots xrec,xrec,xrec,xrec``
unless given) and keeps each choice a recording bot made among two or more legal cards:
the features of every legal card and which one it played. ``xrec`` is the expert;
``orec`` is ``otree`` of bench/oracle.py, a cheater that searches a tree on the true
deal (its features are still only what its seat sees). ``train`` fits the weights (80%
of each worker's choices) and prints how often the policy, the ``normal`` rules and the
bolder rules pick the recorded card in the other 20%. ``arena`` is ``lockup arena`` with
two more bot names: ``learned`` (the weights of ``$LEARNED``) and ``bold`` (the expert's
rollout rules for its own seat, :data:`lockup.bots.kernel.ROLLOUT_POLICY`, alone).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
from oracle import TreeOracle  # noqa: E402  (bench/oracle.py, beside this script)

from lockup.bots import registry  # noqa: E402
from lockup.bots.base import Bot  # noqa: E402
from lockup.bots.expert import ExpertBot  # noqa: E402
from lockup.bots.kernel import ROLLOUT_POLICY, kernel, view_state  # noqa: E402
from lockup.cards import Card  # noqa: E402
from lockup.engine import SeatView  # noqa: E402

KM = kernel(False)

FEATURES = (
    "the normal rules' card",
    "the bolder rules' card",
    "lead",
    "lead: a master",
    "lead: rank",
    "lead: length of its suit",
    "lead: chance a club lands",
    "follow: wins the trick so far",
    "wins so far x clubs in the trick",
    "wins so far x last to play",
    "wins so far x chance a club lands",
    "wins so far x own clubs",
    "wins so far x a master",
    "wins so far x another seat locked",
    "wins so far x the hand can reach the target",
    "wins so far x trick number",
    "a club",
    "a club x rank",
    "a picture club",
    "off suit, not a club: rank",
    "off suit, not a club: length of its suit",
    "follows and loses: rank",
    "the highest legal card",
    "the lowest legal card",
)


def features(view: SeatView) -> tuple[list[Card], np.ndarray]:
    """The legal cards of ``view`` and one row of :data:`FEATURES` for each: the kernel's
    own :func:`lockup.bots._kernel.card_features` (what :func:`~lockup.bots._kernel.learned`
    scores), the bolder rules being those the expert rolls its own seat out by."""
    s = view_state(view, KM, ROLLOUT_POLICY)
    rule, bold = KM.rule_cards(s)
    hand = s[KM.I_HAND + view.seat]
    unknown = KM.FULL & ~(s[KM.I_PLAYED] | s[KM.I_LOST] | hand)
    ms = KM.masters(hand, unknown)
    cards = [c for c in range(52) if view.legal_mask >> c & 1]
    rows = np.zeros((len(cards), KM.N_FEATURES))
    for i, c in enumerate(cards):
        KM.card_features(s, c, rule, bold, unknown, ms, rows[i])
    return cards, rows


def _record(view: SeatView, card: Card) -> None:
    """Append a choice among two or more cards to ``$LEARNED_OUT``: each legal card's
    features (what the seat can see) and which card was played."""
    legal = view.legal_mask
    if legal & (legal - 1):
        cards, x = features(view)
        path = Path(os.environ["LEARNED_OUT"]) / f"data-{os.getpid()}.jsonl"
        with path.open("a") as f:
            f.write(json.dumps({"x": x.round(5).tolist(), "y": cards.index(card)}) + "\n")


class Recording:
    """Mixed into a bot: each of its choices recorded (:func:`_record`)."""

    def choose(self, view: SeatView) -> Card:
        card: Card = super().choose(view)  # type: ignore[misc]
        _record(view, card)
        return card


class RecordingExpert(Recording, ExpertBot):
    """The expert, recording its choices."""

    name = "xrec"


class RecordingTree(Recording, TreeOracle):
    """``otree`` (bench/oracle.py: a tree searched on the true deal, a cheater) recording
    its choices with the features of what its seat can honestly see: a policy fitted to
    them learns to guess from the seat's view what a player who sees every hand plays."""

    name = "orec"


class LearnedBot(Bot):
    """The card of highest score under the weights of ``$LEARNED``."""

    name = "learned"

    def __init__(self, seed: int | None = None) -> None:
        self.w = np.array(json.loads(Path(os.environ["LEARNED"]).read_text())["w"])

    def choose(self, view: SeatView) -> Card:
        legal = view.legal_mask
        if legal & (legal - 1) == 0:
            return (legal & -legal).bit_length() - 1
        cards, x = features(view)
        return cards[int(np.argmax(x @ self.w))]


class BoldBot(Bot):
    """The expert's rollout rules for its own seat, played alone."""

    name = "bold"

    def __init__(self, seed: int | None = None) -> None:
        pass

    def choose(self, view: SeatView) -> Card:
        legal = view.legal_mask
        if legal & (legal - 1) == 0:
            return (legal & -legal).bit_length() - 1
        return int(KM.policy(view_state(view, KM, ROLLOUT_POLICY)))


def _load(out: Path) -> list[list[dict[str, Any]]]:
    """The recorded choices, one list a file (a worker's games, in order)."""
    return [
        [json.loads(line) for line in p.read_text().splitlines() if line]
        for p in sorted(out.glob("data-*.jsonl"))
    ]


def _pad(rows: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n, k = len(rows), len(FEATURES)
    x = np.zeros((n, 13, k))
    mask = np.zeros((n, 13), dtype=bool)
    y = np.zeros(n, dtype=int)
    for i, row in enumerate(rows):
        m = len(row["x"])
        x[i, :m] = row["x"]
        mask[i, :m] = True
        y[i] = row["y"]
    return x, mask, y


def fit(x: np.ndarray, mask: np.ndarray, y: np.ndarray, l2: float = 1e-3) -> np.ndarray:
    """The weights of a softmax over each decision's legal cards (most likely, L2), by
    gradient ascent with Adam."""
    w = np.zeros(x.shape[2])
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    rows = np.arange(len(y))
    for t in range(1, 3001):
        z = np.where(mask, x @ w, -np.inf)
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        grad = (x[rows, y] - np.einsum("nk,nkf->nf", p, x)).mean(axis=0) - l2 * w
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad**2
        w += 0.05 * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return w


def train(out: Path) -> None:
    """Fit on 80% of each worker's choices, report agreement on the rest, save."""
    files = _load(out)
    train_rows = [r for f in files for r in f[: len(f) * 4 // 5]]
    test_rows = [r for f in files for r in f[len(f) * 4 // 5 :]]
    x, mask, y = _pad(train_rows)
    w = fit(x, mask, y)
    tx, tmask, ty = _pad(test_rows)
    pred = np.argmax(np.where(tmask, tx @ w, -np.inf), axis=1)
    print(f"{len(train_rows)} choices to fit, {len(test_rows)} held out")
    print(f"the recorded card picked, held out: learned {np.mean(pred == ty):.3f}", end="")
    for j, name in ((0, "normal"), (1, "bolder rules")):
        print(f", {name} {np.mean(tx[np.arange(len(ty)), ty, j] == 1):.3f}", end="")
    print(f", uniform {np.mean(1 / tmask.sum(axis=1)):.3f}")
    for name, weight in sorted(zip(FEATURES, w, strict=True), key=lambda t: -abs(t[1])):
        print(f"  {weight:+7.3f}  {name}")
    (out / "weights.json").write_text(json.dumps({"features": FEATURES, "w": w.tolist()}))


registry.LEVELS["xrec"] = RecordingExpert
registry.LEVELS["orec"] = RecordingTree
registry.LEVELS["learned"] = LearnedBot
registry.LEVELS["bold"] = BoldBot

if __name__ == "__main__":
    from lockup.cli import main

    command, *rest = sys.argv[1:] or ["help"]
    if command == "collect":
        out = Path(rest[0])
        out.mkdir(parents=True, exist_ok=True)
        os.environ["LEARNED_OUT"] = str(out.resolve())
        sys.exit(
            main(["arena", "--bots", "xrec,xrec,xrec,xrec", "--time-per-move", "0.05", *rest[1:]])
        )
    elif command == "train":
        train(Path(rest[0]))
    elif command == "arena":
        sys.exit(main(["arena", *rest]))
    else:
        print(__doc__)
