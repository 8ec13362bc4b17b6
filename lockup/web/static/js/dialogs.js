// @ts-check
// Dialogs: the first-game guide, the hand summary, the game's end and the new game form
// (its option lists come from the server: GET /api/options).

import { ordinal, readPref, t, writePref } from "./i18n.js";
import { $, lostHTML } from "./render.js";
import { S, leftSeats, standings } from "./state.js";
import { esc, nameOf } from "./text.js";
import { reducedMotion } from "./anim.js";

/** @typedef {import("./types.js").HandSummary} HandSummary */
/** @typedef {import("./types.js").Options} Options */

export const GUIDE_PREF = "lockup.guide";

export function anyDialogOpen() {
  return !!document.querySelector("dialog[open]");
}

/** @param {string} sel */
export function openDialog(sel) {
  const d = /** @type {HTMLDialogElement} */ ($(sel));
  if (!d.open) d.showModal();
  return d;
}

/** @param {string} sel */
export function closeDialog(sel) {
  const d = /** @type {HTMLDialogElement | null} */ (document.querySelector(sel));
  if (d && d.open) d.close();
}

// ------------------------------------------------------------------ guide

/** Show the guide on a first game (or when asked). @param {boolean} [force] */
export function maybeOpenGuide(force = false) {
  if (!force && readPref(GUIDE_PREF)) return false;
  if (anyDialogOpen() && !force) return false;
  const d = openDialog("#dlg-guide");
  /** @type {HTMLElement} */ (d.querySelector("button.close")).focus();
  return true;
}

export function bindGuide() {
  const d = /** @type {HTMLDialogElement} */ ($("#dlg-guide"));
  /** @type {HTMLElement} */ (d.querySelector("button.close")).addEventListener("click", () => d.close());
  d.addEventListener("close", () => writePref(GUIDE_PREF, "seen"));
}

// ------------------------------------------------------------------ hand summary

