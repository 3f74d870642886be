/**
 * The schema of report.json, so a CI or a certifier's tooling can refuse a file that is not a report
 * before reading it. zod is the source; `reports/report.schema.json` (JSON Schema 2020-12) is
 * generated from it (`npm run schema:report`), and a test fails when the two differ.
 *
 * Closed where the model is: every object apicert builds has exactly the members of its interface
 * in model.ts and src/rule, so a misspelt or foreign member is refused. Open only where apicert
 * promises nothing: what an observation or a counterexample holds (any JSON the target's answers
 * gave), header names and values, and the families of `run.requestsByFamily`.
 *
 * Numbers apicert counts are integers; durations and a status read from a recording are any number,
 * as the model types them. Strings the target or a recording gave are bounded by nothing here.
 */
import { z } from 'zod';
import type { Report } from './model.ts';
import { LEVELS, SPEC_DOCUMENTS, SURFACES, VERDICTS } from '../rule/types.ts';

/**
 * The reportVersion this schema describes. Written out rather than imported from model.ts, so a new
 * REPORT_VERSION fails tsc below until the schema is looked at again (and regenerated).
 */
export const SCHEMA_REPORT_VERSION = '1.1';
export const REPORT_SCHEMA_ID = `urn:apicert:report:${SCHEMA_REPORT_VERSION}`;

const count = z.int().nonnegative();
const sha256 = z.string().regex(/^sha256:[0-9a-f]{64}$/).meta({ id: 'Sha256' });
/** Date#toISOString, as every producer writes the run's times. */
const instant = z.iso.datetime();
/** Any JSON value: apicert records what it saw and says nothing of its shape. */
const anyJson = z.unknown().meta({ description: 'Any JSON value: what apicert saw, of no shape it promises.' });
const headers = z.record(z.string(), z.string()).meta({ id: 'Headers', description: 'Lower-cased names; repeated headers joined with ", "; redacted.' });

const surface = z.enum(SURFACES).meta({ id: 'Surface' });
const level = z.enum(LEVELS).meta({ id: 'Level' });
const verdict = z.enum(VERDICTS).meta({ id: 'Verdict' });

const spec = z.strictObject({
  document: z.enum(SPEC_DOCUMENTS),
  section: z.string(),
  quote: z.string(),
  url: z.string().optional(),
}).meta({ id: 'SpecReference', description: 'The sentence a rule enforces, verbatim, and where it stands.' });

const counterexample = z.strictObject({
  seed: z.int(),
  path: z.string().nullable(),
  numRuns: count,
  value: anyJson,
}).meta({ id: 'Counterexample' });

const evidenceEntry = z.strictObject({
  label: z.string().optional(),
  request: z.strictObject({ method: z.string(), url: z.string(), headers, body: z.string().optional() }),
  response: z
    .strictObject({
      // A recording may hold any number here (a browser writes 0 for no answer).
      status: z.number(),
      headers,
      body: z.string().optional(),
      bodyTruncated: z.boolean().optional(),
      events: z.array(z.strictObject({ id: z.string().optional(), event: z.string().optional(), data: z.string() })).optional(),
      eventsTruncated: count.optional(),
      closedBy: z.enum(['server', 'client-disconnect', 'timeout', 'grace-expired', 'byte-limit', 'event-limit']).optional(),
    })
    .optional(),
  error: z.string().optional(),
  durationMs: z.number(),
  curl: z.string(),
  direction: z.enum(['sent', 'received']).optional(),
}).meta({ id: 'EvidenceEntry', description: 'One exchange as the report keeps it; every string has been through the redactor.' });

const failingCase = z.strictObject({
  reason: z.string(),
  exchange: count.optional(),
  counterexample: counterexample.optional(),
}).meta({ id: 'FailingCase' });

const reportRule = z.strictObject({
  id: z.string().min(1),
  title: z.string(),
  surface,
  level,
  destructive: z.enum(['read', 'mutate']),
  spec,
  verdict,
  reason: z.string().optional(),
  durationMs: z.number(),
  evidence: z.array(evidenceEntry),
  evidenceOmitted: count,
  counterexample: counterexample.optional(),
  cases: z.array(failingCase),
  casesOmitted: count,
  rerun: z.string().optional(),
  baseline: z.strictObject({ reason: z.string(), expires: z.string().optional(), status: z.enum(['expected', 'stale']) }).optional(),
  exchanges: count.optional(),
  requests: count.optional(),
}).meta({ id: 'ReportRule' });

