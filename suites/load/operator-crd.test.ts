import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { operatorManifests } from '../../src/load/operator.ts';
import { LOAD_SCRIPTS } from '../../src/load/rules.ts';
import { crdErrors, type Crd } from './crd-schema.ts';

/**
 * The TestRun that `apicert load --emit-k6-operator` writes, against the TestRun CRD of a named
 * k6-operator release, read from a local copy of github.com/grafana/k6-operator (never fetched
 * here; CI has none, and says so).
 */
export const K6_OPERATOR_RELEASE = 'v1.6.0';
const MIRROR = process.env.K6_OPERATOR_MIRROR ?? '/work/.mirror/grafana+k6-operator/repo';

function readCrd(): Crd | string {
  try {
    const text = execFileSync('git', ['--git-dir', MIRROR, 'show', `${K6_OPERATOR_RELEASE}:config/crd/bases/k6.io_testruns.yaml`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 16 * 1024 * 1024 });
    return parse(text) as Crd;
  } catch {
    return `no k6-operator copy with ${K6_OPERATOR_RELEASE} at ${MIRROR} (set K6_OPERATOR_MIRROR to a git dir of github.com/grafana/k6-operator)`;
  }
}

const crd = readCrd();
const settings = { APICERT_BASE_URL: 'https://gateway.example.test', APICERT_VUS: '4', APICERT_ITERATIONS: '8' };

describe(`--emit-k6-operator against the TestRun CRD of k6-operator ${K6_OPERATOR_RELEASE}`, () => {
  it.skipIf(typeof crd === 'string').each(LOAD_SCRIPTS.map((s) => [s] as const))(`%s: the TestRun is valid${typeof crd === 'string' ? ` (skipped: ${crd})` : ''}`, (script) => {
    const { testRun } = operatorManifests(script, 'export default function () {}', 4, settings);
    expect(crdErrors(crd as Crd, parse(testRun))).toEqual([]);
  });

  it.skipIf(typeof crd === 'string')('the TestRun that mounts the CA bundle (network.tls.ca) is valid', () => {
    const { testRun } = operatorManifests('v8-stream-fanout', 'export default function () {}', 2, { ...settings, NO_PROXY: '' }, true);
    expect(crdErrors(crd as Crd, parse(testRun))).toEqual([]);
  });

  it.skipIf(typeof crd === 'string')('finds a field the CRD does not have, and a wrong type', () => {
    const testRun = parse(operatorManifests('v8-stream-fanout', '', 2, settings).testRun) as { spec: Record<string, unknown> };
    testRun.spec.parallelism = '2';
    (testRun.spec.runner as Record<string, unknown>).envfrom = [];
    expect(crdErrors(crd as Crd, testRun)).toEqual(['.spec.parallelism: expected an integer', '.spec.runner.envfrom: unknown field']);
    expect(crdErrors(crd as Crd, { ...testRun, apiVersion: 'k6.io/v9' })[0]).toMatch(/the CRD serves v1alpha1/);
  });
});
