// @ts-check
// The Lockup table: shows what the server sends and sends what the player chooses.
//
// The page never computes a rule. Legal cards come from the view (view.legal); a card
// that is not legal is still sent, and the server's refusal is shown in the page's words.
// The parts: state.js (what the page knows, selectors), protocol.js (versions, resync and
// the paced queue, no DOM), render.js (drawing each part of the table), input.js (the
// player's hands), dialogs.js, anim.js (motion), sound.js. This file wires them together
// and says how each event is shown. See docs/web-protocol.md for the messages.

import { Connection } from "./connection.js";
import { backURL, isCard, lockSVG } from "./cards.js";
import { bindLanguageChoice, chooseLanguage, language, queryLanguage, readPref, setLanguage, showLanguageChoice, t, translateDom, writePref } from "./i18n.js";
import { Protocol, SPEEDS } from "./protocol.js";
import { FALLBACK_OPTIONS, S, canAct, isMyTurn, posOf, trickKey } from "./state.js";
import {
  $,
  markBody,
  renderButtons,
  renderHand,
  renderHint,
  renderInfo,
  renderLastTrick,
  renderMiddle,
  renderPrompt,
  renderScores,
  renderSeats,
  renderTitle,
} from "./render.js";
import { aboutSeat, cardInText, esc, nameOf, rateLimitText, refusalText } from "./text.js";
import { bindHand, bindSkipLink } from "./input.js";
import {
  anyDialogOpen,
  bindGuide,
  closeDialog,
  fillNewGameForm,
  markScroll,
  maybeOpenGuide,
  openDialog,
  openNewGame,
  openOver,
  openSummary,
} from "./dialogs.js";
import { setSound, sound } from "./sound.js";
import { dealIn, flyIn, pulse, sweep } from "./anim.js";
import { roomPage } from "./room.js";
import { bindTopBar, fitTopBar } from "./topbar.js";

/** @typedef {import("./types.js").EventMessage} EventMessage */
/** @typedef {import("./types.js").StateMessage} StateMessage */
/** @typedef {import("./types.js").ErrorMessage} ErrorMessage */
/** @typedef {import("./types.js").HintMessage} HintMessage */
/** @typedef {import("./types.js").GameInfo} GameInfo */

const PREFS = { speed: "lockup.speed", fourColour: "lockup.fourColour", sound: "lockup.sound" };
/** How long a spectator's hand summary stays before the next hand goes on by itself (ms). */
const SPECTATOR_SUMMARY_MS = 2500;
/** The table on screen, kept for a reload (per tab). */
const SAVE_KEY = "lockup.table";

/** @type {Connection | null} */
let conn = null;
const proto = new Protocol({
  send: (msg) => (conn ? conn.send(msg) : false),
  show: showEvent,
  snapshot: onSnapshot,
  error: onError,
  hint: onHint,
  idle: onIdle,
  change: onChange,
  synced: onSynced,
});

// ------------------------------------------------------------------ small helpers

/** @param {string} text */
function announce(text) {
  const box = $("#announcer");
  if (!box || !text) return;
  const p = document.createElement("p");
  p.textContent = text;
  box.append(p);
  while (box.childElementCount > 20) /** @type {Element} */ (box.firstElementChild).remove();
}

/** @type {any} */
let messageTimer = null;

/**
 * A message over the table (it covers no card) that fades by itself; `sticky` ones stay
 * until cleared.
 * @param {string} text @param {"error" | "info"} [kind] @param {boolean} [sticky]
 */
function showMessage(text, kind = "error", sticky = false) {
  const el = $("#message");
  clearTimeout(messageTimer);
  el.textContent = text;
  el.dataset.kind = kind;
  el.hidden = !text;
  el.classList.remove("fading");
  if (!text) return;
  if (!sticky) {
    const ms = Math.min(10000, 4500 + 40 * text.length);
    el.style.setProperty("--life", `${ms}ms`);
    void el.offsetWidth; // restart the fade
    el.classList.add("fading");
    messageTimer = setTimeout(() => clearMessage(), ms);
  }
}

