/**
 * What a new user meets in the first hour (issue 32): an explicit target or nothing, a starting
 * profile that certifies once filled in, profile keys and fault ids with suggestions, and a run
 * whose last lines say what failed and how to rerun it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { startFake } from '../../src/fake/server.ts';
import { standaloneProfile } from '../../src/fake/standalone.ts';
import { loadProfileFile, ProfileError } from '../../src/profile/load.ts';
import { profileJsonSchema } from '../../src/profile/json-schema.ts';
import { profileTemplate, tokenVariable } from '../../src/profile/template.ts';
import { RequestBudget } from '../../src/probe/budget.ts';
import { RequestPacer } from '../../src/probe/pacer.ts';
import { createDispatcher } from '../../src/probe/transport.ts';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { Redactor } from '../../src/redact/redactor.ts';
import { probeFor } from '../../src/runner/certify.ts';
import { withRunCommand } from '../../src/rule/index.ts';
import { certificationSuite } from '../../src/vitest/index.ts';

const BIN = new URL('../../bin/apicert.js', import.meta.url).pathname;
const ROOT = new URL('../../', import.meta.url).pathname;
const STACK = /\n\s+at .+:\d+:\d+/;

function apicert(args: string[], env: Record<string, string | undefined> = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, NO_COLOR: '1', ...env } });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

/** As apicert(), without blocking this process: a fake served from here must go on answering. */
function apicertAsync(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1', ...env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

const tmp = () => mkdtempSync(join(tmpdir(), 'apicert-first-hour-'));

describe('an explicit target or nothing', () => {
  it('an empty --target, --profile, --image or APICERT_PROFILE is exit 2 naming it, never the embedded fake', () => {
    const out = tmp();
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [['certify', '--target', ''], {}, /--target was given an empty value/],
      [['certify', '--profile', ''], {}, /--profile was given an empty value/],
      [['certify', '--image', '', '--port', '8080'], {}, /--image was given an empty value/],
      [['certify'], { APICERT_PROFILE: '' }, /APICERT_PROFILE is set but empty/],
      [['plan'], { APICERT_PROFILE: '' }, /APICERT_PROFILE is set but empty/],
      [['plan', '--profile', ' '], {}, /--profile was given an empty value/],
    ];
    for (const [args, env, message] of cases) {
      const run = apicert([...args, ...(args[0] === 'certify' ? ['--out', out] : [])], env);
      expect(run.code, `${args.join(' ')}: ${run.err}`).toBe(2);
      expect(run.err).toMatch(message);
      expect(run.err).not.toMatch(STACK);
      expect(run.out).not.toMatch(/gate PASS/);
    }
  });

  it('the CLI honours APICERT_PROFILE as the vitest plugin does', () => {
    const run = apicert(['certify', '--rules', 'v8.missions.get.*'], { APICERT_PROFILE: '/nonexistent/staging.yaml' });
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/cannot read profile \/nonexistent\/staging\.yaml/);
  });

  it('an embedded-fake run says so on its first line', () => {
    const run = apicert(['certify', '--rules', 'v8.missions.get.ok', '--out', tmp(), '--quiet'], { APICERT_PROFILE: undefined });
    expect(run.code, run.err).toBe(0);
    expect(run.out.split('\n')[0]).toMatch(/^apicert: no --target, --profile, --image or APICERT_PROFILE given: certifying the built-in reference fake/);
  });

  it('apicert/vitest refuses an empty profile, from the option or the variable, before declaring a test', () => {
    expect(() => certificationSuite({ env: { APICERT_PROFILE: '' } })).toThrow(ProfileError);
    expect(() => certificationSuite({ env: { APICERT_PROFILE: '' } })).toThrow(/APICERT_PROFILE is set but empty/);
    expect(() => certificationSuite({ profile: '' })).toThrow(/profile \}\) is empty/);
  });
});

