// Integrity in the browser (issue 11, item 6): two students submit the same
// solution, one of them renamed and re-laid-out; the instructor's
// "Integrity" card finds the pair, shows the shared fragments side by side,
// and links the sources archive. Screenshots: integrity-pairs,
// integrity-side-by-side.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export async function integrityScenarios({ tp, person, open, scenario, shot, assert, eq, ROOT, JUDGE_TIMEOUT }) {
  const slug = 'softmax-stable';
  const original = readFileSync(join(ROOT, 'tests/submissions', slug, 'accepted/plain_float.c'), 'utf8');
  const copy = '// all mine\n' + original.replace(/\bxr\b/g, 'src').replace(/\byr\b/g, 'dst')
    .replace(/\bsum\b/g, 'total').replace(/ {4}/g, '  ');

  await scenario('integrity: a renamed copy is found and shown side by side', tp, async () => {
    const s = await person('integrity-students');
    try {
      await open(s.page, '/problems');
      const ids = await s.page.evaluate(async ([sl, a, b]) => {
        const post = (p, body) => fetch(p, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
        const out = [];
        for (const [user, src] of [['ivy-int', a], ['jon-int', b]]) {
          await post('/api/users', { username: user, password: `${user}-password` });
          await post('/api/sessions', { username: user, password: `${user}-password`, cookie: true });
          out.push((await (await post('/api/submissions', { problem: sl, source: src })).json()).id);
          await fetch('/api/sessions', { method: 'DELETE', headers: { 'Content-Type': 'application/json' } });
        }
        return out;
      }, [slug, original, copy]);
      assert(ids.every((x) => x > 0), `submissions: ${ids}`);
    } finally {
      await s.context.close();
    }
    await open(tp, '/instructor/integrity');
    await tp.selectOption('#int-problem', slug);
    eq(await tp.getAttribute('#int-sources', 'href'), `/api/problems/${slug}/sources`, 'sources link');
    await tp.click('#int-run');
    const row = tp.locator('#int-pairs tr[data-users="ivy-int,jon-int"]');
    await row.waitFor({ timeout: JUDGE_TIMEOUT });
    assert(/^\d+ %$/.test(await row.locator('td.num').textContent()), 'a percentage');
    await tp.locator('#int-pairs').scrollIntoViewIfNeeded();
    await shot(tp, 'integrity-pairs');
    await row.locator('button.show-pair').click();
    await tp.waitForSelector('#pair-view .fragment-pair');
    assert((await tp.locator('#pair-view pre.fragment.b').first().textContent()).length > 0, 'fragment text');
    await tp.locator('#pair-view').scrollIntoViewIfNeeded();
    await shot(tp, 'integrity-side-by-side');
  });
}
