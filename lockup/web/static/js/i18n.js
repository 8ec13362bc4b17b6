// @ts-check
// Translations: English, French and Icelandic, from /static/i18n/{lang}.json.
//
// t("key", {name: "Þóra"}) fills {name} in the message. A key with "_one" and "_other"
// variants is chosen by the number in params.n, by the language's plural rules (French
// counts 0 and 1 as singular; Icelandic 1, 21, 31, … but not 11); a "_=1" variant, where a
// language has one, is said for exactly 1 ("with a club", not "with 1 club"). Numbers in a
// message are written in the language ("1,8", "−3,3", "1.234").
//
// The rules and the forms come from the browser's Intl where it knows the language, else
// from what is written out here and in the catalogue: Debian's Chromium has Icelandic plural
// rules but no Icelandic numbers, dates or lists, and the page reads the same on every
// browser. The catalogue's "num.*", "date.*" and "list.*" keys hold those forms.

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

// A language picked while the page is still loading its words, before its choice is wired,
// is kept here and honoured when the choice is wired.
/** @type {string | null} */
let earlyPick = null;
globalThis.document?.addEventListener?.("change", (e) => {
  const t = /** @type {HTMLElement} */ (e.target);
  if (t instanceof HTMLSelectElement && t.classList.contains("lang-choice") && !t.dataset.wired) earlyPick = t.value;
});

/**
 * Wire a language choice (a <select class="lang-choice">): it offers every language, each
 * named in its own language, shows the current one, and calls onPick with the one chosen.
 * A language picked before this ran (while the page loaded) is picked now.
 * @param {HTMLSelectElement} select
 * @param {(lang: string) => unknown} onPick
 */
export function bindLanguageChoice(select, onPick) {
  const markup = [...select.options].find((o) => o.defaultSelected) ?? select.options[0];
  const early = earlyPick ?? (markup && select.value !== markup.value ? select.value : null);
  earlyPick = null;
  select.dataset.wired = "1";
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
  if (early && early !== current && LANGS.includes(early)) {
    select.value = early;
    onPick(early);
  }
}

/** Show the current language in every language choice of the page. */
export function showLanguageChoice() {
  for (const s of /** @type {NodeListOf<HTMLSelectElement>} */ (document.querySelectorAll("select.lang-choice"))) s.value = current;
}

// ------------------------------------------------------------------ what Intl knows

/** @type {Map<string, {ask: unknown, knows: boolean}>} */
const knowing = new Map();

/**
 * Whether the browser's Intl has data for a language in one of its services: Debian's
 * Chromium answers yes for PluralRules("is") and no for NumberFormat, DateTimeFormat and
 * ListFormat("is"). The answer is kept while the service's supportedLocalesOf stays the
 * same function (a test may replace it to take the data away).
 * @param {"PluralRules" | "NumberFormat" | "DateTimeFormat" | "ListFormat"} service @param {string} lang
 */
export function intlKnows(service, lang) {
  const api = /** @type {any} */ (globalThis.Intl)?.[service];
  const ask = api?.supportedLocalesOf;
  const key = `${service}|${lang}`;
  const known = knowing.get(key);
  if (known && known.ask === ask) return known.knows;
  let knows = false;
  try {
    knows = typeof ask === "function" && ask.call(api, [lang]).length > 0;
  } catch {
    knows = false;
  }
  knowing.set(key, { ask, knows });
  return knows;
}

/** @type {Map<string, any>} */
const intlCache = new Map();

/**
 * An Intl formatter or rule set, made once per language and options.
 * @template T @param {string} service @param {string} lang @param {object} options @param {() => T} make @returns {T}
 */
function cached(service, lang, options, make) {
  const key = `${service}|${lang}|${JSON.stringify(options)}`;
  let made = intlCache.get(key);
  if (!made) {
    made = make();
    intlCache.set(key, made);
  }
  return made;
}

/**
 * A catalogue's word for the formats (num.*, date.*, list.*): the current language's, else
 * English's, else `otherwise` (before any catalogue is loaded).
 * @param {string} key @param {string} otherwise
 */
