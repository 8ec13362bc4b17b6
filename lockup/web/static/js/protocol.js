// @ts-check
// The protocol of docs/web-protocol.md on the page's side, without a DOM: versions, gaps
// and resync, and the paced queue of events. The page gives it hooks (send a message,
// show one event, take a snapshot, show an error or a hint); tests/js drive it in Node.
//
// Events are shown one at a time, in version order; `show` may wait with `pause(kind)`
// (the speed setting; shortened while the player hurries the table, never skipped: every
// trick end is shown). A snapshot (`state`) cancels what is being shown.

/** @typedef {import("./types.js").ServerMessage} ServerMessage */
/** @typedef {import("./types.js").StateMessage} StateMessage */
/** @typedef {import("./types.js").EventMessage} EventMessage */
/** @typedef {import("./types.js").ErrorMessage} ErrorMessage */
/** @typedef {import("./types.js").HintMessage} HintMessage */
/** @typedef {import("./types.js").ClientMessage} ClientMessage */
/** @typedef {"play" | "trick" | "discard" | "deal" | "sweep"} PauseKind */
/** @typedef {Record<PauseKind, number>} Pauses */

/** Pauses in milliseconds: before a computer's card, after a trick, a discard, a deal. */
export const SPEEDS = /** @type {Record<string, Pauses>} */ ({
  slow: { play: 1500, trick: 2600, discard: 1000, deal: 900, sweep: 450 },
  normal: { play: 800, trick: 1500, discard: 600, deal: 500, sweep: 380 },
  fast: { play: 300, trick: 700, discard: 250, deal: 200, sweep: 260 },
  instant: { play: 0, trick: 0, discard: 0, deal: 0, sweep: 0 },
});

/** The longest pauses while the player hurries the table: quick, but every step is seen. */
export const HURRY = /** @type {Pauses} */ ({ play: 220, trick: 700, discard: 180, deal: 150, sweep: 200 });

/** How long a resync may go unanswered before another is allowed (an up-to-date page gets no answer). */
export const RESYNC_MS = 2000;

/**
 * @typedef {object} ProtocolHooks
 * @property {(msg: ClientMessage) => boolean} send send a message; false when not connected
 * @property {(msg: EventMessage, epoch: number) => Promise<void> | void} show show one event (may `await pause(...)`)
 * @property {(msg: StateMessage) => void} snapshot show a full snapshot
 * @property {(msg: ErrorMessage) => void} [error]
 * @property {(msg: HintMessage) => void} [hint]
 * @property {() => void} [idle] called when the queue is empty and nothing is being shown
 * @property {() => void} [change] called when busy/blocked changes
 * @property {() => void} [synced] called when the answer to a hello has fully arrived (the pong after it)
 * @property {{setTimeout: (f: () => void, ms: number) => any, clearTimeout: (id: any) => void}} [timers]
 * @property {() => number} [now] the clock for pauses (ms)
 */

/** @type {Record<string, (p: Protocol, msg: any) => void>} */
const HANDLERS = {
  state: (p, msg) => p.onState(msg),
  event: (p, msg) => p.onEvent(msg),
  error: (p, msg) => p.onError(msg),
  hint: (p, msg) => p.onHint(msg),
  pong: (p) => p.onPong(),
  skip: (p, msg) => p.onSkip(msg),
};

export class Protocol {
  /** @param {ProtocolHooks} hooks */
  constructor(hooks) {
    this.hooks = hooks;
    this.timers = hooks.timers || {
      setTimeout: (/** @type {() => void} */ f, /** @type {number} */ ms) => setTimeout(f, ms),
      clearTimeout: (/** @type {any} */ id) => clearTimeout(id),
    };
    /** @type {string | null} */
    this.game = null;
    /** @type {string | null} a room's table (hello names the room, not the game) */
    this.room = null;
    /** @type {string | null} the room's watch key, for a spectator */
    this.watch = null;
    /** last version received */
    this.latest = 0;
    /** version on screen */
    this.shown = 0;
    /** @type {EventMessage[]} events received, not yet shown */
    this.queue = [];
    this.pumping = false;
    /** a dialog holds the table (the hand summary): later events wait */
    this.blocked = false;
    /** bumped by a snapshot: cancels an event being shown */
    this.epoch = 0;
    this.resyncing = false;
    /** @type {any} */
    this.resyncTimer = null;
    /** @type {Pauses} */
    this.pauses = SPEEDS.normal;
    /** the player is waiting: pauses are shortened to HURRY */
    this.hurry = false;
    /** @type {(() => void) | null} */
    this.cancelPause = null;
    /** @type {{kind: PauseKind, start: number, id: any, done: () => void} | null} the pause under way */
    this.current = null;
    /** a hello was sent and its answer has not fully arrived */
    this.syncing = false;
    /** @type {(() => void)[]} */
    this.idleWaiters = [];
  }

  /** Events are waiting or one is being shown. */
  get busy() {
    return this.pumping || this.queue.length > 0;
  }

  /** @param {string} name a key of SPEEDS */
  setSpeed(name) {
    this.pauses = SPEEDS[name] || SPEEDS.normal;
  }

  /**
   * Follow a game from `since` (0: no view yet; a restored view's version after a reload).
   * @param {string | null} game
   * @param {number} [since]
   */
  setGame(game, since = 0) {
    this.game = game;
    this.latest = since;
    this.shown = since;
    this.queue.length = 0;
    this.epoch += 1;
    this.blocked = false;
    this.hurry = false;
    this.resyncing = false;
    this.syncing = false;
    if (this.cancelPause) this.cancelPause();
  }

