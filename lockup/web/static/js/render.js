// @ts-check
// Drawing the table from the state: one function per part (seats, middle, hand, prompt,
// scores, info, buttons, hint, last trick). Each builds HTML from the state; `setHTML`
// touches the DOM only when the HTML changed.

import { PALETTES, faceURL, lockSVG, miniURL, sortHand, suitOf, cardShort } from "./cards.js";
import { formatNumber, language, t } from "./i18n.js";
import {
  S,
  canAct,
  gameLocks,
  isMyTurn,
  isPlaying,
  posOf,
  runningTotal,
  shownTrick,
} from "./state.js";
import { aboutSeat, cardInText, esc, indexOf, nameCard, nameOf } from "./text.js";

/** @typedef {import("./state.js").PageState} PageState */

/** @param {string} sel */
export const $ = (sel) => /** @type {HTMLElement} */ (document.querySelector(sel));

const palette = () => (S.fourColour ? PALETTES.four : PALETTES.two);

/** An <img> of a card face. @param {string} code */
export function faceImg(code) {
  return `<img class="face" src="${faceURL(code, indexOf(code), palette())}" alt="" draggable="false">`;
}

/** @param {string} code @param {string} [extraClass] */
export function faceHTML(code, extraClass = "") {
  return `<span class="cardface ${extraClass}" role="img" aria-label="${esc(nameCard(code))}" data-card="${code}">${faceImg(code)}</span>`;
}

/**
 * A card lockup took from `seat`: crossed out, with a tooltip (hover, focus or tap) that names it.
 * @param {PageState} s @param {string} code @param {number} seat
 */
export function lostHTML(s, code, seat) {
  const tip = aboutSeat(s, "tip.lost", seat, { card: nameCard(code) });
  return `<span class="cardface mini lost" role="img" tabindex="0" aria-label="${esc(tip)}" data-tip="${esc(tip)}" data-card="${code}"><img class="face" src="${miniURL(
    code,
    indexOf(code),
    palette(),
    true,
  )}" alt="" draggable="false"></span>`;
}

/** Replace an element's HTML only when it changed; true if it did. @param {Element} el @param {string} html */
export function setHTML(el, html) {
  const e = /** @type {any} */ (el);
  if (e._html === html) return false;
  el.innerHTML = html;
  e._html = html;
  return true;
}

/** @param {string} level */
const levelName = (level) => t(`level.${level}`);

// ------------------------------------------------------------------ seats

/** @param {PageState} s @param {number} seat */
export function seatHTML(s, seat) {
  const v = s.view;
  const size = v ? v.hand_sizes[seat] : 0;
  const lock = v ? v.locks[seat] : 0;
  const tricks = v ? v.tricks[seat] : 0;
  const lost = v ? v.lost[seat] : [];
  const turn = !!v && v.phase === "play" && v.turn === seat;
  const name = nameOf(s, seat);
  const me = seat === s.seat;
  const info = s.seats?.[seat];
  const level = info && info.kind === "bot" && info.level ? levelName(info.level) : "";
  const lockTip = lock ? aboutSeat(s, "tip.lock", seat, { n: lock }) : "";
  const backs = me
    ? ""
    : `<div class="backs" aria-hidden="true">${'<span class="cardback"></span>'.repeat(size)}</div>`;
  return `
      <div class="seat-head">
        <span class="avatar" aria-hidden="true">${esc(name.slice(0, 1))}</span>
        <span class="name"${level ? ` title="${esc(t("seat.level", { level }))}"` : ""}>${esc(name)}</span>
        ${v && v.dealer === seat ? `<span class="chip dealer" data-tip="${esc(t("seat.dealer"))}" aria-hidden="true">${esc(t("seat.dealerChip"))}</span>` : ""}
        ${lock ? `<span class="chip lock-badge" tabindex="0" role="img" aria-label="${esc(lockTip)}" data-tip="${esc(lockTip)}" data-lock="${lock}">${lockSVG()} ${lock}</span>` : ""}
        ${turn ? `<span class="chip turn-chip" aria-hidden="true">${esc(t("seat.turnChip"))}</span>` : ""}
      </div>
      <div class="seat-stats" aria-hidden="true">
        <span class="stat tricks" data-tricks="${tricks}" title="${esc(t("seat.tricks", { n: tricks }))}">${esc(t("seat.tricksShort", { n: tricks }))}</span>
        <span class="stat total" title="${esc(t("score.total"))}">${esc(t("seat.points", { n: runningTotal(v, seat) }))}</span>
        ${me ? "" : `<span class="stat count" data-count="${size}">${esc(t("seat.cards", { n: size }))}</span>`}
      </div>
      ${backs}
      <div class="lost-cards"${lost.length ? "" : " hidden"} role="group" aria-label="${esc(aboutSeat(s, "seat.lostLabel", seat))}">${lost
        .map((c) => lostHTML(s, c, seat))
        .join("")}</div>`;
}

