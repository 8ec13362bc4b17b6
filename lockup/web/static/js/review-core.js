// @ts-check
// The review's bookkeeping, without the DOM (tested by tests/js/review.test.js).
//
// The page never applies a rule: the record gives the deals and the events in order, and
// the server's `tricks` (computed by the engine) say which play belongs to which trick and
// who won it. A step is one event of the record (a play or a lockup discard), or the
// start of a hand; the state at a step is what the table showed right after it.

import { formatNumber, formatPercent } from "./i18n.js";

/** @typedef {import("./types.js").CardCode} CardCode */
/** @typedef {import("./types.js").Rules} Rules */
/** @typedef {import("./types.js").HandSummary} HandSummary */

/**
 * @typedef {object} RecordHand
 * @property {number} dealer
 * @property {CardCode[][]} deal
 * @property {({seat: number, play: CardCode} | {seat: number, discard: CardCode})[]} events
 */

/** @typedef {{format: string, rules: Rules, players?: string[], hands: RecordHand[]}} GameRecord a lockup-record/1 document */

/**
 * @typedef {object} ReviewTrick a trick as the engine saw it (GET /api/games/{id}/review)
 * @property {number} hand 0-based
 * @property {number} number 0-based within the hand
 * @property {number} leader
 * @property {{seat: number, card: CardCode}[]} plays
 * @property {number | null} winner null for an empty trick
 * @property {number} clubs
 * @property {number} lock
 */

/**
 * @typedef {object} Decision one of the player's plays, judged (docs/analysis.md)
 * @property {number} hand 0-based
 * @property {number} trick 0-based, within the hand
 * @property {number} event the play's index in the record's hands[hand].events
 * @property {CardCode} played
 * @property {CardCode} best
 * @property {Record<string, number>} values expected tricks this hand after each legal card
 * @property {number} loss
 * @property {boolean} forced
 * @property {"inaccuracy" | "mistake" | "blunder" | null} mark
 * @property {{values: Record<string, number>, best: CardCode, loss: number} | null} [hindsight]
 * @property {Record<string, number> | null} [win_chance]
 */

/**
 * @typedef {object} Analysis
 * @property {number} seat
 * @property {Decision[]} decisions
 * @property {number | null} accuracy 0-100
 * @property {{hand: number, accuracy: number | null, loss: number}[]} hands
 */

/**
 * @typedef {object} Step
 * @property {number} hand
 * @property {number} event index in the hand's events, -1 for the start of the hand
 * @property {"start" | "play" | "discard"} kind
 * @property {number | null} seat
 * @property {CardCode | null} card
 * @property {number | null} trick index into the tricks list (plays only)
 * @property {number} pos the play's place in its trick (0-3), -1 otherwise
 */

/**
 * @typedef {object} StepState
 * @property {number} hand
 * @property {CardCode[][]} held the four hands right after the step
 * @property {CardCode[][]} lost lockup's discards so far this hand, by seat
 * @property {number[]} won tricks won so far this hand, by seat
 * @property {number | null} trick the trick on the table (index into tricks), if any
 * @property {{seat: number, card: CardCode}[]} plays its cards so far
 * @property {boolean} complete whether the trick on the table is finished
 */

export const MARKS = ["inaccuracy", "mistake", "blunder"];

/**
 * The engine's tricks as one list: the review gives them hand by hand (`tricks[h]`);
 * each keeps or gets its hand's index.
 * @param {ReviewTrick[][] | ReviewTrick[]} tricks
 * @returns {ReviewTrick[]}
 */
export function flatTricks(tricks) {
  /** @type {ReviewTrick[]} */
  const out = [];
  (tricks || []).forEach((x, h) => {
    if (Array.isArray(x)) for (const tr of x) out.push({ ...tr, hand: tr.hand ?? h });
    else out.push(x);
  });
  return out;
}

/**
 * Every step of the record: a start per hand, then each event; plays are matched, in
 * order, with the plays of the hand's tricks.
 * @param {GameRecord} record @param {ReviewTrick[]} tricks
 * @returns {Step[]}
 */
export function buildSteps(record, tricks) {
  /** @type {Step[]} */
  const steps = [];
  record.hands.forEach((hand, h) => {
    /** @type {{trick: number, pos: number}[]} */
    const slots = [];
    tricks.forEach((tr, i) => {
      if (tr.hand === h) tr.plays.forEach((_, pos) => slots.push({ trick: i, pos }));
    });
    steps.push({ hand: h, event: -1, kind: "start", seat: null, card: null, trick: null, pos: -1 });
    let k = 0;
    hand.events.forEach((ev, e) => {
      if ("play" in ev) {
        const slot = slots[k++];
        steps.push({ hand: h, event: e, kind: "play", seat: ev.seat, card: ev.play, trick: slot ? slot.trick : null, pos: slot ? slot.pos : -1 });
      } else {
        steps.push({ hand: h, event: e, kind: "discard", seat: ev.seat, card: ev.discard, trick: null, pos: -1 });
      }
    });
  });
  return steps;
}

/**
 * What the table showed right after step i.
 * @param {GameRecord} record @param {ReviewTrick[]} tricks @param {Step[]} steps @param {number} i
 * @returns {StepState}
 */
