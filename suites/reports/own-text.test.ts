/**
 * Redaction never rewrites apicert's own text. The fake is certified with tokens built from words
 * the descriptions use (`oauth-capabilities-missions-…`) and with random ones; in every format the
 * rule ids and quotes stay as written and no ordinary word is taken for a token. A fake that echoes
 * the tokens is still caught, and no token shows in any output in any form.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import type { FaultId } from '../../src/fake/faults/index.ts';
import { startFake } from '../../src/fake/server.ts';
import { RULES } from '../../src/registry.ts';
import { REPORT_FORMATS } from '../../src/reports/write.ts';
import { writeRunReports } from '../../src/reports/run-folder.ts';
import { certify } from '../../src/runner/certify.ts';
import { leaksOf } from '../support/leaks.ts';

/** Words of the two descriptions, as an OAuth deployment might build its tokens from them. */
const SPEC_WORDS = ['capabilities', 'missions', 'principal', 'session', 'webhooks', 'certificates', 'deliveries', 'memory', 'goals', 'traces', 'skills', 'intents', 'compartment', 'purpose', 'signals', 'tenant'];

interface Written {
  files: Record<string, string>;
  tokens: string[];
  verdicts: Map<string, string>;
  /** Every rule of the catalog ran. */
  all: boolean;
}

async function certifyAndWrite(tokenWords: readonly string[] | undefined, faults: FaultId[] = [], patterns?: string[]): Promise<Written> {
  const fake = await startFake({ faults, tokenWords });
  try {
    const profile = embeddedProfile(fake);
    const { report, redactor } = await certify({ profile, seed: 11, ...(patterns ? { patterns } : {}) });
    const root = mkdtempSync(join(tmpdir(), 'apicert-own-text-'));
    const written = await writeRunReports(report, root, REPORT_FORMATS, {}, redactor);
    const files = Object.fromEntries(written.files.map((f) => [f.slice(written.dir.length + 1), readFileSync(f, 'utf8')]));
    return { files, tokens: profile.credentials.map((c) => c.token), verdicts: new Map(report.rules.map((r) => [r.id, r.verdict])), all: patterns === undefined };
  } finally {
    await fake.close();
  }
}

function expectOwnTextIntact(w: Written): void {
  const json = JSON.parse(w.files['report.json']!) as { rules: Array<{ id: string; title: string; spec: { quote: string } }> };
  const byId = new Map(RULES.map((r) => [r.id, r]));
  if (w.all) expect(json.rules.length).toBe(RULES.length);
  for (const r of json.rules) {
    const own = byId.get(r.id);
    expect(own, `rule id ${r.id} is one of apicert's`).toBeDefined();
    expect(r.title).toBe(own!.title);
    expect(r.spec.quote).toBe(own!.spec.quote);
  }
  for (const [name, text] of Object.entries(w.files)) {
    if (name === 'summary.md') continue; // lists only what blocks or warns
    for (const { id } of json.rules) expect(text.includes(id), `${name} names ${id}`).toBe(true);
  }
}

describe("apicert's own text survives redaction", () => {
  it('with tokens built from words of the descriptions: every id and quote intact, no word taken for a token', async () => {
    const w = await certifyAndWrite(SPEC_WORDS);
    expect(w.tokens.some((t) => t.includes('capabilities'))).toBe(true);
    expectOwnTextIntact(w);
    // A clean run echoes no token, so nothing may be redacted as one: every Authorization is masked by name.
    for (const [name, text] of Object.entries(w.files)) expect(text.match(/«redacted:token:[^»]*»/g) ?? [], name).toEqual([]);
  }, 120_000);

  it('with random tokens: every id and quote intact', async () => {
    const w = await certifyAndWrite(undefined);
    expectOwnTextIntact(w);
  }, 120_000);

  it('a fake that echoes word-built tokens is caught, and no token shows in any output in any form', async () => {
    // The rules that present expired credentials (and so meet the echo), and the two that judge the sightings.
    const w = await certifyAndWrite(SPEC_WORDS, ['v8.redaction.run-secrets/token-in-401', 'v1.auth.run-secrets/key-in-401'], ['v8.auth.*', 'v8.missions.auth.*', 'v8.redaction.*', 'v1.auth.*']);
    expect(w.verdicts.get('v8.redaction.run-secrets')).toBe('fail');
    expect(w.verdicts.get('v1.auth.run-secrets')).toBe('fail');
    expectOwnTextIntact(w);
    const leaks = Object.entries(w.files).flatMap(([name, text]) => w.tokens.flatMap((t) => leaksOf(text, t).map((form) => `${name}: ${form}`)));
    expect(leaks).toEqual([]);
    expect(Object.values(w.files).some((text) => text.includes('«redacted:token:'))).toBe(true);
  }, 120_000);
});
