// Unit tests of the page's socket (lockup/web/static/js/connection.js), without a browser:
// a fake WebSocket and fake timers. The back-off must not start again on a socket that
// opens and closes before the page's game arrived (a server that cannot serve the game
// yet would otherwise be asked ~3 times a second by every page), and must once it did.
// Run with `node --test tests/js/`.

import assert from "node:assert/strict";
import { test } from "node:test";

/** Sockets made by the Connection, each driven by the test. */
const made = [];
class FakeSocket extends EventTarget {
  static OPEN = 1;
  constructor(url) {
    super();
    this.url = url;
    this.readyState = 0;
    made.push(this);
  }
  open() {
    this.readyState = 1;
    this.dispatchEvent(new Event("open"));
  }
  drop(code, reason = "") {
    this.readyState = 3;
    const e = new Event("close");
    e.code = code;
    e.reason = reason;
    this.dispatchEvent(e);
  }
  send() {}
  close() {}
}

/** Timers that run only when the test says; the delays asked are kept. */
const delays = [];
const pending = [];
globalThis.WebSocket = FakeSocket;
globalThis.location = { protocol: "http:", host: "127.0.0.1:8000" };
globalThis.setTimeout = (f, ms) => {
  delays.push(ms);
  pending.push(f);
  return pending.length;
};
globalThis.clearTimeout = () => {};
globalThis.setInterval = () => 0;
globalThis.clearInterval = () => {};

const { Connection } = await import("../../lockup/web/static/js/connection.js");

function runTimer() {
  const f = pending.shift();
  assert.ok(f, "a reconnection was scheduled");
  f();
}

test("a socket closed before the game arrived keeps backing off; one after it starts again", () => {
  const codes = [];
  const conn = new Connection({ onMessage() {}, onOpen() {}, onStatus: (s, code) => s === "closed" && codes.push(code) });
  conn.connect();
  // Five times the socket opens and is closed at once (1013: try later), with no game.
  for (let i = 0; i < 5; i++) {
    made.at(-1).open();
    made.at(-1).drop(1013);
    runTimer();
  }
  assert.equal(conn.attempts, 5);
  assert.deepEqual(codes, [1013, 1013, 1013, 1013, 1013]);
  // Each wait longer than the last (250 ms, 500, 1 s, then at most 2 s while the server
  // says saving is paused: it asks to be tried again soon), with ±20% jitter.
  const waits = delays.splice(0);
  for (let i = 1; i < 4; i++) assert.ok(waits[i] > waits[i - 1], `${waits}`);
  assert.ok(waits.at(-1) >= 1600 && waits.at(-1) <= 2400, `${waits}`);
  // Closed without a word (1006) the waits go on growing: 4 s, with jitter.
  made.at(-1).open();
  made.at(-1).drop(1006);
  assert.ok(delays.at(-1) >= 3200, `${delays}`);
  runTimer();
  // The game arrives on the next socket: the next drop waits the shortest time again.
  made.at(-1).open();
  conn.arrived();
  made.at(-1).drop(1012);
  assert.equal(codes.at(-1), 1012);
  assert.ok(delays.at(-1) <= 300, `${delays}`);
});

test("a server that says it is full (1013 server-full) is asked again in about half a minute", () => {
  const seen = [];
  const conn = new Connection({
    onMessage() {},
    onOpen() {},
    onStatus: (s, code, reason) => s === "closed" && seen.push([code, reason]),
  });
  delays.splice(0);
  conn.connect();
  made.at(-1).open();
  made.at(-1).drop(1013, "server-full");
  assert.deepEqual(seen, [[1013, "server-full"]]);
  // Not the 250 ms to 2 s of a paused save: the server asked for a minute.
  assert.ok(delays.at(-1) >= 24000 && delays.at(-1) <= 36000, `${delays}`);
  runTimer();
  // Saving paused (1013 without the reason) is asked again soon, as before.
  made.at(-1).open();
  made.at(-1).drop(1013);
  assert.ok(delays.at(-1) <= 2400, `${delays}`);
  conn.close();
});
