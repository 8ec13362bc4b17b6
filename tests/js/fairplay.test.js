// The page's side of abandonment without a browser (room-core.js): what an `abandon` event
// says, for the person who abandoned and for the others, and that it ends the clock of the
// seat. Run with `node --test tests/js/`.

import assert from "node:assert/strict";
import { test } from "node:test";

import { ABANDON_AFTER, ABANDON_WHYS, abandonWords, endsClock } from "../../lockup/web/static/js/room-core.js";

test("an abandon event's words: whose, why, and whether it counts as a loss", () => {
  assert.equal(ABANDON_AFTER, 3);
  assert.deepEqual(ABANDON_WHYS, ["timeouts", "gone", "left"]);
  const left = abandonWords({ seat: 2, why: "left" }, false, "Ann", true);
  assert.deepEqual(left, { why: "left", key: "room.abandoned.left", params: { name: "Ann", n: 3 }, loss: "room.lossLeft" });
  const mine = abandonWords({ seat: 0, why: "timeouts" }, true, "You", true);
  assert.equal(mine.key, "room.abandonedYou.timeouts");
  assert.equal(mine.loss, "room.loss");
  // At an unrated table running out of time or being gone is no loss (leaving is only
  // possible at a rated one).
  assert.equal(abandonWords({ seat: 1, why: "gone" }, false, "Bo", false).loss, "");
  assert.equal(abandonWords({ seat: 1, why: "timeouts" }, false, "Bo", false).loss, "");
  // An unknown reason is said as leaving, never as a missing key.
  assert.equal(abandonWords({ seat: 1, why: "<script>" }, false, "Bo", false).key, "room.abandoned.left");
  assert.equal(abandonWords({ seat: 1 }, true, "Bo", true).why, "left");
});

test("an abandon event ends the clock of its seat only", () => {
  const c = { seat: 2, version: 10, limit: 30, deadline: 0 };
  const msg = (version, event) => ({ version, event });
  assert.equal(endsClock(c, msg(11, { kind: "abandon", seat: 2, why: "left" })), true);
  assert.equal(endsClock(c, msg(11, { kind: "abandon", seat: 1, why: "left" })), false);
  assert.equal(endsClock(c, msg(10, { kind: "abandon", seat: 2, why: "left" })), false, "from before the clock");
});
