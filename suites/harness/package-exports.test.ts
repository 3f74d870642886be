import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULES } from '../../src/registry.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/apicert.js');

/** A user's project with apicert installed: node_modules/apicert is this checkout, as `npm install <path>` makes it. */
function userProject(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'apicert-user-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules/apicert'), 'dir');
  for (const dep of ['vitest', 'typescript', '@types']) symlinkSync(join(ROOT, 'node_modules', dep), join(dir, 'node_modules', dep), 'dir');
  writeFileSync(join(dir, 'package.json'), '{ "name": "user-project", "type": "module", "private": true }\n');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

function node(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env, APICERT_PROFILE: env.APICERT_PROFILE }, timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('the package exports, compiled, as a user imports them', () => {
  beforeAll(() => {
    const build = node(['scripts/prepare.js', 'lib'], ROOT);
    expect(build.code, build.out + build.err).toBe(0);
  }, 120_000);

  it("import { certify, rules } from 'apicert' certifies, and its types check", () => {
    const dir = userProject({
      'use.ts': `import { certify, rules, type Report, type Rule } from 'apicert';
const all: readonly Rule[] = rules;
const { report }: { report: Report } = await certify({ patterns: ['v8.missions.get.*'], seed: 7 });
console.log(JSON.stringify({ rules: all.length, gate: report.summary.gate, ran: report.rules.length }));
`,
      'tsconfig.json': JSON.stringify({ compilerOptions: { target: 'es2023', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, skipLibCheck: false, types: ['node'], allowImportingTsExtensions: true } }),
    });
    const types = node([join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', '.'], dir);
    expect(types.code, types.out + types.err).toBe(0);
    const run = node(['use.ts'], dir);
    expect(run.code, run.err).toBe(0);
    expect(JSON.parse(run.out)).toEqual({ rules: RULES.length, gate: 'pass', ran: 3 });
  }, 120_000);

  describe("apicert/vitest against the fake in another process (APICERT_PROFILE)", () => {
    let fake: ReturnType<typeof spawn> | undefined;
    let profile = '';
    const suite = { 'certify.test.js': "import { certificationSuite } from 'apicert/vitest';\ncertificationSuite({ rules: ['v8.missions.get.*', 'v1.webhooks.delivery.*'] });\n" };

    beforeAll(async () => {
      profile = join(mkdtempSync(join(tmpdir(), 'apicert-fake-')), 'fake-profile.json');
      fake = spawn(process.execPath, [BIN, 'fake', '--profile-out', profile], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve, reject) => {
        fake!.stdout!.on('data', (c: Buffer) => c.toString().includes('listening on') && resolve());
        fake!.once('exit', (code) => reject(new Error(`apicert fake exited with ${code}`)));
      });
    }, 60_000);

    afterAll(() => {
      fake?.kill('SIGTERM');
    });

    function vitest(dir: string, env: NodeJS.ProcessEnv) {
      const r = node([join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=json', '--outputFile=results.json'], dir, env);
      const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as { numPassedTests: number; numFailedTests: number; numPendingTests: number };
      return { ...r, results };
    }

    it('passes every selected required rule, webhook deliveries included', () => {
      const dir = userProject(suite);
      const run = vitest(dir, { APICERT_PROFILE: profile });
      expect(run.code, run.out + run.err).toBe(0);
      const selected = RULES.filter((r) => r.level === 'required' && (r.id.startsWith('v8.missions.get.') || r.id.startsWith('v1.webhooks.delivery.')));
      expect(run.results).toMatchObject({ numPassedTests: selected.length + 1, numFailedTests: 0, numPendingTests: 0 });
    }, 180_000);

    it('fails, never passes, when APICERT_PROFILE names a target that does not answer', () => {
      const dead = join(mkdtempSync(join(tmpdir(), 'apicert-dead-')), 'dead.json');
      writeFileSync(dead, JSON.stringify({ ...JSON.parse(readFileSync(profile, 'utf8')), target: 'http://127.0.0.1:9' }));
      const run = vitest(userProject(suite), { APICERT_PROFILE: dead });
      expect(run.code).not.toBe(0);
      expect(run.results.numPassedTests).toBe(0);
    }, 180_000);
  });
});
