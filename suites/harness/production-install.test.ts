import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** What a clone holds that apicert runs from (the specs, suites and tooling are not needed at run time). */
const SHIPPED = ['package.json', 'package-lock.json', 'bin', 'src', 'scenarios', 'load', 'reports/templates', 'scripts/prepare.js'];

function waitForLine(child: ChildProcess, text: string): Promise<string> {
  let seen = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      seen += c.toString();
      if (seen.includes(text)) resolve(seen);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before printing "${text}":\n${seen}`)));
  });
}

// Runtime dependencies are right when a production install (no devDependencies) runs every command.
describe('npm ci --omit=dev', () => {
  let dir = '';
  let fake: ChildProcess | undefined;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'apicert-prod-'));
    for (const path of SHIPPED) cpSync(join(ROOT, path), join(dir, path), { recursive: true });
    const install = spawnSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: dir, encoding: 'utf8', timeout: 240_000 });
    expect(install.status, install.stdout + install.stderr).toBe(0);
  }, 300_000);

  afterAll(() => {
    fake?.kill('SIGTERM');
  });

  it('installs no devDependency', () => {
    const { devDependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
    const installed = (name: string) => existsSync(join(dir, 'node_modules', name, 'package.json'));
    // @types/* may come along as dependencies of a dependency's types.
    expect(Object.keys(devDependencies).filter((n) => !n.startsWith('@types/') && installed(n))).toEqual([]);
    expect(['fast-check', 'commander', 'esbuild'].filter((n) => !installed(n))).toEqual([]);
    // testcontainers is an optional peer: only --image needs it, and without it --image says what to install.
    expect(installed('testcontainers')).toBe(false);
    const image = spawnSync(process.execPath, ['bin/apicert.js', 'certify', '--image', 'example/gateway:1', '--port', '8080', '--out', 'reports'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    expect(image.status, image.stderr).toBe(2);
    expect(image.stderr).toMatch(/--image needs the testcontainers package/);
  });

  it('serves the fake with npx apicert fake, certifies it from another process, and the fake stops on SIGTERM', async () => {
    fake = spawn('npx', ['--yes', 'apicert', 'fake', '--profile-out', 'fake-profile.json'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    const banner = await waitForLine(fake, 'certify it from another shell');
    expect(banner).toMatch(/apicert fake listening on http:\/\/127\.0\.0\.1:\d+/);
    // v8.memory.* and v1.execute.* include property-based rules: fast-check is loaded at run time.
    const certify = spawnSync(process.execPath, ['bin/apicert.js', 'certify', '--profile', 'fake-profile.json', '--rules', 'v8.missions.get.*,v8.memory.*,v1.execute.turn.*,v1.webhooks.delivery.*', '--quiet', '--out', 'reports'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(certify.status, certify.stdout + certify.stderr).toBe(0);
    expect(certify.stdout).toMatch(/\(remote\): gate PASS - judged \d+ of \d+ selected rules \(pass or fail\); required \d+ pass, 0 fail, 0 untestable/);
    // SIGTERM to npx itself: npm dies of it and its shell does not pass it on, yet the server must stop.
    const stopped = new Promise<void>((resolve) => fake!.once('exit', () => resolve()));
    fake.kill('SIGTERM');
    await stopped;
    fake = undefined;
    const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(banner)![1];
    const answers = async () => fetch(`http://127.0.0.1:${port}/v8/missions/x`, { signal: AbortSignal.timeout(1_000) }).then(() => true, () => false);
    const deadline = Date.now() + 10_000;
    while ((await answers()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(await answers(), `the fake still answers on port ${port} after SIGTERM`).toBe(false);
  }, 180_000);
});
