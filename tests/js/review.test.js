// Unit tests of the review's bookkeeping (lockup/web/static/js/review-core.js) without a
// browser: steps from a record and the engine's tricks, the state at a step, decisions,
// the loss series, accuracy formatting. Run with `node --test tests/js/`.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import {
  buildSteps,
  decisionAt,
  decisionInTrick,
  decisionMap,
  flatTricks,
  formatAccuracy,
  formatTricks,
  handStart,
  lossSeries,
  markLevel,
  positionOf,
  progressPercent,
  rulesKey,
  stateAt,
  stepOfDecision,
  stepOfTrick,
} from "../../lockup/web/static/js/review-core.js";

// A hand cut short: four plays (a trick), a discard, then two plays of the next trick.
const deal = [
  ["AS", "KS", "2C"],
  ["QS", "3D", "4C"],
  ["JS", "5D", "6H"],
  ["TS", "7D", "8H"],
];
const record = {
  format: "lockup-record/1",
  rules: { target: 10, picture_exception: "same-rank", lock_discards: "per-trick" },
  hands: [
    {
      dealer: 3,
      deal,
      events: [
        { seat: 0, play: "AS" },
        { seat: 1, play: "QS" },
        { seat: 2, play: "JS" },
        { seat: 3, play: "TS" },
        { seat: 1, discard: "4C" },
        { seat: 0, play: "KS" },
        { seat: 2, play: "5D" },
      ],
    },
  ],
};
const tricks = [
  { hand: 0, number: 0, leader: 0, plays: [{ seat: 0, card: "AS" }, { seat: 1, card: "QS" }, { seat: 2, card: "JS" }, { seat: 3, card: "TS" }], winner: 0, clubs: 0, lock: 0 },
  { hand: 0, number: 1, leader: 0, plays: [{ seat: 0, card: "KS" }, { seat: 2, card: "5D" }], winner: null, clubs: 0, lock: 0 },
];
const analysis = {
  seat: 0,
  accuracy: 87.5,
  hands: [{ hand: 0, accuracy: 87.5, loss: 0.9 }],
  decisions: [
    { hand: 0, trick: 0, event: 0, played: "AS", best: "AS", values: { AS: 2, KS: 1.8, "2C": 1 }, loss: 0, forced: false, mark: null },
    { hand: 0, trick: 1, event: 5, played: "KS", best: "2C", values: { KS: 1, "2C": 1.9 }, loss: 0.9, forced: false, mark: "mistake" },
  ],
};

test("steps: a start per hand, then each event; plays matched with the tricks in order", () => {
  const steps = buildSteps(record, tricks);
  assert.equal(steps.length, 8);
  assert.deepEqual(steps[0], { hand: 0, event: -1, kind: "start", seat: null, card: null, trick: null, pos: -1 });
  assert.deepEqual(steps.map((s) => s.kind), ["start", "play", "play", "play", "play", "discard", "play", "play"]);
  assert.deepEqual(steps.map((s) => s.trick), [null, 0, 0, 0, 0, null, 1, 1]);
  assert.deepEqual(steps.map((s) => s.pos), [-1, 0, 1, 2, 3, -1, 0, 1]);
  assert.equal(handStart(steps, 0), 0);
  assert.equal(stepOfTrick(steps, 0), 4);
  assert.equal(stepOfTrick(steps, 5), -1);
});

test("tricks given hand by hand are made one list, each with its hand", () => {
  const [a, b] = tricks;
  const flat = flatTricks([[{ ...a, hand: undefined }], [{ ...b, hand: undefined }]]);
  assert.deepEqual(flat.map((x) => x.hand), [0, 1]);
  assert.deepEqual(flatTricks(tricks), tricks);
  assert.deepEqual(flatTricks([]), []);
});

