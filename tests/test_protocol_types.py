"""One protocol typed both ways (issue 23): the server's frames as the TypedDicts of
lockup/server/protocol.py, the page's types.js generated from them, the spectator's view
built from public information, one list of error codes worded in every language, and the
rooms' limits served to the page."""

from __future__ import annotations

import ast
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, NotRequired, get_args, get_origin, get_type_hints, is_typeddict

import pytest

from lockup import refusals
from lockup.cards import card_str, cards_of
from lockup.engine import DEAL, DISCARD, PLAY, Game, Rules
from lockup.server import protocol as P
from lockup.server.protocol import wire as W
from lockup.server.views import move_events, public_view, seat_view, spectator_view

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "lockup" / "web" / "static"
JS = STATIC / "js"
I18N = STATIC / "i18n"
sys.path.insert(0, str(ROOT / "scripts"))

import gen_types  # noqa: E402


def keys_of(td: Any) -> tuple[frozenset[str], frozenset[str]]:
    """A TypedDict's (required, optional) keys (read from its hints: Python 3.11 counts a
    ``NotRequired`` key required under postponed annotations)."""
    hints = get_type_hints(td, include_extras=True)
    optional = frozenset(k for k, v in hints.items() if get_origin(v) is NotRequired)
    return frozenset(hints) - optional, optional


def assert_shape(value: Any, td: Any) -> None:
    """``value`` has the keys of TypedDict ``td``: every required one, no other."""
    required, optional = keys_of(td)
    assert isinstance(value, dict), value
    assert required <= set(value) <= required | optional, (td.__name__, sorted(value))


def union_member(value: dict[str, Any], union: Any, tag: str) -> Any:
    """The TypedDict of ``union`` whose ``tag`` literal holds ``value[tag]``."""
    for td in get_args(union):
        hint = get_type_hints(td)[tag]
        if value[tag] in get_args(hint):
            return td
    raise AssertionError(f"no member of the union for {tag}={value[tag]!r}")


def step(game: Game, rng: random.Random) -> str:
    """One random step; the kind of move made."""
    if game.phase == DEAL:
        game.deal(rng=rng)
        return "deal"
    if game.phase == DISCARD:
        game.discard_random(rng)
        return "discard"
    legal = game.legal_cards()
    game.play(legal[rng.randrange(len(legal))])
    return "play"


def positions(seeds: range, rules: Rules | None = None) -> Any:
    """Every position of random games (after each move)."""
    for seed in seeds:
        rng = random.Random(seed)
        game = Game.new(rng, rules or Rules(target=10, lock_discards="per-trick"))
        while not game.is_over:
            step(game, rng)
            yield game


# ---------------------------------------------------------------------- types.js


def test_types_js_is_generated_from_protocol() -> None:
    source = (ROOT / "lockup" / "server" / "protocol" / "wire.py").read_text(encoding="utf-8")
    expected = gen_types.generate(source)
    actual = (JS / "types.js").read_text(encoding="utf-8")
    assert actual == expected, "run: python scripts/gen_types.py"
    check = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_types.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stdout


def test_types_js_has_every_wire_type_and_its_fields() -> None:
    """Each TypedDict of protocol/wire.py is a typedef of types.js with the same properties."""
    text = (JS / "types.js").read_text(encoding="utf-8")
    blocks = {
        m.group(1): m.group(0)
        for m in re.finditer(r"@typedef \{object\} (\w+).*?\*/", text, re.DOTALL)
    }
    found = 0
    for name in dir(P):
        td = getattr(P, name)
        if not (isinstance(td, type) and is_typeddict(td)) or td.__module__ != W.__name__:
            continue
        js = gen_types.JS_NAMES.get(name, name)
        assert js in blocks, js
        props = set(re.findall(r"@property \{[^\n]*\} \[?(\w+)\]?", blocks[js]))
        required, optional = keys_of(td)
        assert props == required | optional, js
        for key in optional:
            assert f"[{key}]" in blocks[js], (js, key)
        found += 1
    assert found >= 40


def test_generator_refuses_what_it_cannot_translate() -> None:
    with pytest.raises(gen_types.Unsupported):
        gen_types.js_type(ast.parse("set[int]", mode="eval").body, set())


