// @ts-check
// The review page (/review/{game}): the game move by move from its record, the player's
// hand at each moment (after the game, all four), the analysis of the player's plays
// (marks on the cards, the values of each card, the expected tricks lost through each
// hand, accuracy), with the analysis' progress while it runs on the server.
//
// The page applies no rule: the record holds the cards in order, and the server's
// `tricks` say which trick each play belongs to and who won it (see review-core.js).

import { PALETTES, faceURL, miniURL, sortHand } from "./cards.js";
import { language, readPref, t } from "./i18n.js";
import { lineChart } from "./charts.js";
import { $, ApiError, getJSON, postJSON, rulesShort, rulesText, seatName, startPage } from "./pagekit.js";
import {
  buildSteps,
  decisionAt,
  decisionInTrick,
  decisionMap,
  flatTricks,
  formatAccuracy,
  formatTricks,
  handStart,
  lossSeries,
  positionOf,
  progressPercent,
  stateAt,
  stepOfDecision,
  stepOfTrick,
} from "./review-core.js";
import { cardInText, esc, indexOf, nameCard } from "./text.js";

/** @typedef {import("./review-core.js").GameRecord} GameRecord */
/** @typedef {import("./review-core.js").ReviewTrick} ReviewTrick */
/** @typedef {import("./review-core.js").Analysis} Analysis */
/** @typedef {import("./review-core.js").Decision} Decision */
/** @typedef {import("./review-core.js").Step} Step */
/** @typedef {import("./types.js").HandSummary} HandSummary */

/**
 * @typedef {object} Review answer of GET /api/games/{id}/review
 * @property {string} game
 * @property {number} seat
 * @property {string[]} players
 * @property {import("./types.js").Rules} rules
 * @property {boolean} over
 * @property {GameRecord} record
 * @property {ReviewTrick[]} tricks hand by hand from the server, made one list here
 * @property {HandSummary[]} summaries
 * @property {{status: string, progress: number, hands?: number, result: Analysis | null}} analysis
 */

const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
const palette = () => (readPref("lockup.fourColour") === "1" ? PALETTES.four : PALETTES.two);

const R = {
  /** @type {Review | null} */ data: null,
  /** @type {Step[]} */ steps: [],
  at: 0,
  /** @type {Analysis | null} */ analysis: null,
  /** @type {Map<string, Decision>} */ decisions: new Map(),
  status: "none",
  progress: 0,
  /** @type {any} */ poll: null,
  /** @type {string} */ error: "",
  /** the game has no finished hand: nothing to review (said in the page's language) */ empty: false,
  /** hands the stored analysis covers (-1: not said) */ hands: -1,
  /** analyses asked for by this page */ asked: 0,
  /** requests about the analysis sent so far (poll or start) */ sent: 0,
  /** the newest of them whose answer was taken: an older answer arriving late is stale */ taken: 0,
};

// ------------------------------------------------------------------ words

/** A seat's name; our seat is "You". @param {number} seat */
function who(seat) {
  if (!R.data) return `${seat + 1}`;
  return seatName(R.data.players || R.data.record.players || [], seat, R.data.seat);
}

/** A sentence about a seat, its ".you" form for ours. @param {string} key @param {number} seat @param {Record<string, any>} [p] */
function about(key, seat, p = {}) {
  if (R.data && seat === R.data.seat) {
    const k = `${key}.you`;
    const out = t(k, p);
    if (out !== k && !out.startsWith(`${k}_`)) return out;
  }
  return t(key, { ...p, name: who(seat) });
}

/** @param {string | null} mark */
const markWord = (mark) => (mark ? t(`review.mark.${mark}`) : "");
/** @param {string | null} mark */
const markSymbol = (mark) => ({ inaccuracy: "?!", mistake: "?", blunder: "??" })[mark || ""] || "";

/** @param {number} x */
const tricks = (x) => formatTricks(x, language());

// ------------------------------------------------------------------ cards

