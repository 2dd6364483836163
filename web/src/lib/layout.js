// Fitting a problem's statement into its column (web/README.md, "Layout").
// Nothing may be clipped: whatever is wider than the column (a display
// formula, a code block, a table, an inline formula that cannot break, the
// C signature) becomes a horizontal scroll area with the class "scroll-x",
// whose scrollbar is always drawn and whose content fades out at an edge
// where more is hidden ("clip-left", "clip-right", kept up to date here).
import { h } from './dom.js';

export const SCROLL_CLASS = 'scroll-x';

// One observer for every scroll area and statement column: a size change
// (the window, the column) re-decides the fades and the inline math.
const refits = new WeakMap();     // statement column -> its fitInlineMath
const resized = typeof ResizeObserver === 'function'
  ? new ResizeObserver((entries) => {
    for (const e of entries) {
      if (!e.target.isConnected) { resized.unobserve(e.target); continue; }
      if (e.target.classList.contains(SCROLL_CLASS)) updateClip(e.target);
      const refit = refits.get(e.target);
      if (refit) refit();
    }
  })
  : null;

function updateClip(el) {
  const hidden = el.scrollWidth - el.clientWidth;
  el.classList.toggle('clip-left', hidden > 1 && el.scrollLeft > 1);
  el.classList.toggle('clip-right', hidden > 1 && el.scrollLeft < hidden - 1);
}

// Makes el a horizontal scroll area with the cue; returns el.
export function scrollArea(el) {
  if (el.classList.contains(SCROLL_CLASS)) return el;
  el.classList.add(SCROLL_CLASS);
  el.addEventListener('scroll', () => updateClip(el), { passive: true });
  if (resized) resized.observe(el);
  return el;
}

// The block that an inline element's lines are laid out in.
function blockOf(el) {
  for (let p = el.parentElement; p; p = p.parentElement)
    if (!getComputedStyle(p).display.startsWith('inline')) return p;
  return el.parentElement;
}

function contentWidth(el) {
  const cs = getComputedStyle(el);
  return el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
}

// Inline math breaks only between KaTeX's top-level pieces (".katex-base"): a
// piece wider than its line becomes a scroll area of its own, and turns
// back when the column is wide enough again. Measured, so run on resize.
function fitInlineMath(root) {
  for (const base of root.querySelectorAll('.katex .katex-base')) {
    if (base.closest('.katex-display')) continue;
    const wide = base.classList.contains(SCROLL_CLASS);
    const need = wide ? base.scrollWidth : base.getBoundingClientRect().width;
    const room = contentWidth(blockOf(base.closest('.katex')));
    if (!wide && room > 0 && need > room + 1) {
      scrollArea(base);
      base.classList.add('math-scroll');
      updateClip(base);
    } else if (wide && need <= room) {
      base.classList.remove(SCROLL_CLASS, 'math-scroll', 'clip-left', 'clip-right');
      if (resized) resized.unobserve(base);
    }
  }
}

// Every table wrapper (".table-wrap": the tests, results, submissions and
// leaderboard tables) put under root from now on scrolls with the cue too.
export function watchTableWraps(root) {
  const mark = (node) => {
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    if (node.classList.contains('table-wrap')) scrollArea(node);
    for (const el of node.querySelectorAll('.table-wrap')) scrollArea(el);
  };
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) mark(n);
  }).observe(root, { childList: true, subtree: true });
}

// Prepares a statement column (typeset already): display formulas, code
// blocks and tables scroll sideways with the cue; tables are wrapped so
// that the table itself keeps its width. Returns col.
export function fitStatement(col) {
  for (const t of col.querySelectorAll('.statement table')) {
    if (t.parentElement.classList.contains('table-wrap')) continue;
    const wrap = h('div', { class: 'table-wrap' });
    t.replaceWith(wrap);
    wrap.append(t);
  }
  for (const el of col.querySelectorAll('.katex-display, pre, .table-wrap')) scrollArea(el);
  if (resized) {
    refits.set(col, () => fitInlineMath(col));
    resized.observe(col);
  }
  // The KaTeX fonts, loaded once the formulas are on the page, change
  // their widths but not the size of any box observed above.
  if (document.fonts && document.fonts.addEventListener) {
    const refit = () => {
      if (!col.isConnected) { document.fonts.removeEventListener('loadingdone', refit); return; }
      fitInlineMath(col);
      for (const el of col.querySelectorAll(`.${SCROLL_CLASS}`)) updateClip(el);
    };
    document.fonts.addEventListener('loadingdone', refit);
  }
  return col;
}

// The C prototype, breakable only after "(" and between parameters (with a
// hanging indent), and a scroll area should one parameter not fit a line. Its text
// is the signature unchanged.
export function signatureBlock(sig) {
  const text = sig || '';
  const m = /^([^(]*\()([^()]*)(\);?)\s*$/.exec(text);
  const pre = h('pre', { class: 'signature mono' });
  if (!m || !m[2].trim()) {
    pre.textContent = text;
    return scrollArea(pre);
  }
  const params = m[2].split(',').map((s) => s.trim());
  pre.append(h('span', { class: 'sig-piece' }, m[1]), h('wbr'));
  params.forEach((p, i) => {
    const last = i === params.length - 1;
    pre.append(h('span', { class: 'sig-piece' }, p + (last ? m[3] : ',')));
    if (!last) pre.append(' ');
  });
  return scrollArea(pre);
}