def test_server_messages_cover_every_frame_type() -> None:
    """Every ``"type"`` the server writes (protocol/frames.py is the only module that builds
    frames) is a member of ServerMessage, and each member's type is written."""
    source = (ROOT / "lockup" / "server" / "protocol" / "frames.py").read_text(encoding="utf-8")
    written = set(re.findall(r'"type": "(\w+)"', source)) | set(
        re.findall(r'\{\{"type":"(\w+)"', source)
    )
    written |= {"pong"} if P.PONG == '{"type":"pong"}' else set()
    members = {get_args(get_type_hints(td)["type"])[0] for td in get_args(P.ServerMessage)}
    assert written == members


# ---------------------------------------------------------------------- frames


def test_views_and_summaries_are_the_engine_s() -> None:
    required, optional = keys_of(P.View)
    for game in positions(range(2)):
        for seat in range(4):
            assert set(game.view(seat).to_dict()) == required | optional
        for s in game.summaries:
            assert_shape(s.to_dict(), P.HandSummary)
        assert_shape(game.rules.to_dict(), P.RulesJSON)


def test_frames_built_are_their_types() -> None:
    rng = random.Random(7)
    game = Game.new(rng, Rules(target=10))
    seats = [{"kind": "human", "level": None, "away": False}] + [
        {"kind": "bot", "level": "easy", "away": False}
    ] * 3
    clock = {"seat": 0, "seconds": 12.5, "limit": 30.0}
    state = json.loads(P.state_frame(3, ["a", "b", "c", "d"], seats, seat_view(game, 0), clock))
    assert_shape(state, P.StateMessage)
    assert_shape(state["view"], P.View)
    assert_shape(state["clock"], P.Clock)
    for s in state["seats"]:
        assert_shape(s, P.SeatInfo)
    assert_shape(json.loads(P.state_frame(3, [], [], spectator_view(game))), P.StateMessage)
    frames = [
        P.error_frame("stale", "no", 2, params={"version": 1}),
        P.error_of(P.ProtocolError("lead-club", "no", "R5", {}), None),
        P.skip_frame(4),
        P.clock_frame(4, clock),
        P.clock_frame(4, None),
        P.synced_frame(4),
        P.notice_frame(P.RELAY_DOWN),
        P.notice_frame(None),
        P.hint_frame(5, {0: 1.5, 12: 2.25}),
        P.hint_frame(5, {}),
        P.PONG,
        P.room_frame({"id": "r"}),
    ]
    for text in frames:
        msg = json.loads(text)
        assert_shape(msg, union_member(msg, P.ServerMessage, "type"))
    event = {"kind": "deal", "hand": 0, "dealer": 0}
    view = seat_view(game, 1)
    msg = json.loads(P.event_frame(6, P.to_json(event), P.to_json(view)))
    assert msg == P.event_message(6, event, view)  # type: ignore[arg-type]
    assert_shape(msg, P.EventMessage)
    assert_shape(P.api_error("no-room", "gone"), P.ApiError)
    assert_shape(
        P.api_error_of(P.ProtocolError("rate-limited", "slow", None, {"a": 1})), P.ApiError
    )


def test_move_and_note_events_are_their_types() -> None:
    kinds: set[str] = set()
    for seed in range(3):
        rng = random.Random(seed)
        game = Game.new(rng, Rules(target=10))
        while not game.is_over:
            tricks = 0 if game.phase == DEAL else len(game.tricks)
            summaries, was_over = len(game.summaries), game.is_over
            seat = game.turn if game.phase == PLAY else (game.discard_due or 0)
            before = set(cards_of(game.hands[seat]))
            kind = step(game, rng)
            card = next(iter(before - set(cards_of(game.hands[seat]))), -1)
            events = move_events(
                game,
                kind,
                seat,
                card,
                by_computer=seed == 1,
                tricks_before=tricks,
                summaries_before=summaries,
                was_over=was_over,
            )
            assert events[0]["kind"] == kind
            if kind != "deal":
                assert events[0] == {
                    "kind": kind,
                    "seat": seat,
                    "card": card_str(card),
                    **({"by": "computer"} if seed == 1 and kind == "play" else {}),
                }
            for ev in events:
                assert_shape(ev, union_member(dict(ev), P.MoveEvent, "kind"))
                kinds.add(ev["kind"])
    assert kinds == {"deal", "play", "discard", "trick", "hand", "over"}
    notes = [
        ("chat", {"text": "hi"}),
        ("react", {"reaction": P.REACTIONS[0]}),
        ("takeover", {"level": "easy"}),
        ("reclaim", {"level": "easy"}),
        ("seat", {"by": "computer", "name": "Bot"}),
    ]
    for kind, data in notes:
        ev = P.note_event(kind, 2, data)
        assert_shape(ev, union_member(dict(ev), P.NoteEvent, "kind"))
    with pytest.raises(ValueError):
        P.note_event("deal", 0, {})


