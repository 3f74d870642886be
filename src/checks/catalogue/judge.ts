/** The checks of the catalogue rules: one aspect of the one judgement over the surface's catalogue run, and what each operator found. */
import type { EndpointSurface } from '../../contract/endpoints.ts';
import { expectationText } from '../generated/judgement.ts';
import type { CheckContext } from '../../rule/index.ts';
import { sharedCatalogue, type Aspect, type CatalogueRun } from './run.ts';

/** Per endpoint, per operator: how many cases ran, how many were stated or open, and how many failed. */
export function operatorCoverage(run: CatalogueRun): Map<string, Map<string, { ran: number; stated: number; open: number; failed: number }>> {
  const out = new Map<string, Map<string, { ran: number; stated: number; open: number; failed: number }>>();
  for (const r of run.results) {
    const byOperator = out.get(r.c.endpoint) ?? new Map();
    const row = byOperator.get(r.c.operator) ?? { ran: 0, stated: 0, open: 0, failed: 0 };
    row.ran += 1;
    if (r.expectation.kind === 'open') row.open += 1;
    else row.stated += 1;
    if (Object.values(r.judgement.findings).some((f) => f && !f.ok)) row.failed += 1;
    byOperator.set(r.c.operator, row);
    out.set(r.c.endpoint, byOperator);
  }
  return out;
}

function observeRun(ctx: CheckContext, run: CatalogueRun): void {
  ctx.observe('probe depth', run.depth, 'quick: each operator once per surface; default: once per endpoint it fits; deep: every variant, then random pairs (certify --depth)');
  ctx.observe('catalogue requests sent', run.sent);
  if (run.limited > 0) ctx.observe('left unjudged after a 429/503', run.limited);
  if (run.unanswered.length > 0) ctx.observe('not answered (transport), not judged', run.unanswered.slice(0, 20), `${run.unanswered.length} in all`);
  for (const s of run.skipped) ctx.observe('catalogue: not sent', s);
  for (const [endpoint, rows] of operatorCoverage(run)) {
    ctx.observe(
      `operators ${endpoint}`,
      Object.fromEntries([...rows].map(([op, r]) => [op, `${r.ran} ran, ${r.stated} stated, ${r.open} open, ${r.failed} failing`])),
      'stated: a sentence of the descriptions or a standard decides the case; open: only no 5xx and the error format are judged',
    );
  }
}

/** Judges one aspect over every case of the surface's catalogue run. */
export function judgeCatalogue(surface: EndpointSurface | 'mcp', aspect: Aspect) {
  return async (ctx: CheckContext): Promise<void> => {
    const run = await sharedCatalogue(ctx, surface);
    let judged = 0;
    let unjudged = 0;
    for (const r of run.results) {
      if (r.judgement.unjudged) {
        unjudged += 1;
        continue;
      }
      const finding = r.judgement.findings[aspect];
      if (!finding) continue;
      if (judged === 0) ctx.http.record(r.evidence);
      judged += 1;
      if (finding.ok) ctx.check(true, '');
      else ctx.check(false, `${r.c.operator} (${r.c.label}): ${finding.reason}${r.expectation.kind === 'open' ? '' : ` [${expectationText(r.expectation)}]`}`, ctx.http.record(r.evidence));
    }
    if (aspect === 'no-5xx') observeRun(ctx, run);
    if (unjudged > 0) ctx.observe('answers not judged (a redirect, or a body cut at the cap)', unjudged);
    if (judged > 0) return;
    if (!ctx.profile.safety.allowMutations && run.results.length === 0) ctx.notApplicable(`no catalogue case of this kind is a read (${run.skipped.join('; ')})`);
    if (aspect === 'error-status' || aspect === 'accepts-valid') {
      if (run.results.length > 0) ctx.notApplicable(`no catalogue case sent at depth ${run.depth} carries a stated ${aspect === 'error-status' ? 'refusal' : 'acceptance'} for this target`);
    }
    ctx.inconclusive(`no catalogue case was judged${run.skipped.length ? `: ${run.skipped.join('; ')}` : ''}`);
  };
}
