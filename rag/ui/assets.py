"""The chat UI's look and page script: CSS and JS constants passed to `launch()`."""

from __future__ import annotations

CSS = """
#intro h2 { margin-bottom: 0.2rem; }
#intro p { color: var(--body-text-color-subdued); margin-top: 0; }
#chat a.cite {
  color: var(--color-accent); font-weight: 600; text-decoration: none; padding: 0 1px;
}
#chat button.example {
  border: 1px solid var(--border-color-primary); border-radius: 10px;
  background: var(--background-fill-secondary);
}
#chat button.example:hover { border-color: var(--color-accent); }
/* The empty chat's invitation: inset like the answers, not against the chat's border */
#chat .placeholder { padding: 0 var(--spacing-xl); }
#chat a.cite:hover { text-decoration: underline; }
/* The entries in an answer (BibTeX, RIS, CSL-JSON): kept as typed, wrapped so no line widens
   the page at 390 px */
#chat pre.entry, #chat pre.entry code {
  white-space: pre-wrap !important;
  overflow-wrap: anywhere !important;
}
/* once, on the block: set on both, the code's size was 0.8 of 0.8 (10 px) */
#chat pre.entry { font-size: 0.85rem; }
#chat pre.entry code { font-size: inherit; }
#chat pre.entry { max-height: 16em; overflow-y: auto; }
.hint p { font-size: 0.85rem; color: var(--body-text-color-subdued); }
.sources h3 { font-size: 1rem; margin: 0.5rem 0 0; }
.sources-for { color: var(--body-text-color-subdued); font-size: 0.85rem; margin: 0 0 0.75rem; }
.sources-empty { color: var(--body-text-color-subdued); font-size: 0.9rem; padding: 0.5rem 0; }
/* The place of the cards of an answer being made: once they follow it, they show instead. */
.sources-waiting:not(:last-child) { display: none; }
.source-card {
  border: 1px solid var(--border-color-primary); border-radius: 10px;
  background: var(--block-background-fill); padding: 0.9rem 1.1rem; margin-bottom: 0.75rem;
  scroll-margin-top: 1rem; transition: box-shadow 0.3s;
  overflow-wrap: anywhere;  /* a URL in an abstract was clipped at the card's edge at 390 px */
}
.source-card.flash { box-shadow: 0 0 0 3px var(--color-accent-soft, #c7d2fe); }
.card-head { font-weight: 600; font-size: 1rem; margin-bottom: 0.25rem; }
.card-head .badge { color: var(--color-accent); margin-right: 0.25rem; }
.card-head .derived {
  font-weight: 400; font-size: 0.75rem; color: var(--body-text-color-subdued);
  border: 1px solid var(--border-color-primary); border-radius: 4px; padding: 0 4px;
  margin-left: 0.4rem; vertical-align: middle; white-space: nowrap;
}
.card-authors { font-size: 0.9rem; margin-bottom: 0.25rem; }
.card-meta {
  display: flex; flex-wrap: wrap; gap: 0.35rem 1rem; font-size: 0.8rem;
  color: var(--body-text-color-subdued); margin-bottom: 0.5rem;
}
.card-meta .unknown { font-style: italic; }
.source-card summary { cursor: pointer; font-size: 0.85rem; color: var(--color-accent); }
.source-card details[open] summary { margin-bottom: 0.4rem; }
.card-abstract { font-size: 0.9rem; line-height: 1.55; margin: 0; }
.card-bib { margin-top: 0.5rem; }
.card-bib pre {
  font-size: 0.75rem; white-space: pre-wrap; background: var(--background-fill-secondary);
  padding: 0.5rem; border-radius: 6px; margin: 0.3rem 0;
}
.copy-bib {
  font-size: 0.75rem; border: 1px solid var(--border-color-primary); border-radius: 6px;
  padding: 1px 8px; background: var(--background-fill-primary); cursor: pointer;
}
.draft-sentence {
  border-left: 3px solid var(--color-accent); padding: 0.2rem 0.8rem; margin: 0.6rem 0;
}
.draft-sentence.unsupported { border-left-color: var(--border-color-primary); }
.draft-sentence .why { color: var(--body-text-color-subdued); font-size: 0.85rem; }
.draft-sentence ul { margin: 0.2rem 0 0 1rem; font-size: 0.9rem; }
/* The Library table: Gradio caps a column at the table's whole width, so one long area
   ("Social Aspects · Accountability, ...") pushed the Area column off a desktop screen. Title,
   Authors and Area share what Key and Year leave of the table's width (cqw), and wrap; a
   phone scrolls sideways as before. !important: Gradio sets the cap inline on the table. */
#papers { container-type: inline-size; }
#papers .table-wrap {
  --df-max-col-width: max(14rem, calc((100cqw - 300px) / 3)) !important;
}
.ingest-result .bad, .ingest-result .bad li { color: #b91c1c; }
p.bad { color: #b91c1c; }  /* a tab's error line (Remove, Cite my draft) */
.ingest-result .added { color: var(--body-text-color); }
.ingest-result .skipped, .ingest-result .skipped li { color: #b45309; }
.draft-sentence .below-bar, .near-miss .below-bar {
  font-size: 0.75rem; color: #92400e; background: #fef3c7; border: 1px solid #f59e0b;
  border-radius: 4px; padding: 0 4px; margin-right: 0.3rem;
}
.accept-near {
  font-size: 0.8rem; border: 1px solid var(--color-accent); color: var(--color-accent);
  border-radius: 6px; padding: 1px 8px; margin-right: 0.3rem; cursor: pointer;
  background: var(--background-fill-primary);
}
/* The kind of a chat turn: an abstention, a fallback, a note or an error never looks like a
   plain answer (the label, and the whole message's edge and background). */
.turn-label {
  display: inline-block; font-size: 0.75rem; font-weight: 600; border-radius: 4px;
  padding: 0 6px; margin-right: 0.3rem; border: 1px solid currentColor;
}
.turn-abstained { color: #475569; }
.turn-fallback, .turn-note { color: #92400e; }
.turn-error { color: #b91c1c; }
/* On the bubble only: Gradio nests a second ".message" inside it, which would draw a second
   edge and indent the text again. */
#chat .message.bot:has(.turn-abstained) {
  border-left: 4px solid #94a3b8 !important; background: #f1f5f9 !important;
}
#chat .message.bot:has(.turn-fallback), #chat .message.bot:has(.turn-note) {
  border-left: 4px solid #f59e0b !important;
}
#chat .message.bot:has(.turn-error) {
  border-left: 4px solid #dc2626 !important; background: #fef2f2 !important;
}
/* Dark mode (Gradio follows the system's setting): the light backgrounds above left the
   theme's light text on them, an abstention white on near-white. One selector a rule: Gradio
   rewrites only the first ".dark" of a rule. */
.dark #chat .message.bot:has(.turn-abstained) {
  border-left-color: #64748b !important; background: #1e293b !important;
}
.dark #chat .message.bot:has(.turn-error) { background: #450a0a !important; }
.dark .turn-abstained { color: #cbd5e1; }
.dark .turn-fallback { color: #fbbf24; }
.dark .turn-note { color: #fbbf24; }
.dark .turn-error { color: #fca5a5; }
.dark .card-abstract .role-tag { color: #fbbf24; border-color: #b45309; }
.dark .ingest-result .bad { color: #fca5a5; }
.dark p.bad { color: #fca5a5; }
.dark .ingest-result .bad li { color: #fca5a5; }
.dark .ingest-result .skipped { color: #fbbf24; }
.dark .ingest-result .skipped li { color: #fbbf24; }
/* Gradio draws the chat's "↓" button on its top layer (z-index 2147480000), above the open
   sidebar (1001) that covers the page below 768 px; above the chat's own layers is enough. */
#chat .scroll-down-button-container { z-index: var(--layer-5); }
/* Its white circle had a clear edge: on a white answer it was not seen, and the bare "↓" read
   as part of the text under it ("g↓eral"). */
#chat .scroll-down-button-container button {
  border: 1px solid var(--border-color-primary); box-shadow: 0 1px 4px rgba(0, 0, 0, 0.25);
}
#chat .searched { font-size: 0.85rem; color: var(--body-text-color-subdued); font-style: italic; }
#chat .turn-pending { color: var(--body-text-color-subdued); font-style: italic; }
#chat .turn-pending::after {
  content: ""; display: inline-block; width: 0.6em; height: 0.6em; margin-left: 0.4em;
  border: 2px solid currentColor; border-right-color: transparent; border-radius: 50%;
  animation: rag-spin 0.8s linear infinite; vertical-align: middle;
}
@keyframes rag-spin { to { transform: rotate(360deg); } }
/* Gradio hides the footer's "Use via API" up to 640 px but not the "·" after it, which was
   left alone before "Settings": the dot is drawn by the link, and goes with it. (Not a media
   rule: Gradio scopes those to the page's content, which the footer is not part of.) */
footer .show-api ~ .divider { display: none; }
footer .show-api::after { content: "·"; margin: 0 var(--size-2) 0 var(--size-1); }
/* A finger needs 44 px: the footer's "Settings" (21 px high) gets an invisible 48 px high
   area around it, so the footer looks as before (at any width: see the rule above). */
footer button.settings { position: relative; }
footer button.settings::after {
  content: ""; position: absolute; left: 0; right: 0; top: 50%; height: 48px;
  transform: translateY(-50%);
}
/* The question's bubble ends clear of the Clear button's 23 px column, which floats over the
   chat's top-right corner: at 1280 px it covered the bubble's right edge (a new user, stop 66). */
#chat .user-row { margin-right: 24px !important; }
/* The chat's "↓" sat over the answer's text mid-width (on a phone, stop 60; at 1280 px, a new
   user, stop 67): it goes to the column on the right that the answers leave free (the Clear
   button's), made to fit it, at every width. */
#chat .bot-row { margin-right: 24px !important; }
#chat .scroll-down-button-container {
  left: auto !important; right: 1px !important; bottom: 8px !important;
  transform: none !important;
}
#chat .scroll-down-button-container button > div { width: 18px; height: 18px; }
/* Phones: the sidebar overlays the whole page, so the page script closes it at first and
   when the window narrows; its toggle stays inside the screen when it is open. */
@media (max-width: 768px) {
  /* Open, its toggle sits 8 px from the screen's edge, where Gradio's tab shape (one side
     square and unbordered, made to join the sidebar's edge) read as a shape cut off. */
  .sidebar.open .toggle-button {
    right: 8px !important; border-radius: var(--size-8) !important;
    border-left: 1px solid var(--border-color-primary) !important;
  }
  /* Closed, Gradio draws it as a tab stuck to the screen's edge, which on a phone read as a
     half circle cut off: a whole outlined pill in the 48 px left of the tabs. */
  #settings:not(.open) .toggle-button {
    left: calc(100% + 2px) !important; border-radius: var(--size-8) !important;
    border-left: 1px solid var(--border-color-primary) !important;
  }
  #settings:not(.open) .toggle-button .chevron { padding-right: 4px; }
  /* No slide while the page script closes it on load: it would flash across the screen. */
  /* (Gradio prefixes every rule with its container, so the mark sits on the sidebar.) */
  #settings.sidebar:not([data-settled]), #settings:not([data-settled]) .toggle-button,
  .sidebar-parent:has(#settings:not([data-settled])) { transition: none !important; }
  /* The chat fills the screen below the title, the question box just under the fold, and an
     answer takes nearly the chat's whole width (Gradio keeps 60 px beside a bubble): 8 px
     from its border, and on the right clear of the Clear button's 23 px column, which floats
     over the chat's top-right corner as the answers scroll under it; the question's bubble
     keeps clear of it at every width (the rule above). */
  #chat { height: max(360px, calc(100dvh - 300px)) !important; }
  #chat .bot-row { max-width: calc(100% - 32px) !important; margin-left: 8px !important; }
  /* A finger needs about 44 px: the exports (26 px high), the question's Ask (30), the tabs
     (32), a card's BibTeX toggle (19) and its Copy (21) were hard to hit on a phone; so were
     the draft tab's Download .bib (26) and Suggest citations (40). */
  #export-md, #export-bib, #question .submit-button, [role="tablist"] > button[role="tab"],
  .source-card summary, .source-card .copy-bib, #cite-btn, #draft-bib,
  #remove-btn { min-height: 44px !important; }
  #question .submit-button { min-width: 44px !important; }
  .source-card summary { padding-block: 12px; }  /* centred, its disclosure triangle kept */
  /* What must keep its size gets an invisible 48 px square instead (44 with room to spare):
     an answer's [n] (28 x 19 px; a taller one would spread the lines), the chat's Clear
     (18 px) and the sidebar's toggle (28 x 32).
     Clear's area, and the scroll button's below, reach past the chat's right edge into the
     page's margin rather than over the answers: the chat no longer clips what passes its
     edge (nothing else does). */
  #chat { overflow: visible !important; }
  #chat a.cite { position: relative; white-space: nowrap; }
  #chat a.cite::after, #settings .toggle-button::after,
  #chat button[aria-label="Clear"]::after, #chat .scroll-down-button-container button::after {
    content: ""; position: absolute; width: 48px; height: 48px;
    left: 50%; top: 50%; transform: translate(-50%, -50%);
  }
  #chat button[aria-label="Clear"]::after,
  #chat .scroll-down-button-container button::after { left: -2px; transform: translateY(-50%); }
  #chat .scroll-down-button-container button { position: relative; }
  /* Closed, the toggle sits 2 px from the screen's edge: its area starts at the edge, and the
     tabs leave it the first 48 px. */
  #settings:not(.open) .toggle-button::after { left: -2px; transform: translateY(-50%); }
  [role="tablist"] { margin-left: 16px; }
  /* A whole abstract made each card taller than the screen (four cards: 6,000 px), and a tap
     on [n] landed mid-card: the abstract scrolls inside its card, opened at the quoted
     sentence by the page script. */
  .source-card .card-abstract {
    max-height: 12.5em; overflow-y: auto; overscroll-behavior: contain; position: relative;
    border-bottom: 1px solid var(--border-color-primary); padding-bottom: 0.3rem;
  }
}
.draft-sentence .contradicts .badge { background: #b42318; color: #fff; border-radius: 4px;
  padding: 0 0.35rem; font-size: 0.8rem; }
.card-abstract mark { background: #fde68a; color: #1f2937; padding: 0 2px; border-radius: 3px; }
.card-abstract .role-tag { font-size: 0.75em; text-transform: uppercase; letter-spacing: 0.03em;
  color: #92400e; border: 1px solid #f59e0b; border-radius: 3px; padding: 0 3px;
  margin-right: 3px; }
"""

