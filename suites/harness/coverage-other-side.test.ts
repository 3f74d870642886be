/**
 * Audit helper-68 D7 and D9. The sentences that bind a webhook receiver or an API client are judged
 * by certify-receiver (`receiver.*`) and judge-client (`client.*`) rules, which live outside the
 * registry: `apicert coverage` credits those units to them, and says "binds the client" only where
 * no such rule exists. D9: a rule's level follows its sentence on both sides of the wire.
 */
import { describe, expect, it } from 'vitest';
import { CLIENT_RULES } from '../../src/client-judge/rules.ts';
import { derivedMapping } from '../../src/coverage/derive.ts';
import { MAPPING } from '../../src/coverage/map.ts';
import { buildMatrix, matrixMarkdown } from '../../src/coverage/matrix.ts';
import { allUnits } from '../../src/coverage/units.ts';
import { receiverRules } from '../../src/receiver-cert/rules.ts';
import { RULES } from '../../src/registry.ts';

const OTHER_SIDE = [...receiverRules, ...CLIENT_RULES];

/** The units the audit lists, each with the receiver and client rules that judge it. */
const JUDGED_ON_THE_OTHER_SIDE: Record<string, readonly string[]> = {
  'v8:resources-and-their-fields-capability-search-request-and:an-unavailable-one-is-not-to': ['client.v8.capabilities.unavailable-in-goal'],
  'v1:endpoints-rules:4': ['client.v1.endpoints.task-readback'],
  'v1:endpoints-rules:5': ['client.v1.endpoints.dropped-readback', 'client.v1.endpoints.streamed-retry'],
  'v1:events-webhooks-signature-rules:3': ['receiver.v1.webhooks.raw-body', 'receiver.v1.webhooks.bad-signature'],
  'v1:events-webhooks-signature-rules:4': ['receiver.v1.webhooks.timestamp-past', 'receiver.v1.webhooks.timestamp-future'],
  'v1:events-webhooks-signature-rules:5': ['receiver.v1.webhooks.bad-signature', 'receiver.v1.webhooks.api-version', 'receiver.v1.webhooks.event-id-mismatch'],
  'v1:events-webhooks-signature-rules:6': ['receiver.v1.webhooks.accepts-valid', 'receiver.v1.webhooks.duplicate'],
  'v1:events-webhooks-signature-rules:7': ['receiver.v1.webhooks.ordering'],
  'v1:errors-rules:3': ['client.v1.errors.retry-429-same-key', 'client.v1.errors.retry-503-same-key'],
  'v1:errors-rules:4': ['client.v1.errors.conflict-new-key'],
  'v1:errors-rules:5': ['client.v1.errors.ambiguous-reconcile'],
  'v1:limits:each-api-key-has-its-own': ['client.v1.limits.retry-after', 'client.v1.limits.default-retry-hint'],
  'v8:events-rules:1': ['client.v8.events.replay-window'],
  'v8:versioning:every-response-carries-header-x-service': ['client.v8.versioning.contract-check'],
};

describe('apicert coverage credits the receiver and client rules (audit-68 D7)', () => {
  const matrix = buildMatrix();
  const unit = (id: string) => matrix.units.find((u) => u.id === id);

  it.each(Object.entries(JUDGED_ON_THE_OTHER_SIDE))('%s is judged by its receiver or client rules', (id, rules) => {
    const found = unit(id);
    expect(found, `unit ${id} exists`).toBeDefined();
    expect(found!.rules).toEqual(expect.arrayContaining([...rules]));
    expect(found!.status).toBe('judged');
    expect(found!.reasonCode).toBeNull();
    expect(found!.unknownRules).toEqual([]);
  });

  it('the printed matrix names those ids in the rows of those units', () => {
    const rows = matrixMarkdown(matrix).split('\n');
    for (const [id, rules] of Object.entries(JUDGED_ON_THE_OTHER_SIDE)) {
      const text = unit(id)!.text.replace(/\|/g, '\\|');
      const row = rows.find((line) => line.includes(text));
      expect(row, `row of ${id}`).toBeDefined();
      for (const rule of rules) expect(row, `${id} names ${rule}`).toContain(`\`${rule}\``);
    }
  });

  // helper-123 F7 and helper-124 F6: statements to the client, and the MCP client's own obligations (no judge-client rule covers /mcp).
  it('says "binds the client" only of units no receiver or client rule judges', () => {
    const client = matrix.units.filter((u) => u.reasonCode === 'CLIENT');
    expect(client.map((u) => u.id)).toEqual([
      'v1:what-the-service-does:admission-of-a-request-a-webhook',
      'mcp-lifecycle:lifecycle-phases-initialization:the-initialization-phase-must-be-the',
      'mcp-lifecycle:lifecycle-phases-initialization:the-initialize-request-must-not-be',
    ]);
    for (const u of client) expect(u.rules).toEqual([]);
  });

  it('leaves no receiver or client rule outside the matrix', () => {
    const mapped = new Set(matrix.units.flatMap((u) => u.rules));
    expect(OTHER_SIDE.filter((r) => !mapped.has(r.id)).map((r) => r.id)).toEqual([]);
  });

  it('the written table never repeats what a receiver or client rule quotes, nor gives such a unit a reason', () => {
    const derived = derivedMapping(allUnits(), OTHER_SIDE);
    const disagreements = [...derived].flatMap(([id, quoting]) => {
      const written = MAPPING[id];
      if (!written) return [];
      return [...(written.reason ? [`${id}: written as ${written.reason}, yet ${quoting.join(', ')} quote it`] : []), ...(written.rules ?? []).filter((r) => quoting.includes(r)).map((r) => `${id}: ${r} quotes it already`)];
    });
    expect(disagreements).toEqual([]);
  });
});

describe('levels follow the sentence on both sides of the wire (audit-68 D9)', () => {
  it('"A numeric `Retry-After` header is expected alongside it." is a SHOULD for the server and for the client', () => {
    const server = RULES.find((r) => r.id === 'v1.errors.rate-limited-retry-after')!;
    const client = CLIENT_RULES.find((r) => r.id === 'client.v1.limits.retry-after')!;
    expect(client.spec.quote).toContain('A numeric `Retry-After` header is expected alongside it.');
    expect(server.level).toBe('should');
    expect(client.level).toBe('should');
  });
});