const excludedRule = z.strictObject({ id: z.string().min(1), title: z.string(), surface, level, excludedBy: z.string() }).meta({ id: 'ExcludedRule' });

const observation = z.strictObject({ ruleId: z.string(), subject: z.string(), value: anyJson, note: z.string().optional() }).meta({ id: 'Observation' });

const verdictCounts = z.strictObject({ pass: count, fail: count, 'not-applicable': count, untestable: count, inconclusive: count }).meta({ id: 'VerdictCounts' });

const selection = z.strictObject({
  catalogue: count,
  surfaces: z.array(surface).optional(),
  rules: z.array(z.string()).optional(),
  exclude: z.array(z.string()).optional(),
  scenarios: z.array(z.string()).optional(),
  rerunOf: z.strictObject({ report: z.string(), digest: z.string().optional() }).optional(),
}).meta({ id: 'RunSelection' });

export const reportSchema = z.strictObject({
  reportVersion: z.literal(SCHEMA_REPORT_VERSION),
  harness: z.strictObject({ name: z.literal('apicert'), version: z.string(), node: z.string(), rulesetHash: sha256 }),
  target: z.strictObject({
    baseUrl: z.string(),
    kind: z.enum(['embedded-fake', 'remote', 'container']),
    faults: z.array(z.string()).optional(),
    variants: z.array(z.string()).optional(),
    image: z.string().optional(),
    profileFingerprint: sha256.optional(),
  }),
  run: z.strictObject({
    startedAt: instant,
    finishedAt: instant,
    durationMs: z.number(),
    seed: z.int(),
    surfaces: z.array(surface),
    requests: count,
    allowUntestable: z.boolean(),
    baseline: z.strictObject({ file: z.string(), entries: count }).optional(),
    stopped: z.string().optional(),
    warnings: z.array(z.string()).optional(),
    mode: z.literal('passive').optional(),
    dropped: z.strictObject({ exchanges: count, limits: z.string() }).optional(),
    requestsByFamily: z.record(z.string(), count).optional(),
    selection: selection.optional(),
  }),
  summary: z.strictObject({
    required: verdictCounts,
    should: verdictCounts,
    observation: verdictCounts,
    gate: z.enum(['pass', 'fail', 'inconclusive', 'untestable']),
    strict: z.boolean(),
    selected: count,
    judged: count,
    warnings: z.array(z.string()),
    expectedFailures: z.array(z.string()),
    staleBaseline: z.array(z.string()),
  }),
  rules: z.array(reportRule),
  excluded: z.array(excludedRule).optional(),
  observations: z.array(observation),
  digest: sha256.meta({ description: 'SHA-256 over the canonical JSON of every other member (`apicert verify` checks it).' }),
});

/** report.json as JSON Schema 2020-12, what `reports/report.schema.json` holds. */
export function reportJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(reportSchema, { target: 'draft-2020-12', io: 'output', unrepresentable: 'throw' }) as Record<string, unknown>;
  const { $schema, ...rest } = schema;
  return {
    $schema,
    $id: REPORT_SCHEMA_ID,
    title: `apicert report.json, reportVersion ${SCHEMA_REPORT_VERSION}`,
    description: 'The report apicert writes for a run (certify, judge-traffic, proxy, judge-client, certify-receiver, load). The digest is SHA-256 over the canonical JSON of every other member; this schema checks the shape, `apicert verify` the digest.',
    ...rest,
  };
}

/** The text of `reports/report.schema.json`, as the script writes it and the test compares it. */
export function reportJsonSchemaText(): string {
  return `${JSON.stringify(reportJsonSchema(), null, 2)}\n`;
}

// The schema and the Report interface must describe one shape: tsc fails here when either drifts.
// An identity test, not assignability, so a member added to either side (optional or not) is caught.
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Holds<T extends true> = T;
type Parsed = z.output<typeof reportSchema>;
// Part by part first, so a drift is named where it is.
export type SchemaAgreesWithReport = [
  Holds<Same<Parsed['rules'][number]['evidence'][number], Report['rules'][number]['evidence'][number]>>,
  Holds<Same<Parsed['rules'][number], Report['rules'][number]>>,
  Holds<Same<Parsed['run'], Report['run']>>,
  Holds<Same<Parsed['summary'], Report['summary']>>,
  Holds<Same<Parsed['target'], Report['target']>>,
  Holds<Same<Parsed, Report>>,
];