/**
 * A card face, maybe with a mark (its symbol shown, its word for screen readers).
 * @param {string} code @param {{cls?: string, mark?: string | null, extra?: string, label?: string}} [o]
 */
function cardHTML(code, o = {}) {
  const mark = o.mark || null;
  const label = [nameCard(code), mark ? markWord(mark) : "", o.label || ""].filter(Boolean).join(", ");
  return `<span class="rv-card ${o.cls || ""}${mark ? ` marked mark-${mark}` : ""}" role="img" aria-label="${esc(label)}" data-card="${code}"${
    mark ? ` data-mark="${mark}"` : ""
  }><img src="${faceURL(code, indexOf(code), palette())}" alt="" draggable="false">${
    mark ? `<span class="mark-badge" aria-hidden="true">${markSymbol(mark)}</span>` : ""
  }${o.extra || ""}</span>`;
}

/** A small card (others' hands, lost cards). @param {string} code @param {boolean} [crossed] */
function miniHTML(code, crossed = false) {
  return `<span class="rv-mini${crossed ? " lost" : ""}" role="img" aria-label="${esc(crossed ? t("review.lostCard", { card: nameCard(code) }) : nameCard(code))}" data-card="${code}"><img src="${miniURL(
    code,
    indexOf(code),
    palette(),
    crossed,
  )}" alt="" draggable="false"></span>`;
}

// ------------------------------------------------------------------ drawing

function render() {
  const d = R.data;
  if (!d) return;
  const step = R.steps[R.at];
  const st = stateAt(d.record, d.tricks, R.steps, R.at);
  const me = d.seat;
  const showAll = d.over && /** @type {HTMLInputElement} */ ($("#all-hands")).checked;
  const dec = decisionAt(R.steps, R.decisions, me, R.at);
  const totalsBefore = st.hand > 0 && d.summaries[st.hand - 1] ? d.summaries[st.hand - 1].totals : [0, 0, 0, 0];

  // Seats.
  for (let seat = 0; seat < 4; seat++) {
    const pos = positionOf(me, seat);
    const box = /** @type {HTMLElement} */ (document.querySelector(`.rv-seat[data-pos="${pos}"]`));
    const dealer = d.record.hands[st.hand].dealer === seat;
    const held = sortHand(st.held[seat]);
    const cards =
      seat === me
        ? ""
        : showAll
          ? `<div class="rv-held" role="list" aria-label="${esc(t("review.handOf", { name: who(seat) }))}">${held
              .map((c) => `<span role="listitem">${miniHTML(c)}</span>`)
              .join("")}</div>`
          : `<p class="count">${esc(t("seat.cards", { n: held.length }))}</p>`;
    const lost = st.lost[seat].length
      ? `<div class="rv-lost" aria-label="${esc(about("seat.lostLabel", seat))}">${st.lost[seat].map((c) => miniHTML(c, true)).join("")}</div>`
      : "";
    box.dataset.seat = String(seat);
    box.classList.toggle("me", seat === me);
    box.innerHTML = `<h3 class="name">${esc(who(seat))}${dealer ? ` <span class="chip" title="${esc(t("seat.dealer"))}">${esc(t("seat.dealerChip"))}</span>` : ""}</h3>
      <p class="stats"><span data-tricks="${st.won[seat]}">${esc(t("seat.tricksShort", { n: st.won[seat] }))}</span> · <span>${esc(
        t("review.total", { n: totalsBefore[seat] + st.won[seat] }),
      )}</span></p>${cards}${lost}`;
  }

  // The trick.
  const tr = st.trick != null ? d.tricks[st.trick] : null;
  const trick = $("#trick");
  trick.innerHTML = st.plays
    .map((p) => {
      const dd = p.seat === me && st.trick != null ? decisionInTrick(R.steps, R.decisions, me, st.trick) : null;
      const win = st.complete && tr && tr.winner === p.seat;
      return `<li class="played${win ? " winner" : ""}" data-pos="${positionOf(me, p.seat)}" data-seat="${p.seat}">${cardHTML(p.card, {
        mark: dd ? dd.mark : null,
        label: who(p.seat),
      })}</li>`;
    })
    .join("");
  trick.setAttribute("aria-label", tr ? t("middle.label", { n: tr.number + 1 }) : t("review.trick"));

  // Our hand, with the values of each card when we are about to play.
  const mine = sortHand(st.held[me]);
  const pending = dec && !dec.played ? dec.decision : null;
  $("#my-hand").innerHTML = mine
    .map((c) => {
      const v = pending ? pending.values[c] : undefined;
      const extra =
        v === undefined
          ? ""
          : `<span class="value${c === pending?.best ? " best" : ""}${c === pending?.played ? " chosen" : ""}">${esc(tricks(v))}</span>`;
      const cls = v === undefined ? (pending ? "unplayable" : "") : "legal";
      const label = v === undefined ? "" : t("review.cardValue", { n: v, digits: 2 });
      return `<span role="listitem">${cardHTML(c, { cls, extra, label })}</span>`;
    })
    .join("");
  $("#hand-title").textContent = t("review.yourHand");
  /** @type {HTMLElement} */ ($("#all-hands-box")).hidden = !d.over;

  // Where we are, and what happened.
  $("#position").textContent = positionText(step, st, tr);
  /** @type {HTMLSelectElement} */ ($("#jump")).value = tr ? String(st.trick) : `h${st.hand}`;
  /** @type {HTMLButtonElement} */ ($("#btn-prev")).disabled = R.at === 0;
  /** @type {HTMLButtonElement} */ ($("#btn-first")).disabled = R.at === 0;
  /** @type {HTMLButtonElement} */ ($("#btn-prev-trick")).disabled = R.at === 0;
  /** @type {HTMLButtonElement} */ ($("#btn-next")).disabled = R.at === R.steps.length - 1;
  /** @type {HTMLButtonElement} */ ($("#btn-last")).disabled = R.at === R.steps.length - 1;
  /** @type {HTMLButtonElement} */ ($("#btn-next-trick")).disabled = R.at === R.steps.length - 1;
  document.body.dataset.step = String(R.at);
  document.body.dataset.hand = String(st.hand);

  renderAnalysis(st.hand, dec);
}