export function stateAt(record, tricks, steps, i) {
  const step = steps[i];
  const h = step.hand;
  const held = record.hands[h].deal.map((cs) => [...cs]);
  /** @type {CardCode[][]} */
  const lost = [[], [], [], []];
  const won = [0, 0, 0, 0];
  /** @type {number | null} */
  let trick = null;
  let pos = -1;
  let j = i;
  while (j > 0 && steps[j].kind !== "start") j--;
  for (; j <= i; j++) {
    const s = steps[j];
    if (s.kind === "start" || s.seat == null || !s.card) continue;
    const k = held[s.seat].indexOf(s.card);
    if (k >= 0) held[s.seat].splice(k, 1);
    if (s.kind === "discard") lost[s.seat].push(s.card);
    else if (s.trick != null) {
      trick = s.trick;
      pos = s.pos;
      const tr = tricks[s.trick];
      if (pos === tr.plays.length - 1 && tr.winner != null) won[tr.winner]++;
    }
  }
  const tr = trick == null ? null : tricks[trick];
  return {
    hand: h,
    held,
    lost,
    won,
    trick,
    plays: tr ? tr.plays.slice(0, pos + 1) : [],
    complete: !!tr && pos === tr.plays.length - 1,
  };
}

/** Index of the first step of hand h (its start). @param {Step[]} steps @param {number} h */
export function handStart(steps, h) {
  return steps.findIndex((s) => s.hand === h);
}

/** The step where a trick is complete (its last play); -1 for an empty trick. @param {Step[]} steps @param {number} trick */
export function stepOfTrick(steps, trick) {
  let at = -1;
  steps.forEach((s, i) => {
    if (s.kind === "play" && s.trick === trick) at = i;
  });
  return at;
}

/** The key of a decision: its hand and the play's event index. @param {number} hand @param {number} event */
export const decisionKey = (hand, event) => `${hand}:${event}`;

/** The analysis' decisions by key. @param {Analysis | null} analysis @returns {Map<string, Decision>} */
export function decisionMap(analysis) {
  return new Map((analysis?.decisions || []).map((d) => [decisionKey(d.hand, d.event), d]));
}

/**
 * The decision a step shows: the player's play at this step, or the play the player is
 * about to make (the next step is theirs, in the same hand).
 * @param {Step[]} steps @param {Map<string, Decision>} decisions @param {number} seat @param {number} i
 * @returns {{decision: Decision, played: boolean} | null}
 */
export function decisionAt(steps, decisions, seat, i) {
  for (const [k, played] of /** @type {[number, boolean][]} */ ([[i, true], [i + 1, false]])) {
    const s = steps[k];
    if (!s || s.kind !== "play" || s.seat !== seat || s.hand !== steps[i].hand) continue;
    const d = decisions.get(decisionKey(s.hand, s.event));
    if (d) return { decision: d, played };
  }
  return null;
}

/** The decision of a seat's play in a trick, if any. @param {Step[]} steps @param {Map<string, Decision>} decisions @param {number} seat @param {number} trick */
export function decisionInTrick(steps, decisions, seat, trick) {
  const s = steps.find((x) => x.kind === "play" && x.trick === trick && x.seat === seat);
  return s ? decisions.get(decisionKey(s.hand, s.event)) || null : null;
}

/** The step where a decision's card was played, or -1. @param {Step[]} steps @param {Decision} d */
export function stepOfDecision(steps, d) {
  return steps.findIndex((s) => s.kind === "play" && s.hand === d.hand && s.event === d.event);
}

/**
 * The expected tricks lost through a hand: one point per decision, in trick order (0-based),
 * with the running total.
 * @param {Analysis | null} analysis @param {number} hand
 * @returns {{trick: number, loss: number, total: number, mark: string | null, card: CardCode}[]}
 */
export function lossSeries(analysis, hand) {
  let total = 0;
  return (analysis?.decisions || [])
    .filter((d) => d.hand === hand)
    .sort((a, b) => a.trick - b.trick)
    .map((d) => {
      total += Math.max(0, d.loss);
      return { trick: d.trick, loss: d.loss, total, mark: d.mark, card: d.played };
    });
}

/** A mark's severity (0 none, 1 inaccuracy, 2 mistake, 3 blunder). @param {string | null | undefined} mark */
export const markLevel = (mark) => MARKS.indexOf(mark || "") + 1;

/**
 * An accuracy (0-100) as a percentage in a language: "87.5%", "87,5 %"; "–" for none.
 * @param {number | null | undefined} x @param {string} lang
 */
export function formatAccuracy(x, lang) {
  if (x == null || !Number.isFinite(x)) return "–";
  return formatPercent(x, { max: 1, lang });
}

/**
 * Expected tricks with two decimals ("2.10", "2,10"); "–" for none.
 * @param {number | null | undefined} x @param {string} lang
 */
export function formatTricks(x, lang) {
  if (x == null || !Number.isFinite(x)) return "–";
  return formatNumber(x, 2, { lang });
}

/** The analysis' progress (0-1) as a whole percentage, clamped. @param {number | null | undefined} p */
export const progressPercent = (p) => Math.round(100 * Math.min(1, Math.max(0, Number(p) || 0)));

/** The table's positions seen from a seat: bottom, left, top, right. @param {number} me @param {number} seat */
export function positionOf(me, seat) {
  return /** @type {const} */ (["bottom", "left", "top", "right"])[(seat - me + 4) % 4];
}

/** The rules as the stats' key ("same-rank/per-trick/20"). @param {Rules} r */
export const rulesKey = (r) => `${r.picture_exception}/${r.lock_discards}/${r.target}`;
