"""The terminal's words, in English, French and Icelandic (``lockup play --lang en|fr|is``).

:func:`tr` gives a sentence in the language chosen by :func:`set_language` (by default
from the environment: ``LC_ALL``, ``LC_MESSAGES``, ``LANG``; else English), its
``{placeholders}`` filled from keyword arguments.

A sentence with a count (``tr("seat.cards", n=7)``) has a form for each plural category
of the language, as Babel's plural rules (CLDR) name them: ``seat.cards_one``,
``seat.cards_other`` (and French ``_many``, for the millions); ``n`` is written as the
language writes numbers. A sentence about the person has its own form where the
language needs one (``say.trick.you``: "Vous remportez le pli", "Þú færð slaginn"),
chosen when ``name`` is the person ("You", "Vous", "Þú").

The terminal names the person "You" by default (``DEFAULT_PLAYERS``), so an English
sentence built as "{name} wins the game" must agree with it: "Þóra wins the game", "You
win the game". An English template says so in the placeholder's format: ``{name:says
wins}`` ("Þóra wins", "You win"), ``{name:poss}`` ("Leifur's", "your"), ``{name:obj}``
("Leifur", "you"). French and Icelandic give the person's sentences of their own.

Cards are written with the letters of the language (:func:`card`: ``D♦`` is the French
queen of diamonds), the same as the refusals' (:func:`lockup.refusals.short_card`).
"""

from __future__ import annotations

import os
import string
from collections.abc import Mapping
from dataclasses import replace
from functools import cache
from typing import Any, Final

from babel import Locale
from babel.numbers import format_decimal

from ..refusals import short_card

LANGS: Final = ("en", "fr", "is")
"""The terminal's languages."""

YOU: Final = "You"
"""The person's default name: the second person."""

_PLAIN: Final = {"is": "are", "has": "have", "was": "were"}
_COUNT_ENDS: Final = ("_zero", "_one", "_two", "_few", "_many", "_other")
"""How the key of a count's form ends: its plural category (CLDR)."""

