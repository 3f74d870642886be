import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/reports/model.ts';
import { apicertWritten as apicert } from '../support/in-process-cli.ts';
import { privateKeyFrom, signReport } from '../../src/reports/signature.ts';

const FAULT = 'v8.missions.get.unknown-404/server-error';
// The fault also breaks v8.missions.get.other-principal-404; these two rules see it break one.
const RULES = 'v8.missions.get.ok,v8.missions.get.unknown-404';


const dir = mkdtempSync(join(tmpdir(), 'apicert-reports-'));
const at = (name: string) => join(dir, name);

describe('signed reports', async () => {
  const keygen = await apicert('keygen', '--out', at('signer'));
  const certified = await apicert('certify', '--rules', RULES, '--faults', FAULT, '--seed', '3', '--out', at('signed'), '--sign', at('signer.key'), '--format', 'md', '--quiet');
  // Each run writes its own folder under --out; latest points at the newest.
  const reportPath = join(at('signed'), 'latest', 'report.json');

  it('keygen writes a private key only its owner can read, and a public key; it never overwrites', async () => {
    expect(keygen.code, keygen.err).toBe(0);
    expect(statSync(at('signer.key')).mode & 0o777).toBe(0o600);
    expect(readFileSync(at('signer.pub'), 'utf8')).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(keygen.out).not.toContain('PRIVATE KEY');
    const again = await apicert('keygen', '--out', at('signer'));
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/signer\.key exists/);
  });

  it('keygen makes the folder --out names when it is not there yet', async () => {
    const made = await apicert('keygen', '--out', join(at('keys'), 'nested', 'signer'));
    expect(made.code, made.err).toBe(0);
    expect(statSync(join(at('keys'), 'nested', 'signer.key')).mode & 0o777).toBe(0o600);
  });

  it('certify --sign writes report.json (even when only md was asked) and its detached signature', async () => {
    expect(certified.code, certified.err).toBe(1);
    expect(existsSync(`${reportPath}.sig`)).toBe(true);
    const sig = JSON.parse(readFileSync(`${reportPath}.sig`, 'utf8')) as { algorithm: string; keyId: string };
    expect(sig.algorithm).toBe('ed25519');
    expect(readFileSync(`${reportPath}.sig`, 'utf8')).not.toContain('PRIVATE');
  });

  it('verify exits 0 on the intact report, even re-serialised with other spacing and key order', async () => {
    const ok = await apicert('verify', reportPath, '--key', at('signer.pub'));
    expect(ok.code, ok.out + ok.err).toBe(0);
    expect(ok.out).toMatch(/intact/);
    const report = JSON.parse(readFileSync(reportPath, 'utf8')) as Record<string, unknown>;
    const reordered = Object.fromEntries(Object.entries(report).reverse());
    writeFileSync(at('reordered.json'), JSON.stringify(reordered));
    expect((await apicert('verify', at('reordered.json'), '--key', at('signer.pub'), '--signature', `${reportPath}.sig`)).code).toBe(0);
  });

  it('verify exits 1 on a tampered report and says which rule changed', async () => {
    const report = JSON.parse(readFileSync(reportPath, 'utf8')) as Report;
    const failed = report.rules.find((r) => r.verdict === 'fail')!;
    failed.verdict = 'pass';
    writeFileSync(at('tampered.json'), JSON.stringify(report, null, 2));
    const bad = await apicert('verify', at('tampered.json'), '--key', at('signer.pub'), '--signature', `${reportPath}.sig`);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain(`rules.${failed.id} changed after signing`);
    expect(bad.out).toMatch(/the report's own digest .* does not match its content/);
    expect(bad.out).not.toMatch(/rules\.(?!v8\.missions\.get\.unknown-404)/);
  });

  it('verify exits 1 on a report with a member written twice, which the signature covers one reading of', async () => {
    const text = readFileSync(reportPath, 'utf8');
    // A gate of "pass" before the real one: JSON.parse keeps the last, other readers the first.
    writeFileSync(at('twice.json'), text.replace('"summary": {', '"summary": {\n    "gate": "pass",'));
    const twice = await apicert('verify', at('twice.json'), '--key', at('signer.pub'), '--signature', `${reportPath}.sig`);
    expect(twice.code, twice.out + twice.err).toBe(1);
    expect(twice.out).toMatch(/the member "gate" stands twice in one object/);
  });

  it('verify and diff exit 2, saying so, on a report missing what they read; diff also on one nested past any report', async () => {
    const report = JSON.parse(readFileSync(reportPath, 'utf8')) as Record<string, unknown>;
    writeFileSync(at('no-harness.json'), JSON.stringify({ ...report, harness: undefined }));
    writeFileSync(at('null-rule.json'), JSON.stringify({ ...report, rules: [null] }));
    writeFileSync(at('deep.json'), `${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    for (const file of ['no-harness.json', 'null-rule.json', 'deep.json']) {
      const verified = await apicert('verify', at(file), '--key', at('signer.pub'), '--signature', `${reportPath}.sig`);
      const runs = file === 'deep.json' ? [await apicert('diff', reportPath, at(file))] : [verified, await apicert('diff', reportPath, at(file))];
      for (const run of runs) {
        expect(run.code, `${file}: ${run.out}${run.err}`).toBe(2);
        expect(run.err).toMatch(/is not (an apicert report\.json|JSON)/);
      }
    }
    // Beside a signature, a file that is no whole JSON is a signed report that did not arrive whole.
    const deep = await apicert('verify', at('deep.json'), '--key', at('signer.pub'), '--signature', `${reportPath}.sig`);
    expect(deep.code, deep.out + deep.err).toBe(1);
    expect(deep.out).toMatch(/NOT intact[\s\S]*is not whole JSON/);
  });

  it('verify exits 1, saying what to do, on a cut-off report or signature and on a report without its signature; 2 on a path that leads nowhere', async () => {
    const folder = at('cut');
    cpSync(join(at('signed'), 'latest'), folder, { recursive: true, dereference: true });
    const text = readFileSync(reportPath, 'utf8');
    writeFileSync(join(folder, 'report.json'), text.slice(0, Math.floor(text.length / 2)));
    const cut = await apicert('verify', folder, '--key', at('signer.pub'));
    expect(cut.code, cut.out + cut.err).toBe(1);
    expect(cut.out).toMatch(/NOT intact\n  - .*report\.json is not whole JSON: it was cut off or altered after signing; copy report\.json again/);
    writeFileSync(join(folder, 'report.json'), text);
    const sig = readFileSync(`${reportPath}.sig`, 'utf8');
    writeFileSync(join(folder, 'report.json.sig'), sig.slice(0, 40));
    const cutSig = await apicert('verify', folder, '--key', at('signer.pub'));
    expect(cutSig.code, cutSig.out + cutSig.err).toBe(1);
    expect(cutSig.out).toMatch(/the signature .* is not whole JSON/);
    rmSync(join(folder, 'report.json.sig'));
    const unsigned = await apicert('verify', folder, '--key', at('signer.pub'));
    expect(unsigned.code, unsigned.out + unsigned.err).toBe(1);
    expect(unsigned.out).toMatch(/NOT intact\n  - no signature at .*report\.json\.sig: the report is unsigned, or its signature was not copied with it/);
    const nowhere = await apicert('verify', at('no-such-folder'), '--key', at('signer.pub'));
    expect(nowhere.code).toBe(2);
    expect(nowhere.err).toMatch(/cannot read report .*no-such-folder: ENOENT/);
    const noSigFile = await apicert('verify', reportPath, '--key', at('signer.pub'), '--signature', at('no-such.sig'));
    expect(noSigFile.code).toBe(2);
    expect(noSigFile.err).toMatch(/cannot read signature/);
  });

  it('verify exits 1 on a number spelled as apicert never writes one, which other readers read otherwise', async () => {
    const text = readFileSync(reportPath, 'utf8');
    const report = JSON.parse(text) as Report;
    const seed = `"seed": ${report.run.seed}`;
    expect(text).toContain(seed);
    // Each reads back in JavaScript as what was signed; another reader takes Infinity, a float or an exact decimal.
    for (const spelling of [`${report.run.seed}.0000000000000000001`, `${report.run.seed}.0`, `${report.run.seed}e0`]) {
      writeFileSync(at('respelled.json'), text.replace(seed, `"seed": ${spelling}`));
      const run = await apicert('verify', at('respelled.json'), '--key', at('signer.pub'), '--signature', `${reportPath}.sig`);
      expect(run.code, `${spelling}: ${run.out}${run.err}`).toBe(1);
      expect(run.out).toContain(`the number ${spelling} is not spelled as apicert writes numbers`);
    }
    const evidence = text.match(/"durationMs": \d+/)![0];
    writeFileSync(at('infinite.json'), text.replace(evidence, '"durationMs": 1e999'));
    const infinite = await apicert('verify', at('infinite.json'), '--key', at('signer.pub'), '--signature', `${reportPath}.sig`);
    expect(infinite.code).toBe(1);
    expect(infinite.out).toContain('the number 1e999 is not spelled');
  });

  it('the signature covers the rendered files beside report.json: verify names one that changed, and says what it vouches for', async () => {
    const report = JSON.parse(readFileSync(reportPath, 'utf8')) as Report;
    const sig = JSON.parse(readFileSync(`${reportPath}.sig`, 'utf8')) as { manifest: { files?: Record<string, string> } };
    // The run wrote summary.md only (and report.json for the signature).
    expect(Object.keys(sig.manifest.files ?? {})).toEqual(['summary.md']);
    const ok = await apicert('verify', join(at('signed'), 'latest'), '--key', at('signer.pub'));
    expect(ok.code, ok.out + ok.err).toBe(0);
    expect(ok.out).toContain(`vouches for: target ${report.target.baseUrl} (embedded-fake; faults: ${FAULT}), run started ${report.run.startedAt}, gate ${report.summary.gate.toUpperCase()}`);
    expect(ok.out).toContain('covers: report.json, summary.md; checked unchanged: summary.md');
    const folder = at('said-pass');
    cpSync(join(at('signed'), 'latest'), folder, { recursive: true, dereference: true });
    writeFileSync(join(folder, 'summary.md'), readFileSync(join(folder, 'summary.md'), 'utf8').replace(/Gate: \*\*[A-Z]+\*\*/, 'Gate: **PASS**'));
    writeFileSync(join(folder, 'report.html'), '<p id="gate">PASS</p>');
    const bad = await apicert('verify', folder, '--key', at('signer.pub'));
    expect(bad.code, bad.out + bad.err).toBe(1);
    expect(bad.out).toMatch(/NOT intact\n  - summary\.md changed after signing/);
    rmSync(join(folder, 'summary.md'));
    const partial = await apicert('verify', folder, '--key', at('signer.pub'));
    expect(partial.code, partial.out + partial.err).toBe(0);
    expect(partial.out).toContain('not in this folder, so not checked: summary.md');
    expect(partial.out).toContain('not covered: report.html beside it');
    // A file list slipped into the signature file is not signed: the manifest no longer verifies.
    const forged = JSON.parse(readFileSync(`${reportPath}.sig`, 'utf8')) as { manifest: { files: Record<string, string> } };
    forged.manifest.files['report.html'] = 'sha256:0';
    writeFileSync(join(folder, 'report.json.sig'), JSON.stringify(forged));
    const slipped = await apicert('verify', folder, '--key', at('signer.pub'));
    expect(slipped.code).toBe(1);
    expect(slipped.out).toMatch(/manifest .* does not verify with this key/);
  });

  it('a signature made before the rendered files were covered still verifies, and says it covers report.json only', async () => {
    const folder = at('old-signature');
    cpSync(join(at('signed'), 'latest'), folder, { recursive: true, dereference: true });
    const report = JSON.parse(readFileSync(reportPath, 'utf8')) as Report;
    writeFileSync(join(folder, 'report.json.sig'), JSON.stringify(signReport(report, privateKeyFrom(readFileSync(at('signer.key'), 'utf8'), 'signer.key'))));
    const old = await apicert('verify', folder, '--key', at('signer.pub'));
    expect(old.code, old.out + old.err).toBe(0);
    expect(old.out).toContain('covers: report.json only (signed before apicert covered the rendered files)');
    expect(old.out).toContain('not covered: summary.md beside it');
  });

  it('verify exits 1 with another key or an altered signature file, and 2 on a key that is not one', async () => {
    await apicert('keygen', '--out', at('other'));
    const otherKey = await apicert('verify', reportPath, '--key', at('other.pub'));
    expect(otherKey.code).toBe(1);
    expect(otherKey.out).toMatch(/signed with key sha256:[0-9a-f]{64}, not with this public key/);
    const sig = JSON.parse(readFileSync(`${reportPath}.sig`, 'utf8')) as { manifest: { report: string } };
    sig.manifest.report = 'sha256:0';
    writeFileSync(at('altered.sig'), JSON.stringify(sig));
    const r = JSON.parse(readFileSync(reportPath, 'utf8')) as Report;
    r.run.seed = 4;
    writeFileSync(at('reseeded.json'), JSON.stringify(r));
    const altered = await apicert('verify', at('reseeded.json'), '--key', at('signer.pub'), '--signature', at('altered.sig'));
    expect(altered.code).toBe(1);
    expect(altered.out).toMatch(/the signature file was altered or comes from another key/);
    const notAKey = await apicert('verify', reportPath, '--key', reportPath);
    expect(notAKey.code).toBe(2);
    expect(notAKey.err).toMatch(/is not a public key in PEM/);
  });
});

describe('apicert diff', async () => {
  const run = async (name: string, ...extra: string[]) => {
    const r = await apicert('certify', '--rules', RULES, '--seed', '3', '--out', at(name), '--format', 'json', '--quiet', ...extra);
    expect([0, 1]).toContain(r.code);
    return join(at(name), 'latest', 'report.json');
  };
  const clean = await run('clean');
  const broken = await run('broken', '--faults', FAULT);

  it('lists a new failure and exits 1 on the regression', async () => {
    const d = await apicert('diff', clean, broken);
    expect(d.code, d.err).toBe(1);
    expect(d.out).toMatch(/new failures \(1\):\n {2}v8\.missions\.get\.unknown-404: pass -> fail - /);
    expect(d.out).toContain('REGRESSION');
  });

  it('lists the fix and exits 0 the other way round; --format md makes a PR comment', async () => {
    const d = await apicert('diff', broken, clean, '--format', 'md');
    expect(d.code, d.err).toBe(0);
    expect(d.out).toContain('#### Fixed (1)');
    expect(d.out).toContain('| `v8.missions.get.unknown-404` | fail | pass |  |');
    expect(d.out).toContain('no regression');
  });

  it('--format md keeps a long reason out of the table cell: first line clipped, the whole account below', async () => {
    const long = JSON.parse(readFileSync(broken, 'utf8')) as Report;
    const rule = long.rules.find((r) => r.id === 'v8.missions.get.unknown-404')!;
    const curl = `curl -sS -i -X POST 'http://127.0.0.1:1/v1/execute' --data-raw '${'x'.repeat(1_700)}'`;
    rule.reason = `step 3: the run's events go on after request.cancelled\n\nShrunk counterexample after 2 sequence(s)\n\n1. start run A\n   ${curl}`;
    writeFileSync(at('long.json'), JSON.stringify(long));
    const d = await apicert('diff', clean, at('long.json'), '--format', 'md');
    const rows = d.out.split('\n').filter((l) => l.startsWith('| `'));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.length).toBeLessThan(300);
    expect(rows[0]).toContain("step 3: the run's events go on after request.cancelled (details below)");
    expect(d.out).toMatch(/<details><summary><code>v8\.missions\.get\.unknown-404<\/code><\/summary>\n\n```text\nstep 3: [^]*1\. start run A\n {3}curl /);
  });

  it('lists rules added and removed', async () => {
    const fewer = JSON.parse(readFileSync(clean, 'utf8')) as Report;
    fewer.rules = fewer.rules.slice(1);
    writeFileSync(at('fewer.json'), JSON.stringify(fewer));
    const d = await apicert('diff', clean, at('fewer.json'));
    expect(d.code).toBe(0);
    expect(d.out).toMatch(/rules removed \(1\):\n {2}v8\.missions\.get\.\S+: was pass/);
    expect((await apicert('diff', at('fewer.json'), clean)).out).toMatch(/rules added \(1\)/);
  });

  it('exits 2 on a file that is not a report or an unknown format', async () => {
    expect((await apicert('diff', clean, at('signer.pub'))).code).toBe(2);
    expect((await apicert('diff', clean, broken, '--format', 'html')).code).toBe(2);
  });
});

describe('certify --baseline', () => {
  const baseline = (name: string, yaml: string) => {
    writeFileSync(at(name), yaml);
    return at(name);
  };
  const certify = async (file: string, ...extra: string[]) => apicert('certify', '--rules', RULES, '--seed', '3', '--out', at('baselined'), '--baseline', file, ...extra);

  it('does not gate on a listed failure, and shows it as expected', async () => {
    const file = baseline('known.yaml', '- rule: v8.missions.get.unknown-404\n  reason: the gateway answers 500 until ticket 123 ships\n  expires: 2999-12-31\n');
    const r = await certify(file, '--faults', FAULT, '--quiet');
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toContain('expected failures (baseline): v8.missions.get.unknown-404');
    // The rule's own line says it was expected, not a plain FAIL.
    expect(r.out).toMatch(/^expected\s+v8\.missions\.get\.unknown-404: /m);
    expect(r.out).not.toMatch(/^FAIL\s/m);
    const report = JSON.parse(readFileSync(join(at('baselined'), 'latest', 'report.json'), 'utf8')) as Report;
    expect(report.summary.gate).toBe('pass');
    expect(report.rules.find((x) => x.id === 'v8.missions.get.unknown-404')?.baseline).toEqual({ reason: 'the gateway answers 500 until ticket 123 ships', expires: '2999-12-31', status: 'expected' });
    expect(readFileSync(join(at('baselined'), 'latest', 'junit.xml'), 'utf8')).toMatch(/<testsuites [^>]*failures="0" errors="0"/);
  });

  it('fails the run on a stale entry whose rule passes now', async () => {
    const file = baseline('stale.yaml', '- rule: v8.missions.get.unknown-404\n  reason: fixed since, but nobody removed the entry\n');
    const r = await certify(file, '--quiet');
    expect(r.code).toBe(1);
    expect(r.out).toContain('STALE baseline entries (the rule passes now; remove them): v8.missions.get.unknown-404');
    expect(readFileSync(join(at('baselined'), 'latest', 'junit.xml'), 'utf8')).toContain('type="stale-baseline"');
  });

  it('exits 2 on an unknown rule id, naming the closest ones, and on an expired entry', async () => {
    const unknown = await certify(baseline('typo.yaml', '- rule: v8.missions.get.unknown-400\n  reason: typo\n'));
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/v8\.missions\.get\.unknown-400 is not a rule id \(closest: v8\.missions\.get\./);
    const expired = await certify(baseline('expired.yaml', '- rule: v8.missions.get.unknown-404\n  reason: old\n  expires: 2020-01-01\n'));
    expect(expired.code).toBe(2);
    expect(expired.err).toMatch(/expired on 2020-01-01/);
    const shapeless = await certify(baseline('shapeless.yaml', 'rule: v8.missions.get.unknown-404\n'));
    expect(shapeless.code).toBe(2);
    expect(shapeless.err).toMatch(/not a valid baseline/);
  });
});
