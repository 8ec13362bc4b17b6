// The Lockup table: shows what the server sends and sends what the player chooses.
//
// The page never computes a rule. Legal cards come from the view (view.legal); a card
// that is not legal is still sent, and the server's refusal (the engine's reason) is
// shown. Events arrive as fast as the bots decide; the page paces them on screen with
// the speed setting. See docs/web-protocol.md for the messages.

import { Connection } from "./connection.js";
import {
  PALETTES,
  backURL,
  cardName,
  cardShort,
  faceURL,
  isCard,
  lockSVG,
  miniURL,
  rankOf,
  sortHand,
  suitOf,
} from "./cards.js";
import { chooseLanguage, language, readPref, setLanguage, t, translateDom, writePref } from "./i18n.js";

/** Pauses in milliseconds: before a computer's card, after a trick, a discard, a deal. */
const SPEEDS = {
  slow: { play: 1500, trick: 2600, discard: 1000, deal: 900 },
  normal: { play: 800, trick: 1500, discard: 600, deal: 500 },
  fast: { play: 300, trick: 700, discard: 250, deal: 200 },
  instant: { play: 0, trick: 0, discard: 0, deal: 0 },
};
const POSITIONS = ["bottom", "left", "top", "right"];
const DEFAULT_PLAYERS = ["You", "Þóra", "Leifur", "Vigdís"];
const PREFS = { speed: "lockup.speed", fourColour: "lockup.fourColour" };

/** Everything the page knows. */
const S = {
  game: null, // game id
  seat: 0, // our seat
  players: DEFAULT_PLAYERS.slice(),
  latest: 0, // last version received
  shown: 0, // version on screen
  view: null, // the seat view on screen
  middle: [], // cards on the table: [{seat, card}]
  winner: null, // the seat whose trick is shown as won, during the pause after a trick
  queue: [], // events received, not yet shown
  pumping: false,
  blocked: false, // a hand summary is open: later events wait
  rush: false, // show the queued events without pauses
  epoch: 0, // bumped by a snapshot: cancels an event being shown
  cancelDelay: null,
  idleWaiters: [],
  resyncing: false,
  pending: null, // the card sent, awaiting its event or error
  pendingTimer: null,
  hint: null,
  hintAsked: false,
  focus: 0, // index of the hand card that holds the tab stop
  drag: null,
  suppressClick: false,
  lastTrickPinned: false,
  lastTrickHover: false,
  lastEmpty: false,
  summary: null,
  overPending: null,
  speed: "normal",
  fourColour: false,
  connected: false,
  lost: false, // the connection dropped and has not come back yet
};

let conn = null;
const $ = (sel) => document.querySelector(sel);
const esc = (s) =>
  String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

// ------------------------------------------------------------------ small helpers

function speed() {
  return SPEEDS[S.speed] || SPEEDS.normal;
}

/** A seat's name in the page's language ("You"/"Vous" for our own seat). */
function nameOf(seat) {
  if (seat === S.seat) return t("you");
  return S.players[seat] ?? DEFAULT_PLAYERS[seat];
}

function posOf(seat) {
  return POSITIONS[(seat - S.seat + 4) % 4];
}

const indexOf = (code) => t(`index.${rankOf(code)}`);
const nameCard = (code) => cardName(code, t);
/** A card's name inside a sentence ("the queen of diamonds"). */
const cardInText = (code) => {
  const n = nameCard(code);
  return n[0].toLowerCase() + n.slice(1);
};

function isPlaying(v = S.view) {
  return !!v && (v.phase === "play" || v.phase === "discard");
}

function isMyTurn(v = S.view) {
  return !!v && v.phase === "play" && v.turn === S.seat;
}

/** A seat's game total including the tricks of the hand under way. */
function runningTotal(s, v = S.view) {
  if (!v) return 0;
  return v.totals[s] + (isPlaying(v) ? v.tricks[s] : 0);
}

function delay(ms) {
  if (!ms || S.rush) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(id);
      if (S.cancelDelay === done) S.cancelDelay = null;
      resolve();
    };
    const id = setTimeout(done, ms);
    S.cancelDelay = done;
  });
}

function announce(text) {
  const box = $("#announcer");
  if (!box || !text) return;
  const p = document.createElement("p");
  p.textContent = text;
  box.append(p);
  while (box.childElementCount > 20) box.firstElementChild.remove();
}

function showMessage(text, kind = "error") {
  const el = $("#message");
  el.textContent = text;
  el.dataset.kind = kind;
  el.hidden = !text;
}

function clearMessage() {
  showMessage("");
}

function markBody() {
  const b = document.body.dataset;
  const v = S.view;
  b.version = String(S.shown);
  b.phase = v ? v.phase : "";
  b.myTurn = String(isMyTurn() && !S.queue.length && !S.pumping);
  b.idle = String(!S.queue.length && !S.pumping);
  b.connected = String(S.connected);
  b.game = S.game == null ? "" : String(S.game);
}

// ------------------------------------------------------------------ cards as HTML