_TEXTS: Final[dict[str, dict[str, str]]] = {
    "en": {
        "you": "You",
        "you.mark": " (you)",
        "nobody": "nobody",
        "seat.deals": " · deals",
        "seat.cards_one": "{n} card",
        "seat.cards_other": "{n} cards",
        "seat.won_one": "{n} won",
        "seat.won_other": "{n} won",
        "seat.locked_one": "🔒 locked {n} trick",
        "seat.locked_other": "🔒 locked {n} tricks",
        "seat.lost": "lost ",
        "trick.caption": "Trick {n}/13",
        "trick.led": "  led ",
        "trick.last": "Trick {n}: ",
        "trick.empty": "empty",
        "trick.won": "{name} won",
        "trick.won.you": "you won",
        "game.won": "{name:says wins} the game!",
        "score.title_one": "Score · to {n}",
        "score.title_other": "Score · to {n}",
        "score.game": "game",
        "score.hand": "hand",
        "score.lock": "lock",
        "score.handN": "hand {n}",
        "opt.same-rank": "same-rank",
        "opt.any-club": "any-club",
        "opt.per-trick": "per-trick",
        "opt.upfront": "upfront",
        "sum.title": "Hand {n} is over",
        "sum.hand": "hand",
        "sum.total": "total",
        "sum.locked": "locked",
        "sum.satOut": "sat out",
        "sum.lost": "lost",
        "sum.place": "place",
        "sum.left": "left the game",
        "place.1": "1st",
        "place.2": "2nd",
        "place.3": "3rd",
        "place.4": "4th",
        "game.wonLeft": "A computer wins the game in the seat {name} left!",
        "game.wonLeft.you": "A computer wins the game in the seat you left!",
        "sum.back": "\nEnter: back to the table · q: quit",
        "sum.next": "\nEnter: deal the next hand · q: quit",
        "refused": "Refused",
        "hint.title": "Hint (expected tricks this hand): ",
        "status.hand": " · hand {n}",
        "status.trick": " · trick {n}/13",
        "status.yourTurn": " · your turn",
        "status.toPlay": " · {name} to play",
        "status.won": " · {name:says won}",
        "status.won.you": " · you won",
        "key.Card": "Card",
        "key.Play": "Play",
        "key.Hint": "Hint",
        "key.Start": "Start",
        "key.Help": "Help",
        "key.Quit": "Quit",
        "key.Go on": "Go on",
        "key.Close": "Close",
        "help": """[b]Lockup in the terminal[/b]

[b]←/→[/b]  choose a card        [b]Enter[/b], Space, click  play it
[b]h[/b]    hint: the expert's value of each legal card (tricks this hand)
[b]s[/b]    start the game (the host of a room)
[b]?[/b]    this help            [b]q[/b]  quit (the game is saved)

Lit cards are the ones you may play; a refused card says why.
No trumps: the highest card of the suit led wins the trick and
a point (R8). Win a trick with clubs in it and you are locked up 🔒
for a trick per club, losing random cards (R9, R10). The first
sole leader at the target wins (R15). Rules: docs/rules.md.

Enter or Escape to close.""",
        "level.random": "random",
        "level.easy": "easy",
        "level.normal": "normal",
        "level.expert": "expert",
        "title.local": "Lockup vs {level}",
        "title.game": "Lockup at {host}",
        "title.room": "Lockup · room {room}",
        "title.watch": "Lockup · watching {room}",
        "say.over": "{name:says wins} the game (R15). q to quit.",
        "say.deal": "Hand {n}: {name:says deals} (R3).",
        "say.deal.you": "Hand {n}: you deal (R3).",
        "say.discard": "Lockup takes {card} from {name:poss} hand (R10).",
        "say.play": "You play {card}.",
        "say.hintNotNow": "A hint is for your turn.",
        "say.thinking": "The expert is thinking…",
        "say.connecting": "Connecting to {base}…",
        "say.connectedAgain": "Connected again.",
        "say.badFrame": "A frame the client does not understand: {error}",
        "say.connectionLost": "Connection lost ({error}); trying again…",
        "say.notConnected": "Not connected.",
        "say.watching": "Watching the table.",
        "say.seated": "At the table as {name}.",
        "say.seated.you": "You are at the table.",
        "say.trick": "{name:says wins} the trick.",
        "say.trickLock_one": "{name:says wins} the trick and {name:is} locked up for {n} trick "
        "(R9).",
        "say.trickLock_other": "{name:says wins} the trick and {name:is} locked up for {n} "
        "tricks (R9).",
        "say.takeover": "A computer plays for {name:obj}.",
        "say.back": "{name:says is} back.",
        "say.seatN": "seat {n}",
        "say.waitHost_one": "{n} person at the table. Press s to start (empty seats: computers).",
        "say.waitHost_other": "{n} people at the table. Press s to start (empty seats: computers).",
        "say.waitGuest_one": "{n} person at the table. Waiting for the host to start…",
        "say.waitGuest_other": "{n} people at the table. Waiting for the host to start…",
        "cli.resuming": "Resuming the unfinished game saved in {path} "
        "(lockup play --new starts another).",
        "cli.kept": "{wanted} is kept as it is: this game is saved in {path}.",
        "cli.saved": "saved in {path} (lockup play --resume {path})",
        "cli.askName": "Your name at the table: ",
        "title.quick": "Lockup · play people at {host}",
        "quick.asking": "Looking for a table of people at {base}…",
        "quick.wait_one": "At the table: {names}. Computers take the empty seats in {n} s "
        "(q leaves).",
        "quick.wait_other": "At the table: {names}. Computers take the empty seats in {n} s "
        "(q leaves).",
        "quick.waitOne_one": "At the table: {names}. A computer takes the empty seat in {n} s "
        "(q leaves).",
        "quick.waitOne_other": "At the table: {names}. A computer takes the empty seat in {n} s "
        "(q leaves).",
        "quick.starting": "At the table: {names}. Starting…",
        "quick.full": "Everyone is here: the game starts.",
        "title.rated": " · rated",
        "status.clock_one": " · {n} s",
        "status.clock_other": " · {n} s",
        "say.outOfTime": "Out of time: a computer played {card} for {name:obj}.",
        "abandon.timeouts": "{name} ran out of time too often: a computer plays {name:poss} "
        "seat to the end of the game.",
        "abandon.gone": "{name:says has} been gone too long: a computer plays {name:poss} seat "
        "to the end of the game.",
        "abandon.left": "{name} left the game: a computer plays {name:poss} seat to the end of it.",
        "abandon.other": "A computer plays {name:poss} seat to the end of the game.",
        "abandon.last": " In a rated game that ranks you last.",
        "rating.change": "Rating {before} → {after} ({change}).",
        "rating.guest": "Guests play unrated: `lockup login` to be rated.",
        "rating.unchanged": "This game left your rating as it was.",
        "rating.later": "Your rating's change is not in yet: the server's /history page shows it.",
        "say.signedOut": "Your sign-in at {base} has ended: you play as a guest (lockup login "
        "signs in again).",
        "say.noConfig": "Your player is not kept for next time ({problem}).",
        "login.name": "Name: ",
        "login.password": "Password: ",
        "login.done": "Signed in to {base} as {name}.",
        "login.bad": "wrong name or password",
        "login.wait_one": "too many tries: try again in {n} s",
        "login.wait_other": "too many tries: try again in {n} s",
        "login.waitLater": "too many tries: try again later",
        "login.noAccounts": "{base} has no accounts (a lockup serve without them?)",
        "login.needName": "a name is needed (--name NAME)",
        "login.needPassword": "a password is needed",
        "login.notKept": "signed in, but the sign-in could not be kept ({problem})",
        "logout.done": "Signed out of {base}.",
        "logout.notIn": "Not signed in to {base}.",
        "logout.unreachable": "Signed out here; {base} could not be told ({error}).",
    },
    "fr": {
        "you": "Vous",
        "you.mark": " (vous)",
        "nobody": "personne",
        "seat.deals": " · donneur",
        "seat.cards_one": "{n} carte",
        "seat.cards_many": "{n} de cartes",
        "seat.cards_other": "{n} cartes",
        "seat.won_one": "{n} pli",
        "seat.won_many": "{n} de plis",
        "seat.won_other": "{n} plis",
        "seat.locked_one": "🔒 passe {n} pli",
        "seat.locked_many": "🔒 passe {n} de plis",
        "seat.locked_other": "🔒 passe {n} plis",
        "seat.lost": "perdues ",
        "trick.caption": "Pli {n}/13",
        "trick.led": "  entame ",
        "trick.last": "Pli {n} : ",
        "trick.empty": "vide",
        "trick.won": "remporté par {name}",
        "trick.won.you": "remporté par vous",
        "game.won": "{name} gagne la partie !",
        "game.won.you": "Vous gagnez la partie !",
        "score.title_one": "Score · en {n} point",
        "score.title_many": "Score · en {n} de points",
        "score.title_other": "Score · en {n} points",
        "score.game": "partie",
        "score.hand": "main",
        "score.lock": "enf.",
        "score.handN": "main {n}",
        "opt.same-rank": "même rang",
        "opt.any-club": "tout trèfle",
        "opt.per-trick": "à chaque pli",
        "opt.upfront": "d'un coup",
        "sum.title": "Fin de la main {n}",
        "sum.hand": "main",
        "sum.total": "total",
        "sum.locked": "fois enfermé",
        "sum.satOut": "plis passés",
        "sum.lost": "cartes perdues",
        "sum.place": "rang",
        "sum.left": "a quitté la partie",
        "place.1": "1er",
        "place.2": "2e",
        "place.3": "3e",
        "place.4": "4e",
        "game.wonLeft": "Un ordinateur gagne la partie à la place laissée par {name} !",
        "game.wonLeft.you": "Un ordinateur gagne la partie à la place que vous avez laissée !",
        "sum.back": "\nEntrée : retour à la table · q : quitter",
        "sum.next": "\nEntrée : distribuer la main suivante · q : quitter",
        "refused": "Refusé",
        "hint.title": "Conseil (plis espérés dans cette main) : ",
        "status.hand": " · main {n}",
        "status.trick": " · pli {n}/13",
        "status.yourTurn": " · à vous de jouer",
        "status.toPlay": " · à {name} de jouer",
        "status.won": " · {name} a gagné",
        "status.won.you": " · vous avez gagné",
        "key.Card": "Carte",
        "key.Play": "Jouer",
        "key.Hint": "Conseil",
        "key.Start": "Lancer",
        "key.Help": "Aide",
        "key.Quit": "Quitter",
        "key.Go on": "Continuer",
        "key.Close": "Fermer",
        "help": """[b]Lockup dans le terminal[/b]

[b]←/→[/b]  choisir une carte    [b]Entrée[/b], Espace, clic  la jouer
[b]h[/b]    conseil : la valeur de chaque carte jouable selon l'expert
     (en plis dans cette main)
[b]s[/b]    lancer la partie (l'hôte d'une table)
[b]?[/b]    cette aide           [b]q[/b]  quitter (la partie est enregistrée)

Les cartes éclairées sont celles que vous pouvez jouer ; une carte
refusée dit pourquoi. Pas d'atout : la plus forte carte de la
couleur demandée remporte le pli et un point (R8). Remportez un pli
qui contient des trèfles et vous êtes enfermé 🔒 un pli par trèfle,
en perdant des cartes au hasard (R9, R10). Le premier seul en tête
à l'objectif gagne (R15). Règles : docs/rules.md.

Entrée ou Échap pour fermer.""",
        "level.random": "au hasard",
        "level.easy": "facile",
        "level.normal": "normal",
        "level.expert": "expert",
        "title.local": "Lockup · adversaires : {level}",
        "title.game": "Lockup sur {host}",
        "title.room": "Lockup · table {room}",
        "title.watch": "Lockup · spectateur de la table {room}",
        "say.over": "{name} gagne la partie (R15). q pour quitter.",
        "say.over.you": "Vous gagnez la partie (R15). q pour quitter.",
        "say.deal": "Main {n} : {name} distribue (R3).",
        "say.deal.you": "Main {n} : vous distribuez (R3).",
        "say.discard": "L'enfermement prend à {name} : {card} (R10).",
        "say.discard.you": "L'enfermement vous prend : {card} (R10).",
        "say.play": "Vous jouez : {card}.",
        "say.hintNotNow": "Un conseil se demande à votre tour.",
        "say.thinking": "L'expert réfléchit…",
        "say.connecting": "Connexion à {base}…",
        "say.connectedAgain": "Reconnecté.",
        "say.badFrame": "Un message que le client ne comprend pas : {error}",
        "say.connectionLost": "Connexion perdue ({error}) ; nouvel essai…",
        "say.notConnected": "Pas connecté.",
        "say.watching": "Vous regardez la table.",
        "say.seated": "À la table sous le nom de {name}.",
        "say.seated.you": "Vous êtes à la table.",
        "say.trick": "{name} remporte le pli.",
        "say.trick.you": "Vous remportez le pli.",
        "say.trickLock_one": "{name} remporte le pli : enfermement pour {n} pli (R9).",
        "say.trickLock_many": "{name} remporte le pli : enfermement pour {n} de plis (R9).",
        "say.trickLock_other": "{name} remporte le pli : enfermement pour {n} plis (R9).",
        "say.trickLock.you_one": "Vous remportez le pli : enfermement pour {n} pli (R9).",
        "say.trickLock.you_many": "Vous remportez le pli : enfermement pour {n} de plis (R9).",
        "say.trickLock.you_other": "Vous remportez le pli : enfermement pour {n} plis (R9).",
        "say.takeover": "Un ordinateur joue pour {name}.",
        "say.takeover.you": "Un ordinateur joue pour vous.",
        "say.back": "{name} est de retour.",
        "say.back.you": "Vous êtes de retour.",
        "say.seatN": "place {n}",
        "say.waitHost_one": "{n} personne à la table. Appuyez sur s pour lancer la partie "
        "(places vides : ordinateurs).",
        "say.waitHost_many": "{n} de personnes à la table. Appuyez sur s pour lancer la partie "
        "(places vides : ordinateurs).",
        "say.waitHost_other": "{n} personnes à la table. Appuyez sur s pour lancer la partie "
        "(places vides : ordinateurs).",
        "say.waitGuest_one": "{n} personne à la table. En attente du lancement par l'hôte…",
        "say.waitGuest_many": "{n} de personnes à la table. En attente du lancement par l'hôte…",
        "say.waitGuest_other": "{n} personnes à la table. En attente du lancement par l'hôte…",
        "cli.resuming": "Reprise de la partie inachevée enregistrée dans {path} "
        "(lockup play --new en commence une autre).",
        "cli.kept": "Le fichier {wanted} reste tel quel : cette partie est enregistrée dans "
        "{path}.",
        "cli.saved": "partie enregistrée dans {path} (lockup play --resume {path})",
        "cli.askName": "Votre nom à la table : ",
        "title.quick": "Lockup · jouer avec d'autres sur {host}",
        "quick.asking": "Recherche d'une table de joueurs sur {base}…",
        "quick.wait_one": "À la table : {names}. Des ordinateurs prennent les places vides "
        "dans {n} s (q pour partir).",
        "quick.wait_many": "À la table : {names}. Des ordinateurs prennent les places vides "
        "dans {n} s (q pour partir).",
        "quick.wait_other": "À la table : {names}. Des ordinateurs prennent les places vides "
        "dans {n} s (q pour partir).",
        "quick.waitOne_one": "À la table : {names}. Un ordinateur prend la place vide dans "
        "{n} s (q pour partir).",
        "quick.waitOne_many": "À la table : {names}. Un ordinateur prend la place vide dans "
        "{n} s (q pour partir).",
        "quick.waitOne_other": "À la table : {names}. Un ordinateur prend la place vide dans "
        "{n} s (q pour partir).",
        "quick.starting": "À la table : {names}. La partie commence…",
        "quick.full": "Tout le monde est là : la partie commence.",
        "title.rated": " · classée",
        "status.clock_one": " · {n} s",
        "status.clock_many": " · {n} s",
        "status.clock_other": " · {n} s",
        "say.outOfTime": "Temps écoulé : un ordinateur a joué {card} pour {name}.",
        "say.outOfTime.you": "Temps écoulé : un ordinateur a joué {card} pour vous.",
        "abandon.timeouts": "{name} a dépassé le temps trop souvent : un ordinateur joue à sa "
        "place jusqu'à la fin de la partie.",
        "abandon.timeouts.you": "Vous avez dépassé le temps trop souvent : un ordinateur joue à "
        "votre place jusqu'à la fin de la partie.",
        "abandon.gone": "L'absence de {name} a trop duré : un ordinateur joue à sa place "
        "jusqu'à la fin de la partie.",
        "abandon.gone.you": "Votre absence a trop duré : un ordinateur joue à votre place "
        "jusqu'à la fin de la partie.",
        "abandon.left": "{name} a quitté la partie : un ordinateur joue à sa place jusqu'à la fin.",
        "abandon.left.you": "Vous avez quitté la partie : un ordinateur joue à votre place "
        "jusqu'à la fin.",
        "abandon.other": "Un ordinateur joue à la place de {name} jusqu'à la fin de la partie.",
        "abandon.other.you": "Un ordinateur joue à votre place jusqu'à la fin de la partie.",
        "abandon.last": " Dans une partie classée, cela vous classe dernier.",
        "rating.change": "Cote {before} → {after} ({change}).",
        "rating.guest": "Les invités jouent sans classement : `lockup login` pour être classé.",
        "rating.unchanged": "Cette partie a laissé votre cote inchangée.",
        "rating.later": "Le changement de votre cote n'est pas encore là : la page /history du "
        "serveur l'affichera.",
        "say.signedOut": "Votre connexion à {base} a pris fin : vous jouez en invité (lockup "
        "login vous reconnecte).",
        "say.noConfig": "Votre joueur n'est pas gardé pour la prochaine fois ({problem}).",
        "login.name": "Nom : ",
        "login.password": "Mot de passe : ",
        "login.done": "Connecté à {base} en tant que {name}.",
        "login.bad": "nom ou mot de passe erroné",
        "login.wait_one": "trop d'essais : réessayez dans {n} s",
        "login.wait_many": "trop d'essais : réessayez dans {n} s",
        "login.wait_other": "trop d'essais : réessayez dans {n} s",
        "login.waitLater": "trop d'essais : réessayez plus tard",
        "login.noAccounts": "{base} n'a pas de comptes (un lockup serve sans comptes ?)",
        "login.needName": "il faut un nom (--name NOM)",
        "login.needPassword": "il faut un mot de passe",
        "login.notKept": "connecté, mais la connexion n'a pas pu être gardée ({problem})",
        "logout.done": "Déconnecté de {base}.",
        "logout.notIn": "Pas connecté à {base}.",
        "logout.unreachable": "Déconnecté ici ; {base} n'a pas pu être prévenu ({error}).",
    },
    "is": {
        "you": "Þú",
        "you.mark": " (þú)",
        "nobody": "enginn",
        "seat.deals": " · gefur",
        "seat.cards_one": "{n} spil",
        "seat.cards_other": "{n} spil",
        "seat.won_one": "{n} slagur",
        "seat.won_other": "{n} slagir",
        "seat.locked_one": "🔒 í lás {n} slag",
        "seat.locked_other": "🔒 í lás {n} slagi",
        "seat.lost": "misst ",
        "trick.caption": "Slagur {n}/13",
        "trick.led": "  út: ",
        "trick.last": "Slagur {n}: ",
        "trick.empty": "tómur",
        "trick.won": "{name} fékk hann",
        "trick.won.you": "þú fékkst hann",
        "game.won": "{name} vinnur leikinn!",
        "score.title_one": "Staðan · upp í {n} stig",
        "score.title_other": "Staðan · upp í {n} stig",
        "score.game": "leikur",
        "score.hand": "gjöf",
        "score.lock": "lás",
        "score.handN": "gjöf {n}",
        "opt.same-rank": "sama gildi",
        "opt.any-club": "hvaða lauf sem er",
        "opt.per-trick": "eitt í slag",
        "opt.upfront": "öll í einu",
        "sum.title": "Gjöf {n} er lokið",
        "sum.hand": "gjöf",
        "sum.total": "samtals",
        "sum.locked": "í lás",
        "sum.satOut": "hjá",
        "sum.lost": "misst",
        "sum.place": "sæti",
        "sum.left": "hætti í leiknum",
        "place.1": "1.",
        "place.2": "2.",
        "place.3": "3.",
        "place.4": "4.",
        "game.wonLeft": "Tölva vinnur leikinn í sætinu sem {name} yfirgaf!",
        "game.wonLeft.you": "Tölva vinnur leikinn í sætinu sem þú yfirgafst!",
        "sum.back": "\nEnter: aftur að borðinu · q: hætta",
        "sum.next": "\nEnter: gefa næstu gjöf · q: hætta",
        "refused": "Hafnað",
        "hint.title": "Ábending (væntanlegir slagir í gjöfinni): ",
        "status.hand": " · gjöf {n}",
        "status.trick": " · slagur {n}/13",
        "status.yourTurn": " · þú átt leik",
        "status.toPlay": " · {name} á leik",
        "status.won": " · {name} vann",
        "status.won.you": " · þú vannst",
        "key.Card": "Spil",
        "key.Play": "Spila",
        "key.Hint": "Ábending",
        "key.Start": "Byrja",
        "key.Help": "Hjálp",
        "key.Quit": "Hætta",
        "key.Go on": "Áfram",
        "key.Close": "Loka",
        "help": """[b]Lockup í útstöðinni[/b]

[b]←/→[/b]  velja spil          [b]Enter[/b], bil, smellur  spila því
[b]h[/b]    ábending: gildi sérfræðingsins á hverju leyfðu spili (slagir í gjöfinni)
[b]s[/b]    hefja leikinn (gestgjafi borðs)
[b]?[/b]    þessi hjálp          [b]q[/b]  hætta (leikurinn er vistaður)

Upplýstu spilin eru þau sem þú mátt spila; hafnað spil segir hvers vegna.
Ekkert tromp: hæsta spilið í litnum sem spilað var út fær slaginn
og stig (R8). Fáirðu slag með laufi í ferðu í lás 🔒 í einn slag
fyrir hvert lauf og missir spil af handahófi (R9, R10). Sá vinnur
sem fyrstur er einn efstur við markið (R15). Reglur: docs/rules.md.

Enter eða Escape til að loka.""",
        "level.random": "handahóf",
        "level.easy": "auðvelt",
        "level.normal": "venjulegt",
        "level.expert": "sérfræðingur",
        "title.local": "Lockup · mótherjar: {level}",
        "title.game": "Lockup á {host}",
        "title.room": "Lockup · borð {room}",
        "title.watch": "Lockup · horft á {room}",
        "say.over": "{name} vinnur leikinn (R15). q til að hætta.",
        "say.deal": "Gjöf {n}: {name} gefur (R3).",
        "say.deal.you": "Gjöf {n}: þú gefur (R3).",
        "say.discard": "{name} missir spil í lásinn: {card} (R10).",
        "say.play": "Þú spilar: {card}.",
        "say.hintNotNow": "Ábending fæst þegar þú átt leik.",
        "say.thinking": "Sérfræðingurinn hugsar…",
        "say.connecting": "Tengist {base}…",
        "say.connectedAgain": "Tengt aftur.",
        "say.badFrame": "Skilaboð sem forritið skilur ekki: {error}",
        "say.connectionLost": "Sambandið rofnaði ({error}); reyni aftur…",
        "say.notConnected": "Ekki tengt.",
        "say.watching": "Þú horfir á borðið.",
        "say.seated": "Við borðið sem {name}.",
        "say.seated.you": "Þú ert við borðið.",
        "say.trick": "{name} fær slaginn.",
        "say.trick.you": "Þú færð slaginn.",
        "say.trickLock_one": "{name} fær slaginn og fer í lás í {n} slag (R9).",
        "say.trickLock_other": "{name} fær slaginn og fer í lás í {n} slagi (R9).",
        "say.trickLock.you_one": "Þú færð slaginn og ferð í lás í {n} slag (R9).",
        "say.trickLock.you_other": "Þú færð slaginn og ferð í lás í {n} slagi (R9).",
        "say.takeover": "{name}: tölva spilar í sætinu.",
        "say.takeover.you": "Tölva spilar fyrir þig.",
        "say.back": "{name} hefur snúið aftur.",
        "say.seatN": "sæti {n}",
        "say.waitHost_one": "{n} spilari er við borðið. Ýttu á s til að byrja (tölvur í "
        "lausum sætum).",
        "say.waitHost_other": "{n} spilarar eru við borðið. Ýttu á s til að byrja (tölvur í "
        "lausum sætum).",
        "say.waitGuest_one": "{n} spilari er við borðið. Beðið eftir að gestgjafinn byrji…",
        "say.waitGuest_other": "{n} spilarar eru við borðið. Beðið eftir að gestgjafinn byrji…",
        "cli.resuming": "Held áfram með ókláraða leikinn sem er vistaður í {path} "
        "(lockup play --new byrjar nýjan).",
        "cli.kept": "Skráin {wanted} er látin óbreytt: þessi leikur er vistaður í {path}.",
        "cli.saved": "vistað í {path} (lockup play --resume {path})",
        "cli.askName": "Nafnið þitt við borðið: ",
        "title.quick": "Lockup · spilað við fólk á {host}",
        "quick.asking": "Leitað að borði með fólki á {base}…",
        "quick.wait_one": "Við borðið: {names}. Tölvur taka auðu sætin eftir {n} s (q til "
        "að fara).",
        "quick.wait_other": "Við borðið: {names}. Tölvur taka auðu sætin eftir {n} s (q til "
        "að fara).",
        "quick.waitOne_one": "Við borðið: {names}. Tölva tekur auða sætið eftir {n} s (q til "
        "að fara).",
        "quick.waitOne_other": "Við borðið: {names}. Tölva tekur auða sætið eftir {n} s (q "
        "til að fara).",
        "quick.starting": "Við borðið: {names}. Leikurinn hefst…",
        "quick.full": "Allir eru komnir: leikurinn hefst.",
        "title.rated": " · til stiga",
        "status.clock_one": " · {n} s",
        "status.clock_other": " · {n} s",
        "say.outOfTime": "{name}: tíminn rann út og tölva spilaði {card}.",
        "say.outOfTime.you": "Tíminn þinn rann út og tölva spilaði {card} fyrir þig.",
        "abandon.timeouts": "{name}: tíminn rann of oft út; tölva spilar sætið til leiksloka.",
        "abandon.timeouts.you": "Tíminn þinn rann of oft út: tölva spilar í sætinu þínu til "
        "leiksloka.",
        "abandon.gone": "{name}: of lengi í burtu; tölva spilar sætið til leiksloka.",
        "abandon.gone.you": "Þú varst of lengi í burtu: tölva spilar í sætinu þínu til leiksloka.",
        "abandon.left": "{name}: fór frá leiknum; tölva spilar sætið til leiksloka.",
        "abandon.left.you": "Þú hættir í leiknum: tölva spilar í sætinu þínu til leiksloka.",
        "abandon.other": "{name}: tölva spilar sætið til leiksloka.",
        "abandon.other.you": "Tölva spilar í sætinu þínu til leiksloka.",
        "abandon.last": " Í leik til stiga lendir þú þá í neðsta sæti.",
        "rating.change": "Einkunnin þín: {before} → {after} ({change}).",
        "rating.guest": "Gestir spila ekki til stiga: `lockup login` til að fá einkunn.",
        "rating.unchanged": "Þessi leikur breytti ekki einkunninni þinni.",
        "rating.later": "Einkunnarbreytingin er ekki komin enn: hún birtist á síðunni /history "
        "á þjóninum.",
        "say.signedOut": "Innskráningunni á {base} er lokið: þú spilar sem gestur (lockup "
        "login skráir þig inn aftur).",
        "say.noConfig": "Leikmaðurinn þinn er ekki geymdur til næsta skiptis ({problem}).",
        "login.name": "Nafn: ",
        "login.password": "Lykilorð: ",
        "login.done": "Skráð inn á {base} sem {name}.",
        "login.bad": "rangt nafn eða lykilorð",
        "login.wait_one": "of margar tilraunir: reyndu aftur eftir {n} s",
        "login.wait_other": "of margar tilraunir: reyndu aftur eftir {n} s",
        "login.waitLater": "of margar tilraunir: reyndu aftur síðar",
        "login.noAccounts": "{base} hefur enga aðganga (lockup serve án þeirra?)",
        "login.needName": "nafn vantar (--name NAFN)",
        "login.needPassword": "lykilorð vantar",
        "login.notKept": "innskráð, en ekki tókst að geyma innskráninguna ({problem})",
        "logout.done": "Skráð út af {base}.",
        "logout.notIn": "Ekki innskráð á {base}.",
        "logout.unreachable": "Skráð út hér; ekki náðist í {base} ({error}).",
    },
}