/** The value at a dotted path with [i] indexes, as placeholdersIn names it. */
function at(value: unknown, path: string): unknown {
  let node = value;
  for (const part of path.replace(/\[(\d+)\]/g, '.$1').split('.')) node = (node as Record<string, unknown> | undefined)?.[part];
  return node;
}

describe('profile init', () => {
  it('writes a profile that is refused while a placeholder is left, and that, filled in for the fake, leaves no required rule untestable', async () => {
    const dir = tmp();
    const file = join(dir, 'staging.yaml');
    const init = apicert(['profile', 'init', '--out', file]);
    expect(init.code, init.err).toBe(0);
    const unfilled = apicert(['plan', '--profile', file]);
    expect(unfilled.code).toBe(2);
    expect(unfilled.err).toMatch(/still holds placeholders \(FILL-IN or \.\.\.\) at: target, /);
    expect(apicert(['profile', 'init', '--out', file]).err).toMatch(/exists: choose another --out/);

    // Filled in with what `apicert fake` knows of itself: every FILL-IN at the fake profile's same path.
    const fake = await startFake({ faults: [] });
    try {
      const known = standaloneProfile(fake, { host: '127.0.0.1', port: 18787, origin: 'http://127.0.0.1:18787' } as Parameters<typeof standaloneProfile>[1]);
      const template = parseYaml(readFileSync(file, 'utf8')) as Record<string, unknown> & { credentials: Array<Record<string, unknown>> };
      const env: Record<string, string> = {};
      const alias: Record<string, string> = { 'v1-write-only': 'webhooks-runs-write' };
      for (const credential of template.credentials) {
        const same = known.credentials.find((c) => c.name === (alias[String(credential.name)] ?? credential.name));
        expect(same, String(credential.name)).toBeDefined();
        env[tokenVariable(String(credential.name))] = same!.token;
        credential.principal = same!.principal;
        if ('tenant' in credential) credential.tenant = same!.tenant;
      }
      template.target = known.target;
      const filled: Record<string, unknown> = template;
      fillFrom(filled, known as unknown as Record<string, unknown>, '');
      const filledFile = join(dir, 'filled.yaml');
      writeFileSync(filledFile, stringify(filled));
      const plan = apicert(['plan', '--profile', filledFile, '--json'], env);
      expect(plan.code, plan.err).toBe(0);
      const result = JSON.parse(plan.out) as { rules: Array<{ id: string; level: string; status: string; missing: string[] }> };
      expect(result.rules.filter((r) => r.level === 'required' && r.status === 'untestable').map((r) => `${r.id}: ${r.missing.join('; ')}`)).toEqual([]);
    } finally {
      await fake.close();
    }
  }, 120_000);

  it("refuses the docs' sample profile while its { ... } placeholders are left", async () => {
    const doc = readFileSync(join(ROOT, 'docs/profile.md'), 'utf8');
    const sample = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).find((y) => y.includes('fixtures:') && y.includes('credentials:'))!;
    const file = join(tmp(), 'sample.yaml');
    writeFileSync(file, sample);
    await expect(loadProfileFile(file, { APICERT_V8_TOKEN: 'x'.repeat(16) })).rejects.toThrow(/still holds placeholders .*fixtures\.v8\.missions\.waits/);
  });

  it('explains every fixture the schema knows', () => {
    type Node = { properties?: Record<string, Node> };
    const fixtures = (profileJsonSchema() as Node).properties!.fixtures!.properties!;
    const text = profileTemplate();
    const missing = Object.entries(fixtures).flatMap(([surface, node]) => Object.keys(node.properties ?? {}).filter((key) => !new RegExp(`^\\s*#? ?${key}:`, 'm').test(text)).map((key) => `fixtures.${surface}.${key}`));
    expect(missing).toEqual([]);
  });

  it('the JSON Schema is generated from the zod schema and names every section', () => {
    const schema = profileJsonSchema() as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['target', 'credentials', 'fixtures', 'safety', 'network']));
    expect(schema.required).toContain('target');
  });
});