const palette = () => (S.fourColour ? PALETTES.four : PALETTES.two);

/** An <img> of a card face (the drawings are made once per card and reused). */
function faceImg(code) {
  return `<img class="face" src="${faceURL(code, indexOf(code), palette())}" alt="" draggable="false">`;
}

function faceHTML(code, extraClass = "") {
  return `<span class="cardface ${extraClass}" role="img" aria-label="${esc(nameCard(code))}" data-card="${code}">${faceImg(code)}</span>`;
}

function lostHTML(code) {
  return `<span class="cardface mini lost" role="img" aria-label="${esc(t("lostCard", { card: nameCard(code) }))}" data-card="${code}"><img class="face" src="${miniURL(
    code,
    indexOf(code),
    palette(),
    true,
  )}" alt="" draggable="false"></span>`;
}

// ------------------------------------------------------------------ rendering

/** Replace an element's HTML only when it changed; true if it did. */
function setHTML(el, html) {
  if (el._html === html) return false;
  el.innerHTML = html;
  el._html = html;
  return true;
}

let renderQueued = false;

/** Draw the table soon (once per frame however many events arrive meanwhile). */
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

function renderNow() {
  renderSeats();
  renderMiddle();
  renderHand();
  renderPrompt();
  renderScores();
  renderInfo();
  renderButtons();
  renderHint();
  renderLastTrick();
  markBody();
}

function renderSeats() {
  const v = S.view;
  for (let s = 0; s < 4; s++) {
    const el = $(`#seat-${posOf(s)}`);
    if (!el) continue;
    el.dataset.seat = String(s);
    const size = v ? v.hand_sizes[s] : 0;
    const lock = v ? v.locks[s] : 0;
    const tricks = v ? v.tricks[s] : 0;
    const lost = v ? v.lost[s] : [];
    const turn = !!v && v.phase === "play" && v.turn === s;
    const name = nameOf(s);
    el.classList.toggle("turn", turn);
    el.classList.toggle("locked", lock > 0);
    el.classList.toggle("won", S.winner === s);
    const parts = [t("seat.summary", { name, n: size }), t("seat.tricks", { n: tricks })];
    if (lock) parts.push(t("seat.locked", { n: lock }));
    if (v && v.dealer === s) parts.push(t("seat.dealer"));
    if (turn) parts.push(t("seat.toPlay"));
    el.setAttribute("aria-label", parts.join(", "));
    const backs =
      s === S.seat
        ? ""
        : `<div class="backs" aria-hidden="true">${'<span class="cardback"></span>'.repeat(size)}</div>`;
    setHTML(
      el,
      `
      <div class="seat-head">
        <span class="avatar" aria-hidden="true">${esc(name.slice(0, 1))}</span>
        <span class="name">${esc(name)}</span>
        ${v && v.dealer === s ? `<span class="chip dealer" title="${esc(t("seat.dealer"))}" aria-hidden="true">${esc(t("seat.dealerChip"))}</span>` : ""}
        ${lock ? `<span class="chip lock-badge" title="${esc(t("seat.locked", { n: lock }))}" data-lock="${lock}"><span class="sr-only">🔒</span>${lockSVG()} ${lock}</span>` : ""}
        ${turn ? `<span class="chip turn-chip" aria-hidden="true">${esc(t("seat.turnChip"))}</span>` : ""}
      </div>
      <div class="seat-stats" aria-hidden="true">
        <span class="stat tricks" data-tricks="${tricks}" title="${esc(t("seat.tricks", { n: tricks }))}">${esc(t("seat.tricksShort", { n: tricks }))}</span>
        <span class="stat total" title="${esc(t("score.total"))}">${esc(t("seat.points", { n: runningTotal(s) }))}</span>
        ${s === S.seat ? "" : `<span class="stat count" data-count="${size}">${esc(t("seat.cards", { n: size }))}</span>`}
      </div>
      ${backs}
      <div class="lost-cards" ${lost.length ? "" : "hidden"} aria-label="${esc(t("seat.lostLabel", { name }))}">${lost.map(lostHTML).join("")}</div>`,
    );
  }
}

function renderMiddle() {
  const el = $("#middle");
  const ol = el.querySelector(".plays");
  // Cards already on the table stay (so they do not land again); new ones are added.
  const keys = S.middle.map((p) => `${language()}${S.fourColour}${p.seat}${p.card}`);
  const items = [...ol.children];
  const keep = items.length <= keys.length && items.every((li, i) => li.dataset.key === keys[i]);
  if (!keep) ol.replaceChildren();
  S.middle.slice(keep ? items.length : 0).forEach((p, k) => {
    const li = document.createElement("li");
    li.dataset.seat = String(p.seat);
    li.dataset.key = keys[(keep ? items.length : 0) + k];
    li.setAttribute("aria-label", t("middle.play", { name: nameOf(p.seat), card: nameCard(p.card) }));
    li.innerHTML = `${faceHTML(p.card)}<span class="who" aria-hidden="true">${esc(nameOf(p.seat))}</span>`;
    ol.append(li);
  });
  [...ol.children].forEach((li, i) => {
    const seat = Number(li.dataset.seat);
    li.className = `played at-${posOf(seat)}${i === 0 ? " lead" : ""}${S.winner === seat ? " winner" : ""}`;
  });
  let note = "";
  const v = S.view;
  if (!S.middle.length && isMyTurn() && !S.pumping) note = t("middle.yourLead");
  else if (!S.middle.length && S.winner === null && S.lastEmpty) note = t("middle.empty");
  el.querySelector(".note").textContent = note;
  el.classList.toggle("can-drop", isMyTurn());
  el.setAttribute("aria-label", v ? t("middle.label", { n: Math.min(v.trick_number + 1, 13) }) : t("middle.labelBare"));
}

