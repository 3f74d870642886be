import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildImage } from '../../scripts/build-image.ts';
import { freeLoopbackPort } from '../../src/fake/standalone.ts';

const BIN = new URL('../../bin/apicert.js', import.meta.url).pathname;
const IMAGE = 'apicert-fake:test';
// testcontainers on an engine without a registry or bridge network (see .ci/start-dockerd.sh).
// Set here too: this test process asks the engine itself (is there one, is the container gone).
process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
process.env.TESTCONTAINERS_HOST_OVERRIDE ??= 'localhost';
const CONTAINER_ENV = { TESTCONTAINERS_RYUK_DISABLED: process.env.TESTCONTAINERS_RYUK_DISABLED, TESTCONTAINERS_HOST_OVERRIDE: process.env.TESTCONTAINERS_HOST_OVERRIDE };

function apicert(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...CONTAINER_ENV, NO_COLOR: '1', ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

/** Why the image tests cannot run here, or undefined when an engine answers. */
async function engineMissing(): Promise<string | undefined> {
  if (process.platform !== 'linux') return `building the test image needs Linux (this is ${process.platform})`;
  const { getContainerRuntimeClient } = await import('testcontainers');
  try {
    await getContainerRuntimeClient();
    return undefined;
  } catch (error) {
    return `no container engine answered (${(error as Error).message.split('\n')[0]}); bash .ci/start-dockerd.sh starts one (as root)`;
  }
}

describe('certify --image: the fake in its own container image', () => {
  let skipReason: string | undefined;

  beforeAll(async () => {
    skipReason = await engineMissing();
    if (skipReason) {
      console.warn(`image tests skipped: ${skipReason}`);
      return;
    }
    await buildImage(IMAGE);
  }, 180_000);

  it('starts the image, waits for its log line, certifies it green (webhooks included) and removes the container', async (ctx) => {
    ctx.skip(skipReason !== undefined, skipReason);
    const [port, receiver] = [await freeLoopbackPort(), await freeLoopbackPort()];
    const shared = mkdtempSync(join(tmpdir(), 'apicert-image-profile-'));
    const out = mkdtempSync(join(tmpdir(), 'apicert-image-reports-'));
    // The fake in the container writes its profile (its tokens, the receiver address) to the mounted folder.
    const run = await apicert([
      'certify', '--image', IMAGE, '--port', String(port), '--wait-log', 'apicert fake listening',
      '--mount', `${shared}:/out`, '--profile', join(shared, 'fake-profile.json'), '--out', out, '--quiet', '--seed', '16',
      '--', 'fake', '--port', String(port), '--profile-out', '/out/fake-profile.json', '--webhook-receiver', `127.0.0.1:${receiver}`,
    ]);
    expect(run.code, run.out + run.err).toBe(0);
    expect(run.out).toMatch(/\(container apicert-fake:test\): gate PASS - judged \d+ of \d+ selected rules \(pass or fail\); required \d+ pass, 0 fail, 0 untestable, 0 inconclusive/);
    const report = JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8')) as { target: { kind: string; image?: string }; rules: Array<{ id: string; verdict: string }> };
    expect(report.target).toMatchObject({ kind: 'container', image: IMAGE, baseUrl: `http://127.0.0.1:${port}` });
    const delivery = report.rules.filter((r) => r.id.startsWith('v1.webhooks.delivery.'));
    expect(delivery.length).toBeGreaterThan(0);
    for (const r of delivery) expect(r.verdict, r.id).toBe('pass');
    const { getContainerRuntimeClient } = await import('testcontainers');
    const client = await getContainerRuntimeClient();
    const left = await client.container.list();
    expect(left.filter((c) => c.Image === IMAGE)).toEqual([]);
  }, 180_000);

  it('attaches the container log to the run when a rule fails', async (ctx) => {
    ctx.skip(skipReason !== undefined, skipReason);
    const port = await freeLoopbackPort();
    const shared = mkdtempSync(join(tmpdir(), 'apicert-image-profile-'));
    const out = mkdtempSync(join(tmpdir(), 'apicert-image-reports-'));
    const run = await apicert([
      'certify', '--image', IMAGE, '--port', String(port), '--wait-log', 'apicert fake listening', '--rules', 'v8.missions.get.*',
      '--mount', `${shared}:/out`, '--profile', join(shared, 'fake-profile.json'), '--out', out, '--quiet',
      '--', 'fake', '--port', String(port), '--profile-out', '/out/fake-profile.json', '--faults', 'v8.missions.get.unknown-404/server-error',
    ]);
    expect(run.code, run.out + run.err).toBe(1);
    expect(run.out).toMatch(/FAIL\s+v8\.missions\.get\.unknown-404/);
    const log = readFileSync(join(out, 'latest', 'container.log'), 'utf8');
    expect(log).toMatch(/apicert fake listening on http:\/\/127\.0\.0\.1:\d+ with faults v8\.missions\.get\.unknown-404\/server-error/);
  }, 120_000);

  it('exits 3 and keeps the container log when the image never becomes ready', async (ctx) => {
    ctx.skip(skipReason !== undefined, skipReason);
    const out = mkdtempSync(join(tmpdir(), 'apicert-image-reports-'));
    const port = await freeLoopbackPort();
    // "no-such-command" makes apicert in the container print a usage error and exit: the log line never comes. The
    // timeout leaves a busy machine time to start Node in the container and print it (5 s was once not enough).
    const run = await apicert(['certify', '--image', IMAGE, '--port', String(port), '--wait-log', 'a line this image never prints', '--startup-timeout', '20000', '--out', out, '--', 'no-such-command']);
    expect(run.code, run.out + run.err).toBe(3);
    expect(run.err).toMatch(/apicert-fake:test did not start/);
    expect(run.err).toMatch(/unknown command 'no-such-command'/);
    const [folder] = readdirSync(out).filter((n) => n !== 'latest');
    expect(readFileSync(join(out, folder!, 'container.log'), 'utf8')).toMatch(/unknown command 'no-such-command'/);
  }, 120_000);
});

describe("certify --image: the Dockerfile's own image", () => {
  // .ci/run builds the Dockerfile (FROM a Node base it makes with debootstrap) and names the image here.
  const image = process.env.APICERT_DOCKERFILE_IMAGE;
  let skipReason: string | undefined;

  beforeAll(async () => {
    skipReason = image ? await engineMissing() : 'APICERT_DOCKERFILE_IMAGE is not set (.ci/run builds the Dockerfile and sets it)';
    if (skipReason) console.warn(`Dockerfile image test skipped: ${skipReason}`);
  }, 60_000);

  it('runs as the node user, serves the fake and certifies it green', async (ctx) => {
    ctx.skip(skipReason !== undefined, skipReason);
    const [port, receiver] = [await freeLoopbackPort(), await freeLoopbackPort()];
    const shared = mkdtempSync(join(tmpdir(), 'apicert-image-profile-'));
    // The image runs as USER node: the folder it writes the fake's profile into must let it.
    chmodSync(shared, 0o777);
    const out = mkdtempSync(join(tmpdir(), 'apicert-image-reports-'));
    const run = await apicert([
      'certify', '--image', image!, '--port', String(port), '--wait-log', 'apicert fake listening',
      '--mount', `${shared}:/out`, '--profile', join(shared, 'fake-profile.json'), '--out', out, '--quiet', '--seed', '16',
      '--', 'fake', '--port', String(port), '--profile-out', '/out/fake-profile.json', '--webhook-receiver', `127.0.0.1:${receiver}`,
    ]);
    expect(run.code, run.out + run.err).toBe(0);
    expect(run.out).toMatch(new RegExp(`\\(container ${image!.replace(/[.:]/g, '\\$&')}\\): gate PASS - judged \\d+ of \\d+ selected rules`));
    const report = JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8')) as { target: { kind: string; image?: string } };
    expect(report.target).toMatchObject({ kind: 'container', image });
  }, 180_000);
});

describe('certify --image without an engine', () => {
  it('exits 3 and says what to start', async () => {
    const out = mkdtempSync(join(tmpdir(), 'apicert-image-reports-'));
    const run = await apicert(['certify', '--image', IMAGE, '--port', '8080', '--out', out], { DOCKER_HOST: `unix://${join(out, 'no-engine.sock')}` });
    expect(run.code, run.out + run.err).toBe(3);
    expect(run.err).toMatch(/no container engine answered .*start Docker/);
    expect(run.err).not.toMatch(/\n\s+at /);
    expect(existsSync(join(out, 'latest'))).toBe(false);
  }, 60_000);
});