function clearMessage() {
  clearTimeout(messageTimer);
  const el = $("#message");
  el.hidden = true;
  el.textContent = "";
  el.classList.remove("fading");
}

/** A seat's box on screen (the trick's cards come from and go to it). @param {number} seat */
function seatRect(seat) {
  const el = document.querySelector(`#seat-${posOf(S, seat)}`);
  return el ? el.getBoundingClientRect() : null;
}

/** @param {string} card */
function handCardRect(card) {
  const el = document.querySelector(`#hand button.card[data-card="${card}"]`);
  return el ? el.getBoundingClientRect() : null;
}

// ------------------------------------------------------------------ rendering

let renderQueued = false;

/** Draw the table soon (once per frame however many changes come meanwhile). */
function render() {
  if (renderQueued) return;
  renderQueued = true;
  const run = () => {
    if (!renderQueued) return;
    renderQueued = false;
    renderNow();
  };
  requestAnimationFrame(run);
  setTimeout(run, 80); // also when the tab is hidden and frames stop
}

/** Draw the table now; returns the trick's cards that were just added. */
function renderNow() {
  renderQueued = false;
  S.busy = proto.busy;
  renderSeats(S);
  const added = renderMiddle(S);
  renderHand(S);
  renderPrompt(S);
  renderScores(S);
  renderInfo(S);
  renderButtons(S);
  renderHint(S);
  renderLastTrick(S);
  renderTitle(S);
  markBody(S, proto.shown);
  roomPage.render();
  return added;
}

// ------------------------------------------------------------------ kept for a reload

function save() {
  if (S.game == null || !S.view) return;
  try {
    sessionStorage.setItem(
      SAVE_KEY,
      JSON.stringify({
        game: S.game,
        version: proto.shown,
        view: S.view,
        // A completed trick still on the table has been seen: after a reload it is gone.
        middle: S.trickDone ? [] : S.middle,
        lastEmpty: S.lastEmpty,
        summary: S.summary,
        players: S.players,
        seats: S.seats,
        level: S.level,
      }),
    );
  } catch {
    /* storage full or unavailable: a reload asks the server for a snapshot */
  }
}

/** The table this tab showed before a reload, for `game`. @param {string} game */
function restore(game) {
  let saved;
  try {
    saved = JSON.parse(sessionStorage.getItem(SAVE_KEY) || "null");
  } catch {
    saved = null;
  }
  if (!saved || saved.game !== game || !saved.view || typeof saved.version !== "number") return false;
  S.view = saved.view;
  S.middle = Array.isArray(saved.middle) ? saved.middle : [];
  S.lastEmpty = !!saved.lastEmpty;
  if (Array.isArray(saved.players) && saved.players.length === 4) S.players = saved.players;
  if (Array.isArray(saved.seats)) S.seats = saved.seats;
  if (saved.level) S.level = saved.level;
  proto.setGame(game, saved.version);
  if (saved.summary && typeof saved.summary.number === "number") {
    proto.block();
    openSummary(saved.summary);
    autoContinue();
  }
  return true;
}

// ------------------------------------------------------------------ incoming messages

/** @param {StateMessage} msg */
function onSnapshot(msg) {
  if (Array.isArray(msg.players) && msg.players.length === 4) S.players = msg.players.slice();
  if (Array.isArray(msg.seats) && msg.seats.length === 4) S.seats = msg.seats;
  const v = msg.view;
  S.view = v;
  S.middle = v.phase === "play" ? v.trick.map((p) => ({ seat: p.seat, card: p.card })) : [];
  S.trickDone = null;
  S.hint = null;
  S.hintAsked = false;
  hideFlash();
  clearPending();
  // A hand summary the player has not closed yet stays (it was open before a reload).
  const keep = !!S.summary && v.summaries.some((h) => h.number === /** @type {any} */ (S.summary).number);
  if (keep) {
    proto.block();
    autoContinue();
  } else {
    S.summary = null;
    closeDialog("#dlg-summary");
  }
  if (v.phase === "over" && v.winner != null) openOver(v.winner);
  else closeDialog("#dlg-over");
  renderNow();
  save();
  maybeGuide();
}

