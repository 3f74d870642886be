/**
 * The deep phase's random combinations: two operators' changes on one endpoint in one request (the
 * headers of both, the query of both, the body of the second), drawn from the run's seed so the
 * same --seed sends the same pairs. Their expectation is derived from the request as sent and open
 * wherever either change is.
 */
import type { ProbeRequest } from '../../rule/index.ts';
import type { Case } from './types.ts';
import { seeded } from '../../util/seeded.ts';

function combine(a: ProbeRequest, b: ProbeRequest): ProbeRequest {
  const query = b.path.includes('?') ? b.path.slice(b.path.indexOf('?') + 1) : '';
  const out: ProbeRequest = { ...a, headers: { ...a.headers, ...b.headers }, path: query ? `${a.path}${a.path.includes('?') ? '&' : '?'}${query}` : a.path };
  if (b.credential === null) out.credential = null;
  if (b.json !== undefined || b.rawBody !== undefined) {
    delete out.json;
    delete out.rawBody;
    if (b.json !== undefined) out.json = b.json;
    if (b.rawBody !== undefined) out.rawBody = b.rawBody;
  }
  return out;
}

export function randomPairs(cases: readonly Case[], room: number, seed: number): Case[] {
  const next = seeded(seed ^ 0x5eed);
  const byEndpoint = new Map<string, Case[]>();
  for (const c of cases) if (c.sent.kind === 'http' && !c.stated && !c.same) byEndpoint.set(c.endpoint, [...(byEndpoint.get(c.endpoint) ?? []), c]);
  const groups = [...byEndpoint.values()].filter((g) => g.length > 1);
  const out: Case[] = [];
  for (let i = 0; i < room && groups.length > 0; i += 1) {
    const group = groups[Math.floor(next() * groups.length)]!;
    const a = group[Math.floor(next() * group.length)]!;
    const b = group[Math.floor(next() * group.length)]!;
    if (a === b || a.sent.kind !== 'http' || b.sent.kind !== 'http') continue;
    out.push({ ...a, operator: `${a.operator}+${b.operator}`, label: `${a.label} + ${b.label}`, sent: { kind: 'http', request: combine(a.sent.request, b.sent.request) }, why: `${a.why ?? ''}; ${b.why ?? ''}` });
  }
  return out;
}
