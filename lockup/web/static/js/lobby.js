// @ts-check
// The lobby (/lobby): the public rooms not yet started (GET /api/rooms), each with "Join"
// (its page shows the join view), and "Play people" (quick play: a seat at a table of
// people, quick.js). Refreshed every few seconds. Names are text, never HTML.

import { t, translateDom } from "./i18n.js";
import { bindQuickPlay } from "./quick.js";

const REFRESH_MS = 5000;

/** @param {string} tag @param {Record<string, string>} attrs @param {(Node | string)[]} kids */
function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  e.append(...kids);
  return e;
}

/** "Guests play unrated: sign up to be rated", a link to the account page, shown to guests
 * only (account-link.js keeps it so once it knows). */
function guestNote() {
  const note = el("p", { class: "dialog-note guest-note", "data-guest-note": "" }, el("a", { href: "/account", "data-i18n": "account.guestUnrated" }));
  note.hidden = document.body.dataset.account !== "guest";
  return note;
}

/** Show the lobby instead of the table. */
export function showLobby() {
  const main = document.querySelector("main.layout");
  const list = el("ul", { class: "lobby-list", id: "lobby-list", "aria-live": "polite" });
  const quick = el("button", { type: "button", class: "primary quick-btn", id: "lobby-quick", "data-i18n": "btn.quick" });
  const error = el("p", { class: "form-error", id: "lobby-error", role: "alert" });
  const section = el(
    "section",
    { class: "lobby panel", id: "lobby", "aria-labelledby": "lobby-title" },
    el("h2", { id: "lobby-title", "data-i18n": "lobby.title" }),
    el("p", { class: "dialog-note", "data-i18n": "lobby.note" }),
    list,
    el("p", { class: "lobby-actions" }, quick, el("a", { class: "button", href: "/", "data-i18n": "room.solo" })),
    el("p", { class: "dialog-note", "data-i18n": "quick.lobbyNote" }),
    guestNote(),
    error,
  );
  if (main) main.before(section);
  else document.body.append(section);
  translateDom(section);
  bindQuickPlay(/** @type {HTMLButtonElement} */ (quick), (text) => (error.textContent = text));
  refresh(list);
  setInterval(() => refresh(list), REFRESH_MS);
}

/** @param {HTMLElement} list */
async function refresh(list) {
  let rooms = null;
  try {
    const res = await fetch("/api/rooms", { credentials: "same-origin", cache: "no-store" });
    if (res.ok) rooms = (await res.json()).rooms;
  } catch {
    /* the server is away: keep what is shown */
  }
  if (!Array.isArray(rooms)) return;
  list.replaceChildren();
  if (!rooms.length) {
    list.append(el("li", { class: "empty", text: t("lobby.empty") }));
    return;
  }
  for (const r of rooms) {
    const o = r.options || {};
    const facts = [t("lobby.seated", { n: Number(r.seated) || 0 }), t("lobby.target", { n: Number(o.target) || 0 })];
    if (o.turn_timer) facts.push(t("room.seconds", { n: Number(o.turn_timer) }));
    list.append(
      el(
        "li",
        { "data-room": String(r.room) },
        el("span", { class: "lobby-host", text: t("lobby.host", { name: String(r.host || "?") }) }),
        el("span", { class: "lobby-facts", text: facts.join(" · ") }),
        el("a", { class: "button primary", href: `/room/${encodeURIComponent(String(r.room))}`, text: t("lobby.join"), "aria-label": t("lobby.joinLabel", { name: String(r.host || "?") }) }),
      ),
    );
  }
}
