// @ts-check
// Words for the table: names, cards in sentences, refusals. Depends on the language only.

import { cardName, isCard, rankOf } from "./cards.js";
import { has, language, t } from "./i18n.js";
import { formatRefusal, loadRefusals } from "./refusals.js";
import { DEFAULT_PLAYERS } from "./state.js";

/** @typedef {import("./state.js").PageState} PageState */
/** @typedef {import("./types.js").ErrorMessage} ErrorMessage */

/** The refusal catalogue, loaded once at start (GET /api/refusals); resolves to whether it came. */
export const refusalsLoaded = loadRefusals();

export const esc = (/** @type {unknown} */ s) =>
  String(s).replace(
    /[&<>"']/g,
    (c) => /** @type {Record<string, string>} */ ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c],
  );

/** A seat's name ("You"/"Vous" for our own seat). @param {PageState} s @param {number} seat */
export function nameOf(s, seat) {
  if (seat === s.seat) return t("you");
  return s.players[seat] ?? DEFAULT_PLAYERS[seat];
}

/**
 * A sentence about a seat: the key's ".you" variant for our own seat ("You win the trick",
 * "Lockup takes one of your cards"), else the key with {name}.
 * @param {PageState} s @param {string} key @param {number} seat @param {Record<string, any>} [params]
 */
export function aboutSeat(s, key, seat, params = {}) {
  const you = `${key}.you`;
  if (seat === s.seat && (has(you) || has(`${you}_other`))) return t(you, params);
  return t(key, { ...params, name: nameOf(s, seat) });
}

/** @param {string} code */
export const indexOf = (code) => t(`index.${rankOf(code)}`);
/** @param {string} code */
export const nameCard = (code) => cardName(code, t);
/** A card's name inside a sentence ("the queen of diamonds"). @param {string} code */
export function cardInText(code) {
  const n = nameCard(code);
  return n[0].toLowerCase() + n.slice(1);
}

/**
 * A refusal in the page's language (never the rule number; the protocol keeps `rule`): the
 * engine's codes from the refusal catalogue (js/refusals.js), the protocol's own from the
 * page's messages. A card already on the table is never offered as the way out.
 * @param {PageState} s @param {ErrorMessage} msg
 */
export function refusalText(s, msg) {
  const code = msg.code || "";
  const p = msg.params || {};
  if (code === "rate-limited") return rateLimitText(msg.reason, p.retry_after);
  const onTable = new Set(s.middle.map((x) => x.card));
  const params =
    code === "picture-rank" && Array.isArray(p.cards)
      ? { ...p, cards: p.cards.filter((/** @type {string} */ c) => isCard(c) && !onTable.has(c)) }
      : p;
  const names = [0, 1, 2, 3].map((seat) => s.players[seat] ?? DEFAULT_PLAYERS[seat]);
  const text = formatRefusal(language(), code, params, { names, viewer: s.seat });
  if (text != null) return text;
  const key = `err.${code}`;
  if (has(key)) return t(key);
  if (has(`room.err.${code}`)) return t(`room.err.${code}`);
  return stripRule(msg.reason || "") || t("err.unknown");
}

/** A server's English reason without rule numbers such as "(R7)". @param {string} text */
export function stripRule(text) {
  return text.replace(/\s*\(R\d+\)/g, "").trim();
}

/**
 * "Too many …: try again in 6 s.": the server's own words in English, ours (with its
 * number of seconds) in another language.
 * @param {string | undefined} reason @param {unknown} retryAfter seconds
 */
export function rateLimitText(reason, retryAfter) {
  if (reason && language() === "en") return reason;
  const n = Number(retryAfter);
  if (Number.isFinite(n) && n > 0) return t("err.rate-limited-wait", { n: Math.ceil(n) });
  return t("err.rate-limited");
}