function renderHand() {
  const el = $("#hand");
  const v = S.view;
  const hadFocus = el.contains(document.activeElement);
  const cards = sortHand(v ? v.hand : []);
  const myTurn = isMyTurn();
  const legal = new Set(myTurn ? v.legal : []);
  const values = new Map((S.hint?.values || []).map((x) => [x.card, x.value]));
  if (S.focus >= cards.length) S.focus = Math.max(0, cards.length - 1);
  const html = cards
    .map((c, i) => {
      const cls = ["card", `suit-${suitOf(c)}`];
      if (legal.has(c)) cls.push("legal");
      else if (myTurn) cls.push("illegal");
      if (S.pending === c) cls.push("pending");
      if (S.hint?.best === c) cls.push("best");
      let label = nameCard(c);
      let badge = "";
      if (values.has(c)) {
        const val = formatValue(values.get(c));
        label += `, ${t("hint.cardValue", { value: val })}`;
        badge = `<span class="hint-badge" aria-hidden="true">${esc(val)}</span>`;
      }
      return `<button type="button" class="${cls.join(" ")}" data-card="${c}" aria-label="${esc(label)}"${
        legal.has(c) ? ' aria-describedby="desc-playable"' : ""
      } tabindex="${i === S.focus ? 0 : -1}">${faceImg(c)}${badge}</button>`;
    })
    .join("");
  const changed = setHTML(el, html);
  el.setAttribute("aria-label", t("hand.label", { n: cards.length }));
  el.classList.toggle("my-turn", myTurn);
  el.style.setProperty("--n", String(Math.max(cards.length, 1)));
  if (hadFocus && changed) {
    const btn = el.querySelectorAll("button.card")[S.focus];
    if (btn) btn.focus({ preventScroll: true });
  }
}

function formatValue(x) {
  return new Intl.NumberFormat(language(), { minimumFractionDigits: 1, maximumFractionDigits: 2 }).format(x);
}

function renderPrompt() {
  const v = S.view;
  let text = "";
  if (!v) text = S.connected ? t("prompt.loading") : t("prompt.connecting");
  else if (v.phase === "over")
    text = v.winner === S.seat ? t("prompt.youWon") : t("prompt.won", { name: nameOf(v.winner) });
  else if (v.phase === "deal") text = t("prompt.dealing");
  else if (v.phase === "discard") text = t("prompt.discard", { name: nameOf(v.discard_due) });
  else if (v.locks[S.seat]) text = t("prompt.locked", { n: v.locks[S.seat] });
  else if (isMyTurn()) text = v.trick.length || S.middle.length ? t("prompt.follow") : t("prompt.lead");
  else if (v.turn != null) text = t("prompt.waiting", { name: nameOf(v.turn) });
  $("#prompt").textContent = text;
}

function renderScores() {
  const v = S.view;
  const tbl = $("#scores");
  const head = `<thead><tr><th scope="col">${esc(t("score.hand"))}</th>${[0, 1, 2, 3]
    .map((s) => `<th scope="col">${esc(nameOf(s))}</th>`)
    .join("")}</tr></thead>`;
  let rows = "";
  const totals = v ? [0, 1, 2, 3].map((s) => runningTotal(s)) : [0, 0, 0, 0];
  const top = Math.max(...totals);
  for (const h of v ? v.summaries : []) {
    rows += `<tr><th scope="row">${h.number + 1}</th>${h.points.map((p) => `<td>${p}</td>`).join("")}</tr>`;
  }
  if (isPlaying(v)) {
    rows += `<tr class="current"><th scope="row">${v.hand_number + 1} <span class="live">${esc(t("score.live"))}</span></th>${v.tricks
      .map((p) => `<td>${p}</td>`)
      .join("")}</tr>`;
  }
  const foot = `<tfoot><tr><th scope="row">${esc(t("score.total"))}</th>${totals
    .map((x) => `<td class="${x === top && top > 0 ? "leader" : ""}">${x}</td>`)
    .join("")}</tr></tfoot>`;
  setHTML(
    tbl,
    `<caption>${esc(t("score.caption", { target: v ? v.rules.target : 20 }))}</caption>${head}<tbody>${rows}</tbody>${foot}`,
  );
}

