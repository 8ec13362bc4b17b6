// @ts-check
// People named inside a sentence, in the page's language: lists that read as lists
// ("Tumi, Kári and Sunna"), the rematch line that tells the reader from the others
// ("Tumi and you" where the reader is awaited, in the case and person each language wants)
// and a history entry's opponents (the people by name, the computers by level). Pure: the
// words come from the catalogues through i18n.js's t().

import { t } from "./i18n.js";

/**
 * "a, b and c" in the current language ("a, b et c", "a, b og c"), from the catalogue's
 * words, the same on every browser.
 * @param {string[]} items
 */
export function andList(items) {
  if (items.length <= 1) return items.join("");
  return items.slice(0, -1).join(t("list.comma")) + t("list.and") + items[items.length - 1];
}

/**
 * The line under a finished room's Rematch button: whose answer is awaited. `others`: the
 * names of the other people awaited; `you`: whether the reader is awaited too. The reader
 * is never named by the word "You" inside the list: each language says "you" in its own
 * place and person ("Tumi, Kári and you", "Tumi et vous n'avez pas encore répondu", "Tumi og
 * þú eigið eftir að svara"), and the verb agrees with the count. Empty: nobody is awaited.
 * @param {string[]} others @param {boolean} you
 */
export function rematchAwaited(others, you) {
  if (!others.length) return you ? t("room.rematchAwaitedYou") : "";
  if (you) return t("room.rematchAwaitedYouAnd", { names: others.join(t("list.comma")) });
  return t("room.rematchAwaited", { names: andList(others), n: others.length });
}

/**
 * A history entry's opponents: the people by name (a word for a person with none), then
 * the computers by level, grouped ("Tumi · Random (practice) ×2", "Expert ×3", "Tumi and
 * Kári"). `seats` and `players` are the entry's, `mine` the reader's seat.
 * @param {{kind: string, level: string | null}[]} seats @param {string[]} players @param {number} mine
 */
export function opponentsText(seats, players, mine) {
  const others = seats.map((x, s) => ({ ...x, s })).filter((x) => x.s !== mine);
  const people = others.filter((x) => x.kind !== "bot").map((x) => players[x.s] || t("history.person"));
  /** @type {Map<string, number>} */
  const levels = new Map();
  for (const x of others) {
    if (x.kind !== "bot") continue;
    const name = x.level ? t(`level.${x.level}`) : "–";
    levels.set(name, (levels.get(name) ?? 0) + 1);
  }
  // "×2" stays with its level (a no-break space): never alone on a line of its own.
  const computers = [...levels].map(([name, k]) => (k > 1 ? `${name}\u00a0×${k}` : name)).join(t("list.comma"));
  if (!people.length) return computers;
  if (!computers) return andList(people);
  return `${andList(people)} · ${computers}`;
}
