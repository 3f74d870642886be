/** The checks of the catalogue rules: one aspect of the one judgement over the surface's catalogue run, and what each operator found. */
import type { EndpointSurface } from '../../contract/endpoints.ts';
import type { CheckContext, Exchange } from '../../rule/index.ts';
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
  if (run.resent > 0) ctx.observe('sent again after a 429/503, once the wait it asked for was over', run.resent);
  if (run.limited > 0) ctx.observe('answered 429/503 every time they were sent (not judged)', run.limited);
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

/**
 * The provocation of a catalogue rule: the surface's shared catalogue run (sent by whichever rule
 * asks first). Returns its exchanges, which the rule's judgement judges; the first aspect reports the run.
 */
export function provokeCatalogue(surface: EndpointSurface | 'mcp', aspect: Aspect) {
  return async (ctx: CheckContext): Promise<readonly Exchange[]> => {
    const run = await sharedCatalogue(ctx, surface);
    if (aspect === 'no-5xx') observeRun(ctx, run);
    // Nothing sent, not nothing answered: cases sent and left unanswered are the judgement's to call inconclusive.
    if (!ctx.profile.safety.allowMutations && run.sent === 0) ctx.notApplicable(`no catalogue case of this kind is a read (${run.skipped.join('; ')})`);
    return run.exchanges;
  };
}
