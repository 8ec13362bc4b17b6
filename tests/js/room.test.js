// Unit tests of the page's room side without a browser: the protocol's room hello and
// `skip` frames (lockup/web/static/js/protocol.js), and room-core.js (links, options,
// the turn timer, chat text). Run with `node --test tests/js/`.

import assert from "node:assert/strict";
import { test } from "node:test";

import { Protocol } from "../../lockup/web/static/js/protocol.js";
import {
  chatText,
  clockOf,
  endsClock,
  freeSeats,
  parseRoomLink,
  roomOptions,
  secondsLeft,
} from "../../lockup/web/static/js/room-core.js";

const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

function make() {
  const sent = [];
  const shown = [];
  const p = new Protocol({
    send: (m) => {
      sent.push(m);
      return true;
    },
    show: (msg) => {
      shown.push(msg.version);
      p.shown = msg.version;
    },
    snapshot: () => {},
    timers: { setTimeout: () => 0, clearTimeout: () => {} },
  });
  return { p, sent, shown };
}

const view = { phase: "play", hand: [], trick: [] };
const ev = (version, kind = "play") => ({ type: "event", version, event: { kind, seat: 1, card: "2H" }, view });

test("a room's hello names the room (and the watch key), even before its game exists", () => {
  const { p, sent } = make();
  assert.equal(p.hello(), false, "no game, no room: nothing to say");
  p.room = "r1";
  assert.equal(p.hello(), true);
  assert.deepEqual(sent[0], { type: "hello", room: "r1", since: 0 });
  assert.deepEqual(sent[1], { type: "ping" });
  p.watch = "KEY";
  p.setGame("g1", 0);
  p.latest = 7;
  p.hello();
  assert.deepEqual(sent[2], { type: "hello", room: "r1", since: 7, watch: "KEY" });
});

test("the solo hello is unchanged", () => {
  const { p, sent } = make();
  p.setGame("g1", 3);
  p.hello();
  assert.deepEqual(sent[0], { type: "hello", game: "g1", since: 3 });
});

test("skip advances the version without showing anything; the next event follows it", async () => {
  const { p, sent, shown } = make();
  p.setGame("g1", 0);
  p.handle({ type: "state", version: 4, view });
  p.handle(ev(5));
  p.handle({ type: "skip", version: 6 });
  p.handle(ev(7));
  await flush();
  assert.deepEqual(shown, [5, 7]);
  assert.equal(p.latest, 7);
  assert.equal(sent.length, 0, "no resync: the versions ran on");
});

test("a skip seen already is ignored; one after a gap asks again", async () => {
  const { p, sent } = make();
  p.setGame("g1", 0);
  p.handle({ type: "state", version: 4, view });
  p.handle({ type: "skip", version: 3 });
  assert.equal(p.latest, 4);
  p.handle({ type: "skip", version: 9 });
  assert.equal(p.latest, 4);
  assert.deepEqual(sent[0], { type: "hello", game: "g1", since: 4 });
});

test("room links", () => {
  assert.equal(parseRoomLink("/", ""), null);
  assert.equal(parseRoomLink("/rules", ""), null);
  assert.deepEqual(parseRoomLink("/lobby", ""), { kind: "lobby" });
  assert.deepEqual(parseRoomLink("/room/abc_1", "?invite=K1"), { kind: "room", id: "abc_1", key: "K1" });
  assert.deepEqual(parseRoomLink("/room/abc", ""), { kind: "room", id: "abc", key: null });
  assert.deepEqual(parseRoomLink("/watch/abc", "?key=W"), { kind: "watch", id: "abc", key: "W" });
  assert.equal(parseRoomLink("/room/a/b", ""), null);
  assert.equal(parseRoomLink("/room/<x>", ""), null);
});

test("the room form's body: three levels, the name trimmed, no empty name", () => {
  const f = { name: "  Ann  ", target: 10, picture_exception: "same-rank", lock_discards: "per-trick", levels: ["easy", "normal", "random"], grace: 5, turn_timer: 0, public: true };
  assert.deepEqual(roomOptions(f), { ...f, name: "Ann", rated: false });
  assert.equal(roomOptions({ ...f, rated: true }).rated, true);
  const body = roomOptions({ ...f, name: " " });
  assert.equal("name" in body, false);
  assert.equal(roomOptions({ ...f, name: "x".repeat(40) }).name.length, 24);
});

test("the turn timer counts down and ends with its seat's card, a new hand or the end", () => {
  const c = clockOf({ seat: 2, seconds: 29.2, limit: 30 }, 10, 1000);
  assert.equal(secondsLeft(c, 1000), 30);
  assert.equal(secondsLeft(c, 1000 + 28_500), 1);
  assert.equal(secondsLeft(c, 1000 + 40_000), 0);
  assert.equal(clockOf(null, 1, 0), null);
  const msg = (version, event) => ({ version, event });
  assert.equal(endsClock(c, msg(11, { kind: "play", seat: 1 })), false);
  assert.equal(endsClock(c, msg(11, { kind: "chat", seat: 2 })), false);
  assert.equal(endsClock(c, msg(11, { kind: "play", seat: 2 })), true);
  assert.equal(endsClock(c, msg(10, { kind: "play", seat: 2 })), false, "an event from before the clock");
  assert.equal(endsClock(c, msg(12, { kind: "over", winner: 0 })), true);
  assert.equal(endsClock(null, msg(12, { kind: "over" })), false);
});

test("chat text: trimmed, control characters out, 200 at most; free seats", () => {
  assert.equal(chatText("  hi\u0007 there\n "), "hi  there");
  assert.equal(chatText("<b>x</b>"), "<b>x</b>", "text stays text: the page shows it with textContent");
  assert.equal(chatText("y".repeat(500)).length, 200);
  assert.deepEqual(freeSeats([{ seat: 0, kind: "person" }, { seat: 1, kind: "empty" }, { seat: 2, kind: "computer" }, { seat: 3, kind: "empty" }]), [1, 3]);
});
