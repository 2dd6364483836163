// Finds the math of a Markdown statement that KaTeX cannot render, with the
// line it starts on. Shared by the instructor upload page (live preview) and
// `attnjudge problem check` (web/mathcheck.mjs, run by node). The
// delimiters are the statement page's ($$…$$, \[…\], $…$, \(…\)); code
// spans and fenced code blocks are skipped, as the page never typesets them.
import katex from 'katex';

// [{line, display, tex}] for every math span of text (line 1-based).
export function mathSpans(text) {
  const spans = [];
  const lines = text.split('\n');
  let fence = null;
  let buf = '', bufLine = 0;
  const flush = () => {
    scan(buf, bufLine, spans);
    buf = '';
  };
  lines.forEach((l, i) => {
    const m = l.match(/^\s{0,3}(```+|~~~+)/);
    if (fence) {
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length) fence = null;
      return;
    }
    if (m) { flush(); fence = m[1]; return; }
    if (!l.trim()) { flush(); return; }
    if (!buf) bufLine = i + 1;
    buf += `${l}\n`;
  });
  flush();
  return spans;
}

// Math spans of one paragraph that starts on line first.
function scan(text, first, spans) {
  const delims = [['$$', '$$', true], ['\\[', '\\]', true], ['\\(', '\\)', false], ['$', '$', false]];
  let i = 0;
  const lineAt = (k) => first + (text.slice(0, k).match(/\n/g) || []).length;
  while (i < text.length) {
    if (text[i] === '`') { // a code span: skip to the same run of backticks
      const run = text.slice(i).match(/^`+/)[0];
      const end = text.indexOf(run, i + run.length);
      i = end < 0 ? i + run.length : end + run.length;
      continue;
    }
    if (text[i] === '\\' && text[i + 1] === '$') { i += 2; continue; }
    const d = delims.find(([l]) => text.startsWith(l, i));
    if (!d) { i++; continue; }
    const [l, r, display] = d;
    const end = text.indexOf(r, i + l.length);
    if (end < 0) { i += l.length; continue; }
    spans.push({ line: lineAt(i), display, tex: text.slice(i + l.length, end) });
    i = end + r.length;
  }
}

// [{line, tex, message}] for every span KaTeX refuses.
export function mathErrors(text) {
  const out = [];
  for (const s of mathSpans(text)) {
    try {
      katex.renderToString(s.tex, { displayMode: s.display, throwOnError: true, trust: false, strict: 'ignore' });
    } catch (e) {
      out.push({ line: s.line, tex: s.tex, message: String(e.message || e).replace(/^KaTeX parse error: /, '') });
    }
  }
  return out;
}
