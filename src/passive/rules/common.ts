/** No echoed credential: every answer of a surface is held to it (problem shapes and headers are their rules' own judgements now). */
import { SHORT_SECRET } from '../../redact/redactor.ts';
import { onSurface } from '../endpoints.ts';
import type { Judgement, PassiveRule } from '../judging.ts';


/** Every learned credential a response of the surfaces carries, other than in the answer that issued it. */
function judgeEchoedSecrets(j: Judgement, surfaces: ReadonlyArray<'v8' | 'v1' | 'mcp'>): void {
  // A value this short turns up in ordinary text by chance: it is hidden, but not judged as an echo.
  const judged = j.recording.credentials.filter((c) => c.value.length >= SHORT_SECRET);
  if (judged.length === 0) return;
  for (const ex of j.exchanges) {
    if (!surfaces.some((s) => onSurface(ex, s)) || ex.status === undefined) continue;
    const parts = [ex.responseBody ?? '', ...Object.values(ex.responseHeaders)];
    const carried = judged.filter((c) => c.issuedBy !== ex.index && parts.some((p) => p.includes(c.value)));
    j.check(ex, carried.length === 0, `the answer carries ${carried.length} of the recording's secrets (${[...new Set(carried.map((c) => c.label))].join(', ')})`);
  }
}

export const secretRules: PassiveRule[] = [
  { id: 'v1.auth.run-secrets', record: 'answered /v1 requests carrying an Authorization header', judge: (j) => judgeEchoedSecrets(j, ['v1']) },
];
