// Grades sent to the LMS and the roster read from it (docs/api.md, "LTI
// grades and roster"; docs/lti.md, "Grades back"): the resource links the
// LMS launched, each with "Sync roster" where the LMS offers its roster
// service, and the outbox of scores: how many wait, were delivered or
// failed, the newest deliveries with their reason, and "Retry" on a
// failed one. Returns { el, load }.
import { h, replace, fmtTime } from '../lib/dom.js';
import { get, post } from '../lib/api.js';

const fmtScore = (v) => String(Math.round(v * 100) / 100);
const STATES = ['pending', 'sending', 'delivered', 'failed', 'superseded'];

export function ltiGrades() {
  const links = h('div', { id: 'lti-links' });
  const counts = h('p', { id: 'lti-outbox-counts' });
  const filter = h('select', { id: 'lti-outbox-state', 'aria-label': 'Show deliveries' },
    h('option', { value: '' }, 'every state'), STATES.map((s) => h('option', { value: s }, s)));
  const table = h('div', { id: 'lti-outbox' });
  const status = h('p', { role: 'status', id: 'lti-status' });

  const syncRoster = async (link, button) => {
    button.disabled = true;
    replace(status, `Reading the roster of ${link.context} from the LMS…`);
    try {
      const r = await post(`/api/lti/links/${link.id}/roster`, {});
      replace(status, `Roster of ${link.context}: ${r.members} members; ${r.created.length} accounts created`,
        r.created.length ? ` (${r.created.join(', ')})` : '', `, ${r.updated.length} updated; `,
        `${r.skipped.not_learners} not students and ${r.skipped.inactive} inactive left alone.`);
    } catch (e) {
      replace(status, h('span', { class: 'error', role: 'alert' }, e.message));
    }
    button.disabled = false;
  };

  const retry = async (d, button) => {
    button.disabled = true;
    try {
      await post(`/api/lti/outbox/${d.id}/retry`, {});
      replace(status, `Delivery #${d.id} will be tried again now.`);
      setTimeout(load, 1000);
    } catch (e) {
      replace(status, h('span', { class: 'error', role: 'alert' }, e.message));
      button.disabled = false;
    }
  };

  const linkRows = (list) => (list.length ? h('div', { class: 'table-wrap' }, h('table', { class: 'responsive', id: 'lti-links-table' },
    h('thead', null, h('tr', null, ['Course', 'Link', 'Opens', 'Grades', ''].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', null, list.map((l) => {
      const b = l.roster ? h('button', { type: 'button', class: 'secondary', 'data-link': l.id }, 'Sync roster') : null;
      if (b) b.addEventListener('click', () => syncRoster(l, b));
      return h('tr', { 'data-link': l.id },
        h('td', { 'data-label': 'Course' }, l.context),
        h('td', { 'data-label': 'Link' }, l.resource_link),
        h('td', { 'data-label': 'Opens' }, `${l.kind} ${l.slug}`),
        h('td', { 'data-label': 'Grades' }, l.graded ? 'sent to the LMS' : 'practice'),
        h('td', { 'data-label': '' }, b || h('span', { class: 'muted small' }, 'no roster service')));
    }))))
    : h('p', { class: 'muted' }, 'No LMS has launched this course yet.'));

  const deliveryRows = (list) => (list.length ? h('div', { class: 'table-wrap' }, h('table', { class: 'responsive', id: 'lti-outbox-table' },
    h('thead', null, h('tr', null, ['#', 'Student', 'Link', 'Score', 'State', 'Tries', 'Reason', ''].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', null, list.map((d) => {
      const b = d.state === 'failed' ? h('button', { type: 'button', class: 'secondary' }, 'Retry') : null;
      if (b) b.addEventListener('click', () => retry(d, b));
      return h('tr', { 'data-delivery': d.id, 'data-state': d.state },
        h('td', { 'data-label': '#' }, String(d.id)),
        h('td', { 'data-label': 'Student' }, d.user),
        h('td', { 'data-label': 'Link' }, `${d.kind} ${d.slug}`),
        h('td', { 'data-label': 'Score' }, `${fmtScore(d.score_given)} / ${fmtScore(d.score_maximum)}`),
        h('td', { 'data-label': 'State' }, d.state,
          d.state === 'pending' && d.next_try_at ? h('span', { class: 'small muted' }, ` (next try ${fmtTime(d.next_try_at)})`) : '',
          d.delivered_at ? h('span', { class: 'small muted' }, ` ${fmtTime(d.delivered_at)}`) : ''),
        h('td', { 'data-label': 'Tries' }, String(d.attempts)),
        h('td', { 'data-label': 'Reason' }, d.last_error || ''),
        h('td', { 'data-label': '' }, b || ''));
    }))))
    : h('p', { class: 'muted' }, 'No scores to show.'));

  async function load() {
    try {
      const [l, o] = await Promise.all([get('/api/lti/links'),
        get(`/api/lti/outbox?limit=100${filter.value ? `&state=${filter.value}` : ''}`)]);
      replace(links, linkRows(l.links));
      const c = o.counts;
      replace(counts, `Scores to the LMS: ${c.pending + c.sending} waiting, ${c.delivered} delivered, ${c.failed} failed`,
        c.superseded ? `, ${c.superseded} replaced by a newer grade before they were sent` : '', '.');
      replace(table, deliveryRows(o.deliveries));
    } catch (e) {
      replace(table, h('p', { class: 'error', role: 'alert' }, e.message));
    }
  }
  filter.addEventListener('change', load);

  const el = h('div', { class: 'lti-grades' },
    h('p', { class: 'muted small' }, 'Grades of graded LMS links go back to the LMS by themselves; a failed one shows why.'),
    links, counts, h('label', null, 'Show ', filter), table, status,
    h('p', null, h('button', { type: 'button', class: 'secondary', id: 'lti-refresh', onclick: load }, 'Refresh')));
  return { el, load };
}
