import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/apicert.js');
const FAULT = 'v8.missions.get.unknown-404/server-error';
const STACK = /\n\s+at .+:\d+:\d+/;

// Plain output unless a test asks for colour: no FORCE_COLOR or NO_COLOR from the caller's shell.
const BASE_ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !['FORCE_COLOR', 'NO_COLOR', 'GITHUB_STEP_SUMMARY'].includes(k)));

function apicert(args: string[], env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000, env: { ...BASE_ENV, ...env } });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

/** The same, without blocking: independent invocations run side by side. */
function apicertAsync(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000, env: { ...BASE_ENV, ...env } }, (error, out, err) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, out, err });
    });
  });
}

const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), `apicert-${prefix}-`));

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}

describe('one run, one folder', () => {
  it('gives each run its own folder and points latest at the newest; a JSON-only run never sits beside an older summary', async () => {
    const out = tmp('runs');
    expect(apicert(['certify', '--rules', 'v8.missions.get.ok', '--out', out, '--quiet']).code).toBe(0);
    expect(apicert(['certify', '--rules', 'v8.missions.get.*', '--faults', FAULT, '--format', 'json', '--out', out, '--quiet']).code).toBe(1);
    const folders = readdirSync(out).filter((n) => n !== 'latest').sort();
    expect(folders).toHaveLength(2);
    expect(readlinkSync(join(out, 'latest'))).toBe(folders[1]);
    expect(readdirSync(join(out, 'latest'))).toEqual(['report.json']);
    expect((JSON.parse(readFileSync(join(out, 'latest/report.json'), 'utf8')) as { summary: { gate: string } }).summary.gate).toBe('fail');
    expect((await filesUnder(join(out, folders[0]!))).sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'summary.md']);
  });

  it('--out - writes the one report to stdout and everything else to stderr', () => {
    const run = apicert(['certify', '--rules', 'v8.missions.get.ok', '--out', '-']);
    expect(run.code, run.err).toBe(0);
    expect((JSON.parse(run.out) as { rules: unknown[] }).rules).toHaveLength(1);
    expect(run.err).toMatch(/gate PASS/);
    const md = apicert(['certify', '--rules', 'v8.missions.get.ok', '--out', '-', '--format', 'md']);
    expect(md.out).toMatch(/^#/);
    const two = apicert(['certify', '--out', '-', '--format', 'json,md']);
    expect(two.code).toBe(2);
    expect(two.err).toMatch(/--out - writes one report to stdout: give one --format/);
  });

  it('appends the Markdown summary to $GITHUB_STEP_SUMMARY, keeping what was there', () => {
    const file = join(tmp('step'), 'summary.md');
    writeFileSync(file, 'earlier step\n');
    expect(apicert(['certify', '--rules', 'v8.missions.get.ok', '--out', '-'], { GITHUB_STEP_SUMMARY: file }).code).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('earlier step\n')).toBe(true);
    expect(text).toMatch(/v8\.missions\.get\.ok/);
  });
});

