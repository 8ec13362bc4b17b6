// Translations: English and French, from /static/i18n/{lang}.json.
//
// t("key", {name: "Þóra"}) fills {name} in the message. A key with "_one" and "_other"
// variants is chosen by the number in params.n (French counts 0 and 1 as singular).

export const LANGS = ["en", "fr"];
const PREF_KEY = "lockup.lang";
let messages = {};
let fallback = {};
let current = "en";

/** The language to use: the saved choice, else the browser's languages, else English. */
export function chooseLanguage() {
  const saved = readPref(PREF_KEY);
  if (LANGS.includes(saved)) return saved;
  for (const l of navigator.languages || [navigator.language || "en"]) {
    const base = String(l).toLowerCase().slice(0, 2);
    if (LANGS.includes(base)) return base;
  }
  return "en";
}

async function fetchMessages(lang) {
  const res = await fetch(`/static/i18n/${lang}.json`, { cache: "no-cache" });
  if (!res.ok) throw new Error(`cannot load ${lang}.json`);
  return res.json();
}

/** Load a language (and English as the fallback); saves the choice and sets <html lang>. */
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

function plural(n) {
  if (current === "fr") return n <= 1 && n > -2 ? "one" : "other";
  return n === 1 ? "one" : "other";
}

/** The message for key in the current language, its {placeholders} filled from params. */
export function t(key, params = {}) {
  let text;
  if (typeof params.n === "number") {
    const k = `${key}_${plural(params.n)}`;
    text = messages[k] ?? fallback[k];
  }
  text = text ?? messages[key] ?? fallback[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

/** Whether the current language has its own message for key. */
export const has = (key) => key in messages;

/** Fill every [data-i18n] element's text (and [data-i18n-attr] attributes) below root. */
export function translateDom(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-attr]")) {
    // data-i18n-attr="aria-label:key;title:key2"
    for (const pair of el.dataset.i18nAttr.split(";")) {
      const [attr, key] = pair.split(":").map((x) => x.trim());
      if (attr && key) el.setAttribute(attr, t(key));
    }
  }
}

/** A saved preference, or null (also when storage is unavailable). */
export function readPref(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Save a preference; silently does nothing when storage is unavailable. */
export function writePref(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    /* private mode: the choice lasts for this page only */
  }
}