/** Replaces each FILL-IN (value or key) with the fake profile's value at the same place. */
function fillFrom(node: Record<string, unknown>, known: Record<string, unknown>, path: string): void {
  for (const [key, value] of Object.entries(node)) {
    const here = path ? `${path}.${key}` : key;
    if (key === 'FILL-IN') {
      // A map keyed by a name the deployment knows (rateLimitTiers): the fake's own entries.
      delete node[key];
      Object.assign(node, at(known, path) as object);
    } else if (value === 'FILL-IN') {
      node[key] = at(known, here);
      expect(node[key], here).toBeDefined();
    } else if (value && typeof value === 'object' && !Array.isArray(value)) {
      fillFrom(value as Record<string, unknown>, known, here);
    }
  }
}

describe('suggestions', () => {
  it('a misspelt profile key or fault id gets the nearest known one', async () => {
    const file = join(tmp(), 'typo.yaml');
    writeFileSync(file, 'target: http://127.0.0.1:9\nfixtures:\n  v8:\n    skilId: x\nsafety:\n  alowMutations: true\n');
    const error = (await loadProfileFile(file, {}).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/fixtures\.v8: unknown key "skilId" \(did you mean "skillId"\?\)/);
    expect(error.message).toMatch(/safety: unknown key "alowMutations" \(did you mean "allowMutations"\?\)/);
    const fault = apicert(['certify', '--faults', 'v8.missions.get.unknown-404/server-eror']);
    expect(fault.code).toBe(2);
    expect(fault.err).toMatch(/did you mean "v8\.missions\.get\.unknown-404\/server-error"/);
  });
});

