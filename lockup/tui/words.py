"""The terminal's words, in English and Icelandic (``lockup play --lang en|is``).

:func:`tr` gives a sentence in the language chosen by :func:`set_language` (by default
from the environment: ``LC_ALL``, ``LC_MESSAGES``, ``LANG``; else English), its
``{placeholders}`` filled from keyword arguments.

The terminal names the person "You" by default (``DEFAULT_PLAYERS``), so an English
sentence built as "{name} wins the game" must agree with it: "Þóra wins the game", "You
win the game". An English template says so in the placeholder's format: ``{name:says
wins}`` ("Þóra wins", "You win"), ``{name:poss}`` ("Leifur's", "your"), ``{name:obj}``
("Leifur", "you"). The Icelandic templates keep names in the nominative, where the second
and third persons mostly agree ("Þóra vinnur", "Þú vinnur"), and need none of these.
"""

from __future__ import annotations

import os
import string
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

LANGS: Final = ("en", "is")
"""The terminal's languages."""

YOU: Final = "You"
"""The person's default name: the second person."""

_PLAIN: Final = {"is": "are", "has": "have", "was": "were"}

_TEXTS: Final[dict[str, dict[str, str]]] = {
    "en": {
        "you": "You",
        "you.mark": " (you)",
        "seat.deals": " · deals",
        "seat.cards": "{cards} cards · {won} won",
        "seat.locked.one": "🔒 locked {n} trick",
        "seat.locked.other": "🔒 locked {n} tricks",
        "seat.lost": "lost ",
        "trick.caption": "Trick {n}/13",
        "trick.led": "  led ",
        "trick.last": "Trick {n}: ",
        "trick.empty": "empty",
        "trick.won": "{name} won",
        "game.won": "{name:says wins} the game!",
        "score.title": "Score · to {target}",
        "score.game": "game",
        "score.hand": "hand",
        "score.lock": "lock",
        "score.handN": "hand {n}",
        "opt.same-rank": "same-rank",
        "opt.any-club": "any-club",
        "opt.per-trick": "per-trick",
        "opt.upfront": "upfront",
        "sum.title": "Hand {n} is over",
        "sum.hand": "hand",
        "sum.total": "total",
        "sum.locked": "locked",
        "sum.satOut": "sat out",
        "sum.lost": "lost",
        "sum.back": "\nEnter: back to the table · q: quit",
        "sum.next": "\nEnter: deal the next hand",
        "refused": "Refused",
        "hint.title": "Hint (expected tricks this hand): ",
        "status.hand": " · hand {n}",
        "status.trick": " · trick {n}/13",
        "status.yourTurn": " · your turn",
        "status.toPlay": " · {name} to play",
        "status.won": " · {name:says won}",
        "key.Card": "Card",
        "key.Play": "Play",
        "key.Hint": "Hint",
        "key.Start": "Start",
        "key.Help": "Help",
        "key.Quit": "Quit",
        "key.Go on": "Go on",
        "key.Close": "Close",
        "help": """[b]Lockup in the terminal[/b]

[b]←/→[/b]  choose a card        [b]Enter[/b], Space, click  play it
[b]h[/b]    hint: the expert's value of each legal card (tricks this hand)
[b]s[/b]    start the game (the host of a room)
[b]?[/b]    this help            [b]q[/b]  quit (the game is saved)

Lit cards are the ones you may play; a refused card says why.
No trumps: the highest card of the suit led wins the trick and
a point (R8). Win a trick with clubs in it and you are locked up 🔒
for a trick per club, losing random cards (R9, R10). The first
sole leader at the target wins (R15). Rules: docs/rules.md.

Enter or Escape to close.""",
        "level.random": "random",
        "level.easy": "easy",
        "level.normal": "normal",
        "level.expert": "expert",
        "title.local": "Lockup vs {level}",
        "title.game": "Lockup at {host}",
        "title.room": "Lockup · room {room}",
        "title.watch": "Lockup · watching {room}",
        "say.over": "{name:says wins} the game (R15). q to quit.",
        "say.deal": "Hand {n}: {name:says deals} (R3).",
        "say.discard": "Lockup takes {card} from {name:poss} hand (R10).",
        "say.play": "You play {card}.",
        "say.hintNotNow": "A hint is for your turn.",
        "say.thinking": "The expert is thinking…",
        "say.connecting": "Connecting to {base}…",
        "say.connectedAgain": "Connected again.",
        "say.badFrame": "A frame the client does not understand: {error}",
        "say.connectionLost": "Connection lost ({error}); trying again…",
        "say.notConnected": "Not connected.",
        "say.watching": "Watching the table.",
        "say.seated": "At the table as {name}.",
        "say.trick": "{name:says wins} the trick.",
        "say.trickLock": "{name:says wins} the trick and {name:is} locked up for {lock} (R9).",
        "say.takeover": "A computer plays for {name:obj}.",
        "say.back": "{name:says is} back.",
        "say.seatN": "seat {n}",
        "say.waitHost": "{people} at the table. Press s to start (empty seats: computers).",
        "say.waitGuest": "{people} at the table. Waiting for the host to start…",
        "cli.resuming": "Resuming the unfinished game saved in {path} "
        "(lockup play --new starts another).",
        "cli.kept": "{wanted} is kept as it is: this game is saved in {path}.",
        "cli.saved": "saved in {path} (lockup play --resume {path})",
        "cli.askName": "Your name at the table: ",
        "title.quick": "Lockup · play people at {host}",
        "quick.asking": "Looking for a table of people at {base}…",
        "quick.wait": "At the table: {names}. Computers take the empty seats in {n} s (q leaves).",
        "quick.waitOne": "At the table: {names}. A computer takes the empty seat in {n} s "
        "(q leaves).",
        "quick.starting": "At the table: {names}. Starting…",
        "quick.full": "Everyone is here: the game starts.",
        "title.rated": " · rated",
        "status.clock": " · {n} s",
        "say.outOfTime": "Out of time: a computer played {card} for {name:obj}.",
        "abandon.timeouts": "{name} ran out of time too often: a computer plays {name:poss} "
        "seat to the end of the game.",
        "abandon.gone": "{name:says has} been gone too long: a computer plays {name:poss} seat "
        "to the end of the game.",
        "abandon.left": "{name} left the game: a computer plays {name:poss} seat to the end of it.",
        "abandon.other": "A computer plays {name:poss} seat to the end of the game.",
        "abandon.last": " In a rated game that ranks you last.",
        "rating.change": "Rating {before} → {after} ({change}).",
        "rating.guest": "Guests play unrated: `lockup login` to be rated.",
        "rating.unchanged": "This game left your rating as it was.",
        "rating.later": "Your rating's change is not in yet: the server's /history page shows it.",
        "say.signedOut": "Your sign-in at {base} has ended: you play as a guest (lockup login "
        "signs in again).",
        "say.noConfig": "Your player is not kept for next time ({problem}).",
        "login.name": "Name: ",
        "login.password": "Password: ",
        "login.done": "Signed in to {base} as {name}.",
        "login.bad": "wrong name or password",
        "login.wait": "too many tries: try again in {n} s",
        "login.waitLater": "too many tries: try again later",
        "login.noAccounts": "{base} has no accounts (a lockup serve without them?)",
        "login.needName": "a name is needed (--name NAME)",
        "login.needPassword": "a password is needed",
        "login.notKept": "signed in, but the sign-in could not be kept ({problem})",
        "logout.done": "Signed out of {base}.",
        "logout.notIn": "Not signed in to {base}.",
        "logout.unreachable": "Signed out here; {base} could not be told ({error}).",
    },
    "is": {
        "you": "Þú",
        "you.mark": " (þú)",
        "seat.deals": " · gefur",
        "seat.cards": "{cards} spil · slagir: {won}",
        "seat.locked.one": "🔒 í lás {n} slag",
        "seat.locked.other": "🔒 í lás {n} slagi",
        "seat.lost": "misst ",
        "trick.caption": "Slagur {n}/13",
        "trick.led": "  út: ",
        "trick.last": "Slagur {n}: ",
        "trick.empty": "tómur",
        "trick.won": "{name} fékk hann",
        "game.won": "{name} vinnur leikinn!",
        "score.title": "Staðan · upp í {target}",
        "score.game": "leikur",
        "score.hand": "gjöf",
        "score.lock": "lás",
        "score.handN": "gjöf {n}",
        "opt.same-rank": "sama gildi",
        "opt.any-club": "hvaða lauf sem er",
        "opt.per-trick": "eitt í slag",
        "opt.upfront": "öll í einu",
        "sum.title": "Gjöf {n} er lokið",
        "sum.hand": "gjöf",
        "sum.total": "samtals",
        "sum.locked": "í lás",
        "sum.satOut": "hjá",
        "sum.lost": "misst",
        "sum.back": "\nEnter: aftur að borðinu · q: hætta",
        "sum.next": "\nEnter: gefa næstu gjöf",
        "refused": "Hafnað",
        "hint.title": "Ábending (væntanlegir slagir í gjöfinni): ",
        "status.hand": " · gjöf {n}",
        "status.trick": " · slagur {n}/13",
        "status.yourTurn": " · þú átt leik",
        "status.toPlay": " · {name} á leik",
        "status.won": " · {name} vann",
        "key.Card": "Spil",
        "key.Play": "Spila",
        "key.Hint": "Ábending",
        "key.Start": "Byrja",
        "key.Help": "Hjálp",
        "key.Quit": "Hætta",
        "key.Go on": "Áfram",
        "key.Close": "Loka",
        "help": """[b]Lockup í útstöðinni[/b]

[b]←/→[/b]  velja spil          [b]Enter[/b], bil, smellur  spila því
[b]h[/b]    ábending: gildi sérfræðingsins á hverju leyfðu spili (slagir í gjöfinni)
[b]s[/b]    hefja leikinn (gestgjafi borðs)
[b]?[/b]    þessi hjálp          [b]q[/b]  hætta (leikurinn er vistaður)

Upplýstu spilin eru þau sem þú mátt spila; hafnað spil segir hvers vegna.
Ekkert tromp: hæsta spilið í litnum sem spilað var út fær slaginn
og stig (R8). Fáirðu slag með laufi í ferðu í lás 🔒 í einn slag
fyrir hvert lauf og missir spil af handahófi (R9, R10). Sá vinnur
sem fyrstur er einn efstur við markið (R15). Reglur: docs/rules.md.

Enter eða Escape til að loka.""",
        "level.random": "handahóf",
        "level.easy": "auðvelt",
        "level.normal": "venjulegt",
        "level.expert": "sérfræðingur",
        "title.local": "Lockup · mótherjar: {level}",
        "title.game": "Lockup á {host}",
        "title.room": "Lockup · borð {room}",
        "title.watch": "Lockup · horft á {room}",
        "say.over": "{name} vinnur leikinn (R15). q til að hætta.",
        "say.deal": "Gjöf {n}: {name} gefur (R3).",
        "say.discard": "{name} missir spil í lásinn: {card} (R10).",
        "say.play": "Þú spilar: {card}.",
        "say.hintNotNow": "Ábending fæst þegar þú átt leik.",
        "say.thinking": "Sérfræðingurinn hugsar…",
        "say.connecting": "Tengist {base}…",
        "say.connectedAgain": "Tengt aftur.",
        "say.badFrame": "Skilaboð sem forritið skilur ekki: {error}",
        "say.connectionLost": "Sambandið rofnaði ({error}); reyni aftur…",
        "say.notConnected": "Ekki tengt.",
        "say.watching": "Þú horfir á borðið.",
        "say.seated": "Við borðið sem {name}.",
        "say.trick": "{name} fær slaginn.",
        "say.trickLock": "{name} fær slaginn og fer í lás, slagir: {lock} (R9).",
        "say.takeover": "{name}: tölva spilar í sætinu.",
        "say.back": "{name} hefur snúið aftur.",
        "say.seatN": "sæti {n}",
        "say.waitHost": "Við borðið: {people}. Ýttu á s til að byrja (tölvur í lausum sætum).",
        "say.waitGuest": "Við borðið: {people}. Beðið eftir að gestgjafinn byrji…",
        "cli.resuming": "Held áfram með ókláraða leikinn sem er vistaður í {path} "
        "(lockup play --new byrjar nýjan).",
        "cli.kept": "Skráin {wanted} er látin óbreytt: þessi leikur er vistaður í {path}.",
        "cli.saved": "vistað í {path} (lockup play --resume {path})",
        "cli.askName": "Nafnið þitt við borðið: ",
        "title.quick": "Lockup · spilað við fólk á {host}",
        "quick.asking": "Leitað að borði með fólki á {base}…",
        "quick.wait": "Við borðið: {names}. Tölvur taka auðu sætin eftir {n} s (q til að fara).",
        "quick.waitOne": "Við borðið: {names}. Tölva tekur auða sætið eftir {n} s (q til að fara).",
        "quick.starting": "Við borðið: {names}. Leikurinn hefst…",
        "quick.full": "Allir eru komnir: leikurinn hefst.",
        "title.rated": " · til stiga",
        "status.clock": " · {n} s",
        "say.outOfTime": "{name}: tíminn rann út og tölva spilaði {card}.",
        "abandon.timeouts": "{name}: tíminn rann of oft út; tölva spilar sætið til leiksloka.",
        "abandon.gone": "{name}: of lengi í burtu; tölva spilar sætið til leiksloka.",
        "abandon.left": "{name}: fór frá leiknum; tölva spilar sætið til leiksloka.",
        "abandon.other": "{name}: tölva spilar sætið til leiksloka.",
        "abandon.last": " Í leik til stiga lendir þú þá í neðsta sæti.",
        "rating.change": "Stigin þín: {before} → {after} ({change}).",
        "rating.guest": "Gestir spila ekki til stiga: `lockup login` til að fá stig.",
        "rating.unchanged": "Þessi leikur breytti ekki stigunum þínum.",
        "rating.later": "Stigabreytingin er ekki komin enn: hún birtist á síðunni /history "
        "á þjóninum.",
        "say.signedOut": "Innskráningunni á {base} er lokið: þú spilar sem gestur (lockup "
        "login skráir þig inn aftur).",
        "say.noConfig": "Leikmaðurinn þinn er ekki geymdur til næsta skiptis ({problem}).",
        "login.name": "Nafn: ",
        "login.password": "Lykilorð: ",
        "login.done": "Skráð inn á {base} sem {name}.",
        "login.bad": "rangt nafn eða lykilorð",
        "login.wait": "of margar tilraunir: reyndu aftur eftir {n} s",
        "login.waitLater": "of margar tilraunir: reyndu aftur síðar",
        "login.noAccounts": "{base} hefur enga aðganga (lockup serve án þeirra?)",
        "login.needName": "nafn vantar (--name NAFN)",
        "login.needPassword": "lykilorð vantar",
        "login.notKept": "innskráð, en ekki tókst að geyma innskráninguna ({problem})",
        "logout.done": "Skráð út af {base}.",
        "logout.notIn": "Ekki innskráð á {base}.",
        "logout.unreachable": "Skráð út hér; ekki náðist í {base} ({error}).",
    },
}

