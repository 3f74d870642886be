/** Judges the run's secret sightings: any response of a surface that carried one of the run's secrets. */
import type { CheckContext } from '../rule/index.ts';
import { SECRET_SIGHTINGS } from './redactor.ts';

/**
 * Fails on every exchange of the run (under `prefixes`) whose response carried a secret of the
 * run; each is named by method, redacted path and status, and the secret by its label only.
 */
export function judgeSightings(ctx: CheckContext, prefixes: readonly string[], surfaceName: string): void {
  const sightings = ctx.service(SECRET_SIGHTINGS);
  if (!sightings) ctx.untestable({ need: 'service', name: SECRET_SIGHTINGS.name, remedy: ctx.serviceMissing(SECRET_SIGHTINGS) ?? 'the run keeps no record of secret sightings' });
  const mine = sightings.filter((s) => prefixes.some((p) => s.path.startsWith(p)));
  const seen = new Set<string>();
  for (const s of mine) {
    const line = `${s.where} carried the run's secret ${s.label}`;
    if (seen.has(line)) continue;
    seen.add(line);
  }
  ctx.expect(seen.size === 0, `${seen.size} response(s) of ${surfaceName} carried one of the run's own secrets: ${[...seen].slice(0, 10).join('; ')}`);
}
