/**
 * Sensitive values redacted before an answer leaves the service: no answer of the surfaces may
 * carry one of the secrets the judgement knows (`j.secrets`: the profile's tokens; in a recording,
 * also what it shows was issued or accepted), other than the answer that issued it.
 */
import { locatorFor, type CarriedSecret } from './secret-locator.ts';
import { SHORT_SECRET } from '../redact/redactor.ts';
import type { Exchange, Judge } from '../rule/index.ts';
import { onSurface } from './read.ts';

/**
 * Each answer is read once for all the secrets (secret-locator.ts, linear whatever they look
 * like), and a failure names each secret by label and where it stood.
 */
export function judgeEchoedSecrets(j: Judge, surfaces: ReadonlyArray<'v8' | 'v1' | 'mcp'>): void {
  judgeEchoedSecretsWhere(j, (ex) => onSurfaces(ex, surfaces));
}

/** `judgeEchoedSecrets` over the answers `picks` selects (by the request): an MCP endpoint may be mounted at any path. */
export function judgeEchoedSecretsWhere(j: Judge, picks: (ex: Exchange) => boolean): void {
  // A value this short turns up in ordinary text by chance: it is hidden, but not judged as an echo.
  const locator = locatorFor(j.secrets, SHORT_SECRET);
  for (const ex of j.exchanges) {
    if (ex.status === undefined || !picks(ex)) continue;
    const carried = locator.carried(ex);
    j.check(ex, carried.length === 0, carried.length === 0 ? CARRIES_NONE : carries(carried));
  }
}

function onSurfaces(ex: Exchange, surfaces: ReadonlyArray<'v8' | 'v1' | 'mcp'>): boolean {
  for (const s of surfaces) if (onSurface(ex, s)) return true;
  return false;
}

function carries(carried: readonly CarriedSecret[]): string {
  return `the answer carries ${carried.length === 1 ? "one of the run's secrets" : `${carried.length} of the run's secrets`}: ${carried.slice(0, 5).map((c) => `${c.label} in its ${c.where}`).join('; ')}`;
}

/** The case of an answer that carries none (what `carries` says of none), written once. */
const CARRIES_NONE = carries([]);