/** @param {PageState} s */
export function renderSeats(s) {
  const v = s.view;
  for (let seat = 0; seat < 4; seat++) {
    const el = $(`#seat-${posOf(s, seat)}`);
    if (!el) continue;
    el.dataset.seat = String(seat);
    const lock = v ? v.locks[seat] : 0;
    const turn = !!v && v.phase === "play" && v.turn === seat;
    el.classList.toggle("turn", turn);
    el.classList.toggle("locked", lock > 0);
    el.classList.toggle("won", !!s.trickDone && s.trickDone.winner === seat);
    const parts = [t("seat.summary", { name: nameOf(s, seat), n: v ? v.hand_sizes[seat] : 0 }), t("seat.tricks", { n: v ? v.tricks[seat] : 0 })];
    if (lock) parts.push(t("seat.locked", { n: lock }));
    if (v && v.dealer === seat) parts.push(t("seat.dealer"));
    if (turn) parts.push(t("seat.toPlay"));
    el.setAttribute("aria-label", parts.join(", "));
    if (setHTML(el, seatHTML(s, seat))) {
      const lost = /** @type {HTMLElement | null} */ (el.querySelector(".lost-cards"));
      if (lost) lost.style.setProperty("--n", String(Math.max(1, v ? v.lost[seat].length : 1)));
    }
  }
}

// ------------------------------------------------------------------ the middle

/** @param {PageState} s */
export function renderMiddle(s) {
  const el = $("#middle");
  const ol = /** @type {HTMLOListElement} */ (el.querySelector(".plays"));
  // Cards already on the table stay (so they do not land again); new ones are added.
  // Our card that a computer played for us is not labelled "You".
  const who = (/** @type {{seat: number, card: string}} */ p) => (p.seat === s.seat && s.byComputer.has(p.card) ? t("middle.computerForYou") : nameOf(s, p.seat));
  const keys = s.middle.map((p) => `${language()}${s.fourColour}${p.seat}${p.card}${who(p)}`);
  const items = /** @type {HTMLElement[]} */ ([...ol.children]);
  const keep = items.length <= keys.length && items.every((li, i) => li.dataset.key === keys[i]);
  if (!keep) ol.replaceChildren();
  /** @type {HTMLElement[]} */
  const added = [];
  s.middle.slice(keep ? items.length : 0).forEach((p, k) => {
    const li = document.createElement("li");
    li.dataset.seat = String(p.seat);
    li.dataset.key = keys[(keep ? items.length : 0) + k];
    li.setAttribute("aria-label", t("middle.play", { name: who(p), card: nameCard(p.card) }));
    li.innerHTML = `${faceHTML(p.card)}<span class="who" aria-hidden="true">${esc(who(p))}</span>`;
    ol.append(li);
    added.push(li);
  });
  const winner = s.trickDone ? s.trickDone.winner : null;
  /** @type {HTMLElement[]} */ ([...ol.children]).forEach((li, i) => {
    const seat = Number(li.dataset.seat);
    li.className = `played at-${posOf(s, seat)}${i === 0 ? " lead" : ""}${winner === seat ? " winner" : ""}`;
  });
  let note = "";
  const v = s.view;
  if (!s.middle.length && canAct(s)) note = t("middle.yourLead");
  else if (!s.middle.length && s.lastEmpty) note = t("middle.empty");
  /** @type {HTMLElement} */ (el.querySelector(".note")).textContent = note;
  el.classList.toggle("can-drop", isMyTurn(s));
  el.setAttribute("aria-label", v ? t("middle.label", { n: shownTrick(s) }) : t("middle.labelBare"));
  return added;
}

