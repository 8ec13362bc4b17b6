// @ts-check
// The rules and help pages: show the article in the chosen language, with a switch.
//
// Each page holds one <article data-lang="…"> per language (en, fr, is); the choice is
// shared with the table (localStorage "lockup.lang").

import { bindLanguageChoice, chooseLanguage, language, queryLanguage, setLanguage, showLanguageChoice, translateDom } from "./i18n.js";

function show() {
  const lang = language();
  for (const a of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("article[data-lang]")))
    a.hidden = a.dataset.lang !== lang;
  showLanguageChoice();
  const title = document.querySelector(`article[data-lang="${lang}"] h1`);
  if (title) document.title = `${title.textContent} · Lockup`;
  translateDom();
}

async function main() {
  const q = queryLanguage();
  await setLanguage(q ?? chooseLanguage(), { save: q !== null });
  bindLanguageChoice(/** @type {HTMLSelectElement} */ (document.getElementById("lang-choice")), async (lang) => {
    await setLanguage(lang);
    show();
  });
  show();
}

main();
