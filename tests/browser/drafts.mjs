// Drafts that follow the student (issue 11, item 7): "the lab machine" and
// "the laptop" are two browser contexts of one student. A draft typed in
// one is saved to the account and opens in the other; "Edit this source"
// of a past submission asks before replacing a different draft (declined:
// nothing changes; accepted: replaced). Screenshots: drafts-laptop,
// drafts-edit-source-confirm.
export async function draftsScenarios({ person, open, scenario, shot, assert, eq, pasteSource }) {
  const user = 'dana-drafts', pass = 'dana-drafts-pw', slug = 'softmax-stable';
  let lab = null, laptop = null;

  const signIn = async (page) => {
    await open(page, '/login');
    await page.fill('#username', user);
    await page.fill('#password', pass);
    await page.click('form.auth-form button[type=submit]');
    await page.waitForSelector(`.whoami[data-user="${user}"]`);
  };

  await scenario('drafts: typed on the lab machine, opened on the laptop', null, async () => {
    lab = await person('drafts-lab');
    laptop = await person('drafts-laptop');
    await open(lab.page, '/problems');
    const st = await lab.page.evaluate(async ([u, p]) => (await fetch('/api/users', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: u, password: p }) })).status, [user, pass]);
    eq(st, 201, 'sign-up');
    await signIn(lab.page);
    await signIn(laptop.page);
    await open(lab.page, `/problem/${slug}`);
    await lab.page.waitForSelector('#editor .cm-content');
    await pasteSource(lab.page, '/* from the lab */\nvoid softmax_rows(const float *x, float *y, int rows, int cols) {}\n');
    await lab.page.waitForFunction(() => /^Saved to your account/.test(document.querySelector('.draft-state').textContent), null, { timeout: 10_000 });
    await open(laptop.page, `/problem/${slug}`);
    await laptop.page.waitForSelector('#editor .cm-content');
    eq(await laptop.page.textContent('#editor .cm-line'), '/* from the lab */', 'the lab draft on the laptop');
    assert((await laptop.page.textContent('.draft-state')).startsWith('Restored your draft, saved to your account'), 'note');
    await shot(laptop.page, 'drafts-laptop');
  });

  await scenario('drafts: "Edit this source" asks before replacing a different draft', null, async () => {
    assert(laptop, 'needs the previous scenario');
    const p = laptop.page;
    // a submission to come back to
    const id = await p.evaluate(async (s) => (await (await fetch('/api/submissions', {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ problem: s, source: '/* submitted */\nint unused;\n' }) })).json()).id, slug);
    assert(id > 0, 'submitted');
    await open(p, `/submission/${id}`);
    await p.waitForSelector('#edit-source');
    // declined: the draft stays
    let asked = '';
    p.removeAllListeners('dialog');
    p.once('dialog', async (d) => { asked = d.message(); await d.dismiss(); });
    await p.click('#edit-source');
    await p.waitForTimeout(300);
    assert(/Replace your current draft of softmax-stable/.test(asked), `the question: ${asked}`);
    eq(await p.getAttribute('main', 'data-route'), `/submission/${id}`, 'declining stays on the submission');
    const kept = await p.evaluate(async (s) => (await (await fetch(`/api/drafts/${s}`)).json()).source, slug);
    assert(kept.startsWith('/* from the lab */'), 'the draft was kept');
    // accepted: replaced, and the problem page opens with it
    p.once('dialog', async (d) => { await d.accept(); });
    await p.click('#edit-source');
    await p.waitForSelector(`main[data-route="/problem/${slug}"] #editor .cm-content`);
    eq(await p.textContent('#editor .cm-line'), '/* submitted */', 'the submission in the editor');
    const now = await p.evaluate(async (s) => (await (await fetch(`/api/drafts/${s}`)).json()).source, slug);
    assert(now.startsWith('/* submitted */'), 'the account draft was replaced');
    await shot(p, 'drafts-edit-source-confirm');
    await lab.context.close();
    await laptop.context.close();
  });
}