def test_client_messages_as_typed_parse() -> None:
    examples: list[dict[str, Any]] = [
        {"type": "hello", "game": "g", "since": 3},
        {"type": "hello", "room": "r", "watch": "k"},
        {"type": "play", "card": "QD", "version": 1},
        {"type": "hint", "version": 1},
        {"type": "ping"},
        {"type": "chat", "text": "hello"},
        {"type": "react", "reaction": P.REACTIONS[1]},
        {"type": "start"},
        {"type": "rematch"},
        {"type": "remove", "seat": 2},
    ]
    covered = set()
    for msg in examples:
        td = union_member(msg, P.ClientJSON, "type")
        assert_shape(msg, td)
        covered.add(td)
        P.parse_client(json.dumps(msg))
    assert covered == set(get_args(P.ClientJSON))


# ---------------------------------------------------------------------- spectators


def test_spectator_view_is_the_public_part_of_every_seat_s_view() -> None:
    public_keys = set(keys_of(P.PublicView)[0])
    assert public_keys | set(P.PRIVATE_VIEW_KEYS) == set(keys_of(P.View)[0])
    seen_phases = set()
    for game in positions(range(4)):
        public = public_view(game)
        assert set(public) == public_keys
        for seat in range(4):
            view = game.view(seat).to_dict()
            assert {k: view[k] for k in public_keys} == public
        spectator = spectator_view(game)
        assert spectator == {**public, "seat": None, "hand": [], "legal": []}
        assert seat_view(game, P.SPECTATOR) == spectator
        # No card any seat holds now shows in this hand's public fields.
        held = {card_str(c) for s in range(4) for c in cards_of(game.hands[s])}
        current = json.dumps(
            [spectator[k] for k in ("trick", "last_trick", "lost", "hand", "legal")]
        )
        assert not held & set(re.findall(r'"([2-9TJQKA][CDHS])"', current))
        seen_phases.add(public["phase"])
    assert seen_phases >= {"play", "discard", "over"}


def test_spectator_view_depends_on_nothing_hidden() -> None:
    """Two games with the same public past and different hands look the same."""
    rng = random.Random(3)
    game = Game.new(rng, Rules(target=10))
    while game.phase != PLAY:
        step(game, rng)
    other = game.clone()
    a, b = cards_of(game.hands[1])[0], cards_of(game.hands[2])[0]
    other.hands[1] ^= (1 << a) | (1 << b)
    other.hands[2] ^= (1 << a) | (1 << b)
    assert spectator_view(game) == spectator_view(other)
    assert game.view(1).to_dict()["hand"] != other.view(1).to_dict()["hand"]


# ---------------------------------------------------------------------- error codes

# Calls whose string argument at this index is a code the server answers with.
_CODE_ARGS = {
    "ProtocolError": 0,
    "AccountError": 0,
    "_refuse": 4,
    "_send_json": 2,
    "_raw_response": 2,
    "api_error": 0,
}