_lang = "en"


def default_language(environ: Mapping[str, str] | None = None) -> str:
    """The language the environment asks for (``LC_ALL``, then ``LC_MESSAGES``, then
    ``LANG``: ``is_IS.UTF-8`` is Icelandic), else English."""
    env = os.environ if environ is None else environ
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var, "")
        if value:
            code = value.split(".")[0].split("_")[0].split("-")[0].lower()
            return code if code in LANGS else "en"
    return "en"


def set_language(lang: str) -> None:
    """Speak ``lang`` from now on (one of :data:`LANGS`; ValueError otherwise)."""
    global _lang
    if lang not in LANGS:
        raise ValueError(f"language must be one of {', '.join(LANGS)}, not {lang!r}")
    _lang = lang


def language() -> str:
    """The language the terminal speaks."""
    return _lang


class _Formatter(string.Formatter):
    """Fills ``{name:says wins}``, ``{name:poss}``, ``{name:obj}`` and ``{name:is}``."""

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec.startswith("says "):
            return says(str(value), format_spec[5:])
        if format_spec == "poss":
            return possessive(str(value))
        if format_spec == "obj":
            return objective(str(value))
        if format_spec == "is":
            return verb(str(value), "is")
        return str(super().format_field(value, format_spec))


_FORMAT: Final = _Formatter()


