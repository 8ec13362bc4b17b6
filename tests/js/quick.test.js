// Unit tests of quick play's page side without a browser (lockup/web/static/js/quick-core.js):
// what the answer of POST /api/quickplay makes the page do, the invite link it opens, and
// the waiting table's countdown and words. Run with `node --test tests/js/`.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { coming, countdownWords, inviteHref, isQuick, quickAnswer, secondsTo, startsAt } from "../../lockup/web/static/js/quick-core.js";

const I18N = fileURLToPath(new URL("../../lockup/web/static/i18n/", import.meta.url));

test("the answer of POST /api/quickplay: go, ask the name, or say why not", () => {
  const invite = "http://127.0.0.1:8000/room/AbC_9-x?invite=k3Y-_z";
  assert.deepEqual(quickAnswer(200, { room: "AbC_9-x", seat: 2, invite, starts_in: 14 }), { go: "/room/AbC_9-x?invite=k3Y-_z" });
  assert.deepEqual(quickAnswer(400, { error: "name-needed", reason: "A name, please." }), { ask: true });
  assert.deepEqual(quickAnswer(400, { error: "bad-option", reason: "a name is at most 24 characters" }), { error: "bad-option" });
  assert.deepEqual(quickAnswer(429, { error: "rate-limited" }), { error: "rate-limited" });
  assert.deepEqual(quickAnswer(429, "not json"), { error: "rate-limited" });
  assert.deepEqual(quickAnswer(0, {}), { error: "offline" });
  assert.deepEqual(quickAnswer(500, null), { error: "other" });
  // An answer without a usable invite is not followed anywhere.
  assert.deepEqual(quickAnswer(200, { invite: "javascript:alert(1)" }), { error: "bad-message" });
  assert.deepEqual(quickAnswer(200, {}), { error: "other" });
});

test("the invite link is opened on the page's own origin, and only an invite link", () => {
  assert.equal(inviteHref("https://cards.example/room/R1?invite=K"), "/room/R1?invite=K");
  assert.equal(inviteHref("/room/R1?invite=K&x=1"), "/room/R1?invite=K");
  for (const bad of ["https://evil.example/watch/R1?key=K", "/room/R1", "/room/R1?invite=", "/room/a/b?invite=K", "/room/R1?invite=<b>", "http://[bad"]) {
    assert.equal(inviteHref(bad), null, bad);
  }
});

test("a quick table is one whose options say so", () => {
  assert.equal(isQuick({ options: { quick: true, rated: true } }), true);
  assert.equal(isQuick({ options: { quick: false } }), false);
  assert.equal(isQuick({ options: {} }), false);
  assert.equal(isQuick(null), false);
});

test("the countdown runs from the snapshot's starts_in on the page's clock", () => {
  const seats = [0, 1, 2, 3].map((seat) => ({ seat, name: null, kind: /** @type {const} */ ("empty") }));
  const open = { status: "open", seats, options: { quick: true }, starts_in: 14.2 };
  const at = startsAt(open, 1000);
  assert.equal(at, 1000 + 14200);
  assert.equal(secondsTo(/** @type {number} */ (at), 1000), 15);
  assert.equal(secondsTo(/** @type {number} */ (at), 1200), 14);
  assert.equal(secondsTo(/** @type {number} */ (at), 1000 + 14200), 0);
  assert.equal(secondsTo(/** @type {number} */ (at), 99999), 0);
  assert.equal(startsAt({ ...open, starts_in: -3 }, 50), 50);
  assert.equal(startsAt({ ...open, status: "playing" }, 0), null);
  assert.equal(startsAt({ ...open, starts_in: null }, 0), null);
  assert.equal(startsAt({ status: "open", seats, options: {} }, 0), null);
});

test("who is coming, and the countdown's words", () => {
  /** @type {{seat: number, name: string | null, kind: "person" | "computer" | "empty"}[]} */
  const seats = [
    { seat: 0, name: "Ann", kind: "person" },
    { seat: 1, name: null, kind: "empty" },
    { seat: 2, name: "Þóra", kind: "person" },
    { seat: 3, name: null, kind: "empty" },
  ];
  assert.deepEqual(coming(seats), { names: ["Ann", "Þóra"], people: 2, empty: 2 });
  // A seat given to someone whose page has not opened the table yet is still open: a
  // computer's at the start unless they come.
  const waiting = [{ ...seats[0] }, { seat: 1, name: "Bob", kind: /** @type {const} */ ("person"), pending: true }, { ...seats[2] }, { ...seats[3] }];
  assert.deepEqual(coming(waiting), { names: ["Ann", "Þóra"], people: 2, empty: 2 });
  assert.deepEqual(coming(waiting.map((s) => ({ ...s, pending: false }))), { names: ["Ann", "Bob", "Þóra"], people: 3, empty: 1 });
  assert.deepEqual(countdownWords(2, 14), { key: "quick.countdown", n: 14 });
  assert.deepEqual(countdownWords(1, 3), { key: "quick.countdownOne", n: 3 });
  assert.deepEqual(countdownWords(3, 0), { key: "quick.starting" });
  assert.deepEqual(countdownWords(0, 9), { key: "quick.full" });
});

test("every word quick play shows is in every language, with its number", () => {
  const keys = ["btn.quick", "quick.title", "quick.status_one", "quick.status_other", "quick.countdown", "quick.countdownOne", "quick.starting", "quick.full", "quick.emptySeat", "quick.onTheWay", "quick.rated", "quick.joined", "quick.nameNote", "quick.go", "room.err.name-needed"];
  for (const lang of ["en", "fr", "is"]) {
    const words = JSON.parse(readFileSync(`${I18N}${lang}.json`, "utf-8"));
    for (const k of keys) assert.equal(typeof words[k], "string", `${lang}: ${k}`);
    assert.match(words["quick.countdown"], /\{n\}/);
    assert.match(words["quick.countdownOne"], /\{n\}/);
  }
  const en = JSON.parse(readFileSync(`${I18N}en.json`, "utf-8"));
  assert.equal(en["quick.countdown"].replace("{n}", "14"), "Computers take the empty seats in 14 s");
});
