// @ts-check
// The history page (/history): every game the player took part in (GET /api/history),
// each opening its review and its record; and the upload of a lockup-record/1 file from
// elsewhere (POST /api/uploads?seat=S), which then opens its review. Rated games show
// the rating's change, and a chart the rating over them (GET /api/ratings/me; the rating
// is mu - 3 sigma with one decimal, as on the leaderboard).

import { lineChart } from "./charts.js";
import { formatNumber, has, language, ordinal, t } from "./i18n.js";
import { $, ApiError, formatDate, getJSON, rulesShort, rulesText, seatName, startPage } from "./pagekit.js";
import { esc } from "./text.js";
import { opponentsText } from "./naming.js";

/**
 * @typedef {object} HistoryGame an entry of GET /api/history
 * @property {string} game
 * @property {string} date
 * @property {string | null} finished
 * @property {number} seat
 * @property {string[]} players
 * @property {{kind: string, level: string | null}[]} seats
 * @property {import("./types.js").Rules} rules
 * @property {string | null} room
 * @property {"solo" | "quick" | "friends" | "upload"} [kind] quick play among strangers, or a room of invited friends
 * @property {{winner: number | null, place: number | null, totals: number[]}} result
 * @property {boolean} takeover
 * @property {boolean} [abandoned] the player abandoned the game (out of time too often, gone, or left): a computer played their seat to the end
 * @property {boolean} uploaded
 * @property {string} analysis
 */

/** @type {HistoryGame[] | null} */
let games = null;
/** @type {import("./types.js").MyRating | null} */
let rating = null;
let loadError = "";
/** @type {string[] | null} the names in the chosen file, for the seat list */
let fileNames = null;

/** A seat's name in an entry ("You" for the player's). @param {HistoryGame} g @param {number} s */
const nameIn = (g, s) => seatName(g.players, s, g.seat);

/** The opponents: the people by name, the computers by level ("Tumi · Expert ×2"). @param {HistoryGame} g */
function levelsText(g) {
  if (g.uploaded) return t("history.fromRecord");
  return opponentsText(g.seats, g.players, g.seat);
}

/**
 * Whether the player abandoned the game (a computer played their seat to its end, and may
 * have won it): the history's flag, or the rating's ("left the game: ranked last").
 * @param {HistoryGame} g
 */
const abandoned = (g) => !!g.abandoned || !!rating?.history.find((x) => x.game === g.game)?.abandoned;

/** The player's own outcome: a game they abandoned is never "won". @param {HistoryGame} g */
function resultText(g) {
  if (!g.finished && !g.uploaded) return t("history.underWay");
  if (abandoned(g)) return t("history.left");
  if (g.result.place == null) return g.result.winner == null ? "–" : t("history.wonBy", { name: nameIn(g, g.result.winner) });
  if (g.result.winner === g.seat) return t("history.won");
  return t("history.place", { place: ordinal(g.result.place) });
}

/** A rating as shown everywhere: one decimal. @param {number | null | undefined} x */
const ratingText = (x) => (x == null ? "–" : formatNumber(x, 1));

/** A change with its sign ("+1.3", "−0.4"). @param {number} x */
const signed = (x) => (x > 0 ? "+" : x < 0 ? "−" : "±") + formatNumber(Math.abs(x), 1);

/** The rating cell of a game: before → after (change), "sat out", or nothing. @param {HistoryGame} g */
function ratingCell(g) {
  const h = rating?.history.find((x) => x.game === g.game);
  if (!h) return "";
  if (!h.rated || h.before == null || h.after == null || h.change == null)
    return `<span class="badge takeover" data-rating="sat-out">${esc(t("history.satOut"))}</span>`;
  const cls = h.change > 0 ? "up" : h.change < 0 ? "down" : "";
  const left = h.abandoned ? ` <span class="badge takeover" data-abandoned="true">${esc(t("history.abandoned"))}</span>` : "";
  return `<span class="rating-change ${cls}" data-rating="${h.change}">${esc(ratingText(h.before))} → ${esc(ratingText(h.after))} <b>(${esc(signed(h.change))})</b></span>${left}`;
}