const word = (key, otherwise) => messages[key] ?? fallback[key] ?? otherwise;

// ------------------------------------------------------------------ plural rules

/**
 * The operands of CLDR's plural rules for a number as it is shown ("1.50"): n its absolute
 * value, i its integer digits, v how many decimals are shown, t the decimals without their
 * trailing zeros (as an integer).
 * @typedef {{n: number, i: number, v: number, t: number}} Operands
 * @param {string} digits ASCII digits and "." as written by plainDigits
 * @returns {Operands}
 */
function operands(digits) {
  const [int, frac = ""] = digits.replace("-", "").split(".");
  const trimmed = frac.replace(/0+$/, "");
  return { n: Math.abs(Number(digits)), i: Number(int), v: frac.length, t: Number(trimmed || "0") };
}

/**
 * CLDR's plural rules (unicode.org/cldr, plurals.xml and ordinals.xml) for the page's
 * languages, for a browser whose Intl.PluralRules lacks one. French's "many" (a million
 * and more in round millions) is said with "_other" by t().
 * @type {Record<string, {cardinal: (o: Operands) => string, ordinal: (o: Operands) => string}>}
 */
export const CLDR_PLURALS = {
  en: {
    // one: i = 1 and v = 0
    cardinal: (o) => (o.i === 1 && o.v === 0 ? "one" : "other"),
    // one: n % 10 = 1 and n % 100 != 11; two: … 2, 12; few: … 3, 13
    ordinal: (o) => {
      const n10 = o.n % 10;
      const n100 = o.n % 100;
      if (n10 === 1 && n100 !== 11) return "one";
      if (n10 === 2 && n100 !== 12) return "two";
      if (n10 === 3 && n100 !== 13) return "few";
      return "other";
    },
  },
  fr: {
    // one: i = 0,1; many: e = 0 and i != 0 and i % 1000000 = 0 and v = 0
    cardinal: (o) => (o.i === 0 || o.i === 1 ? "one" : o.i !== 0 && o.i % 1000000 === 0 && o.v === 0 ? "many" : "other"),
    // one: n = 1
    ordinal: (o) => (o.n === 1 ? "one" : "other"),
  },
  is: {
    // one: t = 0 and i % 10 = 1 and i % 100 != 11 or t % 10 = 1 and t % 100 != 11
    cardinal: (o) => ((o.t === 0 && o.i % 10 === 1 && o.i % 100 !== 11) || (o.t % 10 === 1 && o.t % 100 !== 11) ? "one" : "other"),
    ordinal: () => "other",
  },
};

/**
 * The plural category of n in a language ("one", "other", …) as it is shown with `digits`
 * decimals (none given: up to three, as Intl.PluralRules does): "1.00" is plural in English
 * and "0,5" singular in French. Intl.PluralRules decides where the browser has the
 * language, CLDR's rules written out above where it does not.
 * @param {number} n
 * @param {{digits?: number, type?: "cardinal" | "ordinal", lang?: string}} [opts]
 */
export function plural(n, { digits, type = "cardinal", lang = current } = {}) {
  const min = digits ?? 0;
  const max = digits ?? 3;
  if (intlKnows("PluralRules", lang)) {
    const options = { type, minimumFractionDigits: min, maximumFractionDigits: max };
    return cached("PluralRules", lang, options, () => new Intl.PluralRules(lang, options)).select(n);
  }
  const rules = CLDR_PLURALS[lang] ?? CLDR_PLURALS.en;
  return rules[type](operands(plainDigits(n, min, max)));
}

// ------------------------------------------------------------------ messages

/**
 * A number inside a message: whole numbers as the language writes them ("1.234" in
 * Icelandic), others with up to three decimals; anything else as it is.
 * @param {unknown} value @param {number} [digits]
 */
function inMessage(value, digits) {
  if (typeof value !== "number" || !Number.isFinite(value)) return String(value);
  if (digits !== undefined) return formatNumber(value, digits);
  if (Number.isInteger(value) && value >= 0 && value < 1000) return String(value);
  return formatNumber(value, 0, Number.isInteger(value) ? {} : { max: 3 });
}