def tr(key: str, **params: Any) -> str:
    """The sentence ``key`` in the current language (English if it lacks one), filled."""
    text = _TEXTS[_lang].get(key)
    if text is None:
        text = _TEXTS["en"][key]
    return _FORMAT.format(text, **params) if params else text


def plural(n: int) -> str:
    """``"one"`` or ``"other"``: the form a count ``n`` takes in the current language
    (Icelandic: 1, 21, 31, … but not 11)."""
    if _lang == "is":
        return "one" if n % 10 == 1 and n % 100 != 11 else "other"
    return "one" if n == 1 else "other"


def number(x: float, *, sign: bool = False) -> str:
    """``x`` to one decimal as the language writes it (Icelandic: a decimal comma), with
    its sign when ``sign`` ("+1.8", "-0.4")."""
    x = round(x, 1) + 0.0  # no "-0.0"
    text = f"{x:+.1f}" if sign else f"{x:.1f}"
    return text.replace(".", ",") if _lang == "is" else text


def keys(lang: str) -> set[str]:
    """The sentences ``lang`` has (the tests check every language has English's)."""
    return set(_TEXTS[lang])


def shown(name: str) -> str:
    """A player's name as the table shows it: the person's default "You" in the language."""
    return tr("you") if name == YOU else name


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


def localize_bindings(node: Any) -> None:
    """Give a Textual node's key bindings their descriptions in the current language
    (the footer shows them)."""
    if _lang == "en":
        return
    for bindings in node._bindings.key_to_bindings.values():
        for i, b in enumerate(bindings):
            if b.description and f"key.{b.description}" in _TEXTS[_lang]:
                bindings[i] = replace(b, description=tr(f"key.{b.description}"))
