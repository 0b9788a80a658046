// MathJax 3 settings for pymdownx.arithmatex (generic mode): it wraps each formula in an element of
// class "arithmatex" holding \( ... \) or \[ ... \]; MathJax typesets those and nothing else. Loaded
// before assets/mathjax/tex-svg.js, the copy the site ships (docs/hooks/mathjax.py): no CDN.
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
  },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex",
  },
  svg: {
    fontCache: "global",
  },
};