describe('what the CLI prints', () => {
  it('--quiet still prints failures and the gate, and nothing that passed', () => {
    const run = apicert(['certify', '--rules', 'v8.missions.get.*', '--faults', FAULT, '--out', tmp('q'), '--quiet']);
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/FAIL\s+v8\.missions\.get\.unknown-404: /);
    expect(run.out).toMatch(/gate FAIL/);
    expect(run.out).not.toMatch(/^pass /m);
    // Where the reports went is printed at every level.
    expect(run.out).toMatch(/^reports: \S+ \(\S+latest points at it\)/m);
  });

  it('-q works on every command that prints a run, as on certify (it once was a usage error on judge-traffic)', () => {
    const dir = tmp('q-passive');
    const har = join(dir, 'run.har');
    expect(apicert(['certify', '--rules', 'v8.missions.get.ok', '--har-out', har, '--out', join(dir, 'active'), '-q']).code).toBe(0);
    const judged = apicert(['judge-traffic', '--har', har, '--out', join(dir, 'passive'), '-q']);
    expect(judged.code, judged.err).toBe(0);
    expect(judged.out).toMatch(/gate PASS/);
  });

  it('--verbose prints each exchange with a curl line', () => {
    const run = apicert(['certify', '--rules', 'v8.missions.get.ok', '--out', tmp('v'), '--verbose']);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/pass\s+v8\.missions\.get\.ok/);
    expect(run.out).toMatch(/GET http:\/\/127\.0\.0\.1:\d+\/v8\/missions\/\S+ -> 200/);
    expect(run.out).toMatch(/curl -sS -i/);
    expect(run.out).not.toMatch(/Bearer (?!\$\{)/);
  });

  it('colours only when wanted: FORCE_COLOR on, NO_COLOR and --no-color off', async () => {
    const args = ['certify', '--rules', 'v8.missions.get.ok', '--out', '-'];
    const [forced, flag, noColor] = await Promise.all([
      apicertAsync(args, { FORCE_COLOR: '1' }),
      apicertAsync([...args, '--no-color'], { FORCE_COLOR: '1' }),
      apicertAsync(args, { FORCE_COLOR: '1', NO_COLOR: '1' }),
    ]);
    expect(forced.err).toContain('\x1b[');
    expect(flag.err).not.toContain('\x1b[');
    expect(noColor.err).not.toContain('\x1b[');
  });

  it('--target alone warns that it changes state; --read-only does not and runs only reading rules', () => {
    const warned = apicert(['certify', '--target', 'http://127.0.0.1:9', '--quiet', '--out', tmp('warned')]);
    expect(warned.code).toBe(3);
    expect(warned.err).toMatch(/creates missions, runs and webhook endpoints there .*--read-only/);
    const quiet = apicert(['certify', '--target', 'http://127.0.0.1:9', '--quiet', '--read-only', '--out', tmp('quiet')]);
    // The cause once, first, naming the address; the report path even with --quiet.
    expect(quiet.err.match(/the run stopped: http:\/\/127\.0\.0\.1:9 did not answer the first probe/g)).toHaveLength(1);
    expect(quiet.out).toMatch(/^reports: /m);
    expect(quiet.err).not.toMatch(/creates missions/);
    const run = apicert(['certify', '--rules', 'v8.missions.get.*', '--read-only', '--out', '-']);
    const report = JSON.parse(run.out) as { rules: Array<{ destructive: string; verdict: string; reason?: string }> };
    const mutating = report.rules.filter((r) => r.destructive === 'mutate');
    expect(mutating.length).toBeGreaterThan(0);
    for (const r of mutating) expect(r).toMatchObject({ verdict: 'untestable', reason: expect.stringMatching(/--read-only leaves it out/) });
  });

  it('--help lists the exit codes and every environment variable apicert reads', async () => {
    const help = apicert(['certify', '--help']).out + apicert(['--help']).out;
    for (const code of ['0', '1', '2', '3', '4', '130', '143']) expect(help).toMatch(new RegExp(`^  ${code}  `, 'm'));
    // Durations as durations, no empty defaults, and the variables once, not under every command.
    expect(help).toMatch(/--deadline <duration>[^]*?\(default: 30m\)/);
    expect(help).not.toMatch(/\(default: \{\}\)|\(default: \[\]\)|\(default: 1800000\)/);
    const certifyHelp = apicert(['certify', '--help']).out;
    expect(certifyHelp).not.toMatch(/APICERT_V8_TOKEN {2,}/);
    expect(certifyHelp).toContain('apicert help env');
    expect(apicert(['help', 'env']).out).toMatch(/^Environment variables:\n {2}APICERT_V8_TOKEN /);
    const read = new Set<string>();
    for (const file of await filesUnder(join(ROOT, 'src'))) {
      for (const m of readFileSync(join(ROOT, 'src', file), 'utf8').matchAll(/env(?:\.|\[')([A-Z][A-Z0-9_]{2,})/g)) read.add(m[1]!);
    }
    expect(read.size).toBeGreaterThan(5);
    read.delete('PATH');
    for (const name of read) expect(help, `${name} is read but not in --help`).toContain(name);
  });
});

describe('user errors', () => {
  it('end in one line and exit 2, never a stack trace', async () => {
    const file = join(tmp('err'), 'a-file');
    writeFileSync(file, '');
    const cases = [
      ['certify', '--out', join(file, 'sub')],
      ['certify', '--port', '80'],
      ['certify', '--image', 'x'],
      ['certify', '--image', 'x', '--target', 'http://127.0.0.1:9', '--port', '1'],
      ['certify', '--wait-log', '('],
      ['fake', '--port', 'abc'],
      ['fake', '--webhook-receiver', 'example.com:80'],
      ['certify', '--profile', file],
    ];
    const runs = await Promise.all(cases.map((args) => apicertAsync(args)));
    for (const [i, args] of cases.entries()) {
      const run = runs[i]!;
      expect(run.code, `${args.join(' ')}: ${run.err}`).toBe(2);
      expect(run.err, args.join(' ')).toMatch(/apicert: |error: /);
      expect(run.err, args.join(' ')).not.toMatch(STACK);
    }
  });

  it('found trying every command as a new user would: each once hung or said too little', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['certify', '--target', 'notaurl'], /--target notaurl is not a URL/],
      [['certify', '--rules', 'v8.missions.get.ok', '--out', '/proc/apicert-no-such/r'], /cannot write reports to \/proc\/apicert-no-such\/r \(ENOENT\)/],
      [['fake', '--profile-out', '/proc/apicert-no-such/p.json'], /cannot write the profile to \/proc\/apicert-no-such\/p\.json/],
      [['certify-receiver', '--url', 'ftp://127.0.0.1/hook'], /--url ftp:\/\/127\.0\.0\.1\/hook is not an http or https URL/],
      [['judge-client', '--out', '/proc/apicert-no-such/r', '--', 'true'], /cannot write reports to \/proc/],
      [['load', '--dry-run', '--out', '/proc/apicert-no-such/r'], /cannot write reports to \/proc/],
    ];
    // Three at a time: the machine is shared.
    for (let i = 0; i < cases.length; i += 3) {
      const batch = cases.slice(i, i + 3);
      const runs = await Promise.all(batch.map(([args]) => apicertAsync(args)));
      for (const [j, [args, message]] of batch.entries()) {
        expect(runs[j]!.code, `${args.join(' ')}: ${runs[j]!.err}`).toBe(2);
        expect(runs[j]!.err, args.join(' ')).toMatch(message);
        expect(runs[j]!.err, args.join(' ')).not.toMatch(STACK);
      }
    }
  }, 150_000);

  it('point only at README sections that exist', async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const headings = new Set([...readme.matchAll(/^#+ (.+)$/gm)].map((m) => m[1]!.trim()));
    const cited = new Set<string>();
    for (const file of await filesUnder(join(ROOT, 'src'))) {
      const text = readFileSync(join(ROOT, 'src', file), 'utf8');
      for (const m of text.matchAll(/README(?:\.md)?, "([^"$]+)"/g)) cited.add(m[1]!);
      for (const m of text.matchAll(/README_SECTIONS = \{([^}]+)\}/g)) for (const s of m[1]!.matchAll(/'([^']+)'/g)) cited.add(s[1]!);
    }
    expect(cited.size).toBeGreaterThan(2);
    for (const section of cited) expect(headings, `README.md has no section "${section}"`).toContain(section);
  });
});
