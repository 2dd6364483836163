// DOM building without HTML strings. Every piece of data reaches the page
// as a text node or an attribute value, never through innerHTML, so a
// username or a source file containing `<script>` is shown as text.

// h('a', {href: '#/x', class: 'btn', onclick: fn}, 'text', child, [more])
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
      else if (k === 'class') el.className = v;
      else if (k === 'dataset') Object.assign(el.dataset, v);
      else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
      else if (k === 'value' || k === 'checked' || k === 'disabled' || k === 'selected') el[k] = v;
      else el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

export function replace(el, ...children) {
  clear(el);
  return append(el, children);
}

// The statement HTML comes from libcmark in safe mode on the server. It is
// still parsed inertly and filtered through an allow-list here, so that a
// server-side slip cannot become script: only these tags and attributes,
// and links only to http(s), mailto or in-page targets.
const TAGS = new Set(['P', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'UL', 'OL', 'LI', 'PRE', 'CODE',
  'EM', 'STRONG', 'A', 'BLOCKQUOTE', 'HR', 'BR', 'TABLE', 'THEAD', 'TBODY', 'TR', 'TH', 'TD',
  'DEL', 'SUP', 'SUB', 'IMG', 'SPAN', 'DIV']);
const ATTRS = new Set(['href', 'title', 'alt', 'src', 'class', 'start', 'align']);

export function safeHtml(html) {
  const tpl = document.createElement('template');
  tpl.innerHTML = html;            // inert: template content never runs
  const frag = tpl.content;
  const walk = (node) => {
    for (const child of [...node.childNodes]) {
      if (child.nodeType === Node.COMMENT_NODE) { child.remove(); continue; }
      if (child.nodeType !== Node.ELEMENT_NODE) continue;
      if (!TAGS.has(child.tagName)) {
        // Keep the text of an unknown element, drop the element itself;
        // script/style contents are dropped entirely.
        if (child.tagName === 'SCRIPT' || child.tagName === 'STYLE') child.remove();
        else { walk(child); child.replaceWith(...child.childNodes); }
        continue;
      }
      for (const a of [...child.attributes]) {
        const name = a.name.toLowerCase();
        let ok = ATTRS.has(name);
        if (ok && (name === 'href' || name === 'src')) {
          const v = a.value.trim();
          ok = name === 'href' ? /^(https?:|mailto:|#)/i.test(v) || !/^[a-z][a-z0-9+.-]*:/i.test(v)
                               : /^data:image\//i.test(v) || !/^[a-z][a-z0-9+.-]*:|^\/\//i.test(v);
        }
        if (ok && name === 'class') ok = /^[\w -]*$/.test(a.value);
        if (!ok) child.removeAttribute(a.name);
      }
      if (child.tagName === 'A' && /^https?:/i.test(child.getAttribute('href') || '')) {
        child.setAttribute('rel', 'noopener noreferrer');
        child.setAttribute('target', '_blank');
      }
      walk(child);
    }
  };
  walk(frag);
  return frag;
}

// "2026-11-23 20:41:05 UTC+1": the browser's local time with its offset
// from UTC on that date (so summer time shows as such), because students
// and the server may be in different time zones.
export function fmtTime(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
         `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} ${utcOffset(d)}`;
}

// "UTC", "UTC+1", "UTC-3", "UTC+5:30" for the browser's zone on date d.
export function utcOffset(d) {
  const east = -d.getTimezoneOffset();
  if (east === 0) return 'UTC';
  const m = Math.abs(east);
  return `UTC${east < 0 ? '-' : '+'}${Math.floor(m / 60)}${m % 60 ? `:${String(m % 60).padStart(2, '0')}` : ''}`;
}

export function fmtMs(v) {
  if (v === null || v === undefined) return '';
  if (typeof v !== 'number') return String(v);
  return v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0);
}

export function fmtErr(v) {
  if (v === null || v === undefined) return '';
  if (typeof v !== 'number') return String(v);      // "NaN", "Infinity"
  if (v === 0) return '0';
  return v.toExponential(2);
}

export function fmtNum(v) {
  if (v === null || v === undefined) return '';
  if (typeof v !== 'number') return String(v);
  return Number.isInteger(v) ? String(v) : v.toPrecision(6).replace(/\.?0+(e|$)/, '$1');
}

// Three significant digits, without an exponent in the usual range
// ("0.00153", "1.5", "117", "2048"): benchmark figures span microseconds
// to seconds and 0.01 to 100 GFLOP/s. "—" when not measured.
export function fmt3(v) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return '—';
  if (Math.abs(v) >= 1000) return String(Math.round(v));
  return String(Number(v.toPrecision(3)));
}

// A score as the grades CSVs write it (server/assignments.c fmt_score):
// at most two decimals, no trailing zeros ("100", "80", "16.67"). C's
// printf rounds an exact tie (3.125) to even where toFixed rounds it up:
// a score that is a whole number of eighths is rounded here as C does.
export function fmtScore(v) {
  if (v === null || v === undefined) return '';
  if (typeof v !== 'number') return String(v);
  let x = v;
  const hundredths = v * 100;
  if (Number.isInteger(v * 8) && hundredths - Math.floor(hundredths) === 0.5) {
    x = (Math.floor(hundredths) + (Math.floor(hundredths) % 2 === 0 ? 0 : 1)) / 100;
  }
  return x.toFixed(2).replace(/\.?0+$/, '');
}

export function dimsText(dims) {
  if (!dims) return '';
  return Object.entries(dims).map(([k, v]) => `${k}=${v}`).join(', ');
}

// "not_run" is a test's state, not a verdict: it reads "not run", in grey.
export function verdictBadge(verdict, status) {
  const text = verdict || status || '';
  const cls = verdict === 'accepted' ? 'ok' : verdict === 'not_run' ? 'skipped'
    : verdict ? 'bad' : 'pending';
  return h('span', { class: `verdict verdict-${cls}`, 'data-verdict': text },
    verdict === 'not_run' ? 'not run' : text);
}