/** The rating now and its chart over the rated games. */
function renderRating() {
  const now = $("#rating-now");
  const plot = $("#rating-plot");
  const rated = (rating?.history || []).filter((h) => h.rated && h.after != null);
  if (!rating || rating.rating == null || !rated.length) {
    now.textContent = !rating ? "" : rating.guest ? t("lb.guest") : t("history.ratingNone");
    plot.innerHTML = "";
    return;
  }
  now.textContent = rating.provisional
    ? t("lb.provisional", { rating: ratingText(rating.rating), games: rating.games, n: rating.min_games })
    : t("history.ratingNow", { rating: ratingText(rating.rating), rank: rating.rank ?? "–", n: rating.games });
  now.dataset.provisional = String(rating.provisional);
  const label = t("history.ratingChart", { n: rated.length });
  const svg = lineChart({
    label,
    xLabels: rated.map((_, i) => `#${i + 1}`),
    series: [
      {
        name: t("history.rating"),
        cls: "s0",
        values: rated.map((h) => h.after),
        pointLabel: rated.map((h) =>
          t("history.ratingPoint", { date: formatDate(h.date), before: ratingText(h.before), after: ratingText(h.after), change: signed(h.change ?? 0) }),
        ),
      },
    ],
    connect: true,
    minTop: 1,
    formatY: (v) => formatNumber(v, 0),
    width: 560,
    height: 200,
  });
  plot.innerHTML = `<figure data-metric="rating"><figcaption>${esc(label)}</figcaption>${svg}</figure>`;
}

/** @param {HistoryGame} g */
function row(g) {
  const id = encodeURIComponent(g.game);
  const badges = [
    g.takeover ? `<span class="badge takeover" title="${esc(t("history.takeoverTip"))}">${esc(t("history.takeover"))}</span>` : "",
    g.uploaded ? `<span class="badge">${esc(t("history.uploaded"))}</span>` : "",
    g.room ? `<span class="badge" data-kind="${esc(g.kind || "friends")}">${esc(t(g.kind === "quick" ? "history.quick" : "history.room"))}</span>` : "",
    g.analysis === "done" ? `<span class="badge">${esc(t("history.analysed"))}</span>` : "",
  ].join("");
  const won = g.result.winner != null && g.result.winner === g.seat && !abandoned(g);
  const score = g.result.totals.map((x, s) => `<span class="${s === g.seat ? "mine" : ""}">${x}</span>`).join(" · ");
  const scoreLabel = g.result.totals.map((x, s) => `${nameIn(g, s)} ${x}`).join(", ");
  const canReview = !!g.finished || g.uploaded || (g.result.totals.some((x) => x > 0));
  const review = `<a class="button primary" href="/review/${id}" aria-label="${esc(t("history.reviewLabel", { date: formatDate(g.date) }))}">${esc(t("btn.review"))}</a>`;
  const record =
    g.finished && !g.uploaded
      ? `<a class="button" href="/api/games/${id}/record" download="lockup-${esc(g.game)}.json" aria-label="${esc(
          t("history.recordLabel", { date: formatDate(g.date) }),
        )}">${esc(t("history.record"))}</a>`
      : "";
  const label = (/** @type {string} */ key) => ` data-label="${esc(t(key))}"`;
  return `<tr data-game="${esc(g.game)}"${g.takeover ? ' data-takeover="true"' : ""}>
    <td${label("history.date")}>${esc(formatDate(g.date))}${badges}</td>
    <td${label("history.players")}>${g.players.map((_, s) => esc(nameIn(g, s))).join(", ")}<br><span class="rules" title="${esc(rulesText(g.rules))}">${esc(
      rulesShort(g.rules),
    )}</span></td>
    <td${label("history.levels")}>${esc(levelsText(g))}</td>
    <td${label("history.result")}>${won ? `<span class="badge won">${esc(resultText(g))}</span>` : esc(resultText(g))}</td>
    <td${label("history.score")}><span class="sr-only">${esc(scoreLabel)}</span><span aria-hidden="true">${score}</span></td>
    <td${label("history.rating")} class="rating-cell">${ratingCell(g)}</td>
    <td class="actions-cell">${canReview ? review : ""}${record}</td>
  </tr>`;
}

