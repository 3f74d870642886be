import { describe, expect, it } from 'vitest';
import { CanarySet, redactionMarkers } from '../../src/checks/v8/redaction/canaries.ts';

describe('canary set', () => {
  it('makes each canary unique to the run and to its slot', () => {
    const a = new CanarySet();
    const b = new CanarySet();
    expect(a.tag).not.toBe(b.tag);
    const first = a.plant('secret-field', 'goalSpec.apiKey');
    const second = a.plant('secret-field', 'goalSpec.password');
    expect(first).not.toBe(second);
    expect(b.findIn(first)).toEqual([]);
  });

  it('shapes canaries as the credentials they stand for', () => {
    const c = new CanarySet('t1');
    expect(c.plant('bearer', 'x')).toMatch(/^Bearer \S+$/);
    expect(c.plant('private-key', 'x')).toMatch(/^-----BEGIN PRIVATE KEY-----\n.+\n-----END PRIVATE KEY-----$/);
    expect(c.plant('api-key', 'x')).toMatch(/^sk_live_[A-Za-z0-9_-]+$/);
    expect(c.plant('free-text', 'x')).toMatch(/ .*apicert-canary-t1-4x.* /);
  });

  it('does not mistake slot 1 for slot 10', () => {
    const c = new CanarySet('t2');
    const values = Array.from({ length: 10 }, (_, i) => c.plant('secret-field', `slot ${i + 1}`));
    const found = c.findIn(`echo: ${values[9]}`);
    expect(found.map((p) => p.plantedAt)).toEqual(['slot 10']);
  });

  it('names the JSON path a canary comes back at, in values and in keys', () => {
    const c = new CanarySet('t3');
    const secret = c.plant('secret-field', 'goalSpec.apiKey');
    const body = JSON.stringify({ steps: [{ input: { goalSpec: { apiKey: secret } } }], [secret]: 1 });
    const sightings = c.scan('GET /v8/traces/t', body);
    expect(sightings.map((s) => s.path).sort()).toEqual(['(key apicert-canary-t3-1x)', 'steps[0].input.goalSpec.apiKey']);
    expect(sightings.every((s) => s.where === 'GET /v8/traces/t' && s.plantedAt === 'goalSpec.apiKey')).toBe(true);
  });

  it('finds canaries in bodies that are not JSON, and nothing in clean ones', () => {
    const c = new CanarySet('t4');
    const key = c.plant('private-key', 'signal payload');
    expect(c.scan('stream', `data: ${key}`).map((s) => s.path)).toEqual(['(text)']);
    expect(c.scan('stream', JSON.stringify({ apiKey: '[REDACTED]' }))).toEqual([]);
  });

  it('records the redaction markers a body uses', () => {
    expect(redactionMarkers('{"apiKey":"[REDACTED]","token":"«redacted»"}')).toEqual(['[REDACTED]', '«redacted»']);
    expect(redactionMarkers('{"apiKey":"ok"}')).toEqual([]);
  });
});