describe('the end of a run', () => {
  it('repeats the failures with their reasons and the rerun command; --read-only reasons name the flag; verify and diff take run folders', () => {
    const out = tmp();
    const run = apicert(['certify', '--rules', 'v8.missions.get.*', '--faults', 'v8.missions.get.unknown-404/server-error', '--out', out]);
    expect(run.code).toBe(1);
    const tail = run.out.trimEnd().split('\n').slice(-5).join('\n');
    expect(tail).toMatch(/\nthe built-in fake at http:\/\/127\.0\.0\.1:\d+ stopped with the run: the report's curl lines reach it again under "npx apicert fake --port \d+ --faults v8\.missions\.get\.unknown-404\/server-error"/);
    expect(tail).toMatch(/to look at \(\d+\):\n {2}FAIL v8\.missions\.get\.unknown-404: .*500/);
    expect(tail).toMatch(/\nrerun them: npx apicert certify --faults v8\.missions\.get\.unknown-404\/server-error --rerun \S+$/);
    const diff = apicert(['diff', join(out, 'latest'), join(out, 'latest')]);
    expect(diff.code, diff.err).toBe(0);
    const keys = join(tmp(), 'certifier');
    expect(apicert(['keygen', '--out', keys]).code).toBe(0);
    const signed = tmp();
    expect(apicert(['certify', '--rules', 'v8.missions.get.ok', '--sign', `${keys}.key`, '--out', signed, '--format', 'json', '--quiet']).code).toBe(0);
    const verify = apicert(['verify', join(signed, 'latest'), '--key', `${keys}.pub`]);
    expect(verify.code, verify.err).toBe(0);
    expect(verify.out).toMatch(/report\.json: intact, signed by key/);

    const readOnly = apicert(['certify', '--rules', 'v8.missions.get.ok', '--read-only', '--out', out, '--format', 'json', '--allow-untestable']);
    const report = JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8')) as { rules: Array<{ id: string; reason?: string }> };
    expect(report.rules[0]!.reason).toMatch(/--read-only leaves it out/);
    expect(report.rules[0]!.reason).not.toMatch(/the profile sets/);
    // No required rule passed: --allow-untestable does not pass it, and the words say what the exit code says.
    expect(readOnly.code).toBe(1);
    expect(readOnly.out).toMatch(/gate UNTESTABLE/);
  }, 120_000);

  it('--allow-untestable that exits 0 says PASS, not UNTESTABLE', () => {
    const run = apicert(['certify', '--rules', 'v8.missions.get.*,v8.capabilities.*', '--read-only', '--out', tmp(), '--format', 'json', '--allow-untestable']);
    expect(run.code, run.out + run.err).toBe(0);
    expect(run.out).toMatch(/gate PASS \(untestable rules allowed by --allow-untestable\)/);
  }, 120_000);
});

describe('every reproduction reproduces', () => {
  it('an idempotency conflict shows the first use of the key and the conflicting request, in order; the report says where $TOKEN_<NAME> comes from and that the fake is gone', () => {
    const out = tmp();
    const run = apicert(['certify', '--rules', 'v8.missions.idempotency.conflict', '--faults', 'v8.missions.idempotency.conflict/replays-different-body', '--out', out, '--quiet']);
    expect(run.code).toBe(1);
    const md = readFileSync(join(out, 'latest', 'summary.md'), 'utf8');
    const block = /The 2 requests that made it, in order:\n\n {3}```sh\n {3}(curl .*)\n {3}(curl .*)\n/.exec(md);
    expect(block, md).not.toBeNull();
    const keyOf = (curl: string) => /idempotency-key: ([^']+)'/.exec(curl)?.[1];
    expect(keyOf(block![1]!)).toBeDefined();
    expect(keyOf(block![1]!)).toBe(keyOf(block![2]!));
    expect(block![1]).not.toContain('changed by apicert');
    expect(block![2]).toContain('changed by apicert');
    expect(md.match(/\$TOKEN_<NAME> holds the token of the profile's credential <NAME>/g)).toHaveLength(1);
    expect(md).toMatch(/closed with the run: to replay the curl lines, start "npx apicert fake --port \d+ --faults v8\.missions\.idempotency\.conflict\/replays-different-body"/);
    const html = readFileSync(join(out, 'latest', 'report.html'), 'utf8');
    expect(html).toContain('Request 1, sent before it with the same Idempotency-Key');
    expect(readFileSync(join(out, 'latest', 'junit.xml'), 'utf8')).toMatch(/<property name="replay\.1" value="The curl lines read each token/);
  }, 120_000);

  it('the rerun and reproduce lines carry the profile the run used', async () => {
    const fake = await startFake({ faults: [] });
    try {
      const dir = tmp();
      const profile = join(dir, 'fake profile.json');
      writeFileSync(profile, JSON.stringify(standaloneProfile(fake, { host: '127.0.0.1', port: 18788, origin: 'http://127.0.0.1:18788' } as Parameters<typeof standaloneProfile>[1])));
      const run = await apicertAsync(['certify', '--rules', 'v8.missions.get.ok', '--read-only', '--out', dir, '--format', 'json'], { APICERT_PROFILE: profile });
      expect(run.code, run.err).toBe(1);
      const report = JSON.parse(readFileSync(join(dir, 'latest', 'report.json'), 'utf8')) as { rules: Array<{ rerun?: string }> };
      expect(report.rules[0]!.rerun).toMatch(/^npx apicert certify --profile '.*fake profile\.json' --read-only --rules v8\.missions\.get\.ok --seed \d+$/);
      expect(run.out).toMatch(/rerun them: npx apicert certify --profile '.*fake profile\.json' --read-only --rerun /);
    } finally {
      await fake.close();
    }
  }, 120_000);

  it("a model rule's Reproduce line is the run's own command", () => {
    const reason = 'Shrunk counterexample after 3 sequence(s): 2 step(s), seed 7.\nReproduce: apicert certify --rules v8.missions.lifecycle.model --seed 7 (a live target may need a few tries)';
    expect(withRunCommand(reason, (id, seed) => `npx apicert certify --profile staging.yaml --rules ${id} --seed ${seed}`)).toContain('Reproduce: npx apicert certify --profile staging.yaml --rules v8.missions.lifecycle.model --seed 7 (a live');
  });
});

describe('a passing run', () => {
  it('keeps report.json small (a passing rule keeps a sample) and labels every count of the HTML', () => {
    const out = tmp();
    const run = apicert(['certify', '--surface', 'v8', '--out', out, '--format', 'json,html', '--quiet']);
    expect(run.code, run.err).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8')) as { rules: Array<{ verdict: string; evidence: unknown[]; evidenceOmitted: number }> };
    for (const r of report.rules.filter((x) => x.verdict === 'pass')) expect(r.evidence.length).toBeLessThanOrEqual(1);
    expect(report.rules.some((r) => r.evidenceOmitted > 0)).toBe(true);
    const full = tmp();
    expect(apicert(['certify', '--surface', 'v8', '--out', full, '--format', 'json', '--quiet', '--full-evidence']).code).toBe(0);
    const small = readFileSync(join(out, 'latest', 'report.json')).length;
    const large = readFileSync(join(full, 'latest', 'report.json')).length;
    expect(small * 2).toBeLessThan(large);
    const html = readFileSync(join(out, 'latest', 'report.html'), 'utf8');
    expect(html.match(/<li><b>v8<\/b> <span class="meta">required rules:<\/span>/g)).toHaveLength(1);
    expect(html).toContain('Every rule, whatever its level: required, SHOULD and observation');
  }, 240_000);
});

describe('--max-rps', () => {
  it('spaces the requests of every rule running at once', async () => {
    const pacer = new RequestPacer(50);
    const started = performance.now();
    await Promise.all(Array.from({ length: 6 }, () => pacer.wait()));
    // Six slots 20 ms apart: the last leaves no earlier than 100 ms after the first.
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
  });

  it('holds every fork of the run\'s client to it, except the one a burst rule gets', async () => {
    const fake = await startFake({ faults: [] });
    const dispatcher = createDispatcher();
    /** Counts the requests that asked the pacer for a slot: the burst fork must ask for none. */
    class CountingPacer extends RequestPacer {
      waits = 0;
      override wait(signal?: AbortSignal): Promise<void> {
        this.waits += 1;
        return super.wait(signal);
      }
    }
    const pacer = new CountingPacer(4);
    try {
      const profile = embeddedProfile(fake);
      const probe = probeFor(profile, new Redactor(), new RequestBudget(100), dispatcher, undefined, pacer);
      const send = (client: ReturnType<typeof probe.fork>) => client.send({ method: 'GET', path: '/v8/missions/00000000-0000-7000-8000-000000000000', credential: null });
      const timed = async (client: ReturnType<typeof probe.fork>, n: number) => {
        const started = performance.now();
        for (let i = 0; i < n; i += 1) await send(client);
        return performance.now() - started;
      };
      // Four a second: four paced requests take at least 750 ms; a burst rule's fork is not held back.
      expect(await timed(probe.fork(), 4)).toBeGreaterThanOrEqual(740);
      // Structural rather than timed (a stall during the burst would fail a wall-time comparison): the burst's
      // requests never ask the pacer, the paced fork's do.
      expect(pacer.waits).toBe(4);
      await timed(probe.fork(undefined, { unpaced: true }), 4);
      expect(pacer.waits, 'the burst fork waited on the pacer').toBe(4);
      await timed(probe.fork(), 2);
      expect(pacer.waits).toBe(6);
    } finally {
      await dispatcher.close();
      await fake.close();
    }
  });

  it('caps what certify sends, across safety.concurrency', () => {
    const out = tmp();
    const run = apicert(['certify', '--rules', 'v8.missions.get.*,v8.capabilities.*', '--max-rps', '20', '--out', out, '--format', 'json', '--quiet']);
    expect(run.code, run.err).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8')) as { run: { requests: number; durationMs: number } };
    expect(report.run.requests).toBeGreaterThan(10);
    // Paced at 50 ms, N requests take at least (N - 1) × 50 ms; a busy machine only makes it longer.
    expect(report.run.durationMs).toBeGreaterThanOrEqual((report.run.requests - 1) * 50 - 5);
    expect(apicert(['certify', '--max-rps', '0']).err).toMatch(/--max-rps.*give requests per second above 0/);
  }, 120_000);
});