/**
 * "Hand 2 · trick 3 · Þóra plays the queen of diamonds. Þóra wins the trick."
 * @param {Step} step @param {import("./review-core.js").StepState} st @param {ReviewTrick | null} tr
 */
function positionText(step, st, tr) {
  const d = /** @type {Review} */ (R.data);
  const parts = [t("review.handN", { n: st.hand + 1 })];
  if (tr) parts.push(t("review.trickN", { n: tr.number + 1 }));
  let what = "";
  if (step.kind === "start") what = about("ann.deal", d.record.hands[st.hand].dealer, { n: st.hand + 1 });
  else if (step.kind === "discard" && step.seat != null && step.card) what = about("ann.discard", step.seat, { card: cardInText(step.card) });
  else if (step.kind === "play" && step.seat != null && step.card) {
    what = step.seat === d.seat ? t("ann.playYou", { card: cardInText(step.card) }) : t("ann.play", { name: who(step.seat), card: cardInText(step.card) });
    if (st.complete && tr && tr.winner != null)
      what += " " + (tr.lock ? about("ann.trickLock", tr.winner, { n: tr.lock }) : about("ann.trick", tr.winner));
  }
  const last = R.at === R.steps.length - 1 || R.steps[R.at + 1].hand !== st.hand;
  const sum = d.summaries[st.hand];
  if (last && sum && step.kind !== "start")
    what += " " + t("review.handPoints", { n: st.hand + 1, points: [0, 1, 2, 3].map((s) => `${who(s)} ${sum.points[s]}`).join(", ") });
  return `${parts.join(" · ")} · ${t("review.moveOf", { n: R.at + 1, total: R.steps.length })} — ${what}`;
}

