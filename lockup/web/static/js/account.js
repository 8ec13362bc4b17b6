// @ts-check
// The account page (/account, docs/playing.md "Accounts"): a guest signs up (the account
// takes what this browser played) or signs in; a signed-in person sees their account,
// signs out, changes the password, and lists and ends their other sessions
// (/api/account..., docs/web-protocol.md). Names are text, never HTML.

import { formatNumber, t } from "./i18n.js";
import { refreshAccount } from "./account-link.js";
import { $, ApiError, formatDate, getJSON, startPage } from "./pagekit.js";
import { rateLimitText } from "./text.js";

/** @typedef {import("./account-link.js").Account} Account */
/** @typedef {{id: string, agent: string | null, created_at: string, last_seen: string, current: boolean}} Session */

/** @type {Account | null | undefined} */
let account;
/** @type {Session[]} */
let sessions = [];
let loadError = "";

/** A refusal of an account route: the server's code, and the rule a name or password
 * broke ("why") and the wait of a rate limit, when it says them. */
class Refusal extends ApiError {
  /** @param {number} status @param {string} code @param {string} reason @param {string} why @param {string | null} retryAfter */
  constructor(status, code, reason, why, retryAfter) {
    super(status, code, reason);
    this.why = why;
    this.retryAfter = retryAfter;
  }
}

/**
 * A refusal in the page's words.
 * @param {unknown} err
 */
function words(err) {
  if (!(err instanceof ApiError)) return t("account.err.other");
  if (err.code === "offline") return err.message;
  const refusal = err instanceof Refusal ? err : null;
  if (err.code === "rate-limited") return rateLimitText(err.message, refusal?.retryAfter);
  if (refusal?.why && (err.code === "bad-name" || err.code === "bad-password")) {
    const key = `account.err.${err.code === "bad-name" ? "name" : "password"}.${refusal.why}`;
    if (t(key) !== key) return t(key);
  }
  const key = `account.err.${err.code}`;
  return t(key) !== key ? t(key) : t("account.err.other");
}

/**
 * POST `data` to `url`; the JSON answer, or a thrown Refusal.
 * @param {string} url @param {unknown} data
 */
async function post(url, data) {
  let res;
  try {
    res = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      cache: "no-store",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(data),
    });
  } catch {
    throw new ApiError(0, "offline", t("err.offline"));
  }
  let body = null;
  try {
    body = await res.json();
  } catch {
    /* not JSON */
  }
  if (!res.ok) throw new Refusal(res.status, body?.error || "", body?.reason || `HTTP ${res.status}`, body?.why || "", res.headers.get("Retry-After"));
  return body;
}