/** @param {ErrorMessage} msg */
function onError(msg) {
  // A room that is not there: the room's panel says so, in the page's words only.
  if (roomPage.active && msg.code === "no-room") return;
  // The server is full: the connection's banner says so (and the socket closes).
  if (msg.code === "server-full") return;
  const aboutHint = msg.code === "hint-busy" || msg.code === "hint-unavailable";
  const card = aboutHint ? null : S.pending;
  if (!aboutHint) clearPending();
  // "hint-busy": the hint asked before is still coming; anything else ends the wait.
  if (msg.code !== "hint-busy") S.hintAsked = false;
  const text = refusalText(S, msg);
  showMessage(text, msg.code === "stale" ? "info" : "error");
  announce(text);
  if (card && msg.code !== "stale") {
    const btn = document.querySelector(`#hand button.card[data-card="${card}"]`);
    if (btn) shake(btn);
  }
  render();
  if (!roomPage.active && (msg.code === "no-game" || msg.code === "not-your-game")) {
    S.game = null;
    loadGame().then(() => proto.hello());
  }
}

/** A refused card shakes its head. @param {Element} el */
function shake(el) {
  const h = /** @type {HTMLElement} */ (el);
  if (!h.animate || matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  h.animate(
    [{ translate: "0 0" }, { translate: "-6px 0" }, { translate: "6px 0" }, { translate: "-3px 0" }, { translate: "0 0" }],
    { duration: 320 },
  );
}

/** @param {HintMessage} msg */
function onHint(msg) {
  if (msg.version !== proto.shown || !Array.isArray(msg.values)) return;
  S.hint = msg;
  S.hintAsked = false;
  renderHint(S);
  renderHand(S);
  renderButtons(S);
  if (msg.best) announce(t("hint.best", { card: cardInText(msg.best) }));
}

function onChange() {
  S.busy = proto.busy;
  render();
}

function onIdle() {
  S.busy = proto.busy;
  renderNow();
  resolveQueued();
}

/** The hello's answer has arrived: a card held while offline is sent, or said not played. */
function onSynced() {
  // The newest view received (events may still be waiting to be shown).
  const newest = proto.queue.length ? proto.queue[proto.queue.length - 1].view : S.view;
  if (unsure && newest) {
    const card = unsure;
    unsure = null;
    if (newest.hand.includes(card) && !S.queued) showMessage(t("err.notPlayed", { card: cardInText(card) }), "info");
    else if (!newest.hand.includes(card)) clearMessage();
  }
  resolveQueued();
}

// ------------------------------------------------------------------ showing events, paced

/** The trick's cards come from here: the hand card clicked, or where it was dragged to. */
/** @type {DOMRect | null} */
let lastFrom = null;

/** @param {EventMessage} msg */
function setShown(msg) {
  S.view = msg.view;
  if (proto.shown !== msg.version) {
    S.hint = null;
    S.hintAsked = false;
  }
  proto.shown = msg.version;
  save();
}

/** @param {EventMessage} msg @param {number} epoch */
async function showEvent(msg, epoch) {
  const ev = msg.event;
  switch (ev.kind) {
    case "deal": {
      S.middle = [];
      S.trickDone = null;
      S.lastEmpty = false;
      setShown(msg);
      renderNow();
      dealIn(/** @type {HTMLElement[]} */ ([...document.querySelectorAll("#hand button.card")]), $("#middle").getBoundingClientRect());
      announce(aboutSeat(S, "ann.deal", ev.dealer, { n: ev.hand + 1 }));
      await proto.pause("deal");
      yourTurnCue();
      return;
    }
    case "play": {
      const mine = ev.seat === S.seat;
      if (!mine) {
        if (!(await proto.pause("play"))) return;
      } else {
        clearPending();
        clearMessage();
      }
      const from = mine ? handCardRect(ev.card) || lastFrom : seatRect(ev.seat);
      S.trickDone = null;
      S.lastEmpty = false;
      const v = msg.view;
      const same = (/** @type {any} */ p) => p && p.seat === ev.seat && p.card === ev.card;
      if (v.phase === "play" && v.trick.length && same(v.trick[v.trick.length - 1])) {
        S.middle = v.trick.map((p) => ({ seat: p.seat, card: p.card }));
      } else if (v.last_trick && same(v.last_trick.plays[v.last_trick.plays.length - 1])) {
        S.middle = v.last_trick.plays.map((p) => ({ seat: p.seat, card: p.card }));
      } else {
        S.middle.push({ seat: ev.seat, card: ev.card });
      }
      setShown(msg);
      const added = renderNow();
      for (const li of added)
        if (li.dataset.seat === String(ev.seat)) flyIn(/** @type {HTMLElement} */ (li.firstElementChild), from, mine ? null : 0.5);
      sound("play");
      announce(mine ? t("ann.playYou", { card: cardInText(ev.card) }) : t("ann.play", { name: nameOf(S, ev.seat), card: cardInText(ev.card) }));
      yourTurnCue();
      return;
    }
    case "discard": {
      setShown(msg);
      renderNow();
      const lost = document.querySelectorAll(`#seat-${posOf(S, ev.seat)} .lost-cards .cardface`);
      pulse(lost[lost.length - 1] || null);
      announce(aboutSeat(S, "ann.discard", ev.seat, { card: cardInText(ev.card) }));
      await proto.pause("discard");
      return;
    }
    case "trick": {
      const v = msg.view;
      S.trickDone = { number: v.last_trick ? v.last_trick.number : Math.max(0, v.trick_number - 1), winner: ev.winner, lock: ev.lock };
      S.lastEmpty = ev.winner == null;
      setShown(msg);
      renderNow();
      let text;
      if (ev.winner == null) text = t("ann.emptyTrick");
      else if (ev.lock) text = aboutSeat(S, "ann.trickLock", ev.winner, { n: ev.lock });
      else text = aboutSeat(S, "ann.trick", ev.winner);
      announce(text);
      if (ev.winner != null && ev.lock) {
        showFlash(aboutSeat(S, "flash.lock", ev.winner, { n: ev.lock }));
        pulse(document.querySelector(`#seat-${posOf(S, ev.winner)} .lock-badge`));
        sound("lock");
      } else if (ev.winner != null) sound("trick");
      if (!(await proto.pause("trick"))) return;
      if (ev.winner != null && S.middle.length) {
        const els = /** @type {HTMLElement[]} */ ([...document.querySelectorAll("#middle li.played")]);
        await sweep(els, seatRect(ev.winner), proto.duration("sweep"));
        if (epoch !== proto.epoch) return;
      }
      S.middle = [];
      S.trickDone = null;
      hideFlash();
      renderNow();
      yourTurnCue();
      return;
    }
    case "hand":
      setShown(msg);
      S.middle = [];
      S.trickDone = null;
      hideFlash();
      announce(t("ann.handOver", { n: ev.summary.number + 1 }));
      proto.block();
      openSummary(ev.summary);
      autoContinue();
      renderNow();
      save();
      return;
    case "over":
      setShown(msg);
      renderNow();
      announce(ev.winner === S.seat ? t("prompt.youWon") : t("prompt.won", { name: nameOf(S, ev.winner) }));
      if (ev.winner === S.seat) sound("win");
      openOver(ev.winner);
      return;
    default:
      setShown(msg);
      renderNow();
  }
}

/** Your turn: said, heard (if sounds are on) and shown in the tab's title. */
function yourTurnCue() {
  if (!isMyTurn(S) || proto.queue.length) return;
  announce(t("ann.yourTurn"));
  sound("turn");
}

/** A lock's moment on the table. @param {string} text */
function showFlash(text) {
  const el = $("#flash");
  el.innerHTML = `${lockSVG()} ${esc(text)}`;
  el.hidden = false;
}

function hideFlash() {
  $("#flash").hidden = true;
}

// ------------------------------------------------------------------ the player's actions

/** @type {any} */
let pendingTimer = null;
/** A card sent just before the connection dropped: played or not, the hello's answer says. */
/** @type {string | null} */
let unsure = null;

function clearPending() {
  S.pending = null;
  clearTimeout(pendingTimer);
}

/**
 * The player chose a card. When the table is still showing the bots' cards (or the bot to
 * play has not decided yet) the card waits, lifted, and the table hurries; it is played
 * only if the trick on screen is still the same when the player's turn comes.
 * @param {string} code @param {DOMRect | null} [from]
 */
function playCard(code, from = null) {
  const v = S.view;
  if (!isCard(code) || !v || S.pending || S.summary || anyDialogOpen()) return;
  lastFrom = from;
  const othersFirst = v.phase === "play" && v.turn !== S.seat && !v.locks[S.seat];
  if (proto.busy || othersFirst || !S.connected) {
    if (S.queued && S.queued.card === code) {
      S.queued = null; // a second click takes the card back
      clearMessage();
    } else {
      S.queued = { card: code, key: trickKey(S), offline: !S.connected };
      if (!S.connected) showMessage(t("err.offlineQueued", { card: cardInText(code) }), "info", true);
    }
    proto.hurryUp();
    renderNow();
    resolveQueued();
    return;
  }
  sendPlay(code);
}

/** @param {string} code */
function sendPlay(code) {
  clearMessage();
  if (!proto.hooks.send({ type: "play", card: code, version: proto.shown })) {
    S.queued = { card: code, key: trickKey(S), offline: true };
    showMessage(t("err.offlineQueued", { card: cardInText(code) }), "info", true);
    renderNow();
    return;
  }
  S.pending = code;
  pendingTimer = setTimeout(() => {
    S.pending = null;
    renderHand(S);
  }, 5000);
  renderHand(S);
}

/** Play the card that waited, if its trick is still the one on screen and it is our turn. */
function resolveQueued() {
  const q = S.queued;
  const v = S.view;
  if (!q || !v) return;
  if (!S.connected || proto.busy || proto.syncing || S.summary) return;
  const sameTrick = trickKey(S) === q.key;
  if (sameTrick && isMyTurn(S)) {
    S.queued = null;
    sendPlay(q.card);
    return;
  }
  if (sameTrick && v.phase === "play" && v.turn !== S.seat && !v.locks[S.seat]) return; // still waiting for others
  S.queued = null;
  showMessage(t(v.hand.includes(q.card) ? "err.queuedDropped" : "err.queuedGone", { card: cardInText(q.card) }), "info");
  renderNow();
}

function askHint() {
  if (!canAct(S)) return;
  if (!proto.hooks.send({ type: "hint", version: proto.shown })) {
    showMessage(t("err.offline"));
    return;
  }
  S.hint = null;
  S.hintAsked = true;
  renderHint(S);
  renderButtons(S);
}

/** A game to show: GET /api/game's answer, or a room's game (its id and our seat). @param {Pick<GameInfo, "game"> & Partial<GameInfo>} info */
function setGame(info) {
  S.game = info.game;
  S.seat = typeof info.seat === "number" ? info.seat : 0;
  S.level = typeof info.level === "string" ? info.level : null;
  S.view = null;
  S.middle = [];
  S.trickDone = null;
  S.hint = null;
  S.hintAsked = false;
  S.queued = null;
  S.summary = null;
  S.byComputer.clear();
  closeDialog("#dlg-summary");
  proto.setGame(info.game, 0);
  clearPending();
  clearMessage();
}

/**
 * The wait before asking again a server that said it is full (503 "server-full"): its
 * Retry-After (a minute), spread over its second half so that pages do not come back
 * together. @param {string | null} retryAfter
 */
function fullWait(retryAfter) {
  const n = Number(retryAfter);
  const s = Number.isFinite(n) && n > 0 ? Math.min(n, 300) : 60;
  return 1000 * s * (0.5 + 0.5 * Math.random());
}

/**
 * Find (or start) this player's game: GET /api/game, retried while the server is away,
 * and while it is full (saying so).
 */
async function loadGame() {
  for (let attempt = 0; ; attempt++) {
    let wait = Math.min(8000, 300 * 2 ** attempt);
    try {
      const res = await fetch("/api/game", { credentials: "same-origin", cache: "no-store" });
      if (res.ok) {
        /** @type {GameInfo} */
        const info = await res.json();
        if (S.fault === "full") S.fault = null;
        if (info.game !== S.game) {
          setGame(info);
          if (restore(info.game)) maybeGuide();
        } else if (typeof info.level === "string") S.level = info.level;
        render();
        return;
      }
      const body = await res.json().catch(() => ({}));
      if (body && body.error === "server-full") {
        S.fault = "full";
        render();
        wait = fullWait(res.headers.get("Retry-After"));
      }
    } catch {
      /* the server is away: try again */
    }
    await new Promise((r) => setTimeout(r, wait));
  }
}

/** The option lists of a new game, from the server (the built-in ones if it has none). */
async function loadOptions() {
  try {
    const res = await fetch("/api/options", { credentials: "same-origin" });
    if (res.ok) {
      const o = await res.json();
      if (o && Array.isArray(o.levels) && o.rules && o.rules.target && Array.isArray(o.rules.target.choices)) {
        S.options = { ...FALLBACK_OPTIONS, ...o, rules: { ...FALLBACK_OPTIONS.rules, ...o.rules } };
      }
    }
  } catch {
    /* keep the built-in lists */
  }
  fillNewGameForm(S.options);
}

/** @param {Record<string, any>} options */
async function startNewGame(options) {
  const err = $("#new-error");
  err.textContent = "";
  let res;
  try {
    res = await fetch("/api/games", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(options),
    });
  } catch {
    err.textContent = t("err.offline");
    return false;
  }
  let body = {};
  try {
    body = await res.json();
  } catch {
    /* not JSON */
  }
  const b = /** @type {any} */ (body);
  if (!res.ok) {
    if (res.status === 429 || b.error === "rate-limited")
      err.textContent = rateLimitText(b.reason, res.headers.get("Retry-After"));
    else if (b.error === "server-full") err.textContent = t("err.server-full");
    else err.textContent = b.reason || b.error || t("err.unknown");
    return false;
  }
  setGame(b);
  if (!S.level && typeof options.level === "string") S.level = options.level;
  closeDialog("#dlg-over");
  render();
  proto.hello();
  announce(t("ann.newGame"));
  return true;
}