/** @param {HandSummary} summary */
export function summaryTable(summary) {
  const rows = [0, 1, 2, 3]
    .map(
      (s) => `<tr data-seat="${s}"><th scope="row">${esc(nameOf(S, s))}</th>
        <td class="pts">${summary.points[s]}</td><td class="tot">${summary.totals[s]}</td>
        <td>${summary.times_locked[s]}</td><td>${summary.tricks_sat_out[s]}</td>
        <td class="lost-list">${summary.lost[s].length ? summary.lost[s].map((c) => lostHTML(S, c, s)).join("") : "–"}</td></tr>`,
    )
    .join("");
  const th = (/** @type {string} */ k) => `<th scope="col">${esc(t(k))}</th>`;
  return `<div class="scroll-x"><table class="summary"><thead><tr>${th("sum.player")}${th("sum.points")}${th("sum.total")}${th(
    "sum.locked",
  )}${th("sum.satOut")}${th("sum.lost")}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** @param {HandSummary} summary */
export function openSummary(summary) {
  S.summary = summary;
  const d = $("#dlg-summary");
  /** @type {HTMLElement} */ (d.querySelector("h2")).textContent = t("sum.title", { n: summary.number + 1 });
  /** @type {HTMLElement} */ (d.querySelector(".body")).innerHTML =
    summaryTable(summary) + (summary.empty_tricks ? `<p>${esc(t("sum.empty", { n: summary.empty_tricks }))}</p>` : "");
  setReviewLink(d);
  openDialog("#dlg-summary");
  markScroll(/** @type {HTMLElement} */ (d.querySelector(".scroll-x")));
  /** @type {HTMLElement} */ (d.querySelector("button.continue")).focus();
}

/** A scrolling box says so: a shadow on the side that has more. @param {HTMLElement | null} box */
export function markScroll(box) {
  if (!box) return;
  const update = () => {
    box.classList.toggle("more-right", box.scrollLeft + box.clientWidth < box.scrollWidth - 2);
    box.classList.toggle("more-left", box.scrollLeft > 2);
  };
  if (!(/** @type {any} */ (box)._scrollBound)) {
    box.addEventListener("scroll", update, { passive: true });
    /** @type {any} */ (box)._scrollBound = true;
  }
  requestAnimationFrame(update);
  update();
}

/** A dialog's "Review" link: the review page of this game (its finished hands). @param {HTMLElement} d */
function setReviewLink(d) {
  const a = /** @type {HTMLAnchorElement | null} */ (d.querySelector("a.review"));
  if (a && S.game) a.href = `/review/${encodeURIComponent(S.game)}`;
}

// ------------------------------------------------------------------ game over

/** @param {number} winner */
export function openOver(winner) {
  const v = S.view;
  if (!v) return;
  const d = $("#dlg-over");
  fillOver(winner);
  const a = /** @type {HTMLAnchorElement} */ (d.querySelector("a.download"));
  a.href = `/api/games/${encodeURIComponent(S.game || "")}/record`;
  a.setAttribute("download", `lockup-${S.game}.json`);
  setReviewLink(d);
  const won = winner === S.seat && !leftSeats(S).includes(winner);
  d.classList.toggle("you-won", won);
  confetti(/** @type {HTMLElement} */ (d.querySelector(".confetti")), won);
  if (!(/** @type {HTMLDialogElement} */ ($("#dlg-summary")).open)) openDialog("#dlg-over");
  else S.overPending = winner;
}

/**
 * The game-over window's heading and final table. A seat whose person abandoned the game
 * ranks last, marked as left; if that seat won, the computer that played it on won.
 * @param {number} winner
 */
function fillOver(winner) {
  const v = S.view;
  if (!v) return;
  const d = $("#dlg-over");
  const left = leftSeats(S);
  let heading;
  if (left.includes(winner)) heading = winner === S.seat ? t("over.wonLeftYou") : t("over.wonLeft", { name: nameOf(S, winner) });
  else heading = winner === S.seat ? t("over.youWon") : t("over.won", { name: nameOf(S, winner) });
  /** @type {HTMLElement} */ (d.querySelector("h2")).textContent = heading;
  /** @type {HTMLElement} */ (d.querySelector(".body")).innerHTML = `<ol class="final">${standings(v.totals, winner, left)
    .map(
      (x) =>
        `<li class="${x.seat === winner && !x.left ? "winner" : ""}" data-seat="${x.seat}" data-place="${x.place}"${x.left ? ' data-left="true"' : ""}><span class="place">${esc(
          ordinal(x.place),
        )}</span> <span class="who">${esc(nameOf(S, x.seat))}</span>${
          x.left ? ` <span class="badge left">${esc(t("over.left"))}</span>` : ""
        } <b>${x.total}</b></li>`,
    )
    .join("")}</ol>`;
}

/** The seats that abandoned the game changed (a room's frame, an ``abandon`` event): an
 * open game-over window ranks them again. */
export function refreshOver() {
  if (/** @type {HTMLDialogElement} */ ($("#dlg-over")).open && S.view && S.view.winner != null) fillOver(S.view.winner);
}

/** The winner's moment: a burst of paper (none with reduced motion). @param {HTMLElement} box @param {boolean} big */
function confetti(box, big) {
  box.replaceChildren();
  if (reducedMotion()) return;
  const colours = ["#ffcf4a", "#7cf0a6", "#ff8a80", "#9fd8ff", "#f3efe2"];
  const n = big ? 36 : 14;
  for (let i = 0; i < n; i++) {
    const p = document.createElement("span");
    p.className = "bit";
    box.append(p);
    const x = (Math.random() - 0.5) * 420;
    const y = 120 + Math.random() * 260;
    p.animate(
      [
        { transform: "translate(0, 0) rotate(0)", opacity: 1, background: colours[i % colours.length] },
        { transform: `translate(${x}px, ${y}px) rotate(${Math.random() * 720}deg)`, opacity: 0, background: colours[i % colours.length] },
      ],
      { duration: 1400 + Math.random() * 900, delay: Math.random() * 300, easing: "cubic-bezier(.2,.6,.4,1)", fill: "forwards" },
    );
  }
}

// ------------------------------------------------------------------ new game

/** Fill the new game form from the server's option lists. @param {Options} opts */
export function fillNewGameForm(opts) {
  const r = opts.rules;
  /** @type {HTMLElement} */ ($("#opt-target")).innerHTML = r.target.choices
    .map((x) => `<option value="${x}"${x === r.target.default ? " selected" : ""}>${x}</option>`)
    .join("");
  /** @type {HTMLElement} */ ($("#opt-level")).innerHTML = opts.levels
    .map((x) => `<option value="${esc(x)}"${x === opts.default_level ? " selected" : ""} data-i18n="level.${esc(x)}">${esc(t(`level.${x}`))}</option>`)
    .join("");
  /**
   * @param {string} id @param {string} name @param {string} prefix
   * @param {{default: string, choices: string[]}} o
   */
  const radios = (id, name, prefix, o) => {
    const fs = $(id);
    for (const l of fs.querySelectorAll("label")) l.remove();
    for (const x of o.choices) {
      const label = document.createElement("label");
      label.innerHTML = `<input type="radio" name="${name}" value="${esc(x)}"${x === o.default ? " checked" : ""}> <span data-i18n="${prefix}.${esc(x)}">${esc(
        t(`${prefix}.${x}`),
      )}</span>`;
      fs.append(label);
    }
  };
  radios("#opt-picture", "picture_exception", "opt.picture", r.picture_exception);
  radios("#opt-discards", "lock_discards", "opt.discards", r.lock_discards);
}

/** Open the new game form with the current game's options (rules and level). */
export function openNewGame() {
  closeDialog("#dlg-over");
  const d = $("#dlg-new");
  $("#new-error").textContent = "";
  const v = S.view;
  /** @param {string} sel @param {string} value */
  const pick = (sel, value) => {
    const el = /** @type {HTMLInputElement | null} */ (d.querySelector(sel.replace("%", CSS.escape(value))));
    if (el) el.checked = true;
  };
  if (v) {
    /** @type {HTMLSelectElement} */ (d.querySelector("#opt-target")).value = String(v.rules.target);
    pick('input[name=picture_exception][value="%"]', v.rules.picture_exception);
    pick('input[name=lock_discards][value="%"]', v.rules.lock_discards);
  }
  const level = S.level || S.seats?.find((x) => x.kind === "bot")?.level;
  if (level) /** @type {HTMLSelectElement} */ (d.querySelector("#opt-level")).value = level;
  openDialog("#dlg-new");
  /** @type {HTMLElement} */ (d.querySelector("#opt-target")).focus();
}