def codes_in_sources() -> dict[str, set[str]]:
    """Every refusal code written in the server's sources: ``ProtocolError("code", …)``,
    ``{"error": "code"}`` and the middlewares' refusals, with where."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "lockup" / "server").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        where = str(path.relative_to(ROOT))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                index = _CODE_ARGS.get(name)
                if index is not None and len(node.args) > index:
                    arg = node.args[index]
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        found.setdefault(arg.value, set()).add(where)
            elif isinstance(node, ast.Dict):
                for k, v in zip(node.keys, node.values, strict=True):
                    if (
                        isinstance(k, ast.Constant)
                        and k.value == "error"
                        and isinstance(v, ast.Constant)
                        and isinstance(v.value, str)
                    ):
                        found.setdefault(v.value, set()).add(where)
    return found


def languages() -> dict[str, dict[str, str]]:
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(I18N.glob("*.json"))}


def test_every_code_the_server_sends_is_listed() -> None:
    found = codes_in_sources()
    assert len(found) >= 25
    listed = set(refusals.server_codes())
    missing = {c: sorted(w) for c, w in found.items() if c not in listed}
    assert not missing, f"add these to lockup.refusals.PROTOCOL_CODES: {missing}"
    assert P.UNAVAILABLE in listed
    assert not set(refusals.PROTOCOL_CODES) & set(refusals.codes()) - {"game-over"}
    assert len(refusals.server_codes()) == len(set(refusals.server_codes()))


def test_every_listed_code_is_sent() -> None:
    """No code listed that the server never sends (an orphan of the list)."""
    found = set(codes_in_sources()) | {P.UNAVAILABLE}
    assert set(refusals.PROTOCOL_CODES) - found == set()


def wording_keys(code: str) -> list[str]:
    """The page's keys that may word ``code`` (text.js and room.js look them up)."""
    keys = [f"err.{code}", f"room.err.{code}"]
    if code in refusals.PAGE_KEYS:
        keys.append(refusals.PAGE_KEYS[code])
    return keys


def test_every_code_has_words_in_every_language() -> None:
    langs = languages()
    assert set(langs) == set(refusals.LANGS)
    cat = refusals.catalogue()
    for code in refusals.server_codes():
        for lang, words in langs.items():
            if code in cat[lang]["messages"]:
                continue
            assert any(k in words for k in wording_keys(code)), (code, lang)
            for k in wording_keys(code):  # a code worded in one language is in all
                assert (k in words) == (k in langs["en"]), (code, lang, k)


PLURALS = re.compile(r"_(zero|one|two|few|many|other)$")


def test_no_error_key_is_orphaned() -> None:
    """Every ``err.*`` and ``room.err.*`` key of the page words a server code, or is one
    the page's modules name themselves (its own faults: offline, a queued card …)."""
    codes = set(refusals.server_codes())
    sources = "\n".join(p.read_text(encoding="utf-8") for p in JS.glob("*.js"))
    for lang, words in languages().items():
        for key in words:
            m = re.match(r"(room\.)?err\.(.+)$", key)
            if not m:
                continue
            base = PLURALS.sub("", key)
            if m.group(2) in codes or PLURALS.sub("", m.group(2)) in codes:
                continue
            assert f'"{base}"' in sources, f"{lang}: {key} words no server code and no page uses it"


# ---------------------------------------------------------------------- room limits


def js_const(name: str) -> Any:
    text = (JS / "room-core.js").read_text(encoding="utf-8")
    m = re.search(rf"export const {name} = (.+?);\n", text)
    assert m, name
    return json.loads(m.group(1))


def test_room_limits_are_served_and_the_page_s_are_the_same() -> None:
    from lockup.server.rooms.options import GRACE_RANGE, MAX_NAME, TIMER_RANGE

    doc = P.options_document(["easy", "normal"], "normal")
    assert_shape(doc, P.Options)
    limits = doc["room"]
    assert_shape(limits, P.RoomLimits)
    assert limits["reactions"] == list(P.REACTIONS) == js_const("REACTIONS")
    assert limits["max_chat"] == P.MAX_CHAT == js_const("MAX_CHAT")
    assert limits["max_name"] == MAX_NAME == js_const("MAX_NAME")
    assert (limits["grace"]["min"], limits["grace"]["max"]) == GRACE_RANGE
    assert (limits["turn_timer"]["min"], limits["turn_timer"]["max"]) == TIMER_RANGE
    for s in js_const("GRACES"):
        assert GRACE_RANGE[0] <= s <= GRACE_RANGE[1]
    assert limits["grace"]["default"] in js_const("GRACES")
    for s in js_const("TIMERS"):
        assert s == 0 or TIMER_RANGE[0] <= s <= TIMER_RANGE[1]
    assert limits["turn_timer"]["default"] in js_const("TIMERS")
    # The reactions' drawings and names are the page's, one for each.
    icons = (JS / "reaction-icons.js").read_text(encoding="utf-8")
    for i, r in enumerate(P.REACTIONS):
        assert r in icons, r
        for lang, words in languages().items():
            assert f"room.react.{i}" in words, (lang, i)
