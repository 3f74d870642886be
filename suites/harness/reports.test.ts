import { describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake } from '../../src/fake/server.ts';
import { renderHtml } from '../../src/reports/html.ts';
import { renderJunit } from '../../src/reports/junit.ts';
import { renderMarkdown } from '../../src/reports/markdown.ts';
import { digestOf, gateOf, emptyCounts, sha256 } from '../../src/reports/model.ts';
import { canonicalJson } from '../../src/util/json.ts';
import { profileFromEnv } from '../../src/profile/load.ts';
import { certify } from '../../src/runner/certify.ts';

describe('reports', async () => {
  // The fake served as a "remote" target, so the test knows every token the run used.
  const fake = await startFake({ faults: ['v8.missions.idempotency.conflict/replays-different-body'] });
  const profile = embeddedProfile(fake);
  const { report } = await certify({ profile, patterns: ['v8.missions.idempotency.*', 'v8.missions.auth.*', 'v8.contract.*'], seed: 42 });
  await fake.close();
  const rendered = { json: JSON.stringify(report), junit: renderJunit(report), md: renderMarkdown(report), html: renderHtml(report) };

  it('never contains a token of the profile, in any format', () => {
    for (const [format, text] of Object.entries(rendered)) {
      for (const c of profile.credentials) expect(text.includes(c.token), `${format} contains the token of ${c.name}`).toBe(false);
    }
  });

  it('summarises required verdicts and gates on the failure', () => {
    expect(report.summary.required.fail).toBe(1);
    expect(report.summary.gate).toBe('fail');
    expect(report.rules.find((r) => r.verdict === 'fail')?.id).toBe('v8.missions.idempotency.conflict');
    expect(report.run.seed).toBe(42);
    expect(report.target.kind).toBe('remote');
  });

  it('carries a digest over everything else', () => {
    const { digest, ...body } = report;
    expect(digest).toBe(digestOf(body));
    expect(digestOf({ ...body, rules: [] })).not.toBe(digest);
  });

  it('digests the canonical JSON of the body, though an evidence entry several rules show is written once', () => {
    const { digest: _digest, ...body } = report;
    // Each rule shows its own exchanges and the next rule's: the same entry objects, many times over.
    const shared = { ...body, rules: body.rules.map((r, i) => ({ ...r, evidence: [...r.evidence, ...body.rules[(i + 1) % body.rules.length]!.evidence, ...r.evidence] })) };
    expect(shared.rules.some((r) => r.evidence.length > 0)).toBe(true);
    expect(digestOf(shared)).toBe(sha256(canonicalJson(shared)));
  });

  it('writes one JUnit testcase per rule with the failure marked', () => {
    expect(rendered.junit.match(/<testcase /g)?.length).toBe(report.rules.length);
    expect(rendered.junit).toMatch(/<failure message="POST \/v8\/missions: the key of exchange #\d+ with another body answered 202, expected a 409 conflict"/);
  });

  it('puts the failing rule, its spec sentence and a curl line in the Markdown summary', () => {
    expect(rendered.md).toContain('### `v8.missions.idempotency.conflict`');
    expect(rendered.md).toContain('> The same key with a different body gives `409`.');
    expect(rendered.md).toMatch(/curl -sS -i -X POST/);
  });

  it('renders HTML with escaped content', () => {
    expect(rendered.html).toContain('<span class="gate gate-fail" id="gate">FAIL</span>');
    expect(rendered.html).not.toContain('{{');
  });
});

describe('gate', () => {
  it('ranks fail over inconclusive over untestable', () => {
    const counts = emptyCounts();
    expect(gateOf(counts)).toBe('pass');
    counts.untestable = 1;
    expect(gateOf(counts)).toBe('untestable');
    counts.inconclusive = 1;
    expect(gateOf(counts)).toBe('inconclusive');
    counts.fail = 1;
    expect(gateOf(counts)).toBe('fail');
  });

  it('a run-wide cause: stated once, first, in Markdown and JSON, with the rules it stopped listed by area', async () => {
    const stopped = await certify({ profile: profileFromEnv('http://127.0.0.1:9', {}), patterns: ['v8.missions.get.*', 'v1.errors.*'], seed: 1 });
    expect(stopped.report.run.stopped).toMatch(/^http:\/\/127\.0\.0\.1:9 did not answer the first probe \(.*ECONNREFUSED.*\): check the URL/);
    const md = renderMarkdown(stopped.report);
    expect(md.match(/did not answer the first probe/g)).toHaveLength(1);
    expect(md.indexOf('## The run stopped')).toBeLessThan(md.indexOf('## Required rules'));
    expect(md).not.toContain('## What blocks the gate');
    expect(md).toMatch(/^- v8\.missions \(\d+\): get\.ok, /m);
    expect(md).toMatch(/^\| `v1\.errors\.[^`]+` \| INCONCLUSIVE \| [^|]+ \| not run \(see "The run stopped"\) \|$/m);
  });
});