function render() {
  document.title = `${t("history.title")} · Lockup`;
  const err = $("#load-error");
  err.hidden = !loadError;
  err.textContent = loadError;
  $("#games tbody").innerHTML = (games || []).map(row).join("");
  renderRating();
  $("#empty").hidden = !games || games.length > 0;
  const sel = /** @type {HTMLSelectElement} */ ($("#upload-seat"));
  const keep = sel.value || "0";
  sel.innerHTML = [0, 1, 2, 3]
    .map((s) => `<option value="${s}">${esc(t(`history.seatN.${s}`))}${fileNames?.[s] ? ` – ${esc(fileNames[s])}` : ""}</option>`)
    .join("");
  sel.value = keep;
}

async function load() {
  try {
    [games, rating] = await Promise.all([getJSON("/api/history").then((r) => r.games || []), getJSON("/api/ratings/me")]);
    loadError = "";
  } catch (err) {
    loadError = err instanceof ApiError ? err.message : String(err);
  }
  render();
  document.body.dataset.ready = "true";
}

/** Read the chosen file; fill the seat list with its names. */
async function onFile() {
  const input = /** @type {HTMLInputElement} */ ($("#upload-file"));
  fileNames = null;
  $("#upload-error").textContent = "";
  const file = input.files?.[0];
  if (file && file.size <= 256 * 1024) {
    try {
      const data = JSON.parse(await file.text());
      if (Array.isArray(data?.players)) fileNames = data.players.map(String);
    } catch {
      /* said on sending */
    }
  }
  render();
}

/**
 * Why the server refused a record: its own words in English, the page's message for its
 * code in another language (the server words its reasons in English only).
 * @param {ApiError} err
 */
function refusedWhy(err) {
  if (language() === "en" || !err.code) return err.message;
  if (err.code === "rate-limited") return t("err.rate-limited");
  for (const key of [`err.${err.code}`, `room.err.${err.code}`]) if (has(key)) return t(key);
  return err.message;
}

/** @param {SubmitEvent} e */
async function onUpload(e) {
  e.preventDefault();
  const input = /** @type {HTMLInputElement} */ ($("#upload-file"));
  const errBox = $("#upload-error");
  const button = /** @type {HTMLButtonElement} */ ($("#upload-send"));
  errBox.textContent = "";
  const file = input.files?.[0];
  if (!file) {
    errBox.textContent = t("history.noFile");
    input.focus();
    return;
  }
  if (file.size > 256 * 1024) {
    errBox.textContent = t("history.tooBig");
    return;
  }
  const text = await file.text();
  try {
    JSON.parse(text);
  } catch {
    errBox.textContent = t("history.notJson");
    return;
  }
  const seat = /** @type {HTMLSelectElement} */ ($("#upload-seat")).value;
  button.disabled = true;
  try {
    const res = await getJSON(`/api/uploads?seat=${encodeURIComponent(seat)}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: text,
    });
    location.href = `/review/${encodeURIComponent(res.game)}`;
  } catch (err) {
    errBox.textContent = err instanceof ApiError ? t("history.refused", { reason: refusedWhy(err) }) : String(err);
    button.disabled = false;
  }
}

async function main() {
  $("#upload").addEventListener("submit", onUpload);
  $("#upload-file").addEventListener("change", onFile);
  await startPage(render);
  await load();
}

main();
