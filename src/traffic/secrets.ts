/**
 * Sensitive values redacted before an answer leaves the service: no answer of the surfaces may
 * carry one of the secrets the judgement knows (`j.secrets`: the profile's tokens; in a recording,
 * also what it shows was issued or accepted), other than the answer that issued it.
 */
import { SHORT_SECRET } from '../redact/redactor.ts';
import type { Judge } from '../rule/index.ts';
import { onSurface } from './read.ts';

export function judgeEchoedSecrets(j: Judge, surfaces: ReadonlyArray<'v8' | 'v1' | 'mcp'>): void {
  // A value this short turns up in ordinary text by chance: it is hidden, but not judged as an echo.
  const judged = j.secrets.filter((c) => c.value.length >= SHORT_SECRET);
  for (const ex of j.exchanges) {
    if (!surfaces.some((s) => onSurface(ex, s)) || ex.status === undefined) continue;
    const parts = [ex.responseBody ?? '', ...(ex.events ?? []).map((e) => e.data), ...Object.values(ex.responseHeaders)];
    const carried = judged.filter((c) => c.issuedBy !== ex.index && parts.some((p) => p.includes(c.value)));
    j.check(ex, carried.length === 0, `the answer carries ${carried.length} of the run's secrets (${[...new Set(carried.map((c) => c.label))].join(', ')})`);
  }
}