# A click on a card's Copy button puts its BibTeX on the clipboard (loopback is a secure
# context). A click on an answer's [n] shows that answer's cards (an earlier answer's are
# hidden in the panel) and scrolls its card into view (and briefly outlines it) instead of
# letting the chat's link handling open the fragment in a new tab.
PHONE_MAX_PX = 768  # Gradio's own breakpoint for the sidebar (it turns full-width below it)
JS = """
() => {
  // Under the phone breakpoint the sidebar would cover the page: closed once it is drawn, and
  // again whenever the window narrows past the breakpoint (it stayed open over the chat).
  // Widened again, it reopens as a desktop page starts, unless the reader toggled it since.
  const narrow = window.matchMedia(`(max-width: ${PHONE_MAX_PX}px)`);
  let closedByUs = false;
  const close = () => {
    const toggle = document.querySelector("#settings.open .toggle-button");
    if (!toggle) return false;
    toggle.click();
    closedByUs = true;
    // Slide again from the next taps on, once the closed position is drawn.
    requestAnimationFrame(() => requestAnimationFrame(
      () => { document.querySelector("#settings").dataset.settled = "1"; }));
    return true;
  };
  if (narrow.matches && !close()) {
    const watch = new MutationObserver(() => { if (close()) watch.disconnect(); });
    watch.observe(document.body, { childList: true, subtree: true });
    setTimeout(() => watch.disconnect(), 10000);
  }
  narrow.addEventListener("change", (event) => {
    if (event.matches) {
      close();
    } else if (closedByUs) {
      closedByUs = false;
      const toggle = document.querySelector("#settings:not(.open) .toggle-button");
      if (toggle) toggle.click();
    }
  });
  document.addEventListener("click", (event) => {
    // The reader's own tap (ours are untrusted clicks) decides from then on.
    const tapped = event.target.closest ? event.target.closest("#settings .toggle-button") : null;
    if (tapped && event.isTrusted) closedByUs = false;
  }, true);
  // An abstract that scrolls inside its card (phones) opens at its quoted sentence, the whole
  // of it when it fits (a quarter of the box above it cut a long finding off mid-way), on a
  // whole line: scrolled by part of one, its top line showed the lower half of its letters.
  const toMark = (box) => {
    const mark = box.querySelector("mark.first") || box.querySelector("mark");
    if (mark && box.scrollHeight > box.clientHeight) {
      const height = mark.getBoundingClientRect().height;
      const room = box.clientHeight - height;
      const above = Math.max(0, Math.min(box.clientHeight / 4, room / 2));
      let top = Math.max(0, mark.offsetTop - above);
      const style = getComputedStyle(box);
      const line = parseFloat(style.lineHeight), pad = parseFloat(style.paddingTop) || 0;
      if (line > 0 && top > pad) {
        const lines = (top - pad) / line;
        const down = pad + Math.floor(lines) * line;  // a line more above the sentence
        const up = pad + Math.ceil(lines) * line;  // a line less, if the sentence starts below
        const fits = mark.offsetTop + height <= down + box.clientHeight;
        top = fits || up > mark.offsetTop ? down : up;
      }
      box.scrollTop = top;
    }
  };
  // The panel holds each answer's cards in a section of its own, the latest's shown: a click
  // on an earlier answer's [n] shows that answer's section instead, until the next answer.
  const showSources = (section) => {
    if (!section || !section.hidden) return;
    section.parentElement.querySelectorAll(":scope > section.sources").forEach((other) => {
      other.hidden = other !== section;
    });
    section.querySelectorAll(".card-abstract").forEach(toMark);  // hidden, they had no height
  };
  // The chat follows new answers only while it is near its end (Gradio: within 100 px). A
  // resize reflows every answer, and the browser's scroll anchoring then left the chat above
  // its end, so later answers arrived below the fold. A chat at its end stays there through a
  // resize; scrolls while its size changes are the reflow's, not the reader's.
  const NEAR_END_PX = 100;
  const followEnd = (log) => {
    let size = `${log.clientWidth}x${log.clientHeight}`;
    let atEnd = true;
    log.addEventListener("scroll", () => {
      if (`${log.clientWidth}x${log.clientHeight}` !== size) return;
      atEnd = log.scrollHeight - log.clientHeight - log.scrollTop < NEAR_END_PX;
    });
    new ResizeObserver(() => {
      size = `${log.clientWidth}x${log.clientHeight}`;
      if (atEnd) log.scrollTop = log.scrollHeight;
    }).observe(log);
  };
  new MutationObserver(() => {
    document.querySelectorAll(".card-abstract:not([data-opened])").forEach((box) => {
      box.dataset.opened = "1";
      toMark(box);
    });
    document.querySelectorAll("#chat .bubble-wrap:not([data-follows])").forEach((log) => {
      log.dataset.follows = "1";
      followEnd(log);
    });
  }).observe(document.body, { childList: true, subtree: true });
  // The question box is disabled while an answer is made, which drops its focus: once it takes
  // input again it gets it back, so a follow-up is typed at once. Not on touch screens, where
  // focus raises the keyboard over the new answer, nor when the reader focused something else.
  const touch = window.matchMedia("(pointer: coarse)");
  new MutationObserver((records) => {
    const box = records.map((r) => r.target).find((t) => t.matches("#question textarea"));
    const away = !document.activeElement || document.activeElement === document.body;
    if (box && !box.disabled && away && !touch.matches) box.focus();
  }).observe(document.body, { attributes: true, attributeFilter: ["disabled"], subtree: true });
  // An answer taller than the chat left the reader at its last paper's line, the finding that
  // opens it scrolled out of view (a phone showed the sixth paper alone): once it is complete
  // and Gradio's last scroll to the end is done (the chat quiet for QUIET_MS), the chat shows
  // it from its question down, unless question and answer fit at its end. (Gradio scrolls to
  // the end 300 ms after the chat's last change: QUIET_MS waits that out.)
  const QUIET_MS = 450;
  const fromQuestion = () => {
    const log = document.querySelector("#chat .bubble-wrap");
    const question = [...document.querySelectorAll("#chat [data-testid='user']")].pop();
    if (!log || !question) return;
    const view = log.getBoundingClientRect();
    const row = question.closest(".message-row") || question;
    const above = row.getBoundingClientRect().top - view.top;  // the question below the view top
    if (log.scrollHeight - log.scrollTop - above > log.clientHeight) log.scrollTop += above - 8;
  };
  // Shown from its question down, that answer leaves the chat off its end, and Gradio follows
  // only a chat at its end: a new question takes it back there, so its answer is followed.
  const toEnd = (chat) => {
    const log = chat.querySelector(".bubble-wrap");
    if (log) log.scrollTop = log.scrollHeight;
  };
  new MutationObserver((records) => {
    const box = records.map((r) => r.target).find((t) => t.matches("#question textarea"));
    const chat = document.querySelector("#chat");
    if (!box || !chat) return;
    if (box.disabled) {
      const asked = new MutationObserver(() => { asked.disconnect(); toEnd(chat); });
      asked.observe(chat, { childList: true, subtree: true });
      toEnd(chat);
      return;
    }
    let timer = setTimeout(() => { quiet.disconnect(); fromQuestion(); }, QUIET_MS);
    const quiet = new MutationObserver(() => {
      clearTimeout(timer);
      timer = setTimeout(() => { quiet.disconnect(); fromQuestion(); }, QUIET_MS);
    });
    quiet.observe(chat, { childList: true, subtree: true, characterData: true });
  }).observe(document.body, { attributes: true, attributeFilter: ["disabled"], subtree: true });
  // Gradio names each chat message (aria-label) by its raw content, so a screen reader read
  // out our HTML and Markdown escapes ("<a class=...", "\\[1\\]", "&amp;"): the name is the
  // text the page shows. Gradio sets it again only when the message changes.
  const MESSAGES = "#chat [data-testid='bot'], #chat [data-testid='user']";
  const inChat = (record) => {
    const node = record.target.nodeType === Node.ELEMENT_NODE
      ? record.target : record.target.parentElement;
    return !!node && !!node.closest("#chat");
  };
  new MutationObserver((records) => {
    if (!records.some(inChat)) return;  // innerText lays the page out: only for the chat
    document.querySelectorAll(MESSAGES).forEach((message) => {
      const text = message.innerText.replace(/\\s+/g, " ").trim();  // breaks between blocks
      const label = `${message.dataset.testid}'s message: ${text}`;
      if (message.getAttribute("aria-label") !== label) message.setAttribute("aria-label", label);
    });
  }).observe(document.body, {
    childList: true, subtree: true, characterData: true, attributeFilter: ["aria-label"],
  });
  document.addEventListener("click", (event) => {
    // "Cite it anyway" on a near miss: hand its sentence number to the hidden trigger.
    const accept = event.target.closest ? event.target.closest("button.accept-near") : null;
    if (accept) {
      const box = document.querySelector("#accept-sentence textarea, #accept-sentence input");
      if (!box) return;
      box.value = accept.dataset.sentence;
      box.dispatchEvent(new Event("input", { bubbles: true }));
      accept.disabled = true;
      setTimeout(() => document.querySelector("#accept-near").click(), 50);
      return;
    }
    const copy = event.target.closest ? event.target.closest("button.copy-bib") : null;
    if (copy) {
      const text = copy.closest("details").querySelector("pre").textContent;
      event.preventDefault();
      const done = () => {
        copy.textContent = "Copied";
        setTimeout(() => { copy.textContent = "Copy"; }, 1500);
      };
      if (navigator.clipboard) navigator.clipboard.writeText(text).then(done, () => {});
      return;
    }
    const link = event.target.closest ? event.target.closest("#chat a.cite") : null;
    if (!link) return;
    // Never the chat's own link handling (a new tab), also before the answer's cards arrive.
    event.preventDefault();
    event.stopPropagation();
    const id = decodeURIComponent(new URL(link.href, location.href).hash.slice(1));
    const card = document.getElementById(id);
    if (!card) return;
    showSources(card.closest("section.sources"));
    // A card taller than the screen shows its head first, not its middle.
    const tall = card.getBoundingClientRect().height > window.innerHeight;
    card.scrollIntoView({ behavior: "smooth", block: tall ? "start" : "center" });
    card.querySelectorAll(".card-abstract").forEach(toMark);
    card.classList.remove("flash");
    void card.offsetWidth;
    card.classList.add("flash");
    setTimeout(() => card.classList.remove("flash"), 1500);
  }, true);
}
""".replace("${PHONE_MAX_PX}", str(PHONE_MAX_PX))
