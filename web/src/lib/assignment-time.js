// An assignment's time in words: the time left, the countdown line and the
// late policy, as the assignments page and a problem's deadlines show them.
import { fmtTime } from './dom.js';

// "3 days 4 h", "12 min", for a duration in ms.
export function fmtLeft(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86400), hh = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
  if (d) return `${d} day${d === 1 ? '' : 's'} ${hh} h`;
  if (hh) return `${hh} h ${m} min`;
  return m ? `${m} min ${s % 60} s` : `${s % 60} s`;
}

export function policyText(a) {
  if (a.late_policy === 'none') return 'Late work does not count.';
  return `Late work counts until ${fmtTime(a.late_policy.cutoff)}, minus ${Math.round(a.late_policy.penalty_per_day * 100)} % per started day.`;
}

// The countdown line of an assignment, kept current by the page's timer
// (skew: the server's clock minus the browser's, in ms).
export function timeLine(a, skew) {
  const now = Date.now() + skew;
  const opens = Date.parse(a.opens_at), due = Date.parse(a.due_at);
  if (now < opens) return `Opens in ${fmtLeft(opens - now)} (${fmtTime(a.opens_at)}).`;
  if (now <= due) return `Due in ${fmtLeft(due - now)} (${fmtTime(a.due_at)}).`;
  const cut = a.late_policy === 'none' ? due : Date.parse(a.late_policy.cutoff);
  if (now <= cut) return `Past due; late work is accepted for ${fmtLeft(cut - now)} more.`;
  return `Closed ${fmtTime(a.late_policy === 'none' ? a.due_at : a.late_policy.cutoff)}.`;
}