// ------------------------------------------------------------------ the hand

/** A hint value, always with two decimals ("1.50", "0.07"). @param {number} x */
export const formatValue = (x) => formatNumber(x, 2);

/** @param {PageState} s */
export function renderHand(s) {
  const el = $("#hand");
  const v = s.view;
  const hadFocus = el.contains(document.activeElement);
  const cards = sortHand(v ? v.hand : []);
  const myTurn = canAct(s);
  const legal = new Set(myTurn && v ? v.legal : []);
  const values = new Map((s.hint?.values || []).map((x) => [x.card, x.value]));
  if (s.focus >= cards.length) s.focus = Math.max(0, cards.length - 1);
  const html = cards
    .map((c, i) => {
      const cls = ["card", `suit-${suitOf(c)}`];
      if (legal.has(c)) cls.push("legal");
      else if (myTurn) cls.push("illegal");
      if (s.pending === c) cls.push("pending");
      if (s.queued?.card === c) cls.push("queued");
      if (s.hint?.best === c) cls.push("best");
      let label = nameCard(c);
      let badge = "";
      if (values.has(c)) {
        const val = formatValue(/** @type {number} */ (values.get(c)));
        label += `, ${t("hint.cardValue", { value: val })}`;
        badge = `<span class="hint-badge" aria-hidden="true">${esc(val)}</span>`;
      }
      return `<button type="button" class="${cls.join(" ")}" data-card="${c}" aria-label="${esc(label)}"${
        legal.has(c) ? ' aria-describedby="desc-playable"' : ""
      } tabindex="${i === s.focus ? 0 : -1}">${faceImg(c)}${badge}</button>`;
    })
    .join("");
  const changed = setHTML(el, html);
  el.setAttribute("aria-label", t("hand.label", { n: cards.length }));
  el.classList.toggle("my-turn", myTurn);
  el.style.setProperty("--n", String(Math.max(cards.length, 1)));
  el.style.setProperty("--rows", String(cards.length > 7 ? 2 : 1));
  if (hadFocus && changed) {
    const btn = /** @type {HTMLElement | undefined} */ (el.querySelectorAll("button.card")[s.focus]);
    if (btn) btn.focus({ preventScroll: true });
  }
}

// ------------------------------------------------------------------ prompt, scores, info

/** What the prompt says of a seat whose person is gone (a room's, see room.js; "": nothing). */
let goneWords = (/** @type {number} */ _seat) => "";

/**
 * The room tells the prompt who is gone: while the table waits for such a person, the
 * prompt says so (and what happens) instead of "Lea is playing…".
 * @param {(seat: number) => string} words
 */
export function setGoneWords(words) {
  goneWords = words;
}

/** @param {PageState} s */
export function promptText(s) {
  const v = s.view;
  if (!v) return s.connected ? t("prompt.loading") : t("prompt.connecting");
  if (v.phase === "over") return v.winner === s.seat ? t("prompt.youWon") : t("prompt.won", { name: nameOf(s, v.winner ?? 0) });
  if (s.queued) return s.queued.offline ? t("prompt.queuedOffline", { card: cardInText(s.queued.card) }) : t("prompt.queued", { card: cardInText(s.queued.card) });
  if (s.trickDone) {
    const d = s.trickDone;
    if (d.winner == null) return t("ann.emptyTrick");
    if (d.lock) return aboutSeat(s, "ann.trickLock", d.winner, { n: d.lock });
    return aboutSeat(s, "ann.trick", d.winner);
  }
  if (v.phase === "deal") return t("prompt.dealing");
  if (v.phase === "discard") return aboutSeat(s, "prompt.discard", v.discard_due ?? 0);
  if (v.locks[s.seat]) return t("prompt.locked", { n: v.locks[s.seat] });
  if (isMyTurn(s)) {
    if (s.busy) return t("prompt.wait");
    return v.trick.length || s.middle.length ? t("prompt.follow") : t("prompt.lead");
  }
  if (v.turn != null) return goneWords(v.turn) || t("prompt.waiting", { name: nameOf(s, v.turn) });
  return "";
}

