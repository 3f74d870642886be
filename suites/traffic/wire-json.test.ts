/**
 * Request bodies a deployment may read either way are neither "valid" nor "malformed" (helper-140's
 * audit, F1, F2, F6). F1: a body naming a member twice (RFC 8259 §4: names "SHOULD be unique", and
 * what software does with such an object "is unpredictable") looked valid to the operation rules,
 * because JSON.parse keeps the last of the two: a deployment answering 400 failed
 * v8.missions.create.accepted and more. F2: v8.missions.create.malformed-json and
 * mcp.jsonrpc.parse-error took every body `parseJson` did not read for malformed JSON, also valid
 * JSON nested past MAX_JSON_DEPTH and JSON led by a byte order mark, which a parser "MAY ignore"
 * (§8.1). F6: a JSON body labelled `charset=latin-1` is open, as the catalogue's `encoding.charset`
 * and `openWireForm` hold it: RFC 8259 §11 says the parameter "really has no effect on compliant
 * recipients", §8.1 that JSON between systems "MUST be encoded using UTF-8", and a common reading
 * (Express's body parser) refuses such a label with 415. A generated must-accept held it must be read.
 */
import { describe, expect, it } from 'vitest';
import { judgeRecording } from '../../src/passive/judge.ts';
import { parseProfile } from '../../src/profile/load.ts';
import type { Exchange } from '../../src/rule/index.ts';
import { openWireForm, requestJson } from '../../src/traffic/read.ts';
import { MAX_JSON_DEPTH, namesMemberTwice, noParserReads } from '../../src/util/json.ts';
import { expectationOf } from '../../src/checks/generated/expectation.ts';
import { json as mcpJson, operating, post, verdictOf as mcpVerdictOf } from '../mcp/mcp-recording.ts';

const twice = (text: string) => namesMemberTwice(text, JSON.parse(text));

describe('namesMemberTwice', () => {
  it('finds a name given twice in one object, however the text is spaced or escaped, at any depth', () => {
    expect(twice('{"a":1,"a":2}')).toBe(true);
    expect(twice('{ "a": 1,\n  "b": { "c": [ {"d":1, "d":1} ] } }')).toBe(true);
    expect(twice('{"a":1,"\\u0061":2}')).toBe(true);
    expect(twice('[{"x":{"k":"v","k":"w"}}]')).toBe(true);
  });

  it('leaves alone texts whose names are unique per object: the same name in sibling objects, in strings, or written by JSON.stringify', () => {
    expect(twice('{"a":1,"b":{"a":1},"c":[{"a":1},{"a":2}]}')).toBe(false);
    expect(twice('{ "a": "\\"a\\": 1, \\"a\\": 2", "b": "{\\"a\\":1}" }')).toBe(false);
    expect(twice(JSON.stringify({ goalSpec: { task: 'x' }, resourceBudget: { maximumSteps: 1 } }))).toBe(false);
    expect(twice('"a"')).toBe(false);
    expect(twice('[1, 2, 2]')).toBe(false);
    expect(twice('{"__proto__":{"a":1},"b":"x:y","c":"\\\\"}')).toBe(false);
    expect(twice('{"__proto__":1,"__proto__":2}')).toBe(true);
  });
});

describe('noParserReads (malformed: no conforming or permitted parser reads it)', () => {
  const deep = `{"apicertDeep":${'['.repeat(MAX_JSON_DEPTH * 2)}${']'.repeat(MAX_JSON_DEPTH * 2)},"a":1}`;

  it('a text cut short, plain text, and a BOM before no JSON are malformed', () => {
    for (const text of ['{"goalSpec": {"task": "x"}, "resourceBudget": ', 'not json at all', '\ufeffnot json', `${'['.repeat(MAX_JSON_DEPTH * 2)}`, '{"a":1}x']) expect(noParserReads(text), text.slice(0, 30)).toBe(true);
  });

  it('valid JSON nested past the depth apicert parses to, and JSON after a byte order mark, are not', () => {
    expect(noParserReads(deep)).toBe(false);
    expect(noParserReads('\ufeff{"a":1}')).toBe(false);
    expect(noParserReads('{"a":1}')).toBe(false);
  });
});

const BASE = 'https://gateway.example.test';
const TOKEN = 'tok-missions-0000142';
const RUN = '01970000-0000-7000-8000-000000000142';
const valid = { goalSpec: { task: 'compare two reports' }, resourceBudget: { maximumSteps: 10, maximumToolCalls: 5, maximumElapsedMs: 60_000, maximumParallelism: 1 } };
const profile = parseProfile(
  {
    target: BASE,
    credentials: [{ name: 'writer', token: TOKEN, surfaces: ['v8'], scopes: ['missions:write', 'missions:read'], principal: 'alice' }],
    fixtures: { v8: { missions: { succeeds: valid } } },
  },
  'helper-142 missions profile',
);

let keys = 0;
/** A create sending `text` under a fresh Idempotency-Key, answered `status` (a projection for a 202, a problem otherwise). */
function create(text: string, status: number, headers: Record<string, string> = {}): Exchange {
  keys += 1;
  const answer = status === 202 ? { runId: RUN, status: 'running', sequence: 1, steps: [] } : { type: 'about:blank', title: 'Bad Request', status };
  return {
    index: 0,
    startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, keys)).toISOString(),
    durationMs: 10,
    method: 'POST',
    url: `${BASE}/v8/missions`,
    path: '/v8/missions',
    requestHeaders: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'idempotency-key': `create-key-0142-${String(keys).padStart(4, '0')}`, ...headers },
    requestBody: text,
    status,
    responseHeaders: { 'content-type': status === 202 ? 'application/json' : 'application/problem+json', 'x-service-contract-version': 'service-integration-gateway-v8.1' },
    responseBody: JSON.stringify(answer),
  } as Exchange;
}