function renderInfo() {
  const v = S.view;
  const dl = $("#info");
  if (!v) {
    setHTML(dl, "");
    return;
  }
  const items = [
    [t("info.hand"), String(v.hand_number + 1)],
    [t("info.trick"), isPlaying(v) ? t("info.trickOf", { n: Math.min(v.trick_number + 1, 13) }) : "–"],
    [t("info.dealer"), nameOf(v.dealer)],
    [t("info.target"), String(v.rules.target)],
    [t("info.picture"), t(`opt.picture.${v.rules.picture_exception}`)],
    [t("info.discards"), t(`opt.discards.${v.rules.lock_discards}`)],
  ];
  setHTML(dl, items.map(([k, x]) => `<div><dt>${esc(k)}</dt><dd>${esc(x)}</dd></div>`).join(""));
}

function renderButtons() {
  const v = S.view;
  const hint = $("#btn-hint");
  hint.disabled = !isMyTurn() || !S.connected;
  const last = $("#btn-last");
  last.disabled = !v || !v.last_trick;
  const dl = $("#btn-download");
  const over = !!v && v.phase === "over" && S.game != null;
  if (S.game != null) dl.href = `/api/games/${encodeURIComponent(S.game)}/record`;
  dl.setAttribute("aria-disabled", String(!over));
  dl.classList.toggle("disabled", !over);
  dl.title = over ? t("btn.downloadTitle") : t("btn.downloadLater");
  $("#conn").hidden = !S.lost;
}

function renderHint() {
  const panel = $("#hint-panel");
  if (!S.hint && !S.hintAsked) {
    panel.hidden = true;
    setHTML(panel, "");
    return;
  }
  panel.hidden = false;
  if (!S.hint) {
    setHTML(panel, `<p>${esc(t("hint.thinking"))}</p>`);
    return;
  }
  const vals = [...S.hint.values].sort((a, b) => b.value - a.value);
  const unit = S.hint.unit === "tricks" ? t("hint.unitTricks") : S.hint.unit || "";
  setHTML(
    panel,
    `<p class="hint-best">${esc(
      t("hint.best", { card: S.hint.best ? cardInText(S.hint.best) : "–" }),
    )}</p><table class="hint-table"><caption>${esc(t("hint.caption", { unit }))}</caption><tbody>${vals
      .map(
        (x) =>
          `<tr class="${x.card === S.hint.best ? "best" : ""}"><th scope="row"><span class="short suit-${suitOf(x.card)}">${esc(
            cardShort(x.card, t),
          )}</span> <span class="sr-only">${esc(nameCard(x.card))}</span></th><td>${esc(formatValue(x.value))}</td></tr>`,
      )
      .join("")}</tbody></table>`,
  );
}

function renderLastTrick() {
  const panel = $("#last-trick");
  const v = S.view;
  const lt = v && v.last_trick;
  const btn = $("#btn-last");
  const open = !!lt && (S.lastTrickPinned || S.lastTrickHover);
  panel.hidden = !open;
  btn.setAttribute("aria-expanded", String(open));
  if (!lt) {
    setHTML(panel, "");
    return;
  }
  let title;
  if (lt.winner == null) title = t("last.empty", { num: lt.number + 1 });
  else if (lt.lock) title = t("last.wonLock", { num: lt.number + 1, name: nameOf(lt.winner), n: lt.lock });
  else title = t("last.won", { num: lt.number + 1, name: nameOf(lt.winner) });
  setHTML(
    panel,
    `<h2>${esc(title)}</h2><ol class="last-plays">${lt.plays
      .map(
        (p) =>
          `<li class="${p.seat === lt.winner ? "winner" : ""}">${faceHTML(p.card, "small")}<span>${esc(nameOf(p.seat))}</span></li>`,
      )
      .join("")}</ol>`,
  );
}

// ------------------------------------------------------------------ incoming messages

function onMessage(msg) {
  switch (msg.type) {
    case "state":
      return onState(msg);
    case "event":
      return onEvent(msg);
    case "error":
      return onError(msg);
    case "hint":
      return onHint(msg);
    default:
      return undefined; // pong and anything newer: nothing to do
  }
}

function onState(msg) {
  if (!msg.view || typeof msg.version !== "number") return;
  S.resyncing = false;
  S.epoch += 1;
  S.queue.length = 0;
  S.rush = false;
  if (S.cancelDelay) S.cancelDelay();
  S.latest = msg.version;
  if (Array.isArray(msg.players) && msg.players.length === 4) S.players = msg.players.slice();
  S.view = msg.view;
  S.shown = msg.version;
  S.middle = msg.view.phase === "play" ? msg.view.trick.map((p) => ({ seat: p.seat, card: p.card })) : [];
  S.winner = null;
  S.hint = null;
  S.hintAsked = false;
  clearPending();
  closeDialog("#dlg-summary");
  S.blocked = false;
  if (msg.view.phase === "over") openOver(msg.view.winner);
  else closeDialog("#dlg-over");
  render();
  notifyIdle();
}