/** @param {PageState} s */
export function renderPrompt(s) {
  const el = $("#prompt");
  const text = promptText(s);
  if (el.textContent !== text) el.textContent = text;
  el.classList.toggle("your-turn", canAct(s));
}

/** @param {PageState} s */
export function scoresHTML(s) {
  const v = s.view;
  const { locked, lost } = gameLocks(v);
  const head = `<thead><tr><th scope="col">${esc(t("score.hand"))}</th>${[0, 1, 2, 3]
    .map((seat) => {
      const tip = aboutSeat(s, "tip.seatLocks", seat, { locked: t("count.times", { n: locked[seat] }), lost: t("count.lost", { n: lost[seat] }) });
      return `<th scope="col" title="${esc(tip)}" data-seat="${seat}">${esc(nameOf(s, seat))}</th>`;
    })
    .join("")}</tr></thead>`;
  let rows = "";
  const totals = [0, 1, 2, 3].map((seat) => runningTotal(v, seat));
  const top = Math.max(...totals);
  for (const h of v ? v.summaries : []) {
    rows += `<tr><th scope="row">${h.number + 1}</th>${h.points.map((p) => `<td>${p}</td>`).join("")}</tr>`;
  }
  if (v && isPlaying(v)) {
    rows += `<tr class="current"><th scope="row">${v.hand_number + 1} <span class="live">${esc(t("score.live"))}</span></th>${v.tricks
      .map((p) => `<td>${p}</td>`)
      .join("")}</tr>`;
  }
  const foot =
    `<tfoot><tr><th scope="row">${esc(t("score.total"))}</th>${totals
      .map((x) => `<td class="${x === top && top > 0 ? "leader" : ""}">${x}</td>`)
      .join("")}</tr>` +
    `<tr class="extra locked-row"><th scope="row" title="${esc(t("score.lockedTitle"))}">${lockSVG()} ${esc(t("score.locked"))}</th>${locked
      .map((x) => `<td>${x}</td>`)
      .join("")}</tr>` +
    `<tr class="extra lost-row"><th scope="row" title="${esc(t("score.lostTitle"))}">${esc(t("score.lost"))}</th>${lost
      .map((x) => `<td>${x}</td>`)
      .join("")}</tr></tfoot>`;
  return `<caption>${esc(t("score.caption", { n: v ? v.rules.target : 20 }))}</caption>${head}<tbody>${rows}</tbody>${foot}`;
}

/** @param {PageState} s */
export function renderScores(s) {
  if (setHTML($("#scores"), scoresHTML(s))) {
    const box = $("#scores").parentElement;
    if (box) box.classList.toggle("more-right", box.scrollWidth > box.clientWidth + 2);
  }
}

/** @param {PageState} s */
export function renderInfo(s) {
  const v = s.view;
  const dl = $("#info");
  if (!v) {
    setHTML(dl, "");
    return;
  }
  const level = s.level || s.seats?.find((x) => x.kind === "bot")?.level || null;
  const items = [
    [t("info.hand"), String(v.hand_number + 1)],
    [t("info.trick"), isPlaying(v) || s.trickDone ? t("info.trickOf", { n: shownTrick(s) }) : "–"],
    [t("info.dealer"), nameOf(s, v.dealer)],
    [t("info.level"), level ? levelName(level) : "–"],
    [t("info.target"), String(v.rules.target)],
    [t("info.picture"), t(`opt.picture.${v.rules.picture_exception}`)],
    [t("info.discards"), t(`opt.discards.${v.rules.lock_discards}`)],
  ];
  setHTML(dl, items.map(([k, x]) => `<div><dt>${esc(k)}</dt><dd>${esc(x)}</dd></div>`).join(""));
}

