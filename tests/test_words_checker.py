"""The word walk's checker (``words_helpers.py``) on strings of its own: what it flags as
English on a French or Icelandic page, and what it lets be."""

from __future__ import annotations

from words_helpers import catalogue, english_fragments, english_leaks


def strings(*texts: str, what: str = "text") -> list[list[str]]:
    return [[f"p#s{i}", what, t] for i, t in enumerate(texts)]


def test_an_english_message_or_fragment_is_flagged_with_its_element() -> None:
    found = english_leaks(strings("Jouer entre amis", "Play with friends"), "fr")
    assert len(found) == 1 and "'Play with friends' in p#s1" in found[0], found
    # A fragment of a message with a number in it, in a longer text.
    found = english_leaks(strings("Leitað að spilurum · Finding players: 2 of 4 here"), "is")
    assert any("Finding players" in x for x in found), found
    # An attribute counts as much as the text.
    found = english_leaks(strings("Sign in", what="aria-label"), "is")
    assert found and "[aria-label]" in found[0], found


def test_give_away_words_and_catalogue_keys() -> None:
    assert english_leaks(strings("Þóra wins the hand"), "is")
    assert english_leaks(strings("Tölva · waiting"), "is")
    assert english_leaks(strings("btn.new"), "fr")
    assert english_leaks(strings("btn.new"), "en")


def test_the_languages_own_words_and_names_pass() -> None:
    for lang in ("fr", "is"):
        texts = [v for v in catalogue(lang).values() if "{" not in v]
        assert english_leaks(strings(*texts), lang) == [], lang
    # Words French shares with English, and a name that is an English word, blanked.
    assert english_leaks(strings("Score", "Points", "Date"), "fr") == []
    assert english_leaks(strings("Rose joue"), "fr", names=("Rose",)) == []
    assert english_leaks(strings("You play the ace"), "en") == []


def test_fragments_leave_out_what_the_language_shares() -> None:
    fragments = {f for f, _, _ in english_fragments("fr")}
    assert "Play with friends" in fragments
    shared = "\0".join(catalogue("fr").values())
    assert not [f for f in fragments if f in shared]
