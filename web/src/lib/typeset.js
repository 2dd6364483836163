// KaTeX over an element: the math of a statement, a hint or a preview,
// between $...$, \(...\), $$...$$ or \[...\], typeset in place.
import renderMathInElement from 'katex/contrib/auto-render';

export function typeset(el) {
  renderMathInElement(el, {
    delimiters: [
      { left: '$$', right: '$$', display: true },
      { left: '\\[', right: '\\]', display: true },
      { left: '$', right: '$', display: false },
      { left: '\\(', right: '\\)', display: false },
    ],
    throwOnError: false,
    trust: false,
    strict: 'ignore',
  });
}