async function verdict(rule: string, exchanges: Exchange[]) {
  const { results } = await judgeRecording(
    exchanges.map((e, index) => ({ ...e, index })),
    { surfaces: ['v8'], patterns: [rule], profile, env: {} },
  );
  expect(results).toHaveLength(1);
  return results[0]!;
}

const compact = JSON.stringify(valid);
const duplicate = `{${compact.slice(1, -1)},"goalSpec":${JSON.stringify(valid.goalSpec)}}`;

describe('F1: a body naming a member twice is an open wire form for every rule', () => {
  it('requestJson reads no plain JSON in it, and openWireForm names it', () => {
    const ex = create(duplicate, 400);
    expect(requestJson(ex)).toBeUndefined();
    expect(openWireForm(ex)).toBe(true);
    const plain = create(compact, 202);
    expect(requestJson(plain)).toEqual(valid);
    expect(openWireForm(plain)).toBe(false);
    const pretty = create(JSON.stringify(valid, null, 2), 202);
    expect(requestJson(pretty)).toEqual(valid);
    expect(openWireForm(pretty)).toBe(false);
  });

  it('v8.missions.create.accepted: a create naming goalSpec twice answered 400 beside a valid create answered 202 passes', async () => {
    const result = await verdict('v8.missions.create.accepted', [create(compact, 202), create(duplicate, 400)]);
    expect(result.verdict, result.reason).toBe('pass');
  });

  it('a plain valid create answered 400 still fails', async () => {
    const result = await verdict('v8.missions.create.accepted', [create(compact, 202), create(JSON.stringify(valid, null, 1), 400)]);
    expect(result.verdict, result.reason).toBe('fail');
  });
});

describe('F2: v8.missions.create.malformed-json judges only bodies no parser reads', () => {
  const inner = compact.slice(1, -1);
  const deep = `{"apicertDeep":${'['.repeat(512)}${']'.repeat(512)},${inner}}`;

  it('valid JSON nested 512 deep, or led by a byte order mark, answered 202 is no failure', async () => {
    const result = await verdict('v8.missions.create.malformed-json', [create('not json at all', 400), create(deep, 202), create(`\ufeff${compact}`, 202)]);
    expect(result.verdict, result.reason).toBe('pass');
  });

  it('a text cut short answered 202 still fails', async () => {
    const result = await verdict('v8.missions.create.malformed-json', [create('{"goalSpec": {"task": "x"}, "resourceBudget": ', 202)]);
    expect(result.verdict, result.reason).toBe('fail');
  });
});

describe('F2: mcp.jsonrpc.parse-error judges only bodies no parser reads', () => {
  const S = 'session-142';
  const pong = (id: string) => mcpJson(200, { jsonrpc: '2.0', id, result: {} }, { 'mcp-session-id': S });
  const parseError = mcpJson(200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });

  it('a ping led by a byte order mark, or nested past the parse depth, answered as a ping is no failure', async () => {
    const deep = `{"jsonrpc":"2.0","id":"p2","method":"ping","params":{"apicertDeep":${'['.repeat(512)}${']'.repeat(512)}}}`;
    const parts = [...operating(S), { ...post('this is not json', S), ...parseError }, { ...post(`\ufeff${JSON.stringify({ jsonrpc: '2.0', id: 'p1', method: 'ping' })}`, S), ...pong('p1') }, { ...post(deep, S), ...pong('p2') }];
    expect(await mcpVerdictOf(parts, 'mcp.jsonrpc.parse-error')).toBe('pass');
  });

  it('plain text answered with a result still fails', async () => {
    expect(await mcpVerdictOf([...operating(S), { ...post('this is not json', S), ...pong('p1') }], 'mcp.jsonrpc.parse-error')).toBe('fail');
  });
});

describe('F6: a JSON body labelled with a charset other than UTF-8 is open; charset=utf-8 stays must-accept', () => {
  const sent = (contentType: string) => ({ method: 'POST', path: '/v8/missions', headers: { 'content-type': contentType, 'idempotency-key': 'create-key-0142-f6f6' }, credential: 'writer', body: compact, json: valid });

  it('charset=latin-1 is open, saying both RFC 8259 sentences', () => {
    const e = expectationOf(sent('application/json; charset=latin-1'));
    expect(e.kind).toBe('open');
    expect(e.kind === 'open' && e.why).toMatch(/§11 .*no effect on compliant recipients.*§8\.1 .*MUST be encoded using UTF-8/);
  });

  it('charset=utf-8 is accepted, citing §11 for the parameter', () => {
    const e = expectationOf(sent('application/json; charset=UTF-8'));
    expect(e.kind).toBe('accept');
    expect(e.kind === 'accept' && e.constraint).toMatch(/RFC 8259 §11: .*Adding one really has no effect on compliant recipients/);
  });

  it('without a charset parameter the reason stays the Endpoints line alone', () => {
    const e = expectationOf(sent('application/json'));
    expect(e.kind === 'accept' && e.constraint).not.toMatch(/RFC 8259/);
  });
});
