// @ts-check
// Every page's top bar names who plays: the link #account-link says "Sign in" (its
// data-i18n text) to a guest, and the account's name once signed in (GET /api/account).
// Elements marked [data-guest-note] (such as "Guests play unrated: sign up to be rated")
// are shown to guests only. body[data-account] says which: "signed-in" or "guest".

import { t } from "./i18n.js";

/** @typedef {{name: string, created_at: string, password_changed_at: string | null, sessions: number, rating: number | null, rated_games: number}} Account */

/**
 * The signed-in account, null for a guest, undefined while unknown (not asked yet, or
 * the server away).
 * @type {Account | null | undefined}
 */
let account;

/** Ask the server who is signed in; shows the answer. @returns {Promise<Account | null | undefined>} */
export async function refreshAccount() {
  try {
    const res = await fetch("/api/account", { credentials: "same-origin", cache: "no-store" });
    if (res.ok) {
      const answer = /** @type {Account | {name: null}} */ (await res.json());
      account = answer.name ? /** @type {Account} */ (answer) : null;
    }
  } catch {
    /* the server is away: the link stays as it was */
  }
  showAccount();
  return account;
}

/** Show the account (or the guest) in the top bar and the guest notes. */
export function showAccount() {
  const link = /** @type {HTMLAnchorElement | null} */ (document.getElementById("account-link"));
  if (link && account) {
    delete link.dataset.i18n;
    link.dataset.i18nAttr = "title:account.yours";
    link.textContent = account.name;
    link.title = t("account.yours");
    link.classList.add("signed-in");
  } else if (link && account === null && !link.dataset.i18n) {
    link.dataset.i18n = "account.signIn";
    delete link.dataset.i18nAttr;
    link.removeAttribute("title");
    link.textContent = t("account.signIn");
    link.classList.remove("signed-in");
  }
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[data-guest-note]"))) el.hidden = account !== null;
  if (account !== undefined) document.body.dataset.account = account ? "signed-in" : "guest";
}

refreshAccount();
