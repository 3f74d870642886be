/**
 * report.json has a schema a CI can validate before reading it: src/reports/schema.ts (zod), and
 * reports/report.schema.json generated from it. Every kind of report apicert writes validates with
 * both: the zod schema, and the committed JSON Schema under ajv (2020-12, formats checked), a
 * validator that shares no code with zod. A report that is not one is refused by both.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake } from '../../src/fake/server.ts';
import { withLoadResults } from '../../src/load/report.ts';
import { REPORT_VERSION, type Report } from '../../src/reports/model.ts';
import { REPORT_SCHEMA_ID, reportJsonSchemaText, reportSchema } from '../../src/reports/schema.ts';
import { certifyHostile } from '../hostile/certify-hostile.ts';
import { sampleClient, startSampleReceiver, TEST_SECRET } from '../other-side/support.ts';
import { apicertWritten as apicert } from '../support/in-process-cli.ts';

const SCHEMA_FILE = new URL('../../reports/report.schema.json', import.meta.url);
const committed = readFileSync(SCHEMA_FILE, 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'apicert-report-schema-'));
const at = (name: string) => join(dir, name);

// ajv-formats is CommonJS: its default export arrives as the module object under some loaders.
const formats = ((addFormats as unknown as { default?: typeof addFormats }).default ?? addFormats) as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = new Ajv2020({ strict: true, allErrors: true });
formats(ajv);
const ajvValidate = ajv.compile(JSON.parse(committed) as object);

/** What each validator says of a parsed report.json: nothing when both accept it. */
function problems(report: unknown): { zod: string[]; ajv: string[] } {
  const parsed = reportSchema.safeParse(report);
  const zod = parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  const json = ajvValidate(report) ? [] : (ajvValidate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  return { zod, ajv: json };
}

function written(folder: string): Report {
  return JSON.parse(readFileSync(join(folder, 'latest', 'report.json'), 'utf8')) as Report;
}

function expectValid(report: unknown): void {
  expect(problems(report)).toEqual({ zod: [], ajv: [] });
}

describe('reports/report.schema.json', () => {
  it('is what src/reports/schema.ts generates (npm run schema:report writes it)', () => {
    expect(committed).toBe(reportJsonSchemaText());
  });

  it('is JSON Schema 2020-12, names the reportVersion it describes, and that is the version apicert writes', () => {
    const schema = JSON.parse(committed) as Record<string, unknown>;
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe(REPORT_SCHEMA_ID);
    expect(REPORT_SCHEMA_ID.endsWith(`:${REPORT_VERSION}`)).toBe(true);
    expect(schema.title).toContain(`reportVersion ${REPORT_VERSION}`);
    expect((schema.properties as { reportVersion: unknown }).reportVersion).toEqual({ type: 'string', const: REPORT_VERSION });
  });
});

describe('every report apicert writes validates', async () => {
  // A clean certification of the whole catalogue, recorded, and the recording judged.
  const clean = await apicert('certify', '--out', at('clean'), '--har-out', at('clean.har'), '--seed', '5', '--quiet');
  const cleanReport = written(at('clean'));
  const passive = await apicert('judge-traffic', '--har', at('clean.har'), '--out', at('passive'), '--quiet');

  // Faults: failing cases with their evidence, a property's counterexample, a baseline (one entry
  // expected, one stale), an --exclude, --strict; then a --rerun of that report.
  const passing = cleanReport.rules.find((r) => r.id.startsWith('v1.webhooks.delivery.') && r.verdict === 'pass')!.id;
  writeFileSync(
    at('baseline.yaml'),
    `- rule: v8.missions.get.unknown-404\n  reason: known (TICKET-1)\n  expires: 2999-01-01\n- rule: ${passing}\n  reason: fixed since\n`,
  );
  const faults = await apicert(
    'certify',
    '--rules', `v8.missions.get.*,v8.memory.query.bounds,${passing}`,
    '--exclude', 'v8.missions.get.ok',
    '--faults', 'v8.missions.get.unknown-404/server-error,v8.memory.query.bounds/limit-51',
    '--baseline', at('baseline.yaml'),
    '--strict', '--seed', '99', '--out', at('faults'), '--quiet',
  );
  const rerun = await apicert('certify', '--rerun', join(at('faults'), 'latest', 'report.json'), '--out', at('rerun'), '--quiet');
  const mcp = await apicert('certify', '--surface', 'mcp', '--out', at('mcp'), '--quiet');

  // A remote target whose profile lacks the fixtures some rules need: untestable, allowed.
  const fake = await startFake({});
  const profile = embeddedProfile(fake);
  delete (profile.fixtures.v1 as { approval?: unknown }).approval;
  delete (profile.fixtures.mcp as { safeTool?: unknown }).safeTool;
  writeFileSync(at('profile.json'), JSON.stringify(profile), { mode: 0o600 });
  const untestable = await apicert('certify', '--profile', at('profile.json'), '--rules', 'v1.runs.approve.*,mcp.sse.*,v8.missions.get.ok', '--allow-untestable', '--out', at('untestable'), '--quiet').finally(() => fake.close());

  it('a clean certification of the fake, every rule', () => {
    expect(clean.code, clean.err).toBe(0);
    expect(cleanReport.summary.gate).toBe('pass');
    expect(cleanReport.observations.length).toBeGreaterThan(0);
    expectValid(cleanReport);
  });

  it('judge-traffic of its recording', () => {
    expect([0, 1, 3], passive.err).toContain(passive.code);
    const report = written(at('passive'));
    expect(report.run.mode).toBe('passive');
    expectValid(report);
  });

  it('a run with faults: failing cases, evidence, a counterexample, a baseline, an exclusion; and its --rerun', () => {
    expect(faults.code, faults.err).toBe(1);
    const report = written(at('faults'));
    const failed = report.rules.filter((r) => r.verdict === 'fail');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.some((r) => r.cases.some((c) => c.counterexample !== undefined))).toBe(true);
    expect(failed.every((r) => r.evidence.length > 0 && r.rerun !== undefined)).toBe(true);
    expect(report.rules.map((r) => r.baseline?.status).sort()).toContain('expected');
    expect(report.summary.staleBaseline).toEqual([passing]);
    expect(report.excluded?.map((e) => e.id)).toEqual(['v8.missions.get.ok']);
    expect(report.run.selection?.exclude).toEqual(['v8.missions.get.ok']);
    expectValid(report);
    expect(rerun.code, rerun.err).not.toBe(2);
    const again = written(at('rerun'));
    expect(again.run.selection?.rerunOf?.digest).toBe(report.digest);
    expectValid(again);
  });

  it('a --surface mcp selection', () => {
    expect(mcp.code, mcp.err).toBe(0);
    const report = written(at('mcp'));
    expect(report.run.selection?.surfaces).toEqual(['mcp']);
    expectValid(report);
  });

  it('a run with untestable rules, allowed, against a remote target', () => {
    expect(untestable.code, untestable.out + untestable.err).toBe(0);
    const report = written(at('untestable'));
    expect(report.target.kind).toBe('remote');
    expect(report.target.profileFingerprint).toMatch(/^sha256:/);
    expect(report.rules.some((r) => r.verdict === 'untestable')).toBe(true);
    expectValid(report);
  });

  it('a load run folded into the report (apicert load writes it through the same model)', () => {
    const report = withLoadResults(cleanReport, [{ id: 'load.v8.idempotency.storm-one-mission', verdict: 'pass', reason: 'one mission', figures: { http_reqs: { count: 40, min: 1, max: 2, avg: 1.5 } } }], {
      version: cleanReport.harness.version,
      target: cleanReport.target,
      startedAt: new Date(cleanReport.run.startedAt),
      finishedAt: new Date(cleanReport.run.finishedAt),
      requests: 40,
    });
    expectValid(JSON.parse(JSON.stringify(report)));
  });
});

