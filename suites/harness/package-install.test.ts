/**
 * apicert installed the ways users install libraries, into a fresh project: from the tarball
 * `npm pack` makes, and from git (`npm install git+file://…` of a clone). Neither is a symlink to
 * this checkout: each is what npm really puts in node_modules, so a dist/ left out of the package
 * or never built fails here.
 *
 * Needs npm and git on the PATH, and the packages in package-lock.json in npm's cache (`npm ci`
 * put them there): installs run with --prefer-offline, so they work without a registry once the
 * cache is warm. The git install runs `npm install` with devDependencies inside npm's clone, as npm
 * does for every git dependency with a prepare script: it is the slow one (about a minute).
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { NODE_NEEDED } from '../../src/node-version.ts';
import { RULES } from '../../src/registry.ts';
import { olderNode } from '../support/older-node.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// npm and the Node it runs on: the pinned Node 24 first on the PATH, the Node that engines declares.
const ENV = { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`, APICERT_PROFILE: undefined, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };

function run(command: string, args: string[], cwd: string, timeout = 300_000) {
  const r = spawnSync(command, args, { cwd, env: ENV, encoding: 'utf8', timeout, maxBuffer: 32 * 1024 * 1024 });
  return { code: r.status, out: r.stdout ?? '', err: `${r.stderr ?? ''}${r.error ? `\n${r.error.message}` : ''}` };
}

/** A command that serves until stopped (`npx apicert fake`), and the line it prints once ready. */
async function serving(args: string[], cwd: string, ready: RegExp): Promise<{ out: () => string; stop: () => Promise<void>; exit: Promise<number | null> }> {
  const child = spawn('npx', args, { cwd, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in 60 s: ${out}`)), 60_000);
    const check = () => {
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', check);
    child.on('exit', () => reject(new Error(`exited before it was ready: ${out}`)));
  });
  return {
    out: () => out,
    exit: exited,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The CLI as npm users run it, on the Node engines declares: `npx apicert fake` in one process, and
 * certify, plan, judge-traffic and proxy against it; nothing is type-stripped below node_modules.
 */
async function usesTheCli(dir: string): Promise<void> {
  const npx = (...args: string[]) => run('npx', args, dir, 120_000);
  const fake = await serving(['apicert', 'fake', '--profile-out', 'fake.json'], dir, /certify it from another shell/);
  try {
    const baseUrl = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(fake.out())![1]!;
    const plan = npx('apicert', 'plan', '--profile', 'fake.json');
    expect(plan.code, plan.out + plan.err).toBe(0);
    expect(plan.out).toContain(`plan for ${baseUrl}`);
    const certify = npx('apicert', 'certify', '--profile', 'fake.json', '--rules', 'v8.missions.get.*', '--out', 'reports', '--quiet', '--har-out', 'traffic.har');
    expect(certify.code, certify.out + certify.err).toBe(0);
    expect(certify.out).toMatch(new RegExp(`${baseUrl.replaceAll('.', '\\.')} \\(remote\\): gate PASS`));
    expect(certify.err).not.toMatch(/ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING|\n\s+at .+:\d+:\d+/);
    expect(JSON.parse(readFileSync(join(dir, 'reports/latest/report.json'), 'utf8')).summary.gate).toBe('pass');
    const judged = npx('apicert', 'judge-traffic', '--har', 'traffic.har', '--out', 'reports/passive', '--quiet');
    expect(judged.code === 0 || judged.code === 1, judged.out + judged.err).toBe(true);
    expect(judged.out).toMatch(/reports: /);
    // The proxy judges what passes through it during its --duration: one read of a mission that does not exist.
    const proxy = await serving(['apicert', 'proxy', '--upstream', baseUrl, '--duration', '4s', '--out', 'reports/proxy', '--quiet', '--profile', 'fake.json', '--har-out', 'proxy.har'], dir, /apicert proxy: http:\/\/127\.0\.0\.1:\d+ -> /);
    const proxyUrl = /apicert proxy: (http:\/\/127\.0\.0\.1:\d+)/.exec(proxy.out())![1]!;
    const token = (JSON.parse(readFileSync(join(dir, 'fake.json'), 'utf8')) as { credentials: Array<{ name: string; token: string }> }).credentials.find((c) => c.name === 'full')!.token;
    const answer = await fetch(`${proxyUrl}/v8/missions/00000000-0000-7000-8000-000000000000`, { headers: { authorization: `Bearer ${token}` } });
    expect(answer.status).toBe(404);
    await answer.body?.cancel();
    const proxyExit = await proxy.exit;
    expect(proxyExit === 0 || proxyExit === 1, proxy.out()).toBe(true);
    expect(proxy.out()).toMatch(/judged [1-9]\d* of \d+ selected rules/);
    // Its live judging runs on a thread of its own, started from a file: bundled too, since Node strips no types here.
    expect(proxy.out()).not.toMatch(/live judging stopped/);
    expect(readFileSync(join(dir, 'proxy.har'), 'utf8')).not.toContain(token);
    const older = olderNode();
    if (older.path) {
      // The installed command on a Node below engines: one line, and no advice meant for a checkout.
      const old = run(older.path, [join(dir, 'node_modules/apicert/bin/apicert.js'), '--version'], dir);
      expect(old.code).toBe(2);
      expect(old.err.trim()).toMatch(new RegExp(`^apicert needs Node >= ${NODE_NEEDED.replace('.', '\\.')} \\(this is v[\\d.]+\\): upgrade Node\\.$`));
    }
    // testcontainers is an optional peer: --image without it names the package to install.
    const image = npx('apicert', 'certify', '--image', 'example/gateway:1', '--port', '8080', '--out', 'reports');
    expect(image.code, image.out + image.err).toBe(2);
    expect(image.err).toMatch(/--image needs the testcontainers package.*npm install --save-dev testcontainers/);
  } finally {
    await fake.stop();
  }
}

function ok(result: ReturnType<typeof run>): string {
  expect(result.code, result.out + result.err).toBe(0);
  return result.out;
}

/**
 * A git repository holding this working tree's files (committed or not, ignored ones left out), so
 * the test installs what is about to be committed, not the last commit.
 */
function repositoryOfWorkingTree(into: string): string {
  const files = ok(run('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], ROOT)).split('\0').filter((f) => f && existsSync(join(ROOT, f)));
  for (const file of files) {
    mkdirSync(dirname(join(into, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(into, file));
  }
  const git = (...args: string[]) => ok(run('git', ['-c', 'user.name=apicert test', '-c', 'user.email=test@localhost', '-c', 'commit.gpgsign=false', ...args], into));
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'working tree under test');
  return into;
}

/** A user's new project; vitest is the user's own (a peer dependency), linked from this checkout. */
function userProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'apicert-install-'));
  writeFileSync(join(dir, 'package.json'), '{ "name": "user-project", "version": "1.0.0", "type": "module", "private": true }\n');
  return dir;
}

/** Imports the three exports as a user would, certifies the embedded fake, and runs apicert/vitest. */
function usesEveryExport(dir: string): void {
  writeFileSync(
    join(dir, 'use.js'),
    `import { certify, rules } from 'apicert';
import { verifyWebhook } from 'apicert/webhooks';
const { report } = await certify({ patterns: ['v8.missions.get.*'], seed: 7 });
console.log(JSON.stringify({ rules: rules.length, gate: report.summary.gate, ran: report.rules.length, verify: typeof verifyWebhook }));
`,
  );
  expect(JSON.parse(ok(run(process.execPath, ['use.js'], dir)))).toEqual({ rules: RULES.length, gate: 'pass', ran: 3, verify: 'function' });
  const older = olderNode();
  if (older.path) {
    // The installed library on a Node below engines: one line naming the version, no stack trace.
    const old = run(older.path, ['use.js'], dir);
    expect(old.code).toBe(1);
    expect(old.err.trim()).toMatch(new RegExp(`^apicert needs Node >= ${NODE_NEEDED.replace('.', '\\.')} \\(this is v[\\d.]+\\): upgrade Node\\.$`));
  }
  symlinkSync(join(ROOT, 'node_modules/vitest'), join(dir, 'node_modules/vitest'), 'dir');
  writeFileSync(join(dir, 'certify.test.js'), "import { certificationSuite } from 'apicert/vitest';\ncertificationSuite({ rules: ['v8.missions.get.*'] });\n");
  const suite = run(process.execPath, [join(dir, 'node_modules/vitest/vitest.mjs'), 'run', '--root', dir], dir);
  expect(suite.code, suite.out + suite.err).toBe(0);
  expect(suite.out).toMatch(/Tests\s+\d+ passed/);
}

describe('apicert installed into a fresh project', () => {
  let repo = '';
  beforeAll(() => {
    repo = repositoryOfWorkingTree(mkdtempSync(join(tmpdir(), 'apicert-repo-')));
  }, 120_000);

  it('from the tarball npm pack makes (dist/ built by prepare and carried by "files")', async () => {
    // Packed from the copy, so building dist/ there never races a test that builds this checkout's.
    const packing = mkdtempSync(join(tmpdir(), 'apicert-pack-'));
    symlinkSync(join(ROOT, 'node_modules'), join(repo, 'node_modules'), 'dir');
    try {
      ok(run('npm', ['pack', '--pack-destination', packing], repo));
      // Publishable (no "private"), with what pack just built: publishing itself is not this test's business.
      const publish = run('npm', ['publish', '--dry-run', '--ignore-scripts'], repo);
      expect(publish.code, publish.out + publish.err).toBe(0);
      expect(publish.out + publish.err).toMatch(/\+ apicert@\d/);
    } finally {
      unlinkSync(join(repo, 'node_modules'));
    }
    const [tarball] = readdirSync(packing).filter((f) => f.endsWith('.tgz'));
    expect(tarball).toBeDefined();
    const dir = userProject();
    const install = ok(run('npm', ['install', '--prefer-offline', join(packing, tarball!)], dir));
    expect(install).not.toMatch(/ERR|error/);
    // What a package user installs: apicert's own dependencies, never testcontainers (an optional peer).
    expect(existsSync(join(dir, 'node_modules/testcontainers'))).toBe(false);
    expect(existsSync(join(dir, 'node_modules/apicert/dist/profile.schema.json'))).toBe(true);
    usesEveryExport(dir);
    await usesTheCli(dir);
  }, 400_000);

  it('from git (git+file:// of a clone), with apicert prepared in npm\'s own clone', async () => {
    const dir = userProject();
    const install = run('npm', ['install', '--prefer-offline', `git+file://${repo}`], dir, 500_000);
    expect(install.code, install.out + install.err).toBe(0);
    expect(existsSync(join(dir, 'node_modules/apicert/dist/lib/src/index.js'))).toBe(true);
    usesEveryExport(dir);
    await usesTheCli(dir);
  }, 600_000);
});
