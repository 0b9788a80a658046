// Code in a table wraps at its spaces only. Material lets inline code break anywhere, which split
// `HumanoidWBC-v0` over two lines in the index's narrow first column, and a browser also breaks a
// word after a hyphen or a slash: each run of code between spaces is kept on one line here (with
// the CSS in stylesheets/extra.css). tests/test_docs_browser.py checks that no such run is split
// and that every table fits the text column.
for (const code of document.querySelectorAll(".md-typeset table code")) {
  const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
  const texts = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) texts.push(node);
  for (const text of texts) {
    if (!/[^\s\w.]/.test(text.textContent)) continue; // letters, digits, _ and . never break
    const parts = document.createDocumentFragment();
    for (const part of text.textContent.split(/(\s+)/)) {
      if (!part) continue;
      if (/^\s+$/.test(part)) {
        parts.append(part);
      } else {
        const word = document.createElement("span");
        word.className = "table-code-word";
        word.textContent = part;
        parts.append(word);
      }
    }
    text.replaceWith(parts);
  }
}
