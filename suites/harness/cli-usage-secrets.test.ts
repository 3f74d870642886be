/**
 * The command line as a new user meets it (audit 52): usage errors at every depth exit 2 with the
 * help hint; a refusal is said alone, before any line about the run; nothing a user may have pasted
 * in place of a name or a URL (a query key, a signing secret, a token beside a YAML error) is echoed;
 * a report that cannot be written says so and leaves `latest` alone.
 */
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { reportError } from '../../src/cli/errors.ts';
import type { Report } from '../../src/reports/model.ts';
import { writeRunReports } from '../../src/reports/run-folder.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/apicert.js');
const BASE_ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !['FORCE_COLOR', 'NO_COLOR', 'GITHUB_STEP_SUMMARY', 'APICERT_PROFILE', 'K6_BINARY'].includes(k)));

interface Ran {
  code: number | null;
  out: string;
  err: string;
}

/** Not blocking: a test may serve a receiver from this process while apicert runs. */
function apicert(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000, env: { ...BASE_ENV, ...env } }, (error, out, err) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, out, err });
    });
  });
}

const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), `apicert-${prefix}-`));
const runFolders = (root: string) => (existsSync(root) ? readdirSync(root).filter((n) => /^\d{4}-/.test(n)) : []);

describe('usage errors at every depth', () => {
  it('profile init exits 2 with its help hint on an unknown option, a missing value and an extra argument', async () => {
    const runs = await Promise.all([['--bogus'], ['--out'], ['extra']].map((extra) => apicert(['profile', 'init', ...extra])));
    for (const run of runs) {
      expect(run.code, run.err).toBe(2);
      expect(run.err).toContain('(run "apicert profile init --help" for its options)');
    }
  });
});

describe('a target that carries a key', () => {
  const SECRET = 'QzSECRETabc123XYZ789';

  it('refuses a --target or profile target with a query or fragment: exit 2, nothing made or sent, the value never shown', async () => {
    const out = join(tmp('qs'), 'reports');
    const profile = join(tmp('qs-profile'), 'p.yaml');
    writeFileSync(profile, `target: http://127.0.0.1:9/?api_key=${SECRET}\n`);
    const runs = await Promise.all([
      apicert(['certify', '--target', `http://127.0.0.1:9/?api_key=${SECRET}`, '--rules', 'v8.missions.get.ok', '--out', out]),
      apicert(['certify', '--target', `http://127.0.0.1:9/#${SECRET}`, '--rules', 'v8.missions.get.ok', '--out', out]),
      apicert(['plan', '--target', `http://127.0.0.1:9/?api_key=${SECRET}`]),
      apicert(['plan', '--profile', profile]),
    ]);
    for (const run of runs) {
      expect(run.code, run.err).toBe(2);
      expect(run.err).toMatch(/the target URL carries no query or fragment/);
      expect(run.out + run.err).not.toContain(SECRET);
    }
    expect(runFolders(out)).toEqual([]);
  });
});

describe('certify-receiver --secret-env', () => {
  it('never shows what it was given when that variable is unset, on the console or in the reports', async () => {
    const given = 'whsec_Abc123SecretValueXyz9';
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const out = join(tmp('recv'), 'reports');
    try {
      const run = await apicert(['certify-receiver', '--url', `http://127.0.0.1:${port}/hook`, '--secret-env', given, '--rules', 'receiver.v1.webhooks.accepts-valid', '--out', out]);
      expect(run.code, run.err).toBe(1);
      expect(run.err).toMatch(/the variable --secret-env names \(not shown: it may be the secret itself\) is not set/);
      expect(run.out).toMatch(/untestable\s+receiver\.v1\.webhooks\.accepts-valid/);
      expect(run.out + run.err).not.toContain(given);
      for (const file of readdirSync(join(out, 'latest'))) expect(readFileSync(join(out, 'latest', file), 'utf8'), file).not.toContain(given);
    } finally {
      server.close();
    }
  });
});