function maybeGuide() {
  // Spectators are not shown the players' first-game guide.
  if (roomPage.active && roomPage.spectator) return;
  if (S.view && !S.summary) maybeOpenGuide();
}

/** @type {any} */
let summaryTimer = null;

/**
 * A spectator's table never waits on them: the hand summary shows for a short pause, then
 * the next hand goes on by itself (a click on Continue goes on at once).
 */
function autoContinue() {
  clearTimeout(summaryTimer);
  if (!roomPage.active || !roomPage.spectator || !S.summary) return;
  const number = S.summary.number;
  summaryTimer = setTimeout(() => {
    if (S.summary && S.summary.number === number) closeDialog("#dlg-summary");
  }, SPECTATOR_SUMMARY_MS);
}

// ------------------------------------------------------------------ settings

function applyPrefs() {
  const sp = readPref(PREFS.speed) || "normal";
  S.speed = sp in SPEEDS ? sp : "normal";
  proto.setSpeed(S.speed);
  S.fourColour = readPref(PREFS.fourColour) === "1";
  S.sound = readPref(PREFS.sound) === "1";
  document.body.classList.toggle("four-colour", S.fourColour);
  const form = $("#settings-form");
  for (const r of /** @type {NodeListOf<HTMLInputElement>} */ (form.querySelectorAll("input[name=speed]"))) r.checked = r.value === S.speed;
  /** @type {HTMLInputElement} */ (form.querySelector("#opt-fourcolour")).checked = S.fourColour;
  /** @type {HTMLInputElement} */ (form.querySelector("#opt-sound")).checked = S.sound;
  /** @type {HTMLSelectElement} */ (form.querySelector("#opt-lang")).value = language();
}

