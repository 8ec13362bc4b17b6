// @ts-check
// The page's view of docs/web-protocol.md, as JSDoc types (checked by `tsc --checkJs`).
// GENERATED from the TypedDicts of lockup/server/protocol/wire.py by scripts/gen_types.py:
// do not edit; change wire.py and run `python scripts/gen_types.py`
// (tests/test_protocol_types.py checks that this file is what it generates).
// This module holds no code; other modules import its types with import("./types.js").

/** @typedef {string} CardCode A record code: rank letter and suit letter (`"QD"`, `"TD"`). */

/** @typedef {"deal" | "discard" | "play" | "over"} Phase */

/**
 * @typedef {object} Rules A game's rule options (`Rules.to_dict()`).
 * @property {number} target
 * @property {string} picture_exception
 * @property {string} lock_discards
 */

/**
 * @typedef {object} Play One card of a trick, or of the table.
 * @property {number} seat
 * @property {CardCode} card
 */

/**
 * @typedef {object} LastTrick The last completed trick of the hand.
 * @property {number} number
 * @property {number | null} leader
 * @property {Play[]} plays
 * @property {number | null} winner
 * @property {number} clubs
 * @property {number} lock
 */

/**
 * @typedef {object} HandSummary A finished hand (`engine.HandSummary.to_dict()`).
 * @property {number} number
 * @property {number} dealer
 * @property {number[]} points
 * @property {number[]} totals
 * @property {number[]} times_locked
 * @property {number[]} tricks_sat_out
 * @property {CardCode[][]} lost
 * @property {number} empty_tricks
 */

/**
 * @typedef {object} PublicView What everyone may know of a game: the fields every seat's view shares.
 * @property {Rules} rules
 * @property {Phase} phase
 * @property {number} hand_number
 * @property {number} dealer
 * @property {number} trick_number
 * @property {number | null} turn
 * @property {number | null} leader
 * @property {number | null} discard_due
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
 * @typedef {object} View A seat's view (`SeatView.to_dict()`), or a spectator's (`seat` None, no `hand`, no `legal`): the public fields and the viewer's own cards.
 * @property {Rules} rules
 * @property {Phase} phase
 * @property {number} hand_number
 * @property {number} dealer
 * @property {number} trick_number
 * @property {number | null} turn
 * @property {number | null} leader
 * @property {number | null} discard_due
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
 * @property {number | null} seat
 * @property {CardCode[]} hand
 * @property {CardCode[]} legal
 */

/**
 * @typedef {object} SeatInfo Who plays a seat (`Seat.public()`): never their token.
 * @property {"human" | "bot"} kind
 * @property {string | null} level
 * @property {boolean} away
 */

/**
 * @typedef {object} Clock A person's turn timer: the seat, seconds left, the limit.
 * @property {number} seat
 * @property {number} seconds
 * @property {number} limit
 */

/**
 * @typedef {object} DealEvent
 * @property {"deal"} kind
 * @property {number} hand
 * @property {number} dealer
 */

/**
 * @typedef {object} PlayEvent
 * @property {"play"} kind
 * @property {number} seat
 * @property {CardCode} card
 * @property {"computer"} [by] Present when a computer played for a person.
 */

/**
 * @typedef {object} DiscardEvent
 * @property {"discard"} kind
 * @property {number} seat
 * @property {CardCode} card
 */

/**
 * @typedef {object} TrickEvent
 * @property {"trick"} kind
 * @property {number | null} winner
 * @property {number} clubs
 * @property {number} lock
 */

/**
 * @typedef {object} HandEvent
 * @property {"hand"} kind
 * @property {HandSummary} summary
 */

/**
 * @typedef {object} OverEvent
 * @property {"over"} kind
 * @property {number} winner
 */

/**
 * @typedef {object} ChatEvent
 * @property {"chat"} kind
 * @property {number} seat
 * @property {string} text
 */

/**
 * @typedef {object} ReactEvent
 * @property {"react"} kind
 * @property {number} seat
 * @property {string} reaction
 */

/**
 * @typedef {object} AwayEvent A computer takes over a person's seat (`takeover`), or the person takes it back (`reclaim`); `level`: the computer's.
 * @property {"takeover" | "reclaim"} kind
 * @property {number} seat
 * @property {string | null} level
 */

/**
 * @typedef {object} SeatEvent A computer takes a removed person's seat for good.
 * @property {"seat"} kind
 * @property {number} seat
 * @property {"computer"} by
 * @property {string} name
 */

/**
 * @typedef {object} AbandonEvent The person at `seat` abandoned it, for good (the computer plays it to the end of the game): `why` `timeouts` (their turn timer ran out too often), `gone` (gone the whole grace at a rated table) or `left` (they left the game).
 * @property {"abandon"} kind
 * @property {number} seat
 * @property {"timeouts" | "gone" | "left"} why
 */

