// @ts-check
// Rooms on the page's side, without a DOM: the link the page was opened with, the options
// a "Play with friends" form sends, the turn timer's countdown, who asked for a rematch.
// room.js draws them; tests/js/room.test.js checks them in Node.

/** The quick reactions the server accepts (docs/web-protocol.md, "Rooms"). */
export const REACTIONS = ["👍", "👏", "😮", "😂", "😬", "🙏"];
/** Turn timer choices in seconds (0: off). */
export const TIMERS = [0, 15, 30, 60];
/** Grace period choices in seconds (the server's default is 45). */
export const GRACES = [15, 45, 120, 300];
export const MAX_CHAT = 200;
export const MAX_NAME = 24;
/** The turn timeouts in one game after which a person has abandoned their seat (the server's ABANDON_AFTER). */
export const ABANDON_AFTER = 3;
/** Why a person abandoned their seat (an `abandon` event's `why`). */
export const ABANDON_WHYS = ["timeouts", "gone", "left"];

/**
 * @typedef {object} RoomLink what the page's address asks for
 * @property {"room" | "watch" | "lobby"} kind
 * @property {string} [id]
 * @property {string | null} [key] the invite key (room) or the watch key (watch)
 */

/**
 * The room link the page was opened with (`/room/{id}?invite=KEY`, `/watch/{id}?key=KEY`,
 * `/lobby`), or null for the solo table.
 * @param {string} pathname @param {string} search
 * @returns {RoomLink | null}
 */
export function parseRoomLink(pathname, search) {
  const q = new URLSearchParams(search);
  if (/^\/lobby\/?$/.test(pathname)) return { kind: "lobby" };
  const m = /^\/(room|watch)\/([A-Za-z0-9_-]{1,64})\/?$/.exec(pathname);
  if (!m) return null;
  const kind = m[1] === "room" ? "room" : "watch";
  return { kind, id: m[2], key: q.get(kind === "room" ? "invite" : "key") };
}

/**
 * The body of `POST /api/rooms` from the form's fields: a computer level for each of the
 * three other seats (used by the seats still empty at the start).
 * @param {{name?: string, target: number, picture_exception: string, lock_discards: string,
 *   levels: string[], grace: number, turn_timer: number, public: boolean, rated?: boolean}} f
 */
export function roomOptions(f) {
  /** @type {Record<string, any>} */
  const body = {
    target: f.target,
    picture_exception: f.picture_exception,
    lock_discards: f.lock_discards,
    levels: f.levels.slice(0, 3),
    grace: f.grace,
    turn_timer: f.turn_timer,
    public: f.public,
    rated: Boolean(f.rated),
  };
  const name = (f.name || "").trim().slice(0, MAX_NAME);
  if (name) body.name = name;
  return body;
}

/**
 * @typedef {object} Clock a person's turn timer on the page
 * @property {number} seat
 * @property {number} version the version it started at
 * @property {number} limit seconds
 * @property {number} deadline the page's clock (ms) when it runs out
 * @property {boolean} [warned] the person was told their time is running out
 */

/**
 * A `clock` frame (or a state's `clock`) as the page keeps it.
 * @param {{seat: number, seconds: number, limit: number}} c @param {number} version @param {number} now ms
 * @returns {Clock | null}
 */
export function clockOf(c, version, now) {
  if (!c || typeof c.seat !== "number" || typeof c.seconds !== "number") return null;
  return { seat: c.seat, version, limit: c.limit, deadline: now + c.seconds * 1000 };
}

/** Whole seconds left (0 when run out). @param {Clock} c @param {number} now */
export const secondsLeft = (c, now) => Math.max(0, Math.ceil((c.deadline - now) / 1000));

/**
 * Whether an event ends the clock: a card from its seat (by the person or the computer),
 * or a new hand or the end.
 * @param {Clock | null} c @param {{version: number, event: any}} msg
 */
export function endsClock(c, msg) {
  if (!c || msg.version <= c.version) return false;
  const ev = msg.event || {};
  if (ev.kind === "play") return ev.seat === c.seat;
  return ev.kind === "deal" || ev.kind === "hand" || ev.kind === "over" || ev.kind === "seat" || (ev.kind === "abandon" && ev.seat === c.seat);
}

/**
 * What the page says of an `abandon` event (a person gave up their seat for good, the
 * computer plays it): the words' key and parameters, and the key of the sentence that
 * says it counts as a loss ("" when it does not: an unrated table). `mine`: the page's
 * own person; `rated`: a rated table (leaving a game is only possible at one).
 * @param {{seat: number, why?: string}} ev @param {boolean} mine @param {string} name @param {boolean} rated
 * @returns {{why: string, key: string, params: Record<string, any>, loss: string}}
 */
export function abandonWords(ev, mine, name, rated) {
  const why = ABANDON_WHYS.includes(String(ev.why)) ? String(ev.why) : "left";
  const loss = why === "left" ? "room.lossLeft" : rated ? "room.loss" : "";
  return { why, key: `room.${mine ? "abandonedYou" : "abandoned"}.${why}`, params: { name, n: ABANDON_AFTER }, loss };
}

/** A chat line as it is sent: trimmed, control characters out, at most MAX_CHAT. @param {string} text */
export function chatText(text) {
  // eslint-disable-next-line no-control-regex
  return String(text).replace(/[\u0000-\u001f\u007f]/g, " ").trim().slice(0, MAX_CHAT);
}

/**
 * The free seats of a room (a seat list of the `room` frame).
 * @param {{seat: number, kind: string}[]} seats
 */
export const freeSeats = (seats) => seats.filter((s) => s.kind === "empty").map((s) => s.seat);