function onEvent(msg) {
  if (typeof msg.version !== "number" || !msg.event) return;
  if (msg.version <= S.latest) return; // seen already
  if (msg.version > S.latest + 1) {
    resync(); // a gap: ask for what we missed
    return;
  }
  S.resyncing = false;
  S.latest = msg.version;
  S.queue.push(msg);
  pump();
}

function resync() {
  if (S.resyncing || S.game == null) return;
  S.resyncing = true;
  // An up-to-date page gets no answer: allow another try after a while.
  setTimeout(() => (S.resyncing = false), 2000);
  sayHello();
}

function onError(msg) {
  clearPending();
  S.hintAsked = false;
  showMessage(errorText(msg));
  render();
  if (msg.code === "stale") resync();
  if (msg.code === "no-game" || msg.code === "not-your-game") {
    S.game = null;
    loadGame().then(sayHello);
  }
}

/** The refusal in the page's language: English is the server's reason; French is ours. */
function errorText(msg) {
  const code = msg.code || "";
  const p = msg.params || {};
  if (language() === "en") return msg.reason || t("err.unknown");
  const suit = p.suit ? t(`suitname.${p.suit}`) : "";
  switch (code) {
    case "lead-club":
      return t("err.lead-club");
    case "must-follow":
      return t(p.club ? "err.must-follow-club" : "err.must-follow", { suit });
    case "picture-rank": {
      const cards = (p.cards || []).filter(isCard).map((c) => cardShort(c, t));
      return t("err.picture-rank", { suit, cards: cards.join(t("list.or")) });
    }
    case "not-your-turn":
      return t("err.not-your-turn", { name: typeof p.seat === "number" ? nameOf(p.seat) : "?" });
    case "locked": {
      const n = typeof p.tricks === "number" ? p.tricks : 1;
      return t(`err.locked_${n <= 1 ? "one" : n === 2 ? "two" : "other"}`, { more: n - 1 });
    }
    case "not-in-hand": {
      const card = isCard(p.card) ? cardInText(p.card) : "";
      return t(`err.not-in-hand.${p.why === "lost" || p.why === "played" ? p.why : "absent"}`, { card });
    }
    case "discard-due":
      return t("err.discard-due", { name: typeof p.seat === "number" ? nameOf(p.seat) : "?" });
    default: {
      const key = `err.${code}`;
      const text = t(key);
      return text === key ? msg.reason || t("err.unknown") : text;
    }
  }
}

function onHint(msg) {
  if (msg.version !== S.shown || !Array.isArray(msg.values)) return;
  S.hint = msg;
  S.hintAsked = false;
  renderHint();
  renderHand();
  if (msg.best) announce(t("hint.best", { card: cardInText(msg.best) }));
}

// ------------------------------------------------------------------ showing events, paced

async function pump() {
  if (S.pumping) return;
  S.pumping = true;
  markBody();
  try {
    while (S.queue.length && !S.blocked) {
      const msg = S.queue.shift();
      await showEvent(msg, S.epoch);
    }
  } finally {
    S.pumping = false;
    if (!S.queue.length) S.rush = false;
    render();
    notifyIdle();
  }
}

function notifyIdle() {
  if (S.queue.length && !S.blocked) return;
  for (const f of S.idleWaiters.splice(0)) f();
}

/** Show every queued event at once (the player is impatient); resolves when done. */
function fastForward() {
  if (!S.queue.length && !S.pumping) return Promise.resolve();
  S.rush = true;
  if (S.cancelDelay) S.cancelDelay();
  return new Promise((resolve) => {
    S.idleWaiters.push(resolve);
    pump();
  });
}

function setShown(msg) {
  S.view = msg.view;
  if (S.shown !== msg.version) {
    S.hint = null;
    S.hintAsked = false;
  }
  S.shown = msg.version;
}