/** @typedef {DealEvent | PlayEvent | DiscardEvent | TrickEvent | HandEvent | OverEvent} MoveEvent The events a move makes (a deal, a card, a lockup discard and what they end). */

/** @typedef {ChatEvent | ReactEvent | AwayEvent | SeatEvent | AbandonEvent} NoteEvent The events that are not moves (rooms). */

/** @typedef {MoveEvent | NoteEvent} GameEvent */

/**
 * @typedef {object} StateMessage
 * @property {"state"} type
 * @property {number} version
 * @property {string[]} players
 * @property {SeatInfo[]} seats
 * @property {View} view
 * @property {Clock} [clock]
 */

/**
 * @typedef {object} EventMessage
 * @property {"event"} type
 * @property {number} version
 * @property {GameEvent} event
 * @property {View} view
 */

/**
 * @typedef {object} SkipMessage An event this viewer may not see: its version only.
 * @property {"skip"} type
 * @property {number} version
 */

/**
 * @typedef {object} ErrorMessage A refusal: `code` one of `lockup.refusals.server_codes`.
 * @property {"error"} type
 * @property {string} code
 * @property {string | null} rule
 * @property {string} reason
 * @property {Record<string, any>} params
 * @property {number | null} version
 */

/**
 * @typedef {object} HintValue
 * @property {CardCode} card
 * @property {number} value
 */

/**
 * @typedef {object} HintMessage
 * @property {"hint"} type
 * @property {number} version
 * @property {HintValue[]} values
 * @property {CardCode | null} best
 * @property {"tricks"} unit
 */

/**
 * @typedef {object} PongMessage
 * @property {"pong"} type
 */

/**
 * @typedef {object} SyncedMessage
 * @property {"synced"} type
 * @property {number} version
 */

/**
 * @typedef {object} NoticeMessage A passing fault (`relay-down`), or None once it ended.
 * @property {"notice"} type
 * @property {"relay-down" | null} notice
 */

/**
 * @typedef {object} ClockMessage
 * @property {"clock"} type
 * @property {number} version
 * @property {Clock | null} clock
 */

/**
 * @typedef {object} RoomSeat A seat of a room as its pages see it; `pending`: a quick-play seat given to a person whose page has not opened the table yet (it counts once it has, and is a computer's if it has not by the start).
 * @property {number} seat
 * @property {string | null} name
 * @property {string} level
 * @property {number | null} takeover_in
 * @property {"person" | "computer" | "empty"} kind
 * @property {boolean} connected
 * @property {boolean} away
 * @property {boolean} pending
 */

/**
 * @typedef {object} RoomOptions A room's options (`RoomOptions.to_dict()`).
 * @property {number} target
 * @property {string} picture_exception
 * @property {string} lock_discards
 * @property {string[]} levels
 * @property {number} grace
 * @property {number} turn_timer
 * @property {boolean} public
 * @property {boolean} rated
 * @property {boolean} quick
 */

/**
 * @typedef {object} RoomSnapshot A room as one viewer may see it: its links only for the people seated.
 * @property {string} id
 * @property {"open" | "playing" | "over" | "closed"} status
 * @property {number | null} host
 * @property {number | null} you
 * @property {RoomSeat[]} seats
 * @property {number} watchers
 * @property {RoomOptions} options
 * @property {string | null} game
 * @property {number[]} rematch
 * @property {number[]} rematch_waiting
 * @property {number | null} starts_in A quick-play table still open: seconds until its game starts, as of the moment the snapshot was sent; null otherwise.
 * @property {number[]} left The seats of the room's game (under way, or the one just over) whose person abandoned it: a computer played them on, and they rank last in it.
 * @property {string} [invite]
 * @property {string} [watch]
 */

/**
 * @typedef {object} RoomMessage
 * @property {"room"} type
 * @property {RoomSnapshot} room
 */

/** @typedef {StateMessage | EventMessage | SkipMessage | ErrorMessage | HintMessage | PongMessage | SyncedMessage | NoticeMessage | ClockMessage | RoomMessage} ServerMessage Every frame the server sends on `/ws`. */

/**
 * @typedef {object} HelloMessage
 * @property {"hello"} type
 * @property {string | null} [game]
 * @property {number} [since]
 * @property {string | null} [room]
 * @property {string | null} [watch]
 */

/**
 * @typedef {object} PlayMessage
 * @property {"play"} type
 * @property {CardCode} card
 * @property {number} version
 */

/**
 * @typedef {object} HintRequest
 * @property {"hint"} type
 * @property {number} version
 */

/**
 * @typedef {object} PingMessage
 * @property {"ping"} type
 */

/**
 * @typedef {object} ChatMessage
 * @property {"chat"} type
 * @property {string} text
 */

/**
 * @typedef {object} ReactMessage
 * @property {"react"} type
 * @property {string} reaction
 */

/**
 * @typedef {object} StartMessage
 * @property {"start"} type
 */

/**
 * @typedef {object} RematchMessage
 * @property {"rematch"} type
 */

