// @ts-check
// "Play people" (quick play, docs/playing.md): a button on the start page and in the
// lobby asks the server for a seat at a table of people (POST /api/quickplay); a person
// with no display name (GET /api/profile) is asked for one first, before any request for
// a seat (the server would refuse it: 400 name-needed); then the page opens the answer's
// invite link: the room page, where room.js shows who is coming and the countdown.
// The pure parts (the answer, the countdown's words) are in quick-core.js.

import { t, translateDom } from "./i18n.js";
import { MAX_NAME } from "./room-core.js";
import { quickAnswer } from "./quick-core.js";
import { rateLimitText } from "./text.js";

/**
 * `POST url` with a JSON body: the status (0 when the server is away) and the JSON answer.
 * @param {string} url @param {any} body
 */
async function post(url, body) {
  try {
    const res = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      cache: "no-store",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    let data = {};
    try {
      data = await res.json();
    } catch {
      /* not JSON */
    }
    return { status: res.status, data: /** @type {any} */ (data), retry: res.headers.get("Retry-After") };
  } catch {
    return { status: 0, data: /** @type {any} */ ({}), retry: null };
  }
}

/**
 * A refusal of quick play in the page's words (never the server's English, except a
 * rate limit's own wait in English).
 * @param {string} code @param {any} data @param {string | null} retry
 */
function words(code, data, retry) {
  if (code === "offline") return t("err.offline");
  const key = `room.err.${code}`;
  if (t(key) !== key) return t(key);
  if (code === "rate-limited" || code.startsWith("too-many")) {
    const after = (data && data.params && data.params.retry_after) ?? retry;
    return rateLimitText(data && data.reason, after);
  }
  return t("room.err.other");
}

/**
 * Ask for a quick-play seat (with `name` once the person gave one) and go to the table.
 * Resolves with "" when the page is leaving for the table, "ask" when the server wants a
 * name, else the refusal in the page's words.
 * @param {string} [name]
 */
export async function askSeat(name) {
  const r = await post("/api/quickplay", name ? { name } : {});
  const a = quickAnswer(r.status, r.data);
  if ("go" in a) {
    location.assign(a.go);
    return "";
  }
  if ("ask" in a) return "ask";
  return words(a.error, r.data, r.retry);
}

/**
 * The person's display name as the server knows it: "" when they have none yet, null when
 * the server cannot be asked (then the seat's request says what is wrong).
 * @returns {Promise<string | null>}
 */
async function knownName() {
  try {
    const res = await fetch("/api/profile", { credentials: "same-origin", cache: "no-store" });
    if (!res.ok) return null;
    const data = await res.json();
    return data && typeof data.name === "string" ? data.name : "";
  } catch {
    return null;
  }
}

/**
 * "Play people": the button asks for a seat (the name first, for a person who has none);
 * a refusal is said with `say` (the table's message, or a line under the lobby's list). A
 * button the page ships disabled (until its script has loaded, a press would do nothing)
 * is enabled here.
 * @param {HTMLButtonElement | null} button @param {(text: string) => void} say
 */
export function bindQuickPlay(button, say) {
  if (!button) return;
  button.disabled = false;
  button.addEventListener("click", async () => {
    if (button.getAttribute("aria-busy") === "true") return;
    button.setAttribute("aria-busy", "true");
    try {
      if ((await knownName()) === "") {
        await nameDialog();
        return;
      }
      const answer = await askSeat();
      if (answer === "ask") await nameDialog();
      else if (answer) say(answer);
    } finally {
      button.removeAttribute("aria-busy");
    }
  });
}

/** The name form (built once): asked when the server has no name for the person. */
function buildNameDialog() {
  let dlg = /** @type {HTMLDialogElement | null} */ (document.querySelector("#dlg-quick-name"));
  if (dlg) return dlg;
  dlg = document.createElement("dialog");
  dlg.id = "dlg-quick-name";
  dlg.setAttribute("aria-labelledby", "quick-name-title");
  const form = document.createElement("form");
  form.id = "quick-name-form";
  form.method = "dialog";
  const title = Object.assign(document.createElement("h2"), { id: "quick-name-title" });
  title.dataset.i18n = "quick.title";
  const note = Object.assign(document.createElement("p"), { className: "dialog-note" });
  note.dataset.i18n = "quick.nameNote";
  // Guests only (account-link.js keeps it so): quick tables are rated for accounts.
  const guest = Object.assign(document.createElement("p"), { className: "dialog-note guest-note", hidden: document.body.dataset.account !== "guest" });
  guest.dataset.guestNote = "";
  guest.dataset.i18n = "account.guestUnrated";
  const label = Object.assign(document.createElement("label"), { className: "field" });
  const span = document.createElement("span");
  span.dataset.i18n = "room.name";
  const input = Object.assign(document.createElement("input"), { type: "text", id: "quick-name", name: "name", maxLength: MAX_NAME, autocomplete: "nickname", required: true });
  label.append(span, input);
  const err = Object.assign(document.createElement("p"), { id: "quick-name-error", className: "form-error" });
  err.setAttribute("role", "alert");
  const buttons = Object.assign(document.createElement("div"), { className: "dialog-buttons" });
  const cancel = Object.assign(document.createElement("button"), { type: "button", id: "quick-name-cancel" });
  cancel.dataset.i18n = "btn.cancel";
  const go = Object.assign(document.createElement("button"), { type: "submit", id: "quick-name-go", className: "primary" });
  go.dataset.i18n = "quick.go";
  buttons.append(cancel, go);
  form.append(title, note, guest, label, err, buttons);
  dlg.append(form);
  document.body.append(dlg);
  cancel.addEventListener("click", () => /** @type {HTMLDialogElement} */ (dlg).close());
  input.addEventListener("input", () => (err.textContent = ""));
  return dlg;
}

/**
 * Ask the person's name, then the seat with it; the form stays open with the refusal
 * (a bad name, the server away) until a seat is found or the person cancels.
 * @returns {Promise<void>}
 */
function nameDialog() {
  const dlg = buildNameDialog();
  translateDom(dlg);
  const form = /** @type {HTMLFormElement} */ (dlg.querySelector("form"));
  const input = /** @type {HTMLInputElement} */ (dlg.querySelector("#quick-name"));
  const err = /** @type {HTMLElement} */ (dlg.querySelector("#quick-name-error"));
  const go = /** @type {HTMLButtonElement} */ (dlg.querySelector("#quick-name-go"));
  err.textContent = "";
  return new Promise((resolve) => {
    /** @param {SubmitEvent} e */
    const submit = async (e) => {
      e.preventDefault();
      const name = input.value.trim().slice(0, MAX_NAME);
      if (!name) {
        err.textContent = t("room.err.name-needed");
        input.focus();
        return;
      }
      go.disabled = true;
      err.textContent = "";
      const answer = await askSeat(name);
      go.disabled = false;
      if (answer === "") return; // leaving for the table
      err.textContent = answer === "ask" ? t("room.err.name-needed") : answer;
      input.focus();
    };
    const closed = () => {
      form.removeEventListener("submit", submit);
      dlg.removeEventListener("close", closed);
      resolve();
    };
    form.addEventListener("submit", submit);
    dlg.addEventListener("close", closed);
    dlg.showModal();
    input.focus();
  });
}
