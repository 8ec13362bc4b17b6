// @ts-check
// What the page knows (the state) and what it derives from it (selectors). No DOM here.

/** @typedef {import("./types.js").View} View */
/** @typedef {import("./types.js").Play} Play */
/** @typedef {import("./types.js").HandSummary} HandSummary */
/** @typedef {import("./types.js").SeatInfo} SeatInfo */
/** @typedef {import("./types.js").Options} Options */

export const POSITIONS = ["bottom", "left", "top", "right"];
export const DEFAULT_PLAYERS = ["You", "Þóra", "Leifur", "Vigdís"];

/** The options the page offers when the server does not list them (GET /api/options). */
export const FALLBACK_OPTIONS = /** @type {Options} */ ({
  levels: ["random", "easy", "normal", "expert"],
  default_level: "normal",
  rules: {
    target: { default: 20, choices: [10, 15, 20, 25, 30, 35, 40, 45, 50] },
    picture_exception: { default: "same-rank", choices: ["same-rank", "any-club"] },
    lock_discards: { default: "per-trick", choices: ["per-trick", "upfront"] },
  },
});

/**
 * @typedef {object} TrickDone a completed trick still on the table
 * @property {number} number
 * @property {number | null} winner
 * @property {number} lock
 */

/**
 * @typedef {object} PageState
 * @property {string | null} game
 * @property {number} seat our seat
 * @property {string[]} players
 * @property {SeatInfo[] | null} seats
 * @property {string | null} level the game's bot level
 * @property {View | null} view the seat view on screen
 * @property {Play[]} middle the cards on the table
 * @property {TrickDone | null} trickDone the completed trick shown, until it is swept
 * @property {boolean} lastEmpty
 * @property {import("./types.js").HintMessage | null} hint
 * @property {boolean} hintAsked
 * @property {number} focus index of the hand card that holds the tab stop
 * @property {string | null} pending the card sent, awaiting its event or error
 * @property {{card: string, key: string, offline: boolean} | null} queued a card chosen before the table was ready
 * @property {HandSummary | null} summary the hand summary open (or to reopen after a reload)
 * @property {number | null} overPending
 * @property {{game: string | null, seats: number[]}} left the seats of a room's game whose person
 *   abandoned it (they rank last in it)
 * @property {string} speed
 * @property {boolean} fourColour
 * @property {boolean} sound
 * @property {boolean} connected
 * @property {boolean} lost the connection dropped and has not come back yet
 * @property {"lost" | "restarting" | "paused" | "relay" | "full" | null} fault what the page says
 *   is wrong until its game arrives again: the connection dropped, the server restarts,
 *   saving is paused (the database is down), the table is out of reach (another process
 *   plays it), the server is full (it carries as many players as it may)
 * @property {boolean} busy events are being shown
 * @property {Options} options
 * @property {boolean} lastTrickPinned
 * @property {boolean} lastTrickHover
 * @property {Set<string>} byComputer our cards that a computer played for us (a room: we were away or out of time)
 */

/** @returns {PageState} */
export function createState() {
  return {
    game: null,
    seat: 0,
    players: DEFAULT_PLAYERS.slice(),
    seats: null,
    level: null,
    view: null,
    middle: [],
    trickDone: null,
    lastEmpty: false,
    hint: null,
    hintAsked: false,
    focus: 0,
    pending: null,
    queued: null,
    summary: null,
    overPending: null,
    left: { game: null, seats: [] },
    speed: "normal",
    fourColour: false,
    sound: false,
    connected: false,
    lost: false,
    fault: null,
    busy: false,
    options: FALLBACK_OPTIONS,
    lastTrickPinned: false,
    lastTrickHover: false,
    byComputer: new Set(),
  };
}

/** The seats of the game on screen whose person abandoned it. @param {PageState} s */
export const leftSeats = (s) => (s.left.game != null && s.left.game === s.game ? s.left.seats : []);

/** The one state of the page. */
export const S = createState();

/** @param {PageState} s @param {number} seat */
export const posOf = (s, seat) => POSITIONS[(seat - s.seat + 4) % 4];

/** @param {View | null} v */
export const isPlaying = (v) => !!v && (v.phase === "play" || v.phase === "discard");

/** @param {PageState} s */
export const isMyTurn = (s) => !!s.view && s.view.phase === "play" && s.view.turn === s.seat;

/** Our turn and nothing left to show: the player may act. @param {PageState} s */
export const canAct = (s) => isMyTurn(s) && !s.busy && !s.summary;

/** A seat's game total including the tricks of the hand under way. @param {View | null} v @param {number} seat */
export function runningTotal(v, seat) {
  if (!v) return 0;
  return v.totals[seat] + (isPlaying(v) ? v.tricks[seat] : 0);
}

/** The trick number on screen (1-based): the completed trick while it is still on the table. @param {PageState} s */
export function shownTrick(s) {
  const v = s.view;
  if (!v) return 0;
  if (s.trickDone) return s.trickDone.number + 1;
  return Math.min(v.trick_number + 1, 13);
}

/**
 * A key of the trick on screen: a card chosen early is played only in the trick the
 * player saw (a completed trick still on the table is not the next one).
 * @param {PageState} s
 */
export function trickKey(s) {
  const v = s.view;
  return v ? `${s.game}:${v.hand_number}:${shownTrick(s)}` : "";
}

/**
 * Game totals of locks and lost cards per seat: the finished hands and the one under way.
 * @param {View | null} v
 * @returns {{locked: number[], lost: number[]}}
 */
export function gameLocks(v) {
  const locked = [0, 0, 0, 0];
  const lost = [0, 0, 0, 0];
  if (!v) return { locked, lost };
  for (const h of v.summaries) {
    for (let i = 0; i < 4; i++) {
      locked[i] += h.times_locked[i];
      lost[i] += h.lost[i].length;
    }
  }
  if (isPlaying(v)) {
    for (let i = 0; i < 4; i++) {
      locked[i] += v.times_locked[i];
      lost[i] += v.lost[i].length;
    }
  }
  return { locked, lost };
}

/**
 * Places for the final table: equal totals share a place (1, 2, 2, 4), the winner first;
 * a seat whose person abandoned the game (``left``) ranks after every other, whatever its
 * points, as the ratings rank it (docs/ratings.md).
 * @param {number[]} totals
 * @param {number | null} winner
 * @param {number[]} [left]
 * @returns {{seat: number, total: number, place: number, left: boolean}[]}
 */
export function standings(totals, winner, left = []) {
  const gone = (/** @type {number} */ s) => (left.includes(s) ? 1 : 0);
  const ahead = (/** @type {number} */ a, /** @type {number} */ b) => gone(a) < gone(b) || (gone(a) === gone(b) && totals[a] > totals[b]);
  const order = [0, 1, 2, 3].sort(
    (a, b) => gone(a) - gone(b) || totals[b] - totals[a] || (b === winner ? 1 : 0) - (a === winner ? 1 : 0),
  );
  return order.map((seat) => ({
    seat,
    total: totals[seat],
    place: 1 + order.filter((o) => ahead(o, seat)).length,
    left: gone(seat) === 1,
  }));
}
