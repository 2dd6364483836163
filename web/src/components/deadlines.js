// The assignments a problem belongs to, on its problem page next to Submit
// (docs/api.md, "Assignments"): each one's title linking to its card on
// the Assignments page, its due time in the browser's time zone with a
// countdown, and its late policy in words, worded as the Assignments page
// words them (lib/assignment-time.js). From GET /api/assignments, which
// gives students the assignments already open and instructors every one;
// nothing at all when the problem is in none, or when the list cannot be
// had (the page works without it).
import { h, replace } from '../lib/dom.js';
import { get } from '../lib/api.js';
import { timeLine, policyText } from '../lib/assignment-time.js';

// deadlines(slug, ctx) -> element, empty until the list arrives; its
// countdowns tick every second until the page is left.
export function deadlines(slug, ctx) {
  const box = h('aside', { class: 'deadlines', id: 'deadlines', 'aria-label': 'Deadlines', hidden: true });
  (async () => {
    let list;
    try { list = (await get('/api/assignments')).assignments; } catch { return; }
    if (!ctx.alive()) return;
    const mine = list.filter((a) => (a.problems || []).some((p) => p.slug === slug));
    if (!mine.length) return;
    const skew = Date.parse(mine[0].now) - Date.now();
    const lines = [];
    replace(box, mine.map((a) => {
      const when = h('span', { class: 'deadline-time' }, timeLine(a, skew));
      lines.push([when, a]);
      return h('p', { class: 'deadline', 'data-slug': a.slug, 'data-phase': a.phase },
        h('a', { href: `#/assignments/${a.slug}`, class: 'deadline-title' }, a.title), ': ', when, ' ',
        h('span', { class: 'deadline-policy' }, policyText(a)));
    }));
    box.hidden = false;
    const timer = setInterval(() => { for (const [el, a] of lines) el.textContent = timeLine(a, skew); }, 1000);
    ctx.onLeave(() => clearInterval(timer));
  })();
  return box;
}
