// @ts-check
// The engine's refusals in words: the one catalogue (lockup/refusals.py), served by
// GET /api/refusals and loaded once at start. The same rules as the Python module pick a
// message's variant from the error's params and fill its {placeholders}; the Python
// module's docstring lists them. No DOM here.

/**
 * One language of the catalogue.
 * @typedef {object} RefusalLanguage
 * @property {Record<string, Record<string, string>>} messages code -> variant -> template
 * @property {{seats: string[], suits: Record<string, string>, ranks: Record<string, string>,
 *   index: Record<string, string>, card: string, or: string, comma: string}} words
 */
/** @typedef {Record<string, RefusalLanguage>} RefusalCatalogue */

/** @type {RefusalCatalogue | null} */
let catalogue = null;

const SUIT_OF_LETTER = /** @type {Record<string, string>} */ ({ C: "clubs", D: "diamonds", H: "hearts", S: "spades" });
const SYMBOL_OF_LETTER = /** @type {Record<string, string>} */ ({ C: "♣", D: "♦", H: "♥", S: "♠" });
const SEAT_PARAMS = ["seat", "other"];

/** The catalogue loaded, or null (not yet, or the server did not give it). */
export const refusalCatalogue = () => catalogue;

/** Use this catalogue (what loadRefusals does with the server's). @param {RefusalCatalogue | null} c */
export function setRefusalCatalogue(c) {
  catalogue = c;
}

/**
 * Load the catalogue from the server; false (and the server's English reason is shown
 * instead) if it cannot be had.
 * @param {string} [url]
 */
export async function loadRefusals(url = "/api/refusals") {
  try {
    const res = await fetch(url, { cache: "no-cache" });
    if (!res.ok) return false;
    catalogue = await res.json();
    return true;
  } catch {
    return false;
  }
}

/** @param {unknown} x */
const isSeat = (x) => typeof x === "number" && Number.isInteger(x) && x >= 0 && x <= 3;

/**
 * The variant of code's message that params call for (viewer: the seat reading it, for a
 * "you" variant): lockup.refusals.variant in JavaScript.
 * @param {RefusalLanguage} lang @param {string} code @param {Record<string, any>} params @param {number | null} [viewer]
 */
export function variant(lang, code, params, viewer = null) {
  const seat = params.seat;
  switch (code) {
    case "must-follow":
      return params.club ? "club" : "default";
    case "picture-rank":
      return Array.isArray(params.cards) && params.cards.length ? "default" : "none";
    case "not-your-turn":
      return isSeat(seat) ? "default" : "bare";
    case "discard-due":
      if (!isSeat(seat)) return "bare";
      return seat === viewer ? "you" : "default";
    case "locked": {
      const n = params.tricks;
      if (typeof n !== "number" || n <= 1) return "one";
      return n === 2 ? "two" : "more";
    }
    case "not-in-hand":
    case "bad-deal": {
      const known = Object.keys(lang.messages[code] || {});
      return typeof params.why === "string" && known.includes(params.why) ? params.why : known[0];
    }
    default:
      return "default";
  }
}

/** @param {unknown} code */
function isCardCode(code) {
  return typeof code === "string" && code.length === 2 && "23456789TJQKA".includes(code[0]) && code[1] in SUIT_OF_LETTER;
}

/** "queen of diamonds", "dame de carreau". @param {RefusalLanguage} lang @param {string} code */
export function cardInText(lang, code) {
  const w = lang.words;
  return w.card.replace("{rank}", w.ranks[code[0]]).replace("{suit}", w.suits[SUIT_OF_LETTER[code[1]]]);
}

/** "Q♦", "D♦". @param {RefusalLanguage} lang @param {string} code */
export const shortCard = (lang, code) => lang.words.index[code[0]] + SYMBOL_OF_LETTER[code[1]];

/** "a, b or c". @param {RefusalLanguage} lang @param {string[]} items */
export function orList(lang, items) {
  if (items.length <= 1) return items.join("");
  return items.slice(0, -1).join(lang.words.comma) + lang.words.or + items[items.length - 1];
}

/**
 * A refusal in words, in the language `lang` of the loaded (or given) catalogue; null for
 * a code it does not have (or no catalogue). Seats are named by `names` (seat order) when
 * given, else by compass points; `viewer`'s own seat takes a "you" variant where there is one.
 * @param {string} lang
 * @param {string} code
 * @param {Record<string, any>} [params]
 * @param {{names?: string[] | null, viewer?: number | null, catalogue?: RefusalCatalogue | null}} [opts]
 * @returns {string | null}
 */
export function formatRefusal(lang, code, params = {}, opts = {}) {
  const cat = opts.catalogue ?? catalogue;
  const l = cat && (cat[lang] || cat.en);
  if (!l || !Object.prototype.hasOwnProperty.call(l.messages, code)) return null;
  const text = l.messages[code][variant(l, code, params, opts.viewer ?? null)];
  if (typeof text !== "string") return null;
  const names = opts.names ?? null;
  return text.replace(/\{(\w+)\}/g, (m, key) => {
    if (key === "more" && typeof params.tricks === "number") return String(params.tricks - 1);
    if (!(key in params)) return m;
    const value = params[key];
    if (SEAT_PARAMS.includes(key) && isSeat(value)) return names ? names[value] : l.words.seats[value];
    if (key === "suit" && typeof value === "string") return l.words.suits[value] ?? value;
    if (key === "card" && isCardCode(value)) return cardInText(l, value);
    if (key === "cards" && Array.isArray(value)) return orList(l, value.filter(isCardCode).map((c) => shortCard(l, c)));
    return String(value);
  });
}