async function showEvent(msg, epoch) {
  const ev = msg.event;
  const sp = speed();
  switch (ev.kind) {
    case "deal":
      S.middle = [];
      S.winner = null;
      S.lastEmpty = false;
      setShown(msg);
      render();
      announce(t("ann.deal", { n: ev.hand + 1, name: nameOf(ev.dealer) }));
      await delay(sp.deal);
      return;
    case "play": {
      if (ev.seat !== S.seat) {
        await delay(sp.play);
        if (epoch !== S.epoch) return;
      } else {
        clearPending();
        clearMessage();
      }
      S.winner = null;
      S.lastEmpty = false;
      const v = msg.view;
      const same = (p) => p && p.seat === ev.seat && p.card === ev.card;
      if (v.phase === "play" && v.trick.length && same(v.trick[v.trick.length - 1])) {
        S.middle = v.trick.map((p) => ({ seat: p.seat, card: p.card }));
      } else if (v.last_trick && same(v.last_trick.plays[v.last_trick.plays.length - 1])) {
        S.middle = v.last_trick.plays.map((p) => ({ seat: p.seat, card: p.card }));
      } else {
        S.middle.push({ seat: ev.seat, card: ev.card });
      }
      setShown(msg);
      render();
      announce(
        t(ev.seat === S.seat ? "ann.playYou" : "ann.play", { name: nameOf(ev.seat), card: cardInText(ev.card) }),
      );
      if (isMyTurn()) announce(t("ann.yourTurn"));
      return;
    }
    case "discard":
      setShown(msg);
      render();
      announce(
        t(ev.seat === S.seat ? "ann.discardYou" : "ann.discard", { name: nameOf(ev.seat), card: cardInText(ev.card) }),
      );
      await delay(sp.discard);
      return;
    case "trick": {
      S.winner = ev.winner;
      S.lastEmpty = ev.winner == null;
      setShown(msg);
      render();
      let text;
      if (ev.winner == null) text = t("ann.emptyTrick");
      else if (ev.lock) text = t("ann.trickLock", { name: nameOf(ev.winner), n: ev.lock });
      else text = t("ann.trick", { name: nameOf(ev.winner) });
      announce(text);
      await delay(sp.trick);
      if (epoch !== S.epoch) return;
      S.middle = [];
      S.winner = null;
      render();
      if (isMyTurn()) announce(t("ann.yourTurn"));
      return;
    }
    case "hand":
      setShown(msg);
      S.middle = [];
      S.winner = null;
      render();
      announce(t("ann.handOver", { n: ev.summary.number + 1 }));
      S.blocked = true;
      openSummary(ev.summary);
      return;
    case "over":
      setShown(msg);
      render();
      announce(ev.winner === S.seat ? t("prompt.youWon") : t("prompt.won", { name: nameOf(ev.winner) }));
      openOver(ev.winner);
      return;
    default:
      setShown(msg);
      render();
  }
}

// ------------------------------------------------------------------ the player's actions

function clearPending() {
  S.pending = null;
  clearTimeout(S.pendingTimer);
}

async function playCard(code) {
  if (!isCard(code) || S.pending || S.blocked || anyDialogOpen()) return;
  if (S.queue.length || S.pumping) await fastForward();
  if (!S.view || S.blocked) return;
  clearMessage();
  if (!conn.send({ type: "play", card: code, version: S.shown })) {
    showMessage(t("err.offline"));
    return;
  }
  S.pending = code;
  S.pendingTimer = setTimeout(() => {
    S.pending = null;
    renderHand();
  }, 4000);
  renderHand();
}

function askHint() {
  if (!isMyTurn()) return;
  if (!conn.send({ type: "hint", version: S.shown })) {
    showMessage(t("err.offline"));
    return;
  }
  S.hint = null;
  S.hintAsked = true;
  renderHint();
}

function sayHello() {
  if (S.game == null || !conn) return;
  conn.send({ type: "hello", game: S.game, since: S.latest });
}

function setGame(info) {
  S.game = info.game;
  S.seat = typeof info.seat === "number" ? info.seat : 0;
  S.latest = 0;
  S.shown = 0;
  S.view = null;
  S.queue.length = 0;
  S.epoch += 1;
  S.middle = [];
  S.blocked = false;
  S.hint = null;
  S.hintAsked = false;
  clearPending();
  clearMessage();
}

/** Find (or start) this player's game: GET /api/game, retried while the server is away. */
async function loadGame() {
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await fetch("/api/game", { credentials: "same-origin", cache: "no-store" });
      if (res.ok) {
        const info = await res.json();
        if (info.game !== S.game) setGame(info);
        render();
        return;
      }
    } catch {
      /* the server is away: try again */
    }
    await new Promise((r) => setTimeout(r, Math.min(8000, 300 * 2 ** attempt)));
  }
}

