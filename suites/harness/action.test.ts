import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Step {
  id?: string;
  name?: string;
  run?: string;
  env?: Record<string, string>;
}
interface Action {
  inputs: Record<string, { default?: string }>;
  runs: { using: string; steps: Step[] };
}

const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as Action;

/** Runs the action's certify step as the runner would: its `env:` with inputs substituted, under bash. */
function certifyStep(inputs: Record<string, string>) {
  const step = action.runs.steps.find((s) => s.id === 'certify')!;
  const work = mkdtempSync(join(tmpdir(), 'apicert-action-'));
  const output = join(work, 'output');
  const summary = join(work, 'summary.md');
  writeFileSync(output, '');
  const values = { ...Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [k, v.default ?? ''])), ...inputs };
  const env: Record<string, string> = {};
  for (const [name, expression] of Object.entries(step.env ?? {})) {
    env[name] = expression.replace(/\$\{\{ inputs\.([\w-]+) \}\}/g, (_, key: string) => values[key] ?? '').replace('${{ github.action_path }}', ROOT.replace(/\/$/, ''));
  }
  const run = spawnSync('bash', ['-e', '-c', step.run!], { cwd: work, encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...env, GITHUB_OUTPUT: output, GITHUB_STEP_SUMMARY: summary } });
  return { code: run.status, out: run.stdout, err: run.stderr, outputs: readFileSync(output, 'utf8'), summary: existsSync(summary) ? readFileSync(summary, 'utf8') : '', work };
}

describe('action.yml', () => {
  it('is a composite action with the inputs CI authors set', () => {
    expect(action.runs.using).toBe('composite');
    for (const input of ['profile', 'target', 'surfaces', 'baseline', 'formats']) expect(Object.keys(action.inputs)).toContain(input);
    expect(action.runs.steps.some((s) => JSON.stringify(s).includes('upload-artifact'))).toBe(true);
  });

  it('certifies, writes the step summary and the gate output, and fails the step when the gate fails', () => {
    const green = certifyStep({ rules: 'v8.missions.get.*', formats: 'json,md' });
    expect(green.code, green.out + green.err).toBe(0);
    expect(green.outputs).toMatch(/^gate=pass$/m);
    expect(green.outputs).toMatch(/^report=apicert-reports\/latest\/report\.json$/m);
    expect(green.summary).toMatch(/v8\.missions\.get\.ok/);

    // The action has no fault input: a profile naming a dead target stands for a broken deployment.
    const profile = join(green.work, 'dead.yaml');
    writeFileSync(profile, 'target: http://127.0.0.1:9\n');
    const red = certifyStep({ profile, rules: 'v8.missions.get.*', 'read-only': 'true' });
    expect(red.code).toBe(3);
    expect(red.err).toMatch(/did not answer/);
    expect(red.err).not.toMatch(/creates missions/);
  });
});