/** @param {boolean} on */
function toggleSound(on) {
  S.sound = on;
  writePref(PREFS.sound, on ? "1" : "0");
  setSound(on);
  /** @type {HTMLInputElement} */ ($("#opt-sound")).checked = on;
  renderButtons(S);
  if (on) sound("turn");
}

function applyUrlPrefs() {
  const q = new URLSearchParams(location.search);
  const sp = q.get("speed");
  if (sp && sp in SPEEDS) writePref(PREFS.speed, sp);
  const lang = queryLanguage();
  if (lang) writePref("lockup.lang", lang);
}

/** @param {string} lang */
async function switchLanguage(lang) {
  await setLanguage(lang);
  translateDom();
  showLanguageChoice();
  fitTopBar();
  /** @type {HTMLSelectElement} */ ($("#opt-lang")).value = language();
  fillNewGameForm(S.options);
  renderNow();
  if (/** @type {HTMLDialogElement} */ ($("#dlg-summary")).open && S.summary) openSummary(S.summary);
  if (/** @type {HTMLDialogElement} */ ($("#dlg-over")).open && S.view && S.view.winner != null) openOver(S.view.winner);
  const m = $("#message");
  if (!m.hidden) clearMessage();
}

// ------------------------------------------------------------------ the buttons and dialogs

