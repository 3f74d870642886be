import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { planRun } from '../../src/plan/plan.ts';
import type { Profile } from '../../src/profile/schema.ts';
import { RULES } from '../../src/registry.ts';
import { certify } from '../../src/runner/certify.ts';

const run = promisify(execFile);
const CLI = new URL('../../bin/apicert.js', import.meta.url).pathname;

/** The embedded fake's profile without the fixtures and roles a new profile typically lacks. */
function stripped(profile: Profile): Profile {
  const copy = structuredClone(profile);
  copy.fixtures.v8.missions = {};
  copy.fixtures.v1.tasks = { completes: copy.fixtures.v1.tasks.completes };
  delete copy.fixtures.v1.approval;
  delete copy.fixtures.mcp.safeTool;
  copy.fixtures.webhooks.runs = {};
  copy.credentials = copy.credentials.filter((c) => !c.expired && c.principal !== 'bob');
  return copy;
}

describe('apicert plan', () => {
  it('prints what a profile leaves untestable and sends no request to the target', async () => {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests += 1;
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const dir = await mkdtemp(join(tmpdir(), 'apicert-plan-'));
    const file = join(dir, 'profile.yaml');
    await writeFile(file, `target: http://127.0.0.1:${port}\ncredentials:\n  - name: reader\n    token: plan-test-token-0123456789\n    scopes: [missions:read, missions:write]\n`);
    try {
      const text = await run(process.execPath, [CLI, 'plan', '--profile', file, '--surface', 'v8']);
      expect(text.stdout).toMatch(new RegExp(`${RULES.filter((r) => r.surface === 'v8').length} rules selected, \\d+ will run, \\d+ untestable`));
      expect(text.stdout).toContain('fixture fixtures.v8.missions.succeeds is not set');
      expect(text.stdout).toContain('credential v8:expired');
      expect(text.stdout).not.toContain('plan-test-token');
      const json = await run(process.execPath, [CLI, 'plan', '--profile', file, '--json', '--rules', 'v8.missions.create.*']);
      const plan = JSON.parse(json.stdout) as { rules: Array<{ id: string; status: string; missing: string[] }> };
      expect(plan.rules.length).toBe(4);
      const byId = new Map(plan.rules.map((r) => [r.id, r]));
      expect(byId.get('v8.missions.create.accepted')).toMatchObject({ status: 'untestable', missing: ['fixture fixtures.v8.missions.succeeds is not set'] });
      expect(byId.get('v8.missions.create.malformed-json')).toMatchObject({ status: 'run', missing: [] });
      expect(requests, 'plan sent a request to the target').toBe(0);
    } finally {
      server.close();
    }
  });

  it('--target without APICERT_* variables: what is missing once each, and the variables to set', async () => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('APICERT_')));
    const { stdout } = await run(process.execPath, [CLI, 'plan', '--target', 'http://127.0.0.1:9'], { env });
    const lines = stdout.trimEnd().split('\n');
    expect(lines.length).toBeLessThan(120);
    expect(stdout).toMatch(/what is missing \(how many rules each leaves untestable\):\n\s+\d+ {2}credential /);
    for (const name of ['APICERT_V8_TOKEN', 'APICERT_V1_KEY', 'APICERT_MCP_TOKEN']) expect(stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    expect(stdout).toContain('--profile FILE');
    // Each missing thing once, however many rules it holds back.
    const missing = lines.filter((l) => /^\s+\d+ {2}/.test(l));
    expect(new Set(missing).size).toBe(missing.length);
    const verbose = await run(process.execPath, [CLI, 'plan', '--target', 'http://127.0.0.1:9', '--verbose'], { env });
    expect(verbose.stdout).toMatch(/^ {2}v8\.missions\.create\.accepted \[required\]\n {4}- credential /m);
  });

  it('plans every rule to run against the embedded fake', async () => {
    const { stdout } = await run(process.execPath, [CLI, 'plan']);
    expect(stdout).toContain(`${RULES.length} rules selected, ${RULES.length} will run, 0 untestable`);
  });

  it('declares needs exactly: the rules a run finds untestable are the ones the plan names', async () => {
    let profile: Profile | undefined;
    const { results } = await certify({ seed: 7, checkNeeds: false, adjustEmbeddedProfile: (p) => (profile = stripped(p)) });
    // mcp.auth.expired-401 needs an expired mcp credential only where /mcp answers a missing token 401
    // (MCP makes authorization optional): what the target answers decides it, which no plan can know.
    const answerDecides = new Set(['mcp.auth.expired-401']);
    const atRunTime = results.filter((r) => r.verdict === 'untestable' && !answerDecides.has(r.rule.id)).map((r) => r.rule.id).sort();
    const planned = planRun(RULES, profile!, { embeddedFake: true }).rules.filter((r) => r.status === 'untestable').map((r) => r.id).sort();
    expect(atRunTime.length).toBeGreaterThan(20);
    expect(atRunTime).toEqual(planned);
    // A full certify of the fake (and its judgement over the whole run): a busy machine takes more than the default minute.
  }, 180_000);
});
