// @ts-check
// The page's view of docs/web-protocol.md, as JSDoc types (checked by `tsc --checkJs`).
// This module holds no code; other modules import its types with import("./types.js").

/** @typedef {string} CardCode a record code: rank letter and suit letter ("QD", "TD") */

/**
 * @typedef {object} Rules
 * @property {number} target
 * @property {string} picture_exception "same-rank" | "any-club"
 * @property {string} lock_discards "per-trick" | "upfront"
 */

/** @typedef {{seat: number, card: CardCode}} Play */

/**
 * @typedef {object} LastTrick
 * @property {number} number
 * @property {number} leader
 * @property {Play[]} plays
 * @property {number | null} winner
 * @property {number} clubs
 * @property {number} lock
 */

/**
 * @typedef {object} HandSummary
 * @property {number} number
 * @property {number[]} points
 * @property {number[]} totals
 * @property {number[]} times_locked
 * @property {number[]} tricks_sat_out
 * @property {CardCode[][]} lost
 * @property {number} [empty_tricks]
 */

/**
 * @typedef {object} View a seat's view (lockup.engine.SeatView.to_dict())
 * @property {number} seat
 * @property {Rules} rules
 * @property {"deal" | "discard" | "play" | "over"} phase
 * @property {number} hand_number
 * @property {number} dealer
 * @property {number} trick_number
 * @property {number | null} turn
 * @property {number | null} leader
 * @property {number | null} discard_due
 * @property {CardCode[]} hand
 * @property {CardCode[]} legal
 * @property {Play[]} trick
 * @property {LastTrick | null} last_trick
 * @property {number[]} hand_sizes
 * @property {number[]} locks
 * @property {CardCode[][]} lost
 * @property {number[]} tricks
 * @property {number[]} times_locked
 * @property {number[]} tricks_sat_out
 * @property {number[]} totals
 * @property {HandSummary[]} summaries
 * @property {number | null} winner
 * @property {string[][]} voids
 */

/**
 * @typedef {{kind: "deal", hand: number, dealer: number}
 *   | {kind: "play", seat: number, card: CardCode}
 *   | {kind: "discard", seat: number, card: CardCode}
 *   | {kind: "trick", winner: number | null, clubs: number, lock: number}
 *   | {kind: "hand", summary: HandSummary}
 *   | {kind: "over", winner: number}} GameEvent
 */

/** @typedef {{kind: "human" | "bot", level: string | null}} SeatInfo */

/**
 * @typedef {object} StateMessage
 * @property {"state"} type
 * @property {number} version
 * @property {string[]} [players]
 * @property {SeatInfo[]} [seats]
 * @property {View} view
 */

/**
 * @typedef {object} EventMessage
 * @property {"event"} type
 * @property {number} version
 * @property {GameEvent} event
 * @property {View} view
 */

/**
 * @typedef {object} ErrorMessage
 * @property {"error"} type
 * @property {string} code
 * @property {string | null} [rule]
 * @property {string} [reason]
 * @property {Record<string, any>} [params]
 * @property {number | null} [version]
 */

/**
 * @typedef {object} HintMessage
 * @property {"hint"} type
 * @property {number} version
 * @property {{card: CardCode, value: number}[]} values
 * @property {CardCode | null} best
 * @property {string} unit
 */

/** @typedef {StateMessage | EventMessage | ErrorMessage | HintMessage | {type: "pong"}} ServerMessage */

/**
 * @typedef {{type: "hello", game: string, since: number}
 *   | {type: "play", card: CardCode, version: number}
 *   | {type: "hint", version: number}
 *   | {type: "ping"}} ClientMessage
 */

/** @typedef {{game: string, seat?: number, version?: number, level?: string}} GameInfo answer of GET /api/game */

/**
 * @typedef {object} Options answer of GET /api/options
 * @property {string[]} levels
 * @property {string} default_level
 * @property {{target: {default: number, choices: number[]},
 *   picture_exception: {default: string, choices: string[]},
 *   lock_discards: {default: string, choices: string[]}}} rules
 */

export {};