function bindUi() {
  bindHand(playCard);
  bindSkipLink();
  bindGuide();
  $("#btn-guide").addEventListener("click", () => maybeOpenGuide(true));
  $("#btn-new").addEventListener("click", openNewGame);
  $("#btn-hint").addEventListener("click", askHint);
  $("#btn-settings").addEventListener("click", () => openDialog("#dlg-settings"));
  $("#btn-sound").addEventListener("click", () => toggleSound(!S.sound));
  bindLanguageChoice(/** @type {HTMLSelectElement} */ ($("#lang-choice")), switchLanguage);
  const last = $("#btn-last");
  last.addEventListener("click", () => {
    S.lastTrickPinned = !S.lastTrickPinned;
    renderLastTrick(S);
  });
  last.addEventListener("mouseenter", () => {
    S.lastTrickHover = true;
    renderLastTrick(S);
  });
  last.addEventListener("mouseleave", () => {
    S.lastTrickHover = false;
    renderLastTrick(S);
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && S.lastTrickPinned) {
      S.lastTrickPinned = false;
      renderLastTrick(S);
    }
  });
  $("#btn-download").addEventListener("click", (e) => {
    if (/** @type {HTMLElement} */ (e.currentTarget).getAttribute("aria-disabled") === "true") {
      e.preventDefault();
      showMessage(t("btn.downloadLater"), "info");
    }
  });
  // Hand summary: the next hand waits until it is closed.
  const sum = /** @type {HTMLDialogElement} */ ($("#dlg-summary"));
  /** @type {HTMLElement} */ (sum.querySelector("button.continue")).addEventListener("click", () => sum.close());
  sum.addEventListener("close", () => {
    if (!S.summary) return;
    S.summary = null;
    save();
    if (S.overPending !== null) {
      const w = S.overPending;
      S.overPending = null;
      openOver(w);
    }
    proto.release();
    renderNow();
  });
  const over = /** @type {HTMLDialogElement} */ ($("#dlg-over"));
  /** @type {HTMLElement} */ (over.querySelector("button.new")).addEventListener("click", openNewGame);
  /** @type {HTMLElement} */ (over.querySelector("button.close")).addEventListener("click", () => over.close());
  // New game.
  const form = /** @type {HTMLFormElement} */ ($("#new-form"));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const ok = await startNewGame({
      target: Number(data.get("target")),
      picture_exception: data.get("picture_exception"),
      lock_discards: data.get("lock_discards"),
      level: data.get("level"),
    });
    if (ok) closeDialog("#dlg-new");
  });
  $("#new-cancel").addEventListener("click", () => closeDialog("#dlg-new"));
  // Settings: applied at once and kept.
  const sf = $("#settings-form");
  sf.addEventListener("change", (e) => {
    const el = /** @type {HTMLInputElement} */ (e.target);
    if (el.name === "speed") {
      writePref(PREFS.speed, el.value);
      S.speed = el.value;
      proto.setSpeed(el.value);
    } else if (el.id === "opt-fourcolour") {
      writePref(PREFS.fourColour, el.checked ? "1" : "0");
      S.fourColour = el.checked;
      document.body.classList.toggle("four-colour", el.checked);
      renderNow();
    } else if (el.id === "opt-sound") {
      toggleSound(el.checked);
    } else if (el.id === "opt-lang") {
      switchLanguage(el.value);
    }
  });
  $("#settings-close").addEventListener("click", () => closeDialog("#dlg-settings"));
  addEventListener("resize", () => {
    const box = document.querySelector("#dlg-summary[open] .scroll-x");
    if (box) markScroll(/** @type {HTMLElement} */ (box));
  });
}