describe('the other sides and hostile targets: their reports validate too', async () => {
  const receiver = await startSampleReceiver();
  const secret = process.env.APICERT_WEBHOOK_SECRET;
  process.env.APICERT_WEBHOOK_SECRET = TEST_SECRET;
  const receiverRun = await apicert('certify-receiver', '--url', receiver.url, '--out', at('receiver'), '--quiet').finally(() => {
    receiver.stop();
    if (secret === undefined) delete process.env.APICERT_WEBHOOK_SECRET;
    else process.env.APICERT_WEBHOOK_SECRET = secret;
  });
  const client = await apicert('judge-client', '--scenario', 'idempotency-conflict', '--time-scale', '0.02', '--out', at('client'), '--quiet', '--', ...sampleClient());
  // No answer at all (every rule inconclusive, the run stopped), and answers that are not UTF-8.
  const [silent, garbled] = await Promise.all(
    (['no-answer', 'invalid-utf8'] as const).map((mode) => certifyHostile(mode, { deadline: '8s', rules: 'v8.missions.get.*,v8.errors.problem-shape,mcp.session.*', killAfterMs: 50_000 })),
  );

  it('certify-receiver', () => {
    expect(receiverRun.code, receiverRun.out + receiverRun.err).toBe(0);
    expectValid(written(at('receiver')));
  });

  it('judge-client', () => {
    expect([0, 1], client.out + client.err).toContain(client.code);
    const report = written(at('client'));
    expect(report.run.selection?.scenarios).toEqual(['idempotency-conflict']);
    expectValid(report);
  });

  it('a target that never answers: inconclusive, the run stopped', () => {
    expect(silent!.exitCode, silent!.outputs.stderr).toBe(3);
    const report = JSON.parse(silent!.outputs['report.json']!) as Report;
    expect(report.run.stopped).toBeDefined();
    expect(report.rules.every((r) => r.verdict === 'inconclusive')).toBe(true);
    expectValid(report);
  });

  it('a target whose answers are not UTF-8', () => {
    expect(garbled!.outputs['report.json'], garbled!.outputs.stderr).toBeDefined();
    expectValid(JSON.parse(garbled!.outputs['report.json']!));
  });
}, 180_000);