/** @param {number} hand @param {{decision: Decision, played: boolean} | null} dec */
function renderAnalysis(hand, dec) {
  const d = /** @type {Review} */ (R.data);
  const a = R.analysis;
  const running = R.status === "queued" || R.status === "running";
  /** @type {HTMLElement} */ ($("#progress-box")).hidden = !running;
  if (running) document.body.dataset.progressShown = "true";
  const pct = progressPercent(R.progress);
  /** @type {HTMLProgressElement} */ ($("#progress")).value = pct;
  $("#progress-text").textContent = `${pct} %`.replace(" ", language() === "fr" ? "\u202f" : "");
  /** @type {HTMLElement} */ ($("#btn-analyse")).hidden = !(R.status === "none" || R.status === "failed");
  $("#analysis-note").textContent =
    R.status === "failed"
      ? t("review.failed")
      : R.status === "queued"
        ? t("review.queued")
        : R.error
          ? R.error
          : R.status === "none"
            ? t("review.notYet")
            : "";
  document.body.dataset.analysis = R.status;
  /** @type {HTMLElement} */ ($("#analysis-body")).hidden = !a;
  if (!a) return;

  $("#accuracy-game").textContent = formatAccuracy(a.accuracy, language());

  // The decision at this step.
  const box = $("#decision");
  if (!dec) {
    box.innerHTML = `<h3>${esc(t("review.decision"))}</h3><p class="note">${esc(t("review.noDecision"))}</p>`;
  } else {
    const x = dec.decision;
    const cards = Object.keys(x.values).sort((p, q) => x.values[q] - x.values[p]);
    const hs = x.hindsight && x.hindsight.values ? x.hindsight.values : null;
    const rows = cards
      .map(
        (c) => `<tr class="${c === x.best ? "best" : ""}${c === x.played ? " played" : ""}"><th scope="row">${cardHTML(c, { cls: "tiny" })} ${esc(
          nameCard(c),
        )}${c === x.played ? ` <span class="tag">${esc(t("review.played"))}</span>` : ""}${c === x.best ? ` <span class="tag best">${esc(t("review.best"))}</span>` : ""}</th><td>${esc(
          tricks(x.values[c]),
        )}</td>${hs ? `<td>${hs[c] === undefined ? "–" : esc(tricks(hs[c]))}</td>` : ""}</tr>`,
      )
      .join("");
    const verdict = x.forced
      ? t("review.forced")
      : x.mark
        ? t(`review.verdict.${x.mark}`, { n: x.loss, digits: 2, best: cardInText(x.best) })
        : x.loss > 0
          ? t("review.verdictSmall", { n: x.loss, digits: 2 })
          : t("review.verdictBest");
    box.innerHTML = `<h3>${esc(dec.played ? t("review.decisionPlayed", { card: cardInText(x.played) }) : t("review.decisionNext"))}</h3>
      <p class="verdict${x.mark ? ` mark-${x.mark}` : ""}" data-mark="${x.mark || ""}">${x.mark ? `<span class="mark-badge" aria-hidden="true">${markSymbol(x.mark)}</span> ` : ""}${esc(verdict)}</p>
      <div class="scroll-x"><table class="rv-table values"><caption>${esc(t("review.valuesCaption"))}</caption><thead><tr><th scope="col">${esc(
        t("review.card"),
      )}</th><th scope="col">${esc(t("review.expected"))}</th>${hs ? `<th scope="col">${esc(t("review.hindsight"))}</th>` : ""}</tr></thead><tbody>${rows}</tbody></table></div>`;
  }

  // The chart of this hand.
  const series = lossSeries(a, hand);
  const labels = series.map((p) => String(p.trick + 1));
  const curTrick = dec ? dec.decision.trick : null;
  $("#chart-title").textContent = t("review.chartTitle", { n: hand + 1 });
  $("#chart").innerHTML = series.length
    ? lineChart({
        label: t("review.chartLabel", {
          n: hand + 1,
          total: tricks(series.length ? series[series.length - 1].total : 0),
        }),
        xLabels: labels,
        series: [
          {
            name: t("review.legendLoss"),
            cls: "loss",
            values: series.map((p) => p.loss),
            pointCls: series.map((p) => (p.mark ? `mark-${p.mark}` : null)),
            pointLabel: series.map((p) => `${t("review.trickN", { n: p.trick + 1 })}: ${nameCard(p.card)}, −${tricks(p.loss)}${p.mark ? ` (${markWord(p.mark)})` : ""}`),
          },
          {
            name: t("review.legendTotal"),
            cls: "total",
            values: series.map((p) => p.total),
            pointCls: series.map((p) => (p.mark ? `mark-${p.mark}` : null)),
          },
        ],
        bars: true,
        minTop: 1,
        formatY: (v) => formatTricks(v, language()).replace(/[.,]00$/, ""),
        current: curTrick == null ? null : series.findIndex((p) => p.trick === curTrick),
        width: 420,
        height: 190,
      })
    : `<p class="note">${esc(t("review.noDecisionsHand"))}</p>`;

  // Hands: accuracy and loss, each a way to jump there.
  $("#hands").innerHTML = `<thead><tr><th scope="col">${esc(t("review.hand"))}</th><th scope="col">${esc(t("review.accuracy"))}</th><th scope="col">${esc(
    t("review.lost"),
  )}</th><th scope="col">${esc(t("review.points"))}</th></tr></thead><tbody>${d.record.hands
    .map((_, h) => {
      const row = a.hands.find((x) => x.hand === h);
      const pts = d.summaries[h] ? d.summaries[h].points[d.seat] : "–";
      return `<tr class="${h === hand ? "current" : ""}"><th scope="row"><button type="button" class="link" data-hand="${h}" aria-current="${
        h === hand ? "true" : "false"
      }">${esc(t("review.handN", { n: h + 1 }))}</button></th><td class="acc">${esc(formatAccuracy(row ? row.accuracy : null, language()))}</td><td>${esc(
        row ? tricks(row.loss) : "–",
      )}</td><td>${pts}</td></tr>`;
    })
    .join("")}</tbody>`;

  // Costly plays of this hand.
  $("#marks-title").textContent = t("review.costlyHand", { n: hand + 1 });
  const marked = a.decisions.filter((x) => x.mark && x.hand === hand);
  $("#marks").innerHTML = marked.length
    ? marked
        .map(
          (x) =>
            `<li class="mark-${x.mark}"><button type="button" class="link" data-decision="${x.hand}:${x.event}"><span class="mark-badge" aria-hidden="true">${markSymbol(
              x.mark,
            )}</span> ${esc(t("review.markItem", { trick: x.trick + 1, card: cardInText(x.played), mark: markWord(x.mark), loss: tricks(x.loss) }))}</button></li>`,
        )
        .join("")
    : `<li class="none">${esc(t(a.decisions.some((x) => x.hand === hand) ? "review.noMarks" : "review.noDecisionsHand"))}</li>`;
}