async function startNewGame(options) {
  const err = $("#new-error");
  err.textContent = "";
  let res;
  try {
    res = await fetch("/api/games", {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json" },
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
  if (!res.ok) {
    err.textContent = body.reason || body.error || t("err.unknown");
    return false;
  }
  setGame(body);
  closeDialog("#dlg-over");
  render();
  sayHello();
  announce(t("ann.newGame"));
  return true;
}

// ------------------------------------------------------------------ dialogs

function anyDialogOpen() {
  return !!document.querySelector("dialog[open]");
}

function openDialog(sel) {
  const d = $(sel);
  if (!d.open) d.showModal();
  return d;
}

function closeDialog(sel) {
  const d = $(sel);
  if (d && d.open) d.close();
}

function summaryTable(summary) {
  const rows = [0, 1, 2, 3]
    .map(
      (s) => `<tr data-seat="${s}"><th scope="row">${esc(nameOf(s))}</th>
        <td class="pts">${summary.points[s]}</td><td class="tot">${summary.totals[s]}</td>
        <td>${summary.times_locked[s]}</td><td>${summary.tricks_sat_out[s]}</td>
        <td class="lost-list">${summary.lost[s].length ? summary.lost[s].map(lostHTML).join("") : "–"}</td></tr>`,
    )
    .join("");
  return `<table class="summary"><thead><tr><th scope="col">${esc(t("sum.player"))}</th><th scope="col">${esc(
    t("sum.points"),
  )}</th><th scope="col">${esc(t("sum.total"))}</th><th scope="col">${esc(t("sum.locked"))}</th><th scope="col">${esc(
    t("sum.satOut"),
  )}</th><th scope="col">${esc(t("sum.lost"))}</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function openSummary(summary) {
  S.summary = summary;
  const d = $("#dlg-summary");
  d.querySelector("h2").textContent = t("sum.title", { n: summary.number + 1 });
  d.querySelector(".body").innerHTML =
    summaryTable(summary) + (summary.empty_tricks ? `<p>${esc(t("sum.empty", { n: summary.empty_tricks }))}</p>` : "");
  openDialog("#dlg-summary");
  d.querySelector("button.continue").focus();
}

function openOver(winner) {
  const v = S.view;
  const d = $("#dlg-over");
  d.querySelector("h2").textContent = winner === S.seat ? t("over.youWon") : t("over.won", { name: nameOf(winner) });
  const order = [0, 1, 2, 3].sort((a, b) => v.totals[b] - v.totals[a]);
  d.querySelector(".body").innerHTML = `<ol class="final">${order
    .map((s) => `<li class="${s === winner ? "winner" : ""}"><span>${esc(nameOf(s))}</span> <b>${v.totals[s]}</b></li>`)
    .join("")}</ol>`;
  const a = d.querySelector("a.download");
  a.href = `/api/games/${encodeURIComponent(S.game)}/record`;
  a.setAttribute("download", `lockup-${S.game}.json`);
  if (!$("#dlg-summary").open) openDialog("#dlg-over");
  else S.overPending = winner;
}

function openNewGame() {
  closeDialog("#dlg-over");
  const d = $("#dlg-new");
  $("#new-error").textContent = "";
  const v = S.view;
  if (v) {
    d.querySelector("#opt-target").value = String(v.rules.target);
    d.querySelector(`input[name=picture_exception][value="${v.rules.picture_exception}"]`).checked = true;
    d.querySelector(`input[name=lock_discards][value="${v.rules.lock_discards}"]`).checked = true;
  }
  openDialog("#dlg-new");
  d.querySelector("#opt-target").focus();
}

// ------------------------------------------------------------------ settings

function applyPrefs() {
  const sp = readPref(PREFS.speed);
  S.speed = sp in SPEEDS ? sp : "normal";
  S.fourColour = readPref(PREFS.fourColour) === "1";
  document.body.classList.toggle("four-colour", S.fourColour);
  const form = $("#settings-form");
  for (const r of form.querySelectorAll("input[name=speed]")) r.checked = r.value === S.speed;
  form.querySelector("#opt-fourcolour").checked = S.fourColour;
  form.querySelector("#opt-lang").value = language();
}

function applyUrlPrefs() {
  const q = new URLSearchParams(location.search);
  if (q.get("speed") in SPEEDS) writePref(PREFS.speed, q.get("speed"));
  if (q.get("lang") === "en" || q.get("lang") === "fr") writePref("lockup.lang", q.get("lang"));
}

async function switchLanguage(lang) {
  await setLanguage(lang);
  translateDom();
  updateLangButton();
  $("#opt-lang").value = language();
  render();
  if ($("#dlg-summary").open && S.summary) openSummary(S.summary);
  if ($("#dlg-over").open && S.view) openOver(S.view.winner);
}

function updateLangButton() {
  const b = $("#btn-lang");
  const other = language() === "fr" ? "en" : "fr";
  b.textContent = t(`lang.${other}`);
  b.lang = other;
  b.dataset.lang = other;
  b.setAttribute("aria-label", t("lang.switch", { lang: t(`lang.${other}`) }));
}

// ------------------------------------------------------------------ input

function bindHand() {
  const hand = $("#hand");
  hand.addEventListener("click", (e) => {
    const btn = e.target.closest("button.card");
    if (!btn) return;
    if (S.suppressClick) {
      S.suppressClick = false;
      return;
    }
    playCard(btn.dataset.card);
  });
  hand.addEventListener("focusin", (e) => {
    const btns = [...hand.querySelectorAll("button.card")];
    const i = btns.indexOf(e.target.closest("button.card"));
    if (i >= 0 && i !== S.focus) {
      btns.forEach((b, j) => (b.tabIndex = j === i ? 0 : -1));
      S.focus = i;
    }
  });
  hand.addEventListener("keydown", (e) => {
    const btns = [...hand.querySelectorAll("button.card")];
    if (!btns.length) return;
    let i = btns.indexOf(document.activeElement);
    if (i < 0) i = S.focus;
    const moves = {
      ArrowRight: i + 1,
      ArrowDown: i + 1,
      ArrowLeft: i - 1,
      ArrowUp: i - 1,
      Home: 0,
      End: btns.length - 1,
    };
    if (e.key in moves) {
      e.preventDefault();
      const j = Math.max(0, Math.min(btns.length - 1, moves[e.key]));
      btns[j].focus();
    }
  });
  // Drag a card into the middle to play it (pointer events: mouse, pen and touch).
  hand.addEventListener("pointerdown", (e) => {
    const btn = e.target.closest("button.card");
    if (!btn || e.button !== 0) return;
    S.drag = { btn, id: e.pointerId, x: e.clientX, y: e.clientY, moving: false };
  });
  window.addEventListener("pointermove", (e) => {
    const d = S.drag;
    if (!d || e.pointerId !== d.id) return;
    const dx = e.clientX - d.x;
    const dy = e.clientY - d.y;
    if (!d.moving && Math.hypot(dx, dy) < 8) return;
    if (!d.moving) {
      d.moving = true;
      d.btn.classList.add("dragging");
      try {
        d.btn.setPointerCapture(e.pointerId);
      } catch {
        /* already released */
      }
    }
    d.btn.style.transform = `translate(${dx}px, ${dy}px)`;
    $("#middle").classList.toggle("drop-hover", overMiddle(e));
  });
  const end = (e) => {
    const d = S.drag;
    if (!d || e.pointerId !== d.id) return;
    S.drag = null;
    $("#middle").classList.remove("drop-hover");
    if (!d.moving) return;
    d.btn.classList.remove("dragging");
    d.btn.style.transform = "";
    S.suppressClick = true;
    setTimeout(() => (S.suppressClick = false), 0);
    if (e.type === "pointerup" && overMiddle(e)) playCard(d.btn.dataset.card);
  };
  window.addEventListener("pointerup", end);
  window.addEventListener("pointercancel", end);
}

function overMiddle(e) {
  const r = $("#middle").getBoundingClientRect();
  return e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom;
}

function bindUi() {
  bindHand();
  $("#btn-new").addEventListener("click", openNewGame);
  $("#btn-hint").addEventListener("click", askHint);
  $("#btn-settings").addEventListener("click", () => openDialog("#dlg-settings"));
  $("#btn-lang").addEventListener("click", () => switchLanguage(language() === "fr" ? "en" : "fr"));
  const last = $("#btn-last");
  last.addEventListener("click", () => {
    S.lastTrickPinned = !S.lastTrickPinned;
    renderLastTrick();
  });
  last.addEventListener("mouseenter", () => {
    S.lastTrickHover = true;
    renderLastTrick();
  });
  last.addEventListener("mouseleave", () => {
    S.lastTrickHover = false;
    renderLastTrick();
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && S.lastTrickPinned) {
      S.lastTrickPinned = false;
      renderLastTrick();
    }
  });
  $("#btn-download").addEventListener("click", (e) => {
    if (e.currentTarget.getAttribute("aria-disabled") === "true") {
      e.preventDefault();
      showMessage(t("btn.downloadLater"), "info");
    }
  });
  // Hand summary: the next hand waits until it is closed.
  const sum = $("#dlg-summary");
  sum.querySelector("button.continue").addEventListener("click", () => sum.close());
  sum.addEventListener("close", () => {
    S.blocked = false;
    if (S.overPending !== null) {
      const w = S.overPending;
      S.overPending = null;
      openOver(w);
    }
    pump();
    render();
  });
  const over = $("#dlg-over");
  over.querySelector("button.new").addEventListener("click", openNewGame);
  over.querySelector("button.close").addEventListener("click", () => over.close());
  // New game.
  const form = $("#new-form");
  $("#opt-target").innerHTML = Array.from({ length: 9 }, (_, i) => 10 + 5 * i)
    .map((x) => `<option value="${x}"${x === 20 ? " selected" : ""}>${x}</option>`)
    .join("");
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
    const el = e.target;
    if (el.name === "speed") {
      writePref(PREFS.speed, el.value);
      S.speed = el.value;
    } else if (el.id === "opt-fourcolour") {
      writePref(PREFS.fourColour, el.checked ? "1" : "0");
      S.fourColour = el.checked;
      document.body.classList.toggle("four-colour", el.checked);
      render();
    } else if (el.id === "opt-lang") {
      switchLanguage(el.value);
    }
  });
  $("#settings-close").addEventListener("click", () => closeDialog("#dlg-settings"));
}

// ------------------------------------------------------------------ start

async function main() {
  document.documentElement.style.setProperty("--back-img", `url("${backURL()}")`);
  applyUrlPrefs();
  await setLanguage(chooseLanguage(), { save: false });
  translateDom();
  updateLangButton();
  bindUi();
  applyPrefs();
  render();
  conn = new Connection({
    onMessage,
    onOpen: () => {
      if (S.game == null) loadGame().then(sayHello);
      else sayHello();
    },
    onStatus: (status) => {
      S.connected = status === "open";
      if (status === "open") S.lost = false;
      if (status === "closed") {
        S.lost = true; // shown until a connection opens again
        S.resyncing = false;
      }
      renderButtons();
      renderPrompt();
      markBody();
    },
  });
  await loadGame();
  conn.connect();
  // For tests and the curious: a read-only look at what the page holds.
  window.lockup = {
    get game() {
      return S.game;
    },
    get version() {
      return S.shown;
    },
    get latest() {
      return S.latest;
    },
    get view() {
      return S.view;
    },
    get middle() {
      return S.middle.map((p) => ({ ...p }));
    },
  };
}

main();