describe('a profile that holds a secret', () => {
  const TOKEN = 'sk_live_QzTOKENabc123XYZ789';

  it('says a YAML or JSON syntax error by its first line, never with the lines around it', async () => {
    const dir = tmp('parse');
    const yaml = join(dir, 'p.yaml');
    writeFileSync(yaml, `target: https://x.example\ncredentials:\n  - name: a\n    token: ${TOKEN}\n   surfaces: [v8]\n`);
    const json = join(dir, 'p.json');
    writeFileSync(json, `{"target": "https://x.example", "credentials": [{"name": "a", "token": ${TOKEN}}]}`);
    const receiver = join(dir, 'r.yaml');
    writeFileSync(receiver, `receiver:\n  url: http://127.0.0.1:9/hook\n  headers:\n    x-gw: ${TOKEN}\n   secretEnv: X\n`);
    const [plannedYaml, plannedJson, received] = await Promise.all([apicert(['plan', '--profile', yaml]), apicert(['plan', '--profile', json]), apicert(['certify-receiver', '--profile', receiver, '--out', join(dir, 'out')])]);
    expect(plannedYaml.err).toMatch(/p\.yaml is neither valid YAML nor JSON: .* at line 5, column 1\n?$/);
    expect(plannedJson.err).toMatch(/p\.json is neither valid YAML nor JSON: /);
    for (const run of [plannedYaml, plannedJson, received]) {
      expect(run.code, run.err).toBe(2);
      expect(run.out + run.err).not.toContain('QzTOKEN');
    }
  });

  it('warns in one line about a token or header value written inline, naming the field and not the value', async () => {
    const dir = tmp('inline');
    const write = (name: string, target: string, token: string) => {
      writeFileSync(join(dir, name), `target: ${target}\ncredentials:\n  - name: a\n    token: ${token}\n    surfaces: [v8]\nnetwork:\n  headers:\n    v1: { x-route: "\${ROUTE}" }\n`);
      return join(dir, name);
    };
    const env = { ROUTE: 'eu-1', FROM_ENV: TOKEN };
    const [inline, fromEnv, loopback] = await Promise.all([
      apicert(['plan', '--profile', write('inline.yaml', 'https://gateway.example.test', TOKEN), '--rules', 'v8.missions.get.ok'], env),
      apicert(['plan', '--profile', write('env.yaml', 'https://gateway.example.test', '${FROM_ENV}'), '--rules', 'v8.missions.get.ok'], env),
      apicert(['plan', '--profile', write('loopback.yaml', 'http://127.0.0.1:9', TOKEN), '--rules', 'v8.missions.get.ok'], env),
    ]);
    for (const run of [inline, fromEnv, loopback]) expect(run.code, run.err).toBe(0);
    expect(inline.err).toMatch(/^apicert: warning: \S+inline\.yaml writes a secret inline \(credentials\[0\]\.token\): .*\$\{VAR\}/m);
    expect(inline.err.trim().split('\n')).toHaveLength(1);
    expect(inline.out + inline.err).not.toContain('QzTOKEN');
    expect(fromEnv.err).not.toMatch(/inline/);
    expect(loopback.err).not.toMatch(/inline/);
  });
});

describe('a report that cannot be written', () => {
  // /dev/full answers every write with ENOSPC: a disk that fills while the reports are written.
  const full = existsSync('/dev/full');

  async function earlierRun(): Promise<{ root: string; report: Report; first: string }> {
    const root = join(tmp('full'), 'reports');
    const run = await apicert(['certify', '--rules', 'v8.missions.get.ok', '--format', 'json', '--out', root, '--quiet']);
    expect(run.code, run.err).toBe(0);
    const first = readlinkSync(join(root, 'latest'));
    return { root, report: JSON.parse(readFileSync(join(root, 'latest', 'report.json'), 'utf8')) as Report, first };
  }

  /** A run folder in which every way of writing NAME lands on /dev/full. */
  function fullFor(dir: string, ...names: string[]): void {
    mkdirSync(dir);
    for (const name of names) {
      symlinkSync('/dev/full', join(dir, name));
      symlinkSync('/dev/full', join(dir, `.${name}.tmp`));
    }
  }

  it.skipIf(!full)('names the file, says the verdicts were not saved, exits 3 and leaves latest at the last complete run', async () => {
    const { root, report, first } = await earlierRun();
    const dir = join(root, 'second');
    fullFor(dir, 'report.json');
    const error = await writeRunReports(report, root, ['json', 'md'], {}, undefined, dir).then(() => undefined, (e: unknown) => e);
    expect(error).toBeDefined();
    const said = reportError(error);
    expect(said.code).toBe(3);
    expect(said.message).toContain(`cannot write ${join(dir, 'report.json')}: no space left on the device (ENOSPC); the verdicts were not saved`);
    expect(said.message).toMatch(/latest was not moved/);
    expect(readlinkSync(join(root, 'latest'))).toBe(first);
    expect(existsSync(join(dir, 'summary.md'))).toBe(false);
  });

  it.skipIf(!full)('says where the verdicts are when report.json was written and a later format was not', async () => {
    const { root, report, first } = await earlierRun();
    const dir = join(root, 'second');
    fullFor(dir, 'summary.md');
    const error = await writeRunReports(report, root, ['json', 'md'], {}, undefined, dir).then(() => undefined, (e: unknown) => e);
    const said = reportError(error);
    expect(said.code).toBe(3);
    expect(said.message).toContain(`cannot write ${join(dir, 'summary.md')}: no space left on the device (ENOSPC); the verdicts are in ${join(dir, 'report.json')}`);
    expect((JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report).summary.gate).toBe('pass');
    expect(lstatSync(join(dir, 'report.json')).isFile()).toBe(true);
    expect(readlinkSync(join(root, 'latest'))).toBe(first);
  });
});