test("state at a step: hands held, lost cards, tricks won, the trick on the table", () => {
  const steps = buildSteps(record, tricks);
  const start = stateAt(record, tricks, steps, 0);
  assert.deepEqual(start.held, deal);
  assert.deepEqual(start.plays, []);
  assert.equal(start.trick, null);
  const two = stateAt(record, tricks, steps, 2);
  assert.deepEqual(two.held[0], ["KS", "2C"]);
  assert.deepEqual(two.plays, [{ seat: 0, card: "AS" }, { seat: 1, card: "QS" }]);
  assert.equal(two.complete, false);
  assert.deepEqual(two.won, [0, 0, 0, 0]);
  const full = stateAt(record, tricks, steps, 4);
  assert.equal(full.complete, true);
  assert.deepEqual(full.won, [1, 0, 0, 0]);
  const lost = stateAt(record, tricks, steps, 5);
  assert.deepEqual(lost.lost[1], ["4C"]);
  assert.deepEqual(lost.held[1], ["3D"]);
  const last = stateAt(record, tricks, steps, 7);
  assert.equal(last.trick, 1);
  assert.deepEqual(last.plays.map((p) => p.card), ["KS", "5D"]);
  assert.deepEqual(last.held[0], ["2C"]);
  assert.deepEqual(last.won, [1, 0, 0, 0]);
});

test("decisions: the one about to be made, the one just made, and where it was", () => {
  const steps = buildSteps(record, tricks);
  const map = decisionMap(analysis);
  assert.equal(decisionAt(steps, map, 0, 0)?.played, false);
  assert.equal(decisionAt(steps, map, 0, 0)?.decision.trick, 0);
  assert.equal(decisionAt(steps, map, 0, 1)?.played, true);
  assert.equal(decisionAt(steps, map, 0, 2), null);
  const d = decisionAt(steps, map, 0, 5);
  assert.equal(d?.decision.mark, "mistake");
  assert.equal(d?.played, false);
  assert.equal(stepOfDecision(steps, analysis.decisions[1]), 6);
  assert.equal(decisionInTrick(steps, map, 0, 1)?.mark, "mistake");
  assert.equal(decisionInTrick(steps, map, 1, 1), null);
  assert.equal(decisionMap(null).size, 0);
});

test("loss series: per trick, with the running total", () => {
  assert.deepEqual(lossSeries(analysis, 0), [
    { trick: 0, loss: 0, total: 0, mark: null, card: "AS" },
    { trick: 1, loss: 0.9, total: 0.9, mark: "mistake", card: "KS" },
  ]);
  assert.deepEqual(lossSeries(analysis, 1), []);
  assert.deepEqual(lossSeries(null, 0), []);
});

test("accuracy and expected tricks in each language; progress as a percentage", () => {
  assert.equal(formatAccuracy(87.5, "en"), "87.5%");
  assert.equal(formatAccuracy(87.5, "fr").replace(/\s/g, " "), "87,5 %");
  assert.equal(formatAccuracy(100, "en"), "100%");
  assert.equal(formatAccuracy(null, "en"), "–");
  assert.equal(formatAccuracy(Number.NaN, "en"), "–");
  assert.equal(formatTricks(2.1, "en"), "2.10");
  assert.equal(formatTricks(2.1, "fr"), "2,10");
  assert.equal(formatTricks(undefined, "en"), "–");
  assert.equal(progressPercent(0.456), 46);
  assert.equal(progressPercent(1.5), 100);
  assert.equal(progressPercent(null), 0);
});

test("marks, positions and rules keys", () => {
  assert.deepEqual(["inaccuracy", "mistake", "blunder", null].map(markLevel), [1, 2, 3, 0]);
  assert.deepEqual([0, 1, 2, 3].map((s) => positionOf(2, s)), ["top", "right", "bottom", "left"]);
  assert.equal(rulesKey(record.rules), "same-rank/per-trick/10");
});

test("the fixture record replays into steps, one per event and hand", () => {
  const rec = JSON.parse(readFileSync(new URL("../fixtures/won-21-20-19-18.json", import.meta.url), "utf-8"));
  const steps = buildSteps(rec, []);
  const events = rec.hands.reduce((n, h) => n + h.events.length, 0);
  assert.equal(steps.length, events + rec.hands.length);
  const end = stateAt(rec, [], steps, steps.length - 1);
  assert.equal(end.held.flat().length, 0);
});