/** @param {PageState} s */
export function renderButtons(s) {
  const v = s.view;
  /** @type {HTMLButtonElement} */ ($("#btn-hint")).disabled = !canAct(s) || !s.connected || s.hintAsked;
  /** @type {HTMLButtonElement} */ ($("#btn-last")).disabled = !v || !v.last_trick;
  const dl = /** @type {HTMLAnchorElement} */ ($("#btn-download"));
  const over = !!v && v.phase === "over" && s.game != null;
  if (s.game != null) dl.href = `/api/games/${encodeURIComponent(s.game)}/record`;
  dl.setAttribute("aria-disabled", String(!over));
  dl.classList.toggle("disabled", !over);
  dl.title = over ? t("btn.downloadTitle") : t("btn.downloadLater");
  const conn = $("#conn");
  conn.hidden = !s.fault;
  if (s.fault && conn.dataset.i18n !== `conn.${s.fault}`) {
    conn.dataset.i18n = `conn.${s.fault}`;
    conn.textContent = t(`conn.${s.fault}`);
  }
  const snd = $("#btn-sound");
  snd.setAttribute("aria-pressed", String(s.sound));
  snd.classList.toggle("on", s.sound);
}

/** @param {PageState} s */
export function renderHint(s) {
  const panel = $("#hint-panel");
  if (!s.hint && !s.hintAsked) {
    panel.hidden = true;
    setHTML(panel, "");
    return;
  }
  panel.hidden = false;
  if (!s.hint) {
    setHTML(panel, `<p>${esc(t("hint.thinking"))}</p>`);
    return;
  }
  const hint = s.hint;
  const vals = [...hint.values].sort((a, b) => b.value - a.value);
  const unit = hint.unit === "tricks" ? t("hint.unitTricks") : hint.unit || "";
  setHTML(
    panel,
    `<p class="hint-best">${esc(t("hint.best", { card: hint.best ? cardInText(hint.best) : "–" }))}</p><table class="hint-table"><caption>${esc(
      t("hint.caption", { unit }),
    )}</caption><tbody>${vals
      .map(
        (x) =>
          `<tr class="${x.card === hint.best ? "best" : ""}"><th scope="row"><span class="short suit-${suitOf(x.card)}">${esc(
            cardShort(x.card, t),
          )}</span> <span class="sr-only">${esc(nameCard(x.card))}</span></th><td>${esc(formatValue(x.value))}</td></tr>`,
      )
      .join("")}</tbody></table>`,
  );
}

/** @param {PageState} s */
export function renderLastTrick(s) {
  const panel = $("#last-trick");
  const v = s.view;
  const lt = v && v.last_trick;
  const open = !!lt && (s.lastTrickPinned || s.lastTrickHover);
  panel.hidden = !open;
  $("#btn-last").setAttribute("aria-expanded", String(open));
  if (!lt) {
    setHTML(panel, "");
    return;
  }
  let title;
  if (lt.winner == null) title = t("last.empty", { num: lt.number + 1 });
  else if (lt.lock) title = aboutSeat(s, "last.wonLock", lt.winner, { num: lt.number + 1, n: lt.lock });
  else title = aboutSeat(s, "last.won", lt.winner, { num: lt.number + 1 });
  setHTML(
    panel,
    `<h2>${esc(title)}</h2><ol class="last-plays">${lt.plays
      .map(
        (p) =>
          `<li class="${p.seat === lt.winner ? "winner" : ""}">${faceHTML(p.card, "small")}<span>${esc(nameOf(s, p.seat))}</span></li>`,
      )
      .join("")}</ol>`,
  );
}

/** The tab's title: says when it is the player's turn. @param {PageState} s */
export function renderTitle(s) {
  const title = canAct(s) ? `${t("title.yourTurn")} · Lockup` : "Lockup";
  if (document.title !== title) document.title = title;
}

/** Data attributes for tests and styles. @param {PageState} s @param {number} shown */
export function markBody(s, shown) {
  const b = document.body.dataset;
  const v = s.view;
  b.version = String(shown);
  b.phase = v ? v.phase : "";
  b.myTurn = String(canAct(s));
  b.idle = String(!s.busy);
  b.connected = String(s.connected);
  b.game = s.game == null ? "" : String(s.game);
}