/**
 * The message for key in the current language, its {placeholders} filled from params.
 * A number in params.n chooses the plural variant (params.digits: the decimals it is shown
 * with, as in {n: 0.5, digits: 2} for "0,50 væntanlegur slagur").
 * @param {string} key
 * @param {Record<string, any>} [params]
 * @returns {string}
 */
export function t(key, params = {}) {
  let text;
  const n = params.n;
  const digits = typeof params.digits === "number" ? params.digits : undefined;
  if (typeof n === "number" && Number.isFinite(n)) {
    if (Number.isInteger(n) && digits === undefined) text = messages[`${key}_=${n}`];
    const cat = plural(n, { digits });
    const k = `${key}_${cat}`;
    text = text ?? messages[k] ?? fallback[k];
    if (text === undefined && cat !== "one") text = messages[`${key}_other`] ?? fallback[`${key}_other`];
  }
  text = text ?? messages[key] ?? fallback[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? inMessage(params[name], name === "n" ? digits : undefined) : m));
}

/** Whether the current language (or English) has a message for key. @param {string} key */
export const has = (key) => key in messages || key in fallback;

// ------------------------------------------------------------------ numbers

/**
 * x rounded to between min and max decimals (half away from zero, on the number as it is
 * written, as Intl does: 1.005 → "1.01"), in ASCII digits with "." and "-", ungrouped.
 * @param {number} x @param {number} min @param {number} max
 */
function plainDigits(x, min, max) {
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  const a = Math.abs(x);
  let int;
  let frac;
  if (/e/i.test(String(a))) {
    [int, frac = ""] = a.toFixed(max).split(".");
  } else {
    const scaled = String(Math.round(Number(`${a}e${max}`))).padStart(max + 1, "0");
    int = max ? scaled.slice(0, -max) : scaled;
    frac = max ? scaled.slice(-max) : "";
  }
  while (frac.length > min && frac.endsWith("0")) frac = frac.slice(0, -1);
  return `${sign}${int}${frac ? `.${frac}` : ""}`;
}

/**
 * plainDigits in the current language's signs, from the catalogue: the decimal sign, the
 * group separator every three digits, the minus.
 * @param {string} plain
 */
function withSigns(plain) {
  const negative = plain.startsWith("-");
  const [int, frac] = plain.replace("-", "").split(".");
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, word("num.group", ","));
  return `${negative ? word("num.minus", "-") : ""}${grouped}${frac ? word("num.decimal", ".") + frac : ""}`;
}

/**
 * Intl's parts of a number, with the catalogue's minus: one minus on the page, the same
 * on every browser.
 * @param {Intl.NumberFormatPart[]} parts
 */
const joinParts = (parts) => parts.map((p) => (p.type === "minusSign" ? word("num.minus", p.value) : p.value)).join("");

/**
 * A number in the current language: `digits` decimals ("3.07", "3,07", "−3,3"), or between
 * opts.min and opts.max of them; opts.lang for another language (Intl's forms then).
 * @param {number} x @param {number} [digits] @param {{min?: number, max?: number, lang?: string}} [opts]
 */
export function formatNumber(x, digits = 2, { min, max, lang = current } = {}) {
  const lo = min ?? (max !== undefined ? Math.min(digits, max) : digits);
  const hi = Math.max(lo, max ?? digits);
  if (intlKnows("NumberFormat", lang) || lang !== current) {
    const options = { minimumFractionDigits: lo, maximumFractionDigits: hi };
    return joinParts(cached("NumberFormat", lang, options, () => new Intl.NumberFormat(lang, options)).formatToParts(x));
  }
  return withSigns(plainDigits(x, lo, hi));
}

/**
 * A percentage (x out of 100) in the current language: "87.5%", "87,5 %", "87,5%"; up to
 * `max` decimals.
 * @param {number} x @param {{max?: number, lang?: string}} [opts]
 */
export function formatPercent(x, { max = 1, lang = current } = {}) {
  if (intlKnows("NumberFormat", lang) || lang !== current) {
    /** @type {Intl.NumberFormatOptions} */
    const options = { style: "percent", minimumFractionDigits: 0, maximumFractionDigits: max };
    return joinParts(cached("NumberFormat", lang, options, () => new Intl.NumberFormat(lang, options)).formatToParts(x / 100));
  }
  return word("num.percent", "{n}%").replace("{n}", withSigns(plainDigits(x, 0, max)));
}

