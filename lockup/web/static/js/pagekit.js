// @ts-check
// What the review, history and statistics pages share: the language switch, JSON
// requests with the server's reasons, dates and names in the page's language.

import {
  bindLanguageChoice,
  chooseLanguage,
  formatDate as dateIn,
  formatDateTime,
  formatDayMonth,
  queryLanguage,
  setLanguage,
  showLanguageChoice,
  t,
  translateDom,
} from "./i18n.js";

/** @param {string} sel */
export const $ = (sel) => /** @type {HTMLElement} */ (document.querySelector(sel));

/** An error from the server, with its reason (in English) and HTTP status. */
export class ApiError extends Error {
  /** @param {number} status @param {string} code @param {string} reason */
  constructor(status, code, reason) {
    super(reason || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
  }
}

/**
 * A JSON request; throws an ApiError with the server's {"error", "reason"} when refused.
 * @param {string} url @param {RequestInit} [init]
 */
export async function getJSON(url, init = {}) {
  let res;
  try {
    res = await fetch(url, { credentials: "same-origin", cache: "no-store", ...init });
  } catch {
    throw new ApiError(0, "offline", t("err.offline"));
  }
  let body = null;
  try {
    body = await res.json();
  } catch {
    /* not JSON */
  }
  if (!res.ok) throw new ApiError(res.status, body?.error || "", body?.reason || body?.error || `HTTP ${res.status}`);
  return body;
}

/** POST a JSON body. @param {string} url @param {unknown} data */
export const postJSON = (url, data) =>
  getJSON(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(data) });

/**
 * A date and time in the page's language on every browser ("Nov 30, 2026, 10:20 AM",
 * "30 nov. 2026, 10:20", "30. nóv. 2026, 10:20"): i18n.js's formats.
 * @param {string | null | undefined} iso
 */
export function formatDate(iso, withTime = true) {
  if (!iso) return "–";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return withTime ? formatDateTime(d) : dateIn(d);
}

/** A short date for chart axes ("Nov 30", "30 nov.", "30. nóv."). @param {string} iso */
export function shortDate(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  return formatDayMonth(d);
}

/** A level's name ("Expert"), or the key itself for an unknown one. @param {string | null | undefined} level */
export const levelName = (level) => (level ? t(`level.${level}`) : "–");

/**
 * The rules in words: "20 points · only the club of that rank · one card …".
 * @param {{target: number, picture_exception: string, lock_discards: string}} r
 */
export function rulesText(r) {
  return `${t("review.target", { n: r.target })} · ${t(`opt.picture.${r.picture_exception}`)} · ${t(`opt.discards.${r.lock_discards}`)}`;
}

/**
 * The rules in few words: the target, and the options only where they are not the
 * defaults (same-rank, per-trick).
 * @param {{target: number, picture_exception: string, lock_discards: string}} r
 */
export function rulesShort(r) {
  const parts = [t("review.target", { n: r.target })];
  if (r.picture_exception !== "same-rank") parts.push(t(`opt.picture.${r.picture_exception}`));
  if (r.lock_discards !== "per-trick") parts.push(t(`opt.discards.${r.lock_discards}`));
  return parts.join(" · ");
}

/**
 * A seat's name for the player's own pages: "You" for the player's seat when the game
 * calls it so, else its name with "(you)".
 * @param {string[]} players @param {number} seat @param {number} mine
 */
export function seatName(players, seat, mine) {
  const name = players[seat] || "";
  if (seat !== mine) return name || `${seat + 1}`;
  if (!name || name === "You" || name === "Vous" || name === t("you")) return t("you");
  return t("history.youAre", { name });
}

/** A stats rules key ("same-rank/per-trick/20") in words. @param {string} key */
export function rulesKeyText(key) {
  const [picture, discards, target] = key.split("/");
  if (!picture || !discards || !target) return key;
  return rulesText({ target: Number(target), picture_exception: picture, lock_discards: discards });
}

/**
 * The file choices of the page in its language. A file input's own button and words
 * ("Choose File", "No file chosen") are the browser's, in the browser's language, so the
 * page hides it (class sr-only) behind its <label> (the button) and shows the chosen
 * file's name, or "No file chosen", in the element named by its data-file-name.
 */
function showFileChoices() {
  for (const input of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll("input[type=file][data-file-name]"))) {
    const name = document.getElementById(input.dataset.fileName || "");
    if (name) name.textContent = input.files?.[0]?.name ?? t("history.noFileChosen");
  }
}

/**
 * Start a page: its language (from ?lang=, the saved choice or the browser), the language
 * choice, the translations; `redraw` runs now and after every switch.
 * @param {() => void} redraw
 */
export async function startPage(redraw) {
  const q = queryLanguage();
  await setLanguage(q ?? chooseLanguage(), { save: q !== null });
  const show = () => {
    showLanguageChoice();
    translateDom();
    showFileChoices();
    redraw();
  };
  for (const input of document.querySelectorAll("input[type=file][data-file-name]")) input.addEventListener("change", showFileChoices);
  bindLanguageChoice(/** @type {HTMLSelectElement} */ ($("#lang-choice")), async (lang) => {
    await setLanguage(lang);
    show();
  });
  show();
}