/** The "go to" list: each hand's start and each trick. */
function fillJump() {
  const d = /** @type {Review} */ (R.data);
  const sel = /** @type {HTMLSelectElement} */ ($("#jump"));
  sel.innerHTML = d.record.hands
    .map((_, h) => {
      const opts = d.tricks
        .map((tr, i) => ({ tr, i }))
        .filter((x) => x.tr.hand === h)
        .map(({ tr, i }) => {
          const empty = !tr.plays.length;
          const text = empty
            ? t("last.empty", { num: tr.number + 1 })
            : tr.winner != null
              ? about(tr.lock ? "last.wonLock" : "last.won", tr.winner, { num: tr.number + 1, n: tr.lock })
              : t("review.trickN", { n: tr.number + 1 });
          return `<option value="${i}"${empty ? " disabled" : ""}>${esc(text)}</option>`;
        })
        .join("");
      return `<optgroup label="${esc(t("review.handN", { n: h + 1 }))}"><option value="h${h}">${esc(t("review.handStart", { n: h + 1 }))}</option>${opts}</optgroup>`;
    })
    .join("");
}

// ------------------------------------------------------------------ moving

/** @param {number} i */
function go(i) {
  R.at = Math.max(0, Math.min(R.steps.length - 1, i));
  render();
}

