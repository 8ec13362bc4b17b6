// Unit tests of the page's protocol module (lockup/web/static/js/protocol.js), without a
// browser: versions, gaps and resync, snapshots, the paced queue, hurrying, blocking.
// Run with `node --test tests/js/`.

import assert from "node:assert/strict";
import { test } from "node:test";

import { HURRY, Protocol, RESYNC_MS, SPEEDS } from "../../lockup/web/static/js/protocol.js";

/** A fake clock: timers run when the test advances time. */
function fakeTimers() {
  let now = 0;
  let next = 1;
  const timers = new Map();
  return {
    now: () => now,
    setTimeout(f, ms) {
      const id = next++;
      timers.set(id, { at: now + ms, f });
      return id;
    },
    clearTimeout(id) {
      timers.delete(id);
    },
    /** Advance the clock by ms, running due timers in order (and the promises they free). */
    async advance(ms) {
      const end = now + ms;
      for (;;) {
        await flush();
        const due = [...timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].f();
      }
      now = end;
      await flush();
    },
    get pending() {
      return timers.size;
    },
  };
}

const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

const view = (extra = {}) => ({ phase: "play", hand: [], trick: [], ...extra });
const ev = (version, kind = "play", extra = {}) => ({
  type: "event",
  version,
  event: { kind, seat: 1, card: "2H", ...extra },
  view: view(),
});

/** A protocol whose `show` records events and pauses like the page does for bots' cards. */
function make({ pauseKind = "play" } = {}) {
  const clock = fakeTimers();
  const sent = [];
  const shown = [];
  const snapshots = [];
  const errors = [];
  let idle = 0;
  let synced = 0;
  let connected = true;
  const p = new Protocol({
    send: (m) => {
      if (!connected) return false;
      sent.push(m);
      return true;
    },
    show: async (msg) => {
      if (pauseKind && msg.event.kind === pauseKind) {
        if (!(await p.pause(pauseKind))) return;
      }
      shown.push([msg.version, clock.now()]);
      p.shown = msg.version;
    },
    snapshot: (msg) => snapshots.push(msg.version),
    error: (msg) => errors.push(msg.code),
    idle: () => idle++,
    synced: () => synced++,
    timers: clock,
    now: clock.now,
  });
  p.setSpeed("normal");
  p.setGame("g1", 0);
  return {
    p,
    clock,
    sent,
    shown,
    snapshots,
    errors,
    get idle() {
      return idle;
    },
    get synced() {
      return synced;
    },
    offline() {
      connected = false;
    },
  };
}

test("hello sends the last version received, then a ping whose pong marks the end of the answer", async () => {
  const t = make();
  assert.equal(t.p.hello(), true);
  assert.deepEqual(t.sent, [{ type: "hello", game: "g1", since: 0 }, { type: "ping" }]);
  assert.equal(t.p.syncing, true);
  t.p.handle({ type: "state", version: 7, view: view() });
  assert.deepEqual(t.snapshots, [7]);
  assert.equal(t.synced, 0);
  t.p.handle({ type: "pong" });
  assert.equal(t.synced, 1);
  assert.equal(t.p.syncing, false);
  t.p.handle({ type: "pong" }); // a keep-alive pong later is not a second answer
  assert.equal(t.synced, 1);
  t.sent.length = 0;
  t.p.hello();
  assert.deepEqual(t.sent[0], { type: "hello", game: "g1", since: 7 });
});

test("no hello without a game or a connection", () => {
  const t = make();
  t.p.setGame(null);
  assert.equal(t.p.hello(), false);
  const u = make();
  u.offline();
  assert.equal(u.p.hello(), false);
  assert.equal(u.p.syncing, false);
});

test("events are shown in version order; repeats are ignored", async () => {
  const t = make({ pauseKind: null });
  t.p.handle({ type: "state", version: 3, view: view() });
  t.p.handle(ev(4));
  t.p.handle(ev(5));
  t.p.handle(ev(4)); // seen already
  t.p.handle(ev(3));
  await t.clock.advance(10);
  assert.deepEqual(
    t.shown.map(([v]) => v),
    [4, 5],
  );
  assert.equal(t.p.latest, 5);
  assert.equal(t.p.busy, false);
});

test("a gap in versions asks again from the last version, once per RESYNC_MS", async () => {
  const t = make({ pauseKind: null });
  t.p.handle({ type: "state", version: 3, view: view() });
  t.p.handle(ev(5)); // 4 is missing
  assert.deepEqual(t.sent, [{ type: "hello", game: "g1", since: 3 }, { type: "ping" }]);
  assert.equal(t.p.latest, 3);
  t.p.handle(ev(6)); // still a gap: no second hello while the first is unanswered
  assert.equal(t.sent.length, 2);
  await t.clock.advance(RESYNC_MS + 1);
  t.p.handle(ev(6));
  assert.equal(t.sent.length, 4); // allowed again after RESYNC_MS
  // The answer: the missing events, in order.
  t.p.handle(ev(4));
  t.p.handle(ev(5));
  t.p.handle(ev(6));
  await t.clock.advance(10);
  assert.deepEqual(
    t.shown.map(([v]) => v),
    [4, 5, 6],
  );
  assert.equal(t.p.resyncing, false);
});

