/**
 * Audits helper-123 F7 and helper-124 F5-F7, F10: `apicert coverage` credits a unit only to rules
 * that judge it. A quote credits the units of the section it was taken from (the seeds repeat short
 * rows across tables); the generated contract rules stand beside the rows that bound a request; the
 * MCP client's obligations and the sentences a POST's SSE answer could show say so instead of
 * borrowing a server rule; and a unit judged in part says what is left.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { derivedMapping } from '../../src/coverage/derive.ts';
import { carriesConstraint, REQUEST_SECTIONS, RESPONSE_LIMITS } from '../../src/coverage/generated.ts';
import { MAPPING } from '../../src/coverage/map.ts';
import { buildMatrix, matrixMarkdown } from '../../src/coverage/matrix.ts';
import { OTHER_SIDE_RULES } from '../../src/coverage/other-side.ts';
import { allUnits, UNIT_DOCUMENTS } from '../../src/coverage/units.ts';
import { RULES } from '../../src/registry.ts';

const normalized = (text: string) => text.replace(/\s+/g, ' ').trim();
const JUDGING = [...RULES, ...OTHER_SIDE_RULES];

/** Each line of a seed, as a unit's text writes it (a table row's cells joined by " | "), with the headings above it. */
function placedLines(file: string): Array<{ text: string; section: string }> {
  const headings: string[] = [];
  const out: Array<{ text: string; section: string }> = [];
  for (const raw of readFileSync(new URL(`../../spec/${file}`, import.meta.url), 'utf8').split('\n')) {
    const heading = /^(#+)\s+(.*)$/.exec(raw);
    if (heading) {
      headings.length = heading[1]!.length - 1;
      headings[heading[1]!.length - 1] = heading[2]!.trim();
      continue;
    }
    const text = raw.trim().startsWith('|') ? raw.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim()).join(' | ') : raw;
    out.push({ text: normalized(text), section: headings.slice(1).join(' > ') || headings[0] || '' });
  }
  return out;
}