_lang = "en"


def default_language(environ: Mapping[str, str] | None = None) -> str:
    """The language the environment asks for (``LC_ALL``, then ``LC_MESSAGES``, then
    ``LANG``: ``fr_FR.UTF-8`` is French, ``is_IS.UTF-8`` Icelandic), else English."""
    env = os.environ if environ is None else environ
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var, "")
        if value:
            code = value.split(".")[0].split("_")[0].split("-")[0].lower()
            return code if code in LANGS else "en"
    return "en"


def set_language(lang: str) -> None:
    """Speak ``lang`` from now on (one of :data:`LANGS`; ValueError otherwise)."""
    global _lang
    if lang not in LANGS:
        raise ValueError(f"language must be one of {', '.join(LANGS)}, not {lang!r}")
    _lang = lang


def language() -> str:
    """The language the terminal speaks."""
    return _lang


class _Formatter(string.Formatter):
    """Fills ``{name:says wins}``, ``{name:poss}``, ``{name:obj}`` and ``{name:is}``."""

    def format_field(self, value: Any, format_spec: str) -> str:
        if format_spec.startswith("says "):
            return says(str(value), format_spec[5:])
        if format_spec == "poss":
            return possessive(str(value))
        if format_spec == "obj":
            return objective(str(value))
        if format_spec == "is":
            return verb(str(value), "is")
        return str(super().format_field(value, format_spec))


