/**
 * Rate-limit probe: one client reads a mission as fast as it can, up to BURST requests, and stops
 * at the first 429. The seed states a per-principal limit exists but not its numbers, so this
 * records where it starts and whether Retry-After comes with it.
 */
import { check } from 'k6';
import http from 'k6/http';
import { Counter } from 'k6/metrics';
import type { Options } from 'k6/options';
import { summariseBurst } from '../src/load/verdicts.ts';
import { authHeaders, BASE_URL, bodyText, MAX_DURATION, MISSION_BODY, newKey } from './lib/config.ts';

const BURST = Number(__ENV.APICERT_BURST ?? 300);
const limited = new Counter('apicert_rate_limited');

export const options: Options = {
  scenarios: { burst: { executor: 'shared-iterations', vus: 1, iterations: 1, maxDuration: MAX_DURATION } },
};

export default function burst(): void {
  const created = http.post(`${BASE_URL}/v8/missions`, JSON.stringify(MISSION_BODY), {
    headers: authHeaders({ 'Content-Type': 'application/json', 'Idempotency-Key': newKey('apicert-burst') }),
  });
  const runId = (JSON.parse(bodyText(created.body)) as { runId: string }).runId;
  const seen: Array<{ status: number; retryAfter?: string }> = [];
  for (let i = 0; i < BURST; i += 1) {
    const res = http.get(`${BASE_URL}/v8/missions/${runId}`, { headers: authHeaders() });
    const retryAfter = res.headers['Retry-After'];
    seen.push(retryAfter === undefined ? { status: res.status } : { status: res.status, retryAfter });
    if (res.status === 429) break;
  }
  const summary = summariseBurst(seen);
  if (summary.firstLimitedAt !== undefined) limited.add(1);
  console.log(`apicert burst: ${JSON.stringify(summary)}`);
  check(summary, {
    'a 429 carries a numeric Retry-After': (s) => s.firstLimitedAt === undefined || /^\d+$/.test(s.retryAfter ?? ''),
  });
}