describe('load leaves latest at a report', () => {
  it('--dry-run does not move latest; without k6 no run folder is made', async () => {
    const root = join(tmp('load-latest'), 'reports');
    const certified = await apicert(['certify', '--rules', 'v8.missions.get.ok', '--format', 'json', '--out', root, '--quiet']);
    expect(certified.code, certified.err).toBe(0);
    const first = readlinkSync(join(root, 'latest'));
    const env = { APICERT_V8_TOKEN: 'v8at_load-latest-0123456789' };
    const dry = await apicert(['load', '--dry-run', '--target', 'https://gateway.example.test', '--script', 'v8-idempotency-storm', '--out', root], env);
    expect(dry.code, dry.err).toBe(0);
    expect(readlinkSync(join(root, 'latest'))).toBe(first);
    expect(existsSync(join(root, 'latest', 'report.json'))).toBe(true);
    const before = runFolders(root);
    const noK6 = await apicert(['load', '--target', 'https://gateway.example.test', '--script', 'v8-idempotency-storm', '--out', root], { ...env, PATH: '/nonexistent' });
    expect(noK6.code, noK6.err).toBe(2);
    expect(noK6.err).toMatch(/no k6 found on PATH/);
    expect(runFolders(root)).toEqual(before);
  });
});

describe('--header with a mistyped surface', () => {
  it('is refused naming the surface only, never taken for a header named after it', async () => {
    const runs = await Promise.all(['v9:x-waf-token:Sup3rSecretWaf', 'MCP2:x-waf-token:Sup3rSecretWaf'].map((header) => apicert(['certify', '--rules', 'v8.missions.get.ok', '--header', header, '--out', tmp('hdr')])));
    expect(runs[0]!.err).toMatch(/--header: unknown surface "v9": use v8, v1, mcp/);
    expect(runs[1]!.err).toMatch(/--header: unknown surface "MCP2"/);
    for (const run of runs) {
      expect(run.code, run.err).toBe(2);
      expect(run.out + run.err).not.toContain('Sup3rSecretWaf');
    }
  });
});

describe('usage messages that say what to do, alone', () => {
  it('refuses before any line about the run, in words a user can act on', async () => {
    const dir = tmp('words');
    writeFileSync(join(dir, 'empty.json'), '{}');
    const cases: Array<[string[], RegExp]> = [
      [['certify', '--target', 'ftp://x', '--out', join(dir, 'a')], /not an http:\/\/ or https:\/\/ URL \(only http and https are taken\)/],
      [['certify', '--rules', 'nope.*', '--out', join(dir, 'b')], /--rules "nope\.\*" selects no rule/],
      [['certify', '--target', 'http://127.0.0.1:9', '--header', 'bad header:V', '--out', join(dir, 'c')], /--header: the header name is not an HTTP token/],
      [['plan', '--profile', join(dir, 'empty.json')], /- target: target is required/],
      [['profile', 'init', '--out', ''], /--out was given an empty value/],
      [['certify', '--baseline', join(dir, 'no-such.yaml'), '--out', join(dir, 'd')], /--baseline \S+no-such\.yaml: no such file: give the file of known failures.*or drop --baseline/],
      [['judge-client', '--out', join(dir, 'e'), '--', join(dir, 'no-such-client')], /cannot start the client "\S+no-such-client": no executable file there: give the program after "--"/],
      [['coverage', '--report', join(dir, 'r.json')], /--report applies only with --constraints/],
    ];
    const runs = await Promise.all(cases.map(([args]) => apicert(args)));
    runs.forEach((run, i) => {
      expect(run.code, `${cases[i]![0].join(' ')}: ${run.err}`).toBe(2);
      expect(run.err).toMatch(cases[i]![1]);
      // The refusal is the only thing said: no "certifying the built-in reference fake", no "certifying URL creates".
      expect(run.out + run.err, cases[i]![0].join(' ')).not.toMatch(/certifying/);
    });
    expect(existsSync(join(dir, 'e'))).toBe(false);
  });
});