// ------------------------------------------------------------------ dates

/** A Date from a Date, an ISO string or milliseconds; null when it is none. @param {Date | string | number} when */
function toDate(when) {
  const d = when instanceof Date ? when : new Date(when);
  return Number.isNaN(d.getTime()) ? null : d;
}

/**
 * A date's parts for the catalogue's patterns: {d} the day, {MMM} the month's short name,
 * {y} the year, {H}/{HH} the hour (0-23, two digits), {h} the hour 1-12, {mm} the minutes,
 * {a} before or after noon.
 * @param {Date} d
 */
function dateParts(d) {
  const months = word("date.months", "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec").split(" ");
  const periods = word("date.periods", "AM PM").split(" ");
  const H = d.getHours();
  const two = (/** @type {number} */ x) => String(x).padStart(2, "0");
  return { d: d.getDate(), MMM: months[d.getMonth()], y: d.getFullYear(), H, HH: two(H), h: H % 12 || 12, mm: two(d.getMinutes()), a: periods[H < 12 ? 0 : 1] };
}

/** @param {string} key @param {string} otherwise @param {Record<string, string | number>} parts */
const fill = (key, otherwise, parts) => word(key, otherwise).replace(/\{(\w+)\}/g, (m, name) => (name in parts ? String(parts[name]) : m));

/**
 * A date or a date and time in the current language, through Intl where it knows the
 * language, else from the catalogue's month names and patterns.
 * @param {Date | string | number} when @param {Intl.DateTimeFormatOptions} options @param {string} key @param {string} otherwise
 */
function formatWhen(when, options, key, otherwise) {
  const d = toDate(when);
  if (!d) return String(when);
  if (intlKnows("DateTimeFormat", current)) return cached("DateTimeFormat", current, options, () => new Intl.DateTimeFormat(current, options)).format(d);
  const parts = dateParts(d);
  if (key !== "date.dateTime") return fill(key, otherwise, parts);
  return fill(key, otherwise, { date: fill("date.date", "{MMM} {d}, {y}", parts), time: fill("date.time", "{h}:{mm} {a}", parts) });
}

/** A date in the current language: "Dec 6, 2026", "6 déc. 2026", "6. des. 2026". @param {Date | string | number} when */
export const formatDate = (when) => formatWhen(when, { dateStyle: "medium" }, "date.date", "{MMM} {d}, {y}");

/** A date and time: "Dec 6, 2026, 4:11 AM", "6 déc. 2026, 04:11", "6. des. 2026, 04:11". @param {Date | string | number} when */
export const formatDateTime = (when) => formatWhen(when, { dateStyle: "medium", timeStyle: "short" }, "date.dateTime", "{date}, {time}");

/** A day and month, for chart axes: "Dec 6", "6 déc.", "6. des.". @param {Date | string | number} when */
export const formatDayMonth = (when) => formatWhen(when, { day: "numeric", month: "short" }, "date.dayMonth", "{MMM} {d}");

// ------------------------------------------------------------------ lists and ordinals

/** "a, b or c" in the current language ("a, b eða c", "a, b ou c"). @param {string[]} items */
export function orList(items) {
  if (intlKnows("ListFormat", current)) {
    return cached("ListFormat", current, { type: "disjunction" }, () => new Intl.ListFormat(current, { type: "disjunction" })).format(items);
  }
  if (items.length <= 1) return items.join("");
  return items.slice(0, -1).join(word("list.comma", ", ")) + word("list.or", " or ") + items[items.length - 1];
}

/** "1st", "2nd" / "1er", "2e" / "1.": an ordinal place. @param {number} n */
export function ordinal(n) {
  const cat = plural(n, { type: "ordinal" });
  const key = has(`ordinal.${cat}`) ? `ordinal.${cat}` : "ordinal.other";
  return t(key, { num: n });
}

// ------------------------------------------------------------------ the page

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