/**
 * @typedef {object} RemoveMessage
 * @property {"remove"} type
 * @property {number} seat
 */

/** @typedef {HelloMessage | PlayMessage | HintRequest | PingMessage | ChatMessage | ReactMessage | StartMessage | RematchMessage | RemoveMessage} ClientMessage Every message a page sends, as JSON (`parse_client` makes a `ClientMessage` of it). */

/**
 * @typedef {object} GameInfo The answer of `GET /api/game` and `POST /api/games`.
 * @property {string} game
 * @property {number | null} seat
 * @property {number} version
 * @property {string | null} level
 */

/**
 * @typedef {object} QuickPlayAnswer The answer of `POST /api/quickplay`: the quick table and seat the person now has, the table's invite link (the room page; they sit there already), and seconds until its game starts (0: started).
 * @property {string} room
 * @property {number} seat
 * @property {string} invite
 * @property {number} starts_in
 */

/**
 * @typedef {object} ApiError The body of a refused HTTP request: `error` one of `lockup.refusals.server_codes`.
 * @property {string} error
 * @property {string} reason
 * @property {Record<string, any>} [params]
 */

/**
 * @typedef {object} TargetChoice
 * @property {number} default
 * @property {number[]} choices
 */

/**
 * @typedef {object} NameChoice
 * @property {string} default
 * @property {string[]} choices
 */

/**
 * @typedef {object} RuleChoices
 * @property {TargetChoice} target
 * @property {NameChoice} picture_exception
 * @property {NameChoice} lock_discards
 */

/**
 * @typedef {object} SecondsRange Seconds a room option may be: `min` to `max`, `off` when 0 turns it off.
 * @property {number} default
 * @property {number} min
 * @property {number} max
 * @property {boolean} off
 */

/**
 * @typedef {object} RoomLimits The limits of rooms the page must know: the reactions, the longest chat line and name, the grace period's and the turn timer's ranges.
 * @property {string[]} reactions
 * @property {number} max_chat
 * @property {number} max_name
 * @property {SecondsRange} grace
 * @property {SecondsRange} turn_timer
 */

/**
 * @typedef {object} Options The answer of `GET /api/options`.
 * @property {string[]} levels
 * @property {string} default_level
 * @property {RuleChoices} rules
 * @property {RoomLimits} room
 */

/**
 * @typedef {object} LeaderboardEntry A row of `GET /api/leaderboard`: a person (by their account's name, never their token; listed once past their provisional games) or a computer level; `rating` is the number shown (`mu - 3 sigma`, docs/ratings.md).
 * @property {number} rank
 * @property {string | null} name
 * @property {number} rating
 * @property {number} mu
 * @property {number} sigma
 * @property {number} games
 * @property {"person" | "computer"} kind
 * @property {string} [level]
 * @property {boolean} you
 */

/**
 * @typedef {object} Leaderboard The answer of `GET /api/leaderboard`; `min_games`: the rated games a person needs to be listed (their rating is provisional before).
 * @property {LeaderboardEntry[]} players
 * @property {number} min_games
 */

/**
 * @typedef {object} RatingChange A rated game the player sat at (`GET /api/ratings/me`): the shown rating before and after it and the change; `abandoned`: they abandoned or left it and were ranked last; all None when they sat out (`rated` false: a game rated before leaving counted).
 * @property {string} game
 * @property {string} date
 * @property {number} seat
 * @property {boolean} rated
 * @property {boolean} sat_out
 * @property {boolean} abandoned
 * @property {number | null} before
 * @property {number | null} after
 * @property {number | null} change
 * @property {number | null} mu
 * @property {number | null} sigma
 */

/**
 * @typedef {object} MyRating The answer of `GET /api/ratings/me`: the player's rating now (None before their first rated game), their rank on the leaderboard (None while `provisional`: fewer than `min_games` rated games), whether they play as a `guest` (no account: never rated), and their rated games, oldest first.
 * @property {number | null} rating
 * @property {number | null} mu
 * @property {number | null} sigma
 * @property {number} games
 * @property {number | null} rank
 * @property {boolean} provisional
 * @property {boolean} guest
 * @property {number} min_games
 * @property {RatingChange[]} history
 */

/**
 * @typedef {object} GameRating The answer of `GET /api/ratings/game/{id}` for a player who sat at the game: whether it rates them (`rated`; once over, `done` when the change is stored) or `why` not (`guest`, `unrated`, `no-room`, `rematch`, `shared`, `few-accounts`); `last`: they abandoned it and rank last; the shown rating `before` and `after` and the `change` once done; `provisional`: their rating is still provisional.
 * @property {string} game
 * @property {number} seat
 * @property {boolean} rated
 * @property {string | null} why
 * @property {boolean} done
 * @property {boolean} last
 * @property {number | null} before
 * @property {number | null} after
 * @property {number | null} change
 * @property {boolean} provisional
 */

export {};