test("a stale refusal resyncs; other refusals are only reported", () => {
  const t = make();
  t.p.handle({ type: "state", version: 2, view: view() });
  t.p.handle({ type: "error", code: "must-follow", rule: "R6" });
  assert.equal(t.sent.length, 0);
  t.p.handle({ type: "error", code: "stale", rule: null });
  assert.deepEqual(t.sent[0], { type: "hello", game: "g1", since: 2 });
  assert.deepEqual(t.errors, ["must-follow", "stale"]);
});

test("bots' cards are paced by the speed setting", async () => {
  const t = make();
  t.p.setSpeed("fast");
  t.p.handle({ type: "state", version: 1, view: view() });
  t.p.handle(ev(2));
  t.p.handle(ev(3));
  await t.clock.advance(SPEEDS.fast.play - 1);
  assert.equal(t.shown.length, 0);
  await t.clock.advance(1);
  assert.deepEqual(t.shown, [[2, SPEEDS.fast.play]]);
  await t.clock.advance(SPEEDS.fast.play);
  assert.deepEqual(t.shown[1], [3, 2 * SPEEDS.fast.play]);
  assert.equal(t.p.busy, false);
});

test("hurrying shortens the pause under way and the next ones, but shows every event", async () => {
  const t = make();
  t.p.setSpeed("slow");
  t.p.handle({ type: "state", version: 1, view: view() });
  t.p.handle(ev(2));
  t.p.handle(ev(3));
  t.p.handle(ev(4, "trick", { winner: 1 }));
  await t.clock.advance(100);
  t.p.hurryUp();
  await t.clock.advance(HURRY.play - 100);
  assert.deepEqual(t.shown[0], [2, HURRY.play]);
  await t.clock.advance(HURRY.play);
  assert.deepEqual(t.shown[1], [3, 2 * HURRY.play]);
  await t.clock.advance(10);
  assert.deepEqual(
    t.shown.map(([v]) => v),
    [2, 3, 4],
  );
  assert.equal(t.p.hurry, false); // back to the chosen speed once the queue is empty
  assert.equal(t.p.busy, false);
});

test("the trick's pause is never shortened below HURRY.trick", async () => {
  const t = make({ pauseKind: "trick" });
  t.p.setSpeed("slow");
  t.p.handle({ type: "state", version: 1, view: view() });
  t.p.handle(ev(2, "trick", { winner: 2 }));
  t.p.hurryUp();
  await t.clock.advance(HURRY.trick - 1);
  assert.equal(t.shown.length, 0);
  await t.clock.advance(1);
  assert.deepEqual(t.shown, [[2, HURRY.trick]]);
});

test("hurrying an idle table does nothing", () => {
  const t = make();
  t.p.hurryUp();
  assert.equal(t.p.hurry, false);
});

test("a snapshot cancels the event being shown and the queue", async () => {
  const t = make();
  t.p.handle({ type: "state", version: 1, view: view() });
  t.p.handle(ev(2));
  t.p.handle(ev(3));
  await t.clock.advance(100);
  t.p.handle({ type: "state", version: 9, view: view() });
  await t.clock.advance(5000);
  assert.deepEqual(t.shown, []); // the paused event saw the table change and showed nothing
  assert.deepEqual(t.snapshots, [1, 9]);
  assert.equal(t.p.latest, 9);
  assert.equal(t.p.shown, 9);
  assert.equal(t.p.busy, false);
  assert.equal(t.clock.pending, 0);
});

test("a blocked table (the hand summary) holds later events until released", async () => {
  const t = make({ pauseKind: null });
  t.p.handle({ type: "state", version: 1, view: view() });
  t.p.block();
  t.p.handle(ev(2));
  await t.clock.advance(10);
  assert.equal(t.shown.length, 0);
  assert.equal(t.p.queue.length, 1);
  t.p.release();
  await t.clock.advance(10);
  assert.deepEqual(
    t.shown.map(([v]) => v),
    [2],
  );
});

test("whenIdle resolves once the queue is shown; idle is reported", async () => {
  const t = make();
  t.p.setSpeed("fast");
  t.p.handle({ type: "state", version: 1, view: view() });
  const before = t.idle;
  t.p.handle(ev(2));
  let done = false;
  t.p.whenIdle().then(() => (done = true));
  await t.clock.advance(SPEEDS.fast.play - 1);
  assert.equal(done, false);
  await t.clock.advance(1);
  assert.equal(done, true);
  assert.ok(t.idle > before);
});

test("a restored table asks only for what it has not shown", () => {
  const t = make();
  t.p.setGame("g2", 41);
  t.p.hello();
  assert.deepEqual(t.sent[0], { type: "hello", game: "g2", since: 41 });
  t.p.handle(ev(43)); // a gap after the restored version: ask again
  assert.deepEqual(t.sent[2], { type: "hello", game: "g2", since: 41 });
});

test("malformed messages change nothing", async () => {
  const t = make({ pauseKind: null });
  t.p.handle({ type: "state", version: 1, view: view() });
  for (const m of [null, {}, { type: 5 }, { type: "event", version: "2" }, { type: "event", version: 2 }, { type: "state" }, { type: "nonsense" }]) {
    t.p.handle(m);
  }
  await t.clock.advance(10);
  assert.equal(t.p.latest, 1);
  assert.deepEqual(t.shown, []);
});