// ------------------------------------------------------------------ start

async function main() {
  document.documentElement.style.setProperty("--back-img", `url("${backURL()}")`);
  applyUrlPrefs();
  await setLanguage(chooseLanguage(), { save: false });
  translateDom();
  fillNewGameForm(S.options);
  bindUi();
  applyPrefs();
  // Browsers start audio only after a gesture: the first click or tap wakes it if sounds are on.
  addEventListener("pointerdown", () => S.sound && setSound(true), { once: true, capture: true });
  renderNow();
  // The bar on one line: what it cannot hold goes into "More" (fitted again as it changes).
  bindTopBar();
  // A room's link (/room/..., /watch/..., /lobby): the room's table, or no table at all.
  const mode = await roomPage.init({
    proto,
    render: renderNow,
    setGame,
    announce,
    showMessage,
    send: (msg) => (conn ? conn.send(msg) : false),
  });
  /**
   * What a frame says about the faults the page shows: a game's or room's frame clears
   * them (and restarts the back-off), "saving is paused" and the table out of reach set them.
   * @param {any} msg
   */
  const noteFault = (msg) => {
    if (!msg || typeof msg !== "object") return;
    if (msg.type === "notice") S.fault = msg.notice === "relay-down" ? "relay" : null;
    else if (msg.type === "error" && msg.code === "unavailable") S.fault = "paused";
    else if (msg.type === "error" && msg.code === "server-full") S.fault = "full";
    else if (["state", "event", "room", "synced"].includes(msg.type)) {
      conn?.arrived();
      if (S.fault) S.fault = null;
    } else return;
    renderNow();
  };
  conn = new Connection({
    onMessage: (msg) => {
      noteFault(msg);
      roomPage.frame(msg);
      proto.handle(msg);
    },
    onOpen: () => {
      if (mode === "room") proto.hello();
      else if (S.game == null) loadGame().then(() => proto.hello());
      else proto.hello();
    },
    onStatus: (status, code, reason) => {
      S.connected = status === "open";
      if (status === "open") S.lost = false;
      if (status === "closed") {
        S.lost = true;
        // Said until the game arrives again: why the table is away, in the server's words.
        if (code === 1012) S.fault = "restarting";
        else if (code === 1013 && reason === "server-full") S.fault = "full";
        else if (code === 1013 || S.fault === "paused") S.fault = "paused";
        else S.fault = "lost";
        proto.syncing = false;
        if (S.pending) unsure = S.pending;
        clearPending();
      }
      renderNow();
    },
  });
  loadOptions();
  if (mode === "stop") return;
  if (mode === "solo") await loadGame();
  conn.connect();
  // For tests and the curious: a read-only look at what the page holds.
  /** @type {any} */ (window).lockup = {
    get game() {
      return S.game;
    },
    get version() {
      return proto.shown;
    },
    get latest() {
      return proto.latest;
    },
    get view() {
      return S.view;
    },
    get middle() {
      return S.middle.map((p) => ({ ...p }));
    },
    get busy() {
      return proto.busy;
    },
    get trickDone() {
      return S.trickDone ? { ...S.trickDone } : null;
    },
  };
}

main();