/** The step after the current trick is complete, or the next hand's start. @param {number} dir */
function goTrick(dir) {
  const d = /** @type {Review} */ (R.data);
  const ends = R.steps.map((s, i) => ({ s, i })).filter(({ s, i }) => s.kind === "start" || (s.kind === "play" && s.trick != null && s.pos === d.tricks[s.trick].plays.length - 1 && i >= 0)).map((x) => x.i);
  const target = dir > 0 ? ends.find((i) => i > R.at) : [...ends].reverse().find((i) => i < R.at);
  go(target ?? (dir > 0 ? R.steps.length - 1 : 0));
}

function bindKeys() {
  $("#btn-first").addEventListener("click", () => go(0));
  $("#btn-prev").addEventListener("click", () => go(R.at - 1));
  $("#btn-next").addEventListener("click", () => go(R.at + 1));
  $("#btn-last").addEventListener("click", () => go(R.steps.length - 1));
  $("#btn-prev-trick").addEventListener("click", () => goTrick(-1));
  $("#btn-next-trick").addEventListener("click", () => goTrick(1));
  $("#jump").addEventListener("change", (e) => {
    const v = /** @type {HTMLSelectElement} */ (e.target).value;
    if (v.startsWith("h")) go(handStart(R.steps, Number(v.slice(1))));
    else {
      const at = stepOfTrick(R.steps, Number(v));
      if (at >= 0) go(at);
    }
  });
  $("#all-hands").addEventListener("change", render);
  document.addEventListener("keydown", (e) => {
    if (!R.data || e.altKey || e.ctrlKey || e.metaKey) return;
    const el = /** @type {HTMLElement | null} */ (e.target);
    if (el && el.closest("input, select, textarea")) return;
    const keys = /** @type {Record<string, () => void>} */ ({
      ArrowRight: () => go(R.at + 1),
      ArrowLeft: () => go(R.at - 1),
      PageDown: () => goTrick(1),
      PageUp: () => goTrick(-1),
      Home: () => go(0),
      End: () => go(R.steps.length - 1),
    });
    const f = keys[e.key];
    if (!f) return;
    e.preventDefault();
    f();
  });
  document.addEventListener("click", (e) => {
    const b = /** @type {HTMLElement | null} */ (/** @type {HTMLElement} */ (e.target).closest("button[data-hand], button[data-decision]"));
    if (!b || !R.data) return;
    if (b.dataset.hand) go(handStart(R.steps, Number(b.dataset.hand)));
    else if (b.dataset.decision) {
      const x = R.decisions.get(b.dataset.decision);
      if (x) {
        const at = stepOfDecision(R.steps, x);
        if (at >= 0) go(at);
      }
    }
  });
  $("#btn-analyse").addEventListener("click", startAnalysis);
}

// ------------------------------------------------------------------ analysis

/**
 * Take an answer about the analysis. `n` numbers the request it answers: a poll and a
 * start may be in flight at once, and an answer older than one already taken (a "running"
 * arriving after the "done") is dropped, so the page never steps back.
 * @param {{status: string, progress?: number, hands?: number, result?: Analysis | null}} a
 * @param {number} [n]
 */
function takeAnalysis(a, n = R.sent) {
  if (n < R.taken) return;
  R.taken = n;
  R.status = a.status;
  if (typeof a.hands === "number") {
    R.hands = a.hands;
    document.body.dataset.analysedHands = String(a.hands);
  }
  R.progress = a.progress ?? 0;
  if (a.result) {
    R.analysis = a.result;
    R.decisions = decisionMap(a.result);
  }
  if ((R.status === "queued" || R.status === "running") && !R.poll) R.poll = setTimeout(pollAnalysis, 1000);
}

async function pollAnalysis() {
  R.poll = null;
  try {
    const n = ++R.sent;
    takeAnalysis(await getJSON(`/api/games/${encodeURIComponent(gameId)}/analysis`), n);
    R.error = "";
    maybeAnalyse();
  } catch (err) {
    R.error = errorText(err);
    R.poll = setTimeout(pollAnalysis, 3000);
  }
  render();
}