/** @type {[RegExp, string][]} */
const BROWSERS = [
  [/Edg\//, "Edge"],
  [/OPR\/|Opera/, "Opera"],
  [/Firefox\//, "Firefox"],
  [/Chrom(e|ium)\//, "Chrome"],
  [/Safari\//, "Safari"],
];
/** @type {[RegExp, string][]} */
const SYSTEMS = [
  [/Android/, "Android"],
  [/iPhone|iPad|iOS/, "iOS"],
  [/Windows/, "Windows"],
  [/Mac OS X|Macintosh/, "macOS"],
  [/CrOS/, "ChromeOS"],
  [/Linux/, "Linux"],
];

/** "Chrome · Linux", "Terminal (lockup play)": a session's client in few words. @param {string | null} agent */
export function agentText(agent) {
  if (!agent) return t("account.unknownAgent");
  if (/lockup|python-httpx|textual/i.test(agent)) return t("account.terminal");
  const browser = BROWSERS.find(([re]) => re.test(agent))?.[1] || "";
  const system = SYSTEMS.find(([re]) => re.test(agent))?.[1] || "";
  const parts = [browser, system].filter(Boolean);
  return parts.length ? parts.join(" · ") : agent.slice(0, 60);
}

function render() {
  document.title = `${t("account.title")} · Lockup`;
  const err = $("#load-error");
  err.hidden = !loadError;
  err.textContent = loadError;
  $("#guest").hidden = account !== null;
  $("#signed").hidden = !account;
  if (!account) return;
  $("#signed-as").textContent = t("account.signedInAs", { name: account.name });
  /** @type {HTMLInputElement} */ ($("#password-user")).value = account.name;
  $("#account-since").textContent = t("account.since", { date: formatDate(account.created_at, false) });
  $("#account-rated").textContent =
    account.rated_games > 0 && account.rating !== null
      ? t("account.rated", { n: account.rated_games, rating: formatNumber(account.rating, 1) })
      : t("account.ratedNone");
  const body = $("#sessions tbody");
  body.replaceChildren(
    ...sessions.map((s) => {
      const tr = document.createElement("tr");
      if (s.current) tr.classList.add("current");
      tr.dataset.session = s.id;
      const device = document.createElement("th");
      device.scope = "row";
      device.dataset.label = t("account.device");
      device.textContent = agentText(s.agent);
      if (s.current) {
        const badge = Object.assign(document.createElement("span"), { className: "badge won", textContent: t("account.current") });
        device.append(" ", badge);
      }
      const cells = [
        ["account.signedInAt", formatDate(s.created_at)],
        ["account.lastSeen", formatDate(s.last_seen)],
      ].map(([label, text]) => {
        const td = document.createElement("td");
        td.dataset.label = t(label);
        td.textContent = text;
        return td;
      });
      tr.append(device, ...cells);
      return tr;
    }),
  );
  /** @type {HTMLButtonElement} */ ($("#end-others")).disabled = !sessions.some((s) => !s.current);
}

/** Ask who is signed in, and their sessions. */
async function load() {
  try {
    account = await refreshAccount();
    sessions = account ? (await getJSON("/api/account/sessions")).sessions || [] : [];
    loadError = account === undefined ? t("err.offline") : "";
  } catch (e) {
    loadError = words(e);
  }
  render();
}

/**
 * Run `action` for a form's submit: its button busy, its error line filled on refusal.
 * @param {string} formSel @param {string} errorSel @param {() => Promise<void>} action
 */
function onSubmit(formSel, errorSel, action) {
  const form = /** @type {HTMLFormElement} */ ($(formSel));
  const error = $(errorSel);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const button = /** @type {HTMLButtonElement} */ (form.querySelector("button[type=submit]"));
    if (button.disabled) return;
    button.disabled = true;
    error.textContent = "";
    try {
      await action();
    } catch (err) {
      error.textContent = words(err);
    } finally {
      button.disabled = false;
    }
  });
  form.addEventListener("input", () => (error.textContent = ""));
}

/** @param {string} sel */
const value = (sel) => /** @type {HTMLInputElement} */ ($(sel)).value;

function bind() {
  onSubmit("#signup-form", "#signup-error", async () => {
    await post("/api/account/signup", { name: value("#signup-name").trim(), password: value("#signup-password") });
    /** @type {HTMLFormElement} */ ($("#signup-form")).reset();
    await load();
  });
  onSubmit("#login-form", "#login-error", async () => {
    await post("/api/account/login", { name: value("#login-name").trim(), password: value("#login-password") });
    /** @type {HTMLFormElement} */ ($("#login-form")).reset();
    await load();
  });
  onSubmit("#password-form", "#password-error", async () => {
    $("#password-said").textContent = "";
    await post("/api/account/password", { old: value("#password-old"), new: value("#password-new") });
    /** @type {HTMLFormElement} */ ($("#password-form")).reset();
    await load();
    $("#password-said").textContent = t("account.passwordChanged");
  });
  $("#logout").addEventListener("click", async () => {
    try {
      await post("/api/account/logout", {});
    } catch (err) {
      $("#sessions-said").textContent = words(err);
      return;
    }
    $("#sessions-said").textContent = "";
    await load();
  });
  $("#end-others").addEventListener("click", async () => {
    const said = $("#sessions-said");
    try {
      const { ended } = await post("/api/account/sessions/end-others", {});
      await load();
      said.textContent = ended ? t("account.ended", { n: ended }) : t("account.endedNone");
    } catch (err) {
      said.textContent = words(err);
    }
  });
}

async function main() {
  await startPage(render);
  bind();
  await load();
  document.body.dataset.ready = "true";
}

main();
