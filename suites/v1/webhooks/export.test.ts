import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TSC = fileURLToPath(new URL('../../../node_modules/typescript/bin/tsc', import.meta.url));

// What a user's service does: import the verifier by the package's export, as compiled JavaScript.
describe('apicert/webhooks export', () => {
  beforeAll(() => {
    const build = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.webhooks.json'], { cwd: ROOT, encoding: 'utf8' });
    expect(build.status, build.stdout + build.stderr).toBe(0);
  });

  it('signs and verifies through the compiled package export', () => {
    const script = `
      import { signWebhook, verifyWebhook, MemoryEventStore } from 'apicert/webhooks';
      const body = JSON.stringify({ apiVersion: 'v1', event_id: 'evt_1', run_id: 'run_1', sequence: 1 });
      const now = Math.floor(Date.now() / 1000);
      const signature = await signWebhook({ secret: 'whsec_test_secret', eventId: 'evt_1', timestamp: String(now), rawBody: body });
      const headers = { 'service-webhook-id': 'evt_1', 'service-webhook-timestamp': String(now), 'service-webhook-signature': signature };
      const store = new MemoryEventStore();
      const first = await verifyWebhook({ rawBody: body, headers, secret: 'whsec_test_secret', store });
      const again = await verifyWebhook({ rawBody: body, headers, secret: 'whsec_test_secret', store });
      const forged = await verifyWebhook({ rawBody: body.replace('run_1', 'run_2'), headers, secret: 'whsec_test_secret' });
      console.log(JSON.stringify({ first: first.ok && !first.duplicate, again: again.ok && again.duplicate, forged: forged.ok ? 0 : forged.status }));
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ first: true, again: true, forged: 401 });
  });
});