_FORMAT: Final = _Formatter()


def _has(texts: Mapping[str, str], key: str) -> bool:
    """Whether ``texts`` word ``key``, as a sentence or as a count's forms."""
    return key in texts or f"{key}_other" in texts


def tr(key: str, **params: Any) -> str:
    """The sentence ``key`` in the current language (English if it lacks one), filled.

    A sentence with a count takes the form of ``n``'s plural category, with ``n`` as the
    language writes it; a sentence whose ``name`` is the person, its ``.you`` form where
    the language has one."""
    texts = _TEXTS[_lang] if _has(_TEXTS[_lang], key) else _TEXTS["en"]
    name = params.get("name")
    if isinstance(name, str) and is_person(name) and _has(texts, f"{key}.you"):
        key = f"{key}.you"
    text = texts.get(key)
    if text is None:  # a count's forms
        n = params["n"]
        text = texts.get(f"{key}_{plural(n)}", texts[f"{key}_other"])
        params = {**params, "n": integer(n)}
    return _FORMAT.format(text, **params) if params else text


def counted(lang: str = "en") -> list[str]:
    """The sentences of ``lang`` with a count (``n``), each worded per plural category
    (and the person's own forms of them, ``say.trickLock.you_one``, with them)."""
    stems = {k.rsplit("_", 1)[0] for k in _TEXTS[lang] if k.endswith("_other")}
    return sorted({stem.removesuffix(".you") for stem in stems})