describe('what is not a report is refused by both validators', async () => {
  const base = written(at('faults'));
  const copy = (): Report => JSON.parse(JSON.stringify(base)) as Report;
  const failing = base.rules.findIndex((r) => r.verdict === 'fail' && r.evidence.length > 0);

  it.each<[string, (r: Record<string, any>) => void]>([
    ['a verdict apicert never reports', (r) => (r.rules[failing].verdict = 'passed')],
    ['no digest', (r) => delete r.digest],
    ['a digest that is not sha256:<hex>', (r) => (r.digest = 'sha256:XYZ')],
    ['an extra top-level member ($schema included)', (r) => (r.$schema = 'urn:apicert:report:1.1')],
    ['an extra member in a closed object (an evidence entry)', (r) => (r.rules[failing].evidence[0].note = 'added')],
    ['a verdict count missing', (r) => delete r.summary.required.untestable],
    ['another reportVersion', (r) => (r.reportVersion = '1.0')],
    ['a start that is no ISO instant', (r) => (r.run.startedAt = 'yesterday')],
    ['a negative count', (r) => (r.rules[failing].evidenceOmitted = -1)],
  ])('%s', (_what, spoil) => {
    const report = copy() as unknown as Record<string, any>;
    spoil(report);
    const found = problems(report);
    expect(found.zod).not.toEqual([]);
    expect(found.ajv).not.toEqual([]);
  });

  it('accepts any JSON where apicert promises no shape: an observed value, a header', () => {
    const report = copy() as unknown as Record<string, any>;
    report.observations.push({ ruleId: 'v8.x', subject: 'anything', value: { nested: [1, 'two', null, { deep: true }] } });
    report.rules[failing].evidence[0].response.headers['x-whatever-the-target-sends'] = 'value';
    expectValid(report);
  });
});