describe('a quote credits only the units of the section it was taken from (helper-124 F5b)', () => {
  const units = allUnits();
  const matrix = buildMatrix();
  const credited = (id: string) => matrix.units.find((u) => u.id === id)!.rules;

  // Read from the seed's own lines, not from the derivation: where each piece of a quote stands.
  it('credits no unit to a rule whose quote holds its text only from another section', () => {
    const lines = new Map<string, ReturnType<typeof placedLines>>(Object.values(UNIT_DOCUMENTS).map((file) => [file, placedLines(file)]));
    const derived = derivedMapping(units, JUDGING);
    const wrong: string[] = [];
    for (const unit of units) {
      for (const id of derived.get(unit.id) ?? []) {
        const rule = JUDGING.find((r) => r.id === id)!;
        const text = normalized(unit.text);
        const pieces = rule.spec.quote.split('…').map(normalized).filter((p) => p.includes(text));
        const sections = pieces.flatMap((p) => lines.get(unit.document)!.filter((l) => l.text.includes(p)).map((l) => l.section));
        // A piece that runs over several lines stands in no one line, and is not judged here.
        if (sections.length && !sections.some((s) => unit.section === s || unit.section.startsWith(`${s} > `))) wrong.push(`${unit.id} credited to ${id}, quoted from ${[...new Set(sections)].join('; ')}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('leaves the Context goal row `compartment | string |` to the goal rules, not the memory query bounds', () => {
    expect(credited('v8:resources-and-their-fields-context-goal-get-v8:compartment')).toEqual(['v8.goals.compartment-boundary']);
    expect(credited('v8:resources-and-their-fields-memory-query-request:compartment')).toContain('v8.memory.query.bounds');
  });

  it('credits each healthState row to the rule that reads that resource (map.ts once named capability search for skills and certificates)', () => {
    const row = (table: string) => credited(`v8:resources-and-their-fields-${table}:healthstate`);
    expect(row('capability-search-request-and')).toEqual(['v8.capabilities.search.ok']);
    expect(row('skill-get-v8-skills')).toEqual(['v8.skills.get.ok']);
    expect(row('world-certificate-get-v8')).toEqual(['v8.certificates.shape']);
  });

  it('credits a signal to an unknown runId (404) to the generated error-status rule that sends one (helper-124 F5c)', () => {
    expect(credited('v8:errors:post-v8-missions-runid-signals:404')).toEqual(['v8.auth.scope-matrix', 'v8.contract.generated.error-status']);
  });
});

describe('the generated contract rules stand beside the rows that bound a request (helper-124 F5a, helper-123 F7a-b)', () => {
  const matrix = buildMatrix();
  const GENERATED = /\.contract\.generated\.(accepts-valid|error-status)$/;
  const generated = (id: string) => matrix.units.find((u) => u.id === id)!.rules.filter((r) => GENERATED.test(r));

  it('reads a bound, an enum or a pattern, but no date, no camelCase names and no "one of" inside a word', () => {
    expect(carriesConstraint('POST | `/mcp` | see Authentication | MCP 2025-03-26 Streamable HTTP JSON-RPC | see note')).toBe(false);
    expect(carriesConstraint('`mission.step.completed` | a step finishes successfully; data includes `stepId`, `traceId` and a result summary')).toBe(false);
    expect(carriesConstraint('Timestamp | string, RFC 3339 date-time | an explicit timezone offset is required')).toBe(false);
    expect(carriesConstraint('signal | string | yes | 1-256 chars')).toBe(true);
    expect(carriesConstraint('MemoryPolicy | read | string | `inherit`, `allow`, `deny`; default `inherit`')).toBe(true);
    expect(carriesConstraint('Identifier | string | length 1-128; pattern `^[A-Za-z0-9]`')).toBe(true);
  });

  it('names only request sections the seeds have, and Limits rows that exist', () => {
    const sections = new Set(matrix.units.map((u) => `${u.id.split(':', 1)[0]} ${u.section}`));
    for (const [surface, names] of Object.entries(REQUEST_SECTIONS)) for (const name of names) expect(sections, `${surface} ${name}`).toContain(`${surface} ${name}`);
    const limits = matrix.units.filter((u) => u.section === 'Limits' && u.kind === 'row').map((u) => u.text.split(' | ', 1)[0]);
    for (const row of RESPONSE_LIMITS) expect(limits).toContain(row);
  });

  it.each([
    'v8:endpoints:post:mcp',
    'v8:events:mission-step-completed',
    'v8:resources-and-their-fields-mission-projection-responses-of:status',
    'v8:resources-and-their-fields-context-goal-get-v8:status',
    'v8:resources-and-their-fields-context-goal-get-v8:priority',
    'v8:resources-and-their-fields-capability-search-request-and:kind',
    'v8:resources-and-their-fields-capability-search-request-and:healthstate',
    'v8:resources-and-their-fields-skill-get-v8-skills:healthstate',
    'v8:resources-and-their-fields-skill-get-v8-skills:evidencestate',
    'v8:resources-and-their-fields-world-certificate-get-v8:healthstate',
    'v8:resources-and-their-fields-coverage-report-get-v8:endpoints',
    'v8:resources-and-their-fields-coverage-report-get-v8:capabilitykinds',
    'v8:resources-and-their-fields-coverage-report-get-v8:overallevidencescore',
    'v8:states-and-transitions:none:post-v8-missions',
    'v8:limits:capability-search-results',
    'v1:resources-and-their-fields-shared-primitives:timestamp',
    'v1:errors:title',
    'v1:errors:status',
    'v1:errors:detail',
    'v1:errors:retryafterms',
    'v1:errors:fielderrors',
  ])('%s (an answer, an event or no request bound) gets no generated request rule', (id) => {
    expect(generated(id)).toEqual([]);
  });

  it.each([
    'v8:resources-and-their-fields-memory-query-request:compartment',
    'v8:resources-and-their-fields-signal-request:signal',
    'v8:limits:memory-classes',
    'v8:endpoints:get:v8-skills-skillid',
    'v1:resources-and-their-fields-turn-request-body-aiplatformchatrequestv1:timeoutms',
    'v1:resources-and-their-fields-other-nested-objects-no:memorypolicy:read',
  ])('%s (a request bound) keeps accepts-valid and error-status', (id) => {
    expect(generated(id).map((r) => r.split('.').pop())).toEqual(['accepts-valid', 'error-status']);
  });
});

describe('client obligations, sentences with no rule yet, and partial credit say so (helper-124 F6, F7, F10)', () => {
  const matrix = buildMatrix();
  const unit = (id: string) => matrix.units.find((u) => u.id === id)!;

  it.each([
    'mcp-lifecycle:lifecycle-phases-initialization:the-initialize-request-must-not-be',
    'mcp-lifecycle:lifecycle-phases-initialization:the-initialization-phase-must-be-the',
  ])('%s binds the MCP client: no server rule is credited', (id) => {
    expect(unit(id).rules).toEqual([]);
    expect(unit(id).reasonCode).toBe('CLIENT');
  });

  it.each([
    ['mcp-lifecycle:lifecycle-phases-initialization:the-server-should-not-send-requests', 'mcp.lifecycle.requests-before-initialized'],
    ['mcp-transports:streamable-http-multiple-connections:2', 'mcp.sse.no-broadcast'],
  ])('%s, shown by the messages on the answers to POSTs, once judged by no rule, is judged by %s', (id, rule) => {
    expect(unit(id).rules).toEqual([rule]);
    expect(unit(id).status).toBe('judged');
    expect(unit(id).reasonCode).toBeNull();
  });

  it('counts the units with no rule yet apart from those no request can show', () => {
    const text = matrixMarkdown(matrix);
    expect(text).toContain(`${matrix.counts['no-rule-yet']} judgeable but judged by no rule yet`);
    expect(matrix.counts.judged + matrix.counts.observed + matrix.counts['not-judgeable'] + matrix.counts['no-rule-yet'] + matrix.counts.unmapped).toBe(matrix.counts.total);
  });

  it.each([
    ['v8:resources-and-their-fields-coverage-report-get-v8:the-report-shows-only-what-the', /`endpoints` list only/],
    ['v8:authentication:coverage-results-depend-on-the-token', /`endpoints` list only/],
    ['v8:resources-and-their-fields-context-goal-get-v8:goals-outside-the-caller-s-compartment', /purpose boundary cannot be judged/],
    ['v8:events:mission-step-completed', /result summary/],
    ['v8:resources-and-their-fields-capability-search-request-and:capabilityid', /stable/],
    ['v8:resources-and-their-fields-memory-query-request:entries-are-in-descending-relevance-and', /maxContextTokens/],
    ['v1:resources-and-their-fields-shared-primitives:timestamp', /fixtures\.v1\.timestampFields/],
  ] as const)('%s is judged in part, and the matrix prints what is left', (id, left) => {
    const u = unit(id);
    expect(u.rules.length).toBeGreaterThan(0);
    expect(u.partly).toMatch(left);
    const row = matrixMarkdown(matrix).split('\n').find((l) => l.includes(u.text.replace(/\|/g, '\\|')));
    expect(row).toContain(`partly: ${u.partly!.replace(/\|/g, '\\|')}`);
  });

  it('writes "partly" only beside rules, and takes back only a rule that quotes the unit', () => {
    const lonely = Object.entries(MAPPING).filter(([id, m]) => m.partly && (m.reason || !unit(id)?.rules.length)).map(([id]) => id);
    expect(lonely).toEqual([]);
    const derived = derivedMapping(allUnits(), JUDGING);
    const stale = Object.entries(MAPPING).flatMap(([id, m]) => (m.notJudgedBy ?? []).filter((r) => !derived.get(id)?.includes(r)).map((r) => `${id}: ${r}`));
    expect(stale).toEqual([]);
  });
});