@cache
def _locale(lang: str) -> Locale:
    return Locale.parse(lang)


def plural_categories(lang: str | None = None) -> list[str]:
    """The plural categories of ``lang`` (the current language), ``"other"`` last: English
    and Icelandic ``one``, ``other``; French ``one``, ``many``, ``other``."""
    tags = _locale(lang or _lang).plural_form.tags
    return [*sorted(tags - {"other"}), "other"]


def plural(n: float) -> str:
    """The plural category of a count ``n`` in the current language, by Babel's plural
    rules (CLDR): ``"one"`` for English 1, French 0 and 1, Icelandic 1, 21, 31, … (not
    11); ``"many"`` for the French millions; else ``"other"``."""
    return str(_locale(_lang).plural_form(n))


def integer(n: int) -> str:
    """A count as the language writes it: ``1,000`` in English, ``1 000`` in French,
    ``1.000`` in Icelandic."""
    return str(format_decimal(n, "#,##0", locale=_locale(_lang)))


def number(x: float, *, sign: bool = False) -> str:
    """``x`` to one decimal as the language writes it (French and Icelandic: a decimal
    comma), with its sign when ``sign`` ("+1.8", "-0,4")."""
    x = round(x, 1) + 0.0  # no "-0.0"
    pattern = "+#,##0.0;-#,##0.0" if sign else "#,##0.0"
    return str(format_decimal(x, pattern, locale=_locale(_lang)))


