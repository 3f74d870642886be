/**
 * Manifests for the Grafana k6-operator: a ConfigMap holding a bundled script and a TestRun that
 * runs it on `parallelism` pods, each on its own execution segment. Credentials come from a
 * Secret the user creates (envFrom), never from these files. Each pod prints its summary as one
 * stdout line, which `apicert load merge` reads from the pods' logs.
 */
import { stringify } from 'yaml';
import type { Env } from './config.ts';
import type { LoadScript } from './rules.ts';

/** A ConfigMap holds at most 1 MiB (k6-operator docs); bigger bundles need a volumeClaim. */
export const CONFIGMAP_LIMIT = 1_048_576;
export const CREDENTIALS_SECRET = 'apicert-load-credentials';

export function testRunName(script: LoadScript): string {
  return `apicert-${script}`;
}

/** The ConfigMap of the CA bundle (Node's roots and the profile's CA), mounted where SSL_CERT_FILE points in every pod. */
export const CA_CONFIGMAP = 'apicert-ca-bundle';
const CA_MOUNT = '/etc/apicert-ca';

export function caConfigMap(bundle: string): string {
  return stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: CA_CONFIGMAP, labels: { 'app.kubernetes.io/part-of': 'apicert' } }, data: { 'ca-bundle.pem': bundle } }, { lineWidth: 0 });
}

export function operatorManifests(script: LoadScript, bundle: string, parallelism: number, env: Env, withCa = false): { configMap: string; testRun: string } {
  if (Buffer.byteLength(bundle) > CONFIGMAP_LIMIT) throw new Error(`the ${script} bundle is over the 1 MiB a ConfigMap holds: serve it from a volumeClaim instead`);
  const name = testRunName(script);
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { 'app.kubernetes.io/part-of': 'apicert' } }, data: { [`${script}.js`]: bundle } };
  const runnerEnv = [
    ...Object.entries(env)
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .map(([key, value]) => ({ name: key, value })),
    { name: 'APICERT_SUMMARY_STDOUT', value: '1' },
    { name: 'APICERT_SUMMARY_OUT', value: '/tmp/apicert-summary.json' },
    ...(withCa ? [{ name: 'SSL_CERT_FILE', value: `${CA_MOUNT}/ca-bundle.pem` }] : []),
  ];
  const ca = withCa ? { volumes: [{ name: 'apicert-ca', configMap: { name: CA_CONFIGMAP } }], volumeMounts: [{ name: 'apicert-ca', mountPath: CA_MOUNT, readOnly: true }] } : {};
  const testRun = {
    apiVersion: 'k6.io/v1alpha1',
    kind: 'TestRun',
    metadata: { name, labels: { 'app.kubernetes.io/part-of': 'apicert' } },
    spec: {
      parallelism,
      script: { configMap: { name, file: `${script}.js` } },
      arguments: '--no-usage-report',
      runner: { env: runnerEnv, envFrom: [{ secretRef: { name: CREDENTIALS_SECRET } }], ...ca },
    },
  };
  return { configMap: stringify(configMap, { lineWidth: 0 }), testRun: stringify(testRun, { lineWidth: 0 }) };
}

/** What to run next, for the README the emitter writes beside the manifests. */
export function operatorSteps(scripts: readonly LoadScript[], parallelism: number, secretNames: readonly string[], withCa = false): string {
  const literal = secretNames.map((n) => (n === 'APICERT_TLS_CERT' || n === 'APICERT_TLS_KEY' ? `--from-file=${n}=${n === 'APICERT_TLS_CERT' ? 'client.pem' : 'client.key'}` : `--from-literal=${n}="$${n}"`)).join(' ');
  return [
    `# apicert load on the k6-operator (parallelism ${parallelism})`,
    '',
    ...(secretNames.some((n) => n.startsWith('APICERT_TLS_')) ? ['# client.pem and client.key: the files the profile names in network.tls.cert and network.tls.key'] : []),
    `kubectl create secret generic ${CREDENTIALS_SECRET} ${literal}`,
    ...(withCa ? [`kubectl apply -f ${CA_CONFIGMAP}.configmap.yaml   # SSL_CERT_FILE in every pod: Node's roots and network.tls.ca`] : []),
    ...scripts.flatMap((s) => [`kubectl apply -f ${s}.configmap.yaml -f ${s}.testrun.yaml`]),
    '',
    '# when a TestRun has finished (kubectl get testrun), collect every pod\'s summary line and merge:',
    ...scripts.map((s) => `kubectl logs -l k6_cr=${testRunName(s)} --tail=-1 --max-log-requests=${Math.max(parallelism + 2, 5)} > ${s}.log`),
    `npx apicert load merge ${scripts.map((s) => `${s}.log`).join(' ')}`,
    '',
  ].join('\n');
}
