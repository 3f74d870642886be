/**
 * Idempotency storm: each iteration fires STORM concurrent creates with one key and one body, then
 * STORM creates with the same key and other bodies. Every accepted create must name one mission;
 * every other body must get 409.
 */
import { check } from 'k6';
import http from 'k6/http';
import { Rate } from 'k6/metrics';
import type { Options } from 'k6/options';
import { judgeConflicts, judgeIdempotencyStorm } from '../src/load/verdicts.ts';
import { authHeaders, BASE_URL, bodyText, ITERATIONS, MAX_DURATION, MISSION_BODY, newKey } from './lib/config.ts';

const STORM = Number(__ENV.APICERT_STORM ?? 20);
const verdicts = new Rate('apicert_verdict_ok');

export const options: Options = {
  scenarios: { storm: { executor: 'shared-iterations', vus: 1, iterations: ITERATIONS, maxDuration: MAX_DURATION } },
  batch: STORM,
  batchPerHost: STORM,
  thresholds: { apicert_verdict_ok: ['rate==1'] },
};

export default function storm(): void {
  const key = newKey('apicert-storm');
  const headers = authHeaders({ 'Content-Type': 'application/json', 'Idempotency-Key': key });
  const same = http.batch(Array.from({ length: STORM }, () => ({ method: 'POST', url: `${BASE_URL}/v8/missions`, body: JSON.stringify(MISSION_BODY), params: { headers } })));
  const replay = judgeIdempotencyStorm(same.map((r) => ({ status: r.status, body: bodyText(r.body) })));
  const changed = http.batch(
    Array.from({ length: STORM }, (_, i) => ({
      method: 'POST',
      url: `${BASE_URL}/v8/missions`,
      body: JSON.stringify({ ...(MISSION_BODY as Record<string, unknown>), apicertVariant: i }),
      params: { headers },
    })),
  );
  const conflicts = judgeConflicts(changed.map((r) => ({ status: r.status, body: bodyText(r.body) })));
  verdicts.add(replay.ok);
  verdicts.add(conflicts.ok);
  check(replay, { [`one mission per key: ${replay.summary}`]: (v) => v.ok });
  check(conflicts, { [`other bodies get 409: ${conflicts.summary}`]: (v) => v.ok });
}