def card(code: str) -> str:
    """A card (record notation, ``QD``) as the table writes it, with the letters of the
    language: ``Q♦``, ``D♦`` in French, ``D♦`` in Icelandic; ``10♦``."""
    return short_card(code, _lang)


def keys(lang: str) -> set[str]:
    """The sentences ``lang`` words, a count's forms and the person's forms each a key."""
    return set(_TEXTS[lang])


def sentences(lang: str) -> set[str]:
    """The sentences ``lang`` has, without their count's forms or the person's forms (the
    tests check every language has English's)."""
    found = set()
    for key in _TEXTS[lang]:
        base = key.rsplit("_", 1)[0] if key.endswith(_COUNT_ENDS) else key
        found.add(base.removesuffix(".you"))
    return found


def shown(name: str) -> str:
    """A player's name as the table shows it: the person's default "You" in the language."""
    return tr("you") if name == YOU else name


def is_person(name: str) -> bool:
    """Whether ``name`` is the person's default name ("You", or the language's)."""
    return name == YOU or name == _TEXTS[_lang]["you"]


def verb(name: str, third: str) -> str:
    """The verb ``third`` (third person singular: "wins", "is") as ``name`` takes it:
    itself, or its plain form for "You" ("win", "are")."""
    if name != YOU:
        return third
    plain = _PLAIN.get(third)
    if plain is not None:
        return plain
    if third.endswith(("sses", "shes", "ches", "xes")):
        return third[:-2]
    return third[:-1] if third.endswith("s") else third


def says(name: str, third: str) -> str:
    """``name`` and the verb agreeing: "Þóra wins", "You win", "Leifur is", "You are"."""
    return f"{name} {verb(name, third)}"


def possessive(name: str) -> str:
    """ "Leifur's", or "your" for the person."""
    return "your" if name == YOU else f"{name}'s"


def objective(name: str) -> str:
    """The name after a verb or a preposition: "for Leifur", "for you"."""
    return "you" if name == YOU else name


def localize_bindings(node: Any) -> None:
    """Give a Textual node's key bindings their descriptions in the current language
    (the footer shows them). The node gets lists of its own: Textual shares its class's
    lists between instances, which keep the English descriptions."""
    if _lang == "en":
        return
    table = node._bindings.key_to_bindings
    for key, bindings in table.items():
        table[key] = [
            replace(b, description=tr(f"key.{b.description}"))
            if b.description and f"key.{b.description}" in _TEXTS[_lang]
            else b
            for b in bindings
        ]
