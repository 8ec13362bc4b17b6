// Unit tests of the page's selectors (lockup/web/static/js/state.js): places with ties,
// the trick number on screen, the game's locks and lost cards, the trick a card waits for.

import assert from "node:assert/strict";
import { test } from "node:test";

import { createState, gameLocks, leftSeats, shownTrick, standings, trickKey, canAct } from "../../lockup/web/static/js/state.js";

const view = (extra = {}) => ({
  phase: "play",
  hand_number: 0,
  trick_number: 0,
  turn: 0,
  totals: [0, 0, 0, 0],
  tricks: [0, 0, 0, 0],
  times_locked: [0, 0, 0, 0],
  lost: [[], [], [], []],
  summaries: [],
  ...extra,
});

test("equal totals share a place; the winner is listed first", () => {
  assert.deepEqual(
    standings([12, 20, 7, 7], 1).map((x) => [x.seat, x.place]),
    [
      [1, 1],
      [0, 2],
      [2, 3],
      [3, 3],
    ],
  );
  assert.deepEqual(
    standings([20, 9, 9, 9], 0).map((x) => x.place),
    [1, 2, 2, 2],
  );
});

test("a person who abandoned the game ranks last whatever the points, as the ratings rank them", () => {
  // Seat 1 left with 15; the others are placed among themselves, then seat 1.
  assert.deepEqual(
    standings([12, 15, 20, 7], 2, [1]).map((x) => [x.seat, x.place, x.left]),
    [
      [2, 1, false],
      [0, 2, false],
      [3, 3, false],
      [1, 4, true],
    ],
  );
  // The seat that left won on points (the computer played it on): still last.
  assert.deepEqual(
    standings([20, 9, 9, 3], 0, [0]).map((x) => [x.seat, x.place]),
    [
      [1, 1],
      [2, 1],
      [3, 3],
      [0, 4],
    ],
  );
  // Two left: they share the last places by their points.
  assert.deepEqual(
    standings([20, 9, 9, 3], 0, [1, 2]).map((x) => [x.seat, x.place]),
    [
      [0, 1],
      [3, 2],
      [1, 3],
      [2, 3],
    ],
  );
  // Nobody left: the same as before.
  assert.deepEqual(standings([12, 20, 7, 7], 1, []), standings([12, 20, 7, 7], 1));
});

test("the seats that left count only for the game they left", () => {
  const s = createState();
  s.game = "g1";
  assert.deepEqual(leftSeats(s), []);
  s.left = { game: "g1", seats: [3] };
  assert.deepEqual(leftSeats(s), [3]);
  s.game = "g2";
  assert.deepEqual(leftSeats(s), []);
});

test("the trick counter shows the completed trick while it is still on the table", () => {
  const s = createState();
  s.view = view({ trick_number: 5 });
  assert.equal(shownTrick(s), 6);
  s.trickDone = { number: 4, winner: 1, lock: 0 };
  assert.equal(shownTrick(s), 5);
  s.view = view({ trick_number: 13, phase: "deal" });
  s.trickDone = null;
  assert.equal(shownTrick(s), 13);
});

test("a card chosen during the trick-end display waits for that trick, not the next", () => {
  const s = createState();
  s.game = "g";
  s.view = view({ trick_number: 5 });
  s.trickDone = { number: 4, winner: 0, lock: 0 };
  const during = trickKey(s);
  s.trickDone = null;
  assert.notEqual(trickKey(s), during);
});

test("the game's locks and lost cards: finished hands and the one under way", () => {
  const v = view({
    summaries: [{ number: 0, times_locked: [1, 0, 2, 0], lost: [["2C"], [], ["3H", "4H"], []] }],
    times_locked: [0, 1, 0, 0],
    lost: [[], ["5S"], [], []],
  });
  assert.deepEqual(gameLocks(v), { locked: [1, 1, 2, 0], lost: [1, 1, 2, 0] });
  assert.deepEqual(gameLocks(null), { locked: [0, 0, 0, 0], lost: [0, 0, 0, 0] });
});

test("the player may act only on their turn with nothing left to show and no summary open", () => {
  const s = createState();
  s.view = view({ turn: 0 });
  assert.equal(canAct(s), true);
  s.busy = true;
  assert.equal(canAct(s), false);
  s.busy = false;
  s.summary = { number: 0, points: [], totals: [], times_locked: [], tricks_sat_out: [], lost: [] };
  assert.equal(canAct(s), false);
});
