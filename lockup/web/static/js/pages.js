// @ts-check
// The rules and help pages: show the article in the chosen language, with a switch.
//
// Each page holds one <article data-lang="en"> and one <article data-lang="fr">; the
// choice is shared with the table (localStorage "lockup.lang").

import { chooseLanguage, language, setLanguage, t, translateDom } from "./i18n.js";

function show() {
  const lang = language();
  for (const a of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("article[data-lang]")))
    a.hidden = a.dataset.lang !== lang;
  const other = lang === "fr" ? "en" : "fr";
  const b = /** @type {HTMLElement} */ (document.getElementById("btn-lang"));
  b.textContent = t(`lang.${other}`);
  b.lang = other;
  b.setAttribute("aria-label", t("lang.switch", { lang: t(`lang.${other}`) }));
  const title = document.querySelector(`article[data-lang="${lang}"] h1`);
  if (title) document.title = `${title.textContent} · Lockup`;
  translateDom();
}

async function main() {
  const q = new URLSearchParams(location.search).get("lang");
  await setLanguage(q === "en" || q === "fr" ? q : chooseLanguage(), { save: q === "en" || q === "fr" });
  show();
  /** @type {HTMLElement} */ (document.getElementById("btn-lang")).addEventListener("click", async () => {
    await setLanguage(language() === "fr" ? "en" : "fr");
    show();
  });
}

main();
