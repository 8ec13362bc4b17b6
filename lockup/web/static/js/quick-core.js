// @ts-check
// Quick play ("Play people") on the page's side, without a DOM: what the answer of
// POST /api/quickplay asks the page to do, where its invite leads, and the waiting
// table's words (who is coming, the countdown to the computers). quick.js and room.js
// draw them; tests/js/quick.test.js checks them in Node.

/**
 * @typedef {object} QuickSeat a seat of the `room` frame, as far as quick play looks
 * @property {number} seat
 * @property {string | null} name
 * @property {"person" | "computer" | "empty"} kind
 * @property {boolean} [pending] a person seated whose page has not opened the table yet
 */

/**
 * @typedef {object} QuickRoom what quick play reads of a `room` frame's room
 * @property {string} status
 * @property {QuickSeat[]} seats
 * @property {Record<string, any>} options
 * @property {number | null} [starts_in] seconds until the start as the frame was sent
 */

/** Whether a room is a quick-play table. @param {{options?: Record<string, any>} | null | undefined} room */
export const isQuick = (room) => !!(room && room.options && room.options.quick === true);

/**
 * What the page does with the answer of `POST /api/quickplay`: go to the table, ask the
 * person's name (400 `name-needed`), or say what went wrong.
 * @param {number} status @param {any} data
 * @returns {{go: string} | {ask: true} | {error: string}}
 */
export function quickAnswer(status, data) {
  const body = data && typeof data === "object" ? data : {};
  if (status === 200 && typeof body.invite === "string") {
    const href = inviteHref(body.invite);
    if (href) return { go: href };
    return { error: "bad-message" };
  }
  if (status === 400 && body.error === "name-needed") return { ask: true };
  if (status === 0) return { error: "offline" };
  if (status === 429) return { error: typeof body.error === "string" ? body.error : "rate-limited" };
  return { error: typeof body.error === "string" ? body.error : "other" };
}

/**
 * The page's own address of an invite link (`/room/ID?invite=KEY`): its path and query
 * only, so the page stays on the origin it was opened from (a proxy may name the server
 * otherwise). Null for anything that is not an invite link.
 * @param {string} invite
 */
export function inviteHref(invite) {
  let url;
  try {
    url = new URL(invite, "http://page.invalid");
  } catch {
    return null;
  }
  if (!/^\/room\/[A-Za-z0-9_-]{1,64}$/.test(url.pathname)) return null;
  const key = url.searchParams.get("invite");
  if (!key || !/^[A-Za-z0-9_-]{1,128}$/.test(key)) return null;
  return `${url.pathname}?invite=${encodeURIComponent(key)}`;
}

/**
 * When a quick table starts on the page's clock (ms), from a snapshot's `starts_in` and
 * the moment it arrived; null when the snapshot has none (a table under way).
 * @param {QuickRoom} room @param {number} now ms
 */
export function startsAt(room, now) {
  const s = room.starts_in;
  if (room.status !== "open" || typeof s !== "number" || !Number.isFinite(s)) return null;
  return now + Math.max(0, s) * 1000;
}

/** Whole seconds until `at` (0 when it has come). @param {number} at @param {number} now */
export const secondsTo = (at, now) => Math.max(0, Math.ceil((at - now) / 1000 - 1e-9));

/**
 * Who is at a waiting quick table: the people here (names, in seat order) and how many
 * seats are still open: empty, or given to a person whose page has not opened the table
 * yet (pending: a computer's at the start unless they come).
 * @param {QuickSeat[]} seats
 */
export function coming(seats) {
  const people = seats.filter((s) => s.kind === "person" && !s.pending);
  const open = seats.filter((s) => s.kind === "empty" || (s.kind === "person" && s.pending));
  return { names: people.map((s) => s.name || ""), people: people.length, empty: open.length };
}

/**
 * The countdown's words as an i18n key and its parameters: "Computers take the empty
 * seats in 14 s" (one or more seats), "Starting…" once the time has come, "Everyone is
 * here" when no seat is empty.
 * @param {number} empty seats still empty @param {number} seconds left
 * @returns {{key: string, n?: number}}
 */
export function countdownWords(empty, seconds) {
  if (empty <= 0) return { key: "quick.full" };
  if (seconds <= 0) return { key: "quick.starting" };
  return { key: empty === 1 ? "quick.countdownOne" : "quick.countdown", n: seconds };
}
