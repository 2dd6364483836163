// The instructor page's "Integrity" card (docs/integrity.md): for a
// problem, download every student's chosen source (for MOSS or JPlag), and
// attnjudge's own similarity report — the most similar pairs, and for a
// chosen pair the shared fragments side by side with line numbers.
import { h, replace } from '../lib/dom.js';
import { get } from '../lib/api.js';

function numbered(side, cls) {
  const lines = side.text.replace(/\n$/, '').split('\n');
  return h('pre', { class: `fragment ${cls}` }, lines.map((l, i) =>
    h('span', { class: 'frag-line' }, h('span', { class: 'ln' }, String(side.from_line + i).padStart(4, ' ')), ` ${l}\n`)));
}

function pairView(p) {
  return h('div', { class: 'pair-view', id: 'pair-view', 'data-users': p.users.join(',') },
    h('h3', null, `${p.users[0]} and ${p.users[1]}: ${Math.round(p.score * 100)} % of fingerprints shared`),
    h('p', { class: 'small' }, h('a', { href: `#/submission/${p.submissions[0]}` }, `${p.users[0]}'s submission #${p.submissions[0]}`), ' · ',
      h('a', { href: `#/submission/${p.submissions[1]}` }, `${p.users[1]}'s submission #${p.submissions[1]}`)),
    p.fragments.length ? p.fragments.map((f, i) => h('div', { class: 'fragment-pair', 'data-fragment': i },
      h('div', null, h('p', { class: 'small muted' }, `${p.users[0]}, lines ${f.a.from_line}–${f.a.to_line}`), numbered(f.a, 'a')),
      h('div', null, h('p', { class: 'small muted' }, `${p.users[1]}, lines ${f.b.from_line}–${f.b.to_line}`), numbered(f.b, 'b'))))
      : h('p', { class: 'muted' }, 'No fragment to show.'));
}

// { el, setProblems(list) }
export function integrityCard(problems) {
  const pick = h('select', { id: 'int-problem', 'aria-label': 'Problem' });
  const setProblems = (list) => replace(pick, list.map((p) => h('option', { value: p.slug }, `${p.title} (${p.slug})`)));
  setProblems(problems);
  const link = h('a', { class: 'button', id: 'int-sources' }, 'Download sources (.zip)');
  const min = h('input', { id: 'int-min', type: 'number', min: '0', max: '100', value: '30', 'aria-label': 'Minimum similarity, %' });
  const out = h('div', { id: 'int-pairs' });
  const detail = h('div', { id: 'int-detail' });
  const syncLink = () => { link.href = `/api/problems/${pick.value}/sources`; link.setAttribute('download', `${pick.value}-sources.zip`); };
  pick.addEventListener('change', syncLink);
  syncLink();
  const run = async () => {
    replace(out, h('p', { class: 'muted' }, 'Comparing…'));
    replace(detail);
    try {
      const r = await get(`/api/problems/${pick.value}/similarity?min=${Number(min.value) / 100}`);
      replace(out, r.pairs.length
        ? h('table', { class: 'pairs-table' },
            h('caption', null, `${r.students} students compared; pairs at ${Math.round(r.min * 100)} % or more, most similar first`),
            h('thead', null, h('tr', null, ['Students', 'Similarity', ''].map((t) => h('th', { scope: 'col' }, t)))),
            h('tbody', null, r.pairs.map((p) => h('tr', { 'data-users': p.users.join(',') },
              h('td', null, `${p.users[0]} – ${p.users[1]}`), h('td', { class: 'num' }, `${Math.round(p.score * 100)} %`),
              h('td', null, h('button', { type: 'button', class: 'linklike show-pair', onclick: () => replace(detail, pairView(p)) }, 'Side by side'))))))
        : h('p', { class: 'muted' }, `${r.students} students compared: no pair at ${Math.round(r.min * 100)} % or more.`));
    } catch (e) { replace(out, h('p', { class: 'error', role: 'alert' }, e.message)); }
  };
  const el = h('div', null,
    h('p', { class: 'small' }, 'Each student’s last accepted submission (else their last) is compared with every other by winnowed fingerprints of normalized code, as MOSS does: renamed variables and new layout do not hide a copy. The starter, the statement’s examples and the reference are left out. A high score is a reason to look, not a verdict.'),
    h('div', { class: 'toolbar' }, h('label', { for: 'int-problem' }, 'Problem '), pick, ' ', link, ' ',
      h('label', { for: 'int-min' }, 'at least '), min, ' % ',
      h('button', { type: 'button', id: 'int-run', onclick: run }, 'Find similar pairs')),
    out, detail);
  return { el, setProblems };
}