  /**
   * Send hello with the last version received, then a ping: the server answers messages in
   * order, so its pong marks the end of the hello's answer (`synced`). False when there is no
   * game or no connection.
   */
  hello() {
    if (this.game == null && this.room == null) return false;
    /** @type {any} */
    const msg = this.room != null ? { type: "hello", room: this.room, since: this.latest } : { type: "hello", game: this.game, since: this.latest };
    if (this.room != null && this.watch != null) msg.watch = this.watch;
    if (!this.hooks.send(msg)) return false;
    this.syncing = true;
    this.hooks.send({ type: "ping" });
    return true;
  }

  onPong() {
    if (!this.syncing) return;
    this.syncing = false;
    if (this.hooks.synced) this.hooks.synced();
  }

  /** @param {ServerMessage | Record<string, any>} msg a message from the server */
  handle(msg) {
    const h = msg && typeof msg.type === "string" ? HANDLERS[msg.type] : undefined;
    if (h) h(this, msg);
  }

  /** @param {StateMessage} msg */
  onState(msg) {
    if (!msg.view || typeof msg.version !== "number") return;
    this.stopResync();
    this.epoch += 1;
    this.queue.length = 0;
    this.hurry = false;
    if (this.cancelPause) this.cancelPause();
    this.latest = msg.version;
    this.shown = msg.version;
    this.blocked = false;
    this.hooks.snapshot(msg);
    this.change();
    this.notifyIdle();
  }

  /** @param {EventMessage} msg */
  onEvent(msg) {
    if (typeof msg.version !== "number" || !msg.event || !msg.view) return;
    if (msg.version <= this.latest) return; // seen already
    if (msg.version > this.latest + 1) {
      this.resync(); // a gap: ask for what we missed
      return;
    }
    this.stopResync();
    this.latest = msg.version;
    this.queue.push(msg);
    this.pump();
  }

  /**
   * An event this viewer may not see (a room's chat, for a spectator): the version moves on,
   * nothing is shown; a gap asks again like an event's.
   * @param {{version: number}} msg
   */
  onSkip(msg) {
    if (typeof msg.version !== "number" || msg.version <= this.latest) return;
    if (msg.version > this.latest + 1) {
      this.resync();
      return;
    }
    this.stopResync();
    this.latest = msg.version;
  }

  /** Ask again from the last version received (once per RESYNC_MS at most). */
  resync() {
    if (this.resyncing || this.game == null) return;
    this.resyncing = true;
    this.resyncTimer = this.timers.setTimeout(() => {
      this.resyncing = false;
      this.resyncTimer = null;
    }, RESYNC_MS);
    this.hello();
  }

  stopResync() {
    this.resyncing = false;
    if (this.resyncTimer != null) this.timers.clearTimeout(this.resyncTimer);
    this.resyncTimer = null;
  }

  /** @param {ErrorMessage} msg */
  onError(msg) {
    if (msg.code === "stale") this.resync();
    if (this.hooks.error) this.hooks.error(msg);
  }

  /** @param {HintMessage} msg */
  onHint(msg) {
    if (this.hooks.hint) this.hooks.hint(msg);
  }

  /** Show the queued events, one at a time. */
  async pump() {
    if (this.pumping) return;
    this.pumping = true;
    this.change();
    try {
      while (this.queue.length && !this.blocked) {
        const msg = /** @type {EventMessage} */ (this.queue.shift());
        try {
          await this.hooks.show(msg, this.epoch);
        } catch (e) {
          console.error(e); // one bad event must not stop the table
        }
      }
    } finally {
      this.pumping = false;
      if (!this.queue.length) this.hurry = false;
      this.change();
      this.notifyIdle();
    }
  }

  /**
   * Wait the pause for `kind` (shorter while hurrying). Resolves true if the table is still
   * the same (no snapshot came meanwhile).
   * @param {PauseKind} kind
   * @returns {Promise<boolean>}
   */
  pause(kind) {
    const epoch = this.epoch;
    const ms = this.duration(kind);
    if (!ms) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = () => {
        if (this.current) this.timers.clearTimeout(this.current.id);
        if (this.current && this.current.done === done) this.current = null;
        if (this.cancelPause === done) this.cancelPause = null;
        resolve(epoch === this.epoch);
      };
      this.current = { kind, start: this.now(), id: this.timers.setTimeout(done, ms), done };
      this.cancelPause = done;
    });
  }

  /** How long a pause of `kind` lasts now (ms). @param {PauseKind} kind */
  duration(kind) {
    const ms = this.pauses[kind] || 0;
    return this.hurry ? Math.min(ms, HURRY[kind]) : ms;
  }

  now() {
    return this.hooks.now ? this.hooks.now() : Date.now();
  }

  /**
   * The player is waiting for the table: shorten the pauses until the queue is empty,
   * the one under way included (it still lasts HURRY[kind] in all).
   */
  hurryUp() {
    if (!this.busy) return;
    this.hurry = true;
    const cur = this.current;
    if (!cur) return;
    const left = Math.max(0, HURRY[cur.kind] - (this.now() - cur.start));
    this.timers.clearTimeout(cur.id);
    cur.id = this.timers.setTimeout(cur.done, left);
  }

  /** A dialog holds the table: events wait until `release()`. */
  block() {
    this.blocked = true;
    this.change();
  }

  release() {
    this.blocked = false;
    this.change();
    this.pump();
    this.notifyIdle();
  }

  /** Resolves when nothing is waiting to be shown (or the table is blocked). */
  whenIdle() {
    if (!this.busy || this.blocked) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(() => resolve(undefined)));
  }

  change() {
    if (this.hooks.change) this.hooks.change();
  }

  notifyIdle() {
    if (this.queue.length && !this.blocked) return;
    if (this.pumping) return;
    for (const f of this.idleWaiters.splice(0)) f();
    if (this.hooks.idle) this.hooks.idle();
  }
}
