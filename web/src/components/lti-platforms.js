// The instructor page's "LMS (LTI 1.3)" card: the URLs to paste into the
// LMS, the registered platforms with their deployments and frame origins,
// a form to register one and a button to remove one (GET, POST and DELETE
// /api/lti/platforms; docs/lti.md). The same as `attnjudge lti
// add-platform | list | remove` on the server.
import { h, replace, fmtTime } from '../lib/dom.js';
import { get, post, del } from '../lib/api.js';

const FIELDS = [
  ['issuer', 'Issuer (platform id)', 'https://canvas.instructure.com'],
  ['client_id', 'Client id', '10000000000042'],
  ['deployment_ids', 'Deployment ids (space-separated)', '17:8865aa05…'],
  ['auth_url', 'Authentication request URL', 'https://sso.canvaslms.com/api/lti/authorize_redirect'],
  ['token_url', 'Access token URL', 'https://sso.canvaslms.com/login/oauth2/token'],
  ['jwks_url', 'Public keyset (JWKS) URL', 'https://sso.canvaslms.com/api/lti/security/jwks'],
  ['frame_origins', 'Frame origins (optional, space-separated)', 'https://school.instructure.com'],
];

export function ltiPlatforms() {
  const toolBox = h('div', { id: 'lti-tool' });
  const list = h('div', { id: 'lti-platforms' });
  const out = h('p', { id: 'lti-result', role: 'status' });
  const inputs = Object.fromEntries(FIELDS.map(([k, , ph]) => [k, h('input', {
    id: `lti-${k}`, name: k, type: 'text', autocomplete: 'off', placeholder: ph,
    required: k !== 'frame_origins',
  })]));
  const btn = h('button', { type: 'submit', id: 'lti-add' }, 'Register platform');
  const form = h('form', { id: 'lti-form', class: 'stacked' },
    FIELDS.map(([k, label]) => h('div', { class: 'field' }, h('label', { for: `lti-${k}` }, label), inputs[k])), btn);

  const load = async () => {
    try {
      const r = await get('/api/lti/platforms');
      replace(toolBox, r.tool
        ? h('dl', { class: 'kv' },
          ['target_link_uri', 'login_url', 'redirect_uri', 'jwks_url'].map((k) => [
            h('dt', null, { target_link_uri: 'Target link URI', login_url: 'Login initiation URL', redirect_uri: 'Redirection URI', jwks_url: 'Public keyset URL' }[k]),
            h('dd', null, h('code', { 'data-url': k }, r.tool[k]))]))
        : h('p', { class: 'error' }, 'The server has no public_url: LTI launches need it (docs/lti.md).'));
      replace(list, r.platforms.length === 0 ? h('p', { class: 'muted' }, 'No platform registered.')
        : h('table', { class: 'data' },
          h('thead', null, h('tr', null, ['Issuer', 'Client', 'Deployments', 'Frame origins', 'Registered', ''].map((c) => h('th', null, c)))),
          h('tbody', null, r.platforms.map((p) => h('tr', { 'data-platform': p.id },
            h('td', { 'data-label': 'Issuer' }, p.issuer),
            h('td', { 'data-label': 'Client' }, p.client_id),
            h('td', { 'data-label': 'Deployments' }, p.deployment_ids.join(' ')),
            h('td', { 'data-label': 'Frame origins' }, p.frame_origins.join(' ')),
            h('td', { 'data-label': 'Registered' }, fmtTime(p.created_at)),
            h('td', null, h('button', { type: 'button', class: 'linklike', 'data-remove': p.id, onclick: async () => {
              if (!window.confirm(`Remove ${p.issuer}? Its links and courses go too; accounts stay.`)) return;
              try { await del(`/api/lti/platforms/${p.id}`); out.textContent = `Removed ${p.issuer}.`; load(); } catch (e) { out.textContent = e.message; }
            } }, 'Remove')))))));
    } catch (e) {
      replace(list, h('p', { class: 'error' }, e.message));
    }
  };
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const words = (s) => s.split(/\s+/).filter(Boolean);
    const body = {};
    for (const [k] of FIELDS) body[k] = inputs[k].value.trim();
    body.deployment_ids = words(body.deployment_ids);
    if (body.frame_origins) body.frame_origins = words(body.frame_origins); else delete body.frame_origins;
    btn.disabled = true;
    try {
      const p = await post('/api/lti/platforms', body);
      out.textContent = `Registered ${p.issuer} (client ${p.client_id}).`;
      for (const [k] of FIELDS) inputs[k].value = '';
      load();
    } catch (e) {
      out.textContent = e.message;
    } finally {
      btn.disabled = false;
    }
  });
  return {
    el: h('div', null,
      h('p', { class: 'small' }, 'Paste these into the LMS when registering attnjudge as an LTI 1.3 tool:'), toolBox,
      h('h3', null, 'Registered platforms'), list,
      h('h3', null, 'Register a platform'),
      h('p', { class: 'small' }, 'The values the LMS shows for this tool (docs/lti.md walks through Moodle and Canvas).'),
      form, out),
    load,
  };
}