async function startAnalysis() {
  try {
    const n = ++R.sent;
    const a = await postJSON(`/api/games/${encodeURIComponent(gameId)}/analysis`, {});
    R.error = "";
    takeAnalysis(a, n);
    if (a.status === "done" && !R.analysis) await pollAnalysis();
  } catch (err) {
    R.error = errorText(err);
  }
  render();
}

/**
 * Whether to ask for the analysis: never asked, or done for fewer hands than are finished
 * now (the server then analyses the hands since; asking is harmless when it needs not).
 * @param {Review} d
 */
function needsAnalysis(d) {
  if (R.status === "none") return true;
  return R.status === "done" && R.hands >= 0 && R.hands < d.record.hands.length;
}

/** Ask for the analysis when needed: at most twice a page (once more when one already
 * running for fewer hands ends). */
function maybeAnalyse() {
  if (!R.data || R.asked >= 2 || !needsAnalysis(R.data)) return;
  R.asked++;
  startAnalysis();
}

/** @param {unknown} err */
function errorText(err) {
  if (err instanceof ApiError) {
    if (err.status === 404) return t("review.notFound");
    if (err.status === 403) return t("review.forbidden");
    if (err.code === "analysis-busy") return t("review.busy");
    if (err.code === "no-hand-yet") return t("review.empty");
    return err.message;
  }
  return String(err);
}

// ------------------------------------------------------------------ start

/**
 * The record download: the server's file for a game over (GET /api/games/{id}/record);
 * otherwise (a game under way, or one uploaded, which the server does not serve) the
 * review's own record of the finished hands.
 * @param {Review} d
 */
async function setDownload(d) {
  const a = /** @type {HTMLAnchorElement} */ ($("#download"));
  const url = `/api/games/${encodeURIComponent(gameId)}/record`;
  a.setAttribute("download", `lockup-${gameId}.json`);
  if (d.over) {
    try {
      const res = await fetch(url, { method: "HEAD", credentials: "same-origin" });
      if (res.ok) {
        a.href = url;
        return;
      }
    } catch {
      /* offline: the review's copy below */
    }
  }
  a.href = URL.createObjectURL(new Blob([JSON.stringify(d.record, null, 1)], { type: "application/json" }));
}

function redraw() {
  const d = R.data;
  document.title = `${t("review.title")} · Lockup`;
  if (R.error && !d) {
    const e = $("#load-error");
    e.hidden = false;
    e.textContent = R.empty ? t("review.empty") : R.error;
  }
  if (!d) return;
  $("#title").textContent = d.over ? t("review.titleOver") : t("review.titleSoFar");
  const sub = $("#subtitle");
  sub.textContent = `${d.players.map((_, s) => who(s)).join(", ")} · ${rulesShort(d.rules)}`;
  sub.title = rulesText(d.rules);
  fillJump();
  render();
}

async function main() {
  bindKeys();
  let first = true;
  await startPage(() => {
    if (!first) redraw();
  });
  first = false;
  try {
    const d = /** @type {Review} */ (await getJSON(`/api/games/${encodeURIComponent(gameId)}/review`));
    d.tricks = flatTricks(d.tricks);
    const steps = buildSteps(d.record, d.tricks);
    // A game under way with no hand finished: say so, and show no empty review.
    if (!steps.length) {
      R.empty = true;
      R.error = t("review.empty");
      redraw();
      document.body.dataset.ready = "true";
      return;
    }
    R.data = d;
    R.steps = steps;
    R.at = 0;
    takeAnalysis(d.analysis || { status: "none", progress: 0, result: null });
    /** @type {HTMLElement} */ ($("#review")).hidden = false;
    await setDownload(d);
  } catch (err) {
    R.error = errorText(err);
  }
  redraw();
  document.body.dataset.ready = "true";
  maybeAnalyse();
}

main();
