/**
 * Stream fan-out: each iteration creates a mission and has READERS clients follow its event stream
 * at once. k6 returns a stream when the server closes it, which the gateway does after the
 * terminal event; every reader must see the same events.
 */
import { check } from 'k6';
import http from 'k6/http';
import { Rate } from 'k6/metrics';
import type { Options } from 'k6/options';
import { parseEventStreamText } from '../src/sse/text.ts';
import { judgeFanout } from '../src/load/verdicts.ts';
import { authHeaders, BASE_URL, bodyText, ITERATIONS, MAX_DURATION, MISSION_BODY, newKey } from './lib/config.ts';

const READERS = Number(__ENV.APICERT_READERS ?? 25);
const verdicts = new Rate('apicert_verdict_ok');

export const options: Options = {
  scenarios: { fanout: { executor: 'shared-iterations', vus: 1, iterations: ITERATIONS, maxDuration: MAX_DURATION } },
  batch: READERS,
  batchPerHost: READERS,
  thresholds: { apicert_verdict_ok: ['rate==1'] },
};

export default function fanout(): void {
  const created = http.post(`${BASE_URL}/v8/missions`, JSON.stringify(MISSION_BODY), {
    headers: authHeaders({ 'Content-Type': 'application/json', 'Idempotency-Key': newKey('apicert-fanout') }),
  });
  if (!check(created, { 'mission created (202)': (r) => r.status === 202 })) {
    verdicts.add(false);
    return;
  }
  const runId = (JSON.parse(bodyText(created.body)) as { runId: string }).runId;
  const streams = http.batch(
    Array.from({ length: READERS }, () => ({
      method: 'GET',
      url: `${BASE_URL}/v8/missions/${runId}/events`,
      params: { headers: authHeaders({ Accept: 'text/event-stream' }), timeout: '30s' },
    })),
  );
  const verdict = judgeFanout(streams.filter((s) => s.status === 200).map((s) => parseEventStreamText(bodyText(s.body)).events));
  const allOpened = streams.every((s) => s.status === 200);
  verdicts.add(verdict.ok && allOpened);
  check(verdict, { [`readers agree: ${verdict.summary}`]: (v) => v.ok && allOpened });
}
