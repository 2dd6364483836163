// Rejudge of one submission in the browser (issue 11, item 5): on a
// submission page an instructor rejudges it, follows the change report to
// the end, and after a reload sees the replaced verdict in its history.
// Screenshot: rejudge-submission-history.
export async function rejudgeScenarios({ tp, open, scenario, shot, assert, eq, apiGet, JUDGE_TIMEOUT }) {
  await scenario('rejudge: one submission from its page, with its verdict history', tp, async () => {
    const list = (await apiGet(tp, '/api/submissions?problem=softmax-rows&status=done&limit=1')).body;
    assert(list.submissions && list.submissions.length, 'needs a judged softmax-rows submission');
    const sub = list.submissions[0];
    await open(tp, `/submission/${sub.id}`);
    await tp.click('#rejudge-one');
    await tp.waitForSelector('#submission-rejudge .rejudge-report[data-state="done"]', { timeout: JUDGE_TIMEOUT });
    eq(await tp.locator('#submission-rejudge tbody tr').count(), 1, 'one row in a single rejudge');
    await open(tp, `/submission/${sub.id}`);
    await tp.waitForSelector('#verdict-history tbody tr');
    const rows = await tp.locator('#verdict-history tbody tr').count();
    assert(rows >= 1, 'no history row');
    const first = await tp.locator('#verdict-history tbody tr').last().locator('td').nth(1).textContent();
    eq(first, sub.verdict, 'the replaced verdict');
    await tp.locator('#verdict-history').scrollIntoViewIfNeeded();
    await shot(tp, 'rejudge-submission-history');
  });
}
