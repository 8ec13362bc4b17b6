// @ts-check
// Translations: English, French and Icelandic, from /static/i18n/{lang}.json.
//
// t("key", {name: "Þóra"}) fills {name} in the message. A key with "_one" and "_other"
// variants is chosen by the number in params.n, by the language's Intl.PluralRules
// (French counts 0 and 1 as singular; Icelandic 1, 21, 31, … but not 11).

export const LANGS = ["en", "fr", "is"];
/** Each language named in its own language, as the language choice offers it. */
export const LANG_NAMES = /** @type {Record<string, string>} */ ({ en: "English", fr: "Français", is: "Íslenska" });
const PREF_KEY = "lockup.lang";
/** @type {Record<string, string>} */
let messages = {};
/** @type {Record<string, string>} */
let fallback = {};
let current = "en";

/** The language to use: the saved choice, else the browser's languages, else English. */
export function chooseLanguage() {
  const saved = readPref(PREF_KEY);
  if (saved && LANGS.includes(saved)) return saved;
  for (const l of navigator.languages || [navigator.language || "en"]) {
    const base = String(l).toLowerCase().slice(0, 2);
    if (LANGS.includes(base)) return base;
  }
  return "en";
}

/** @param {string} lang */
async function fetchMessages(lang) {
  const res = await fetch(`/static/i18n/${lang}.json`, { cache: "no-cache" });
  if (!res.ok) throw new Error(`cannot load ${lang}.json`);
  return res.json();
}

/**
 * Load a language (and English as the fallback); saves the choice and sets <html lang>.
 * @param {string} lang
 * @param {{save?: boolean}} [opts]
 */
export async function setLanguage(lang, { save = true } = {}) {
  if (!LANGS.includes(lang)) lang = "en";
  if (!fallback["card.name"]) fallback = await fetchMessages("en");
  messages = lang === "en" ? fallback : await fetchMessages(lang);
  current = lang;
  document.documentElement.lang = lang;
  if (save) writePref(PREF_KEY, lang);
  return lang;
}

/** The current language code. */
export const language = () => current;

/** The language the address asks for (?lang=is), or null. */
export function queryLanguage() {
  const q = new URLSearchParams(location.search).get("lang");
  return q && LANGS.includes(q) ? q : null;
}

/**
 * Wire a language choice (a <select class="lang-choice">): it offers every language, each
 * named in its own language, shows the current one, and calls onPick with the one chosen.
 * @param {HTMLSelectElement} select
 * @param {(lang: string) => unknown} onPick
 */
export function bindLanguageChoice(select, onPick) {
  select.replaceChildren(
    ...LANGS.map((l) => {
      const o = document.createElement("option");
      o.value = l;
      o.lang = l;
      o.textContent = LANG_NAMES[l];
      return o;
    }),
  );
  select.value = current;
  select.addEventListener("change", () => onPick(select.value));
}

/** Show the current language in every language choice of the page. */
export function showLanguageChoice() {
  for (const s of /** @type {NodeListOf<HTMLSelectElement>} */ (document.querySelectorAll("select.lang-choice"))) s.value = current;
}

/** @type {Map<string, Intl.PluralRules>} */
const pluralRules = new Map();

/** The plural category of n in the current language ("one", "other", ...). @param {number} n */
function plural(n) {
  const key = current;
  let rules = pluralRules.get(key);
  if (!rules) {
    rules = new Intl.PluralRules(current);
    pluralRules.set(key, rules);
  }
  return rules.select(n);
}

/**
 * The message for key in the current language, its {placeholders} filled from params.
 * @param {string} key
 * @param {Record<string, any>} [params]
 * @returns {string}
 */
export function t(key, params = {}) {
  let text;
  if (typeof params.n === "number") {
    const cat = plural(params.n);
    const k = `${key}_${cat}`;
    text = messages[k] ?? fallback[k];
    if (text === undefined && cat !== "one") text = messages[`${key}_other`] ?? fallback[`${key}_other`];
  }
  text = text ?? messages[key] ?? fallback[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

/** Whether the current language (or English) has a message for key. @param {string} key */
export const has = (key) => key in messages || key in fallback;

/** "a, b or c" in the current language. @param {string[]} items */
export function orList(items) {
  return new Intl.ListFormat(current, { type: "disjunction" }).format(items);
}

/** A number with exactly `digits` decimals, in the current language ("3.07", "3,07"). @param {number} x */
export function formatNumber(x, digits = 2) {
  return new Intl.NumberFormat(current, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(x);
}

/** "1st", "2nd" / "1er", "2e": an ordinal place. @param {number} n */
export function ordinal(n) {
  const cat = new Intl.PluralRules(current, { type: "ordinal" }).select(n);
  const key = has(`ordinal.${cat}`) ? `ordinal.${cat}` : "ordinal.other";
  return t(key, { num: n });
}

/**
 * Fill every [data-i18n] element's text (and [data-i18n-attr] attributes) below root.
 * @param {ParentNode} [root]
 */
export function translateDom(root = document) {
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll("[data-i18n]")))
    el.textContent = t(el.dataset.i18n || "");
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll("[data-i18n-attr]"))) {
    // data-i18n-attr="aria-label:key;title:key2"
    for (const pair of (el.dataset.i18nAttr || "").split(";")) {
      const [attr, key] = pair.split(":").map((x) => x.trim());
      if (attr && key) el.setAttribute(attr, t(key));
    }
  }
}

/** A saved preference, or null (also when storage is unavailable). @param {string} key */
export function readPref(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/**
 * Save a preference; silently does nothing when storage is unavailable.
 * @param {string} key
 * @param {string} value
 */
export function writePref(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    /* private mode: the choice lasts for this page only */
  }
}
