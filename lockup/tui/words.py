"""Sentences about a seat, by its name at the table.

The terminal names the person "You" by default (``DEFAULT_PLAYERS``), so a sentence built
as "{name} wins the game" must agree with it: "Þóra wins the game", "You win the game".
"""

from __future__ import annotations

from typing import Final

YOU: Final = "You"
"""The person's default name: the second person."""

_PLAIN: Final = {"is": "are", "has": "have", "was": "were"}


def verb(name: str, third: str) -> str:
    """The verb ``third`` (third person singular: "wins", "is") as ``name`` takes it:
    itself, or its plain form for "You" ("win", "are")."""
    if name != YOU:
        return third
    plain = _PLAIN.get(third)
    if plain is not None:
        return plain
    if third.endswith(("sses", "shes", "ches", "xes")):
        return third[:-2]
    return third[:-1] if third.endswith("s") else third


def says(name: str, third: str) -> str:
    """``name`` and the verb agreeing: "Þóra wins", "You win", "Leifur is", "You are"."""
    return f"{name} {verb(name, third)}"


def possessive(name: str) -> str:
    """ "Leifur's", or "your" for the person."""
    return "your" if name == YOU else f"{name}'s"


def objective(name: str) -> str:
    """The name after a verb or a preposition: "for Leifur", "for you"."""
    return "you" if name == YOU else name
