/** GET /v1/usage: a JSON readback scoped to the caller's tenant; its fields are not shown. */
import { type CheckContext, section } from '../../../rule/index.ts';
import { usageResponse } from '../../../contract/v1/usage.ts';
import type { Credential } from '../../../profile/schema.ts';
import { taskResponse } from '../../../contract/v1/task.ts';
import { newKey, otherTenantKey, postExecute, primaryKey, startRun, taskBody } from '../support/fabric.ts';

const rule = section({ surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:key'] } });

const USAGE = '/v1/usage';

function readUsage(ctx: CheckContext, credential: Credential, label: string) {
  return ctx.http.send({ method: 'GET', path: USAGE, credential, label });
}

export const usageReadback = rule({
  id: 'v1.usage.readback',
  title: 'Usage answers 200 with a JSON object (its fields are recorded)',
  level: 'required',
  spec: {
    section: 'Endpoints; Resources > Run, usage and webhook endpoint records',
    quote: '`200` JSON, tenant-scoped usage and spend readback … Fields of the usage response: not shown.',
  },
  async check(ctx) {
    const res = await readUsage(ctx, primaryKey(ctx), 'read usage');
    ctx.expect(res.status === 200, `usage answered ${res.status}, expected 200`);
    ctx.expect(res.contentType.startsWith('application/json'), `usage came with content-type "${res.contentType}", expected application/json`);
    ctx.observe('usage fields', Object.keys(ctx.expectShape(usageResponse, res.json, 'the usage readback')).sort());
  },
});

export const usageTenantScoped = rule({
  id: 'v1.usage.tenant-scoped',
  title: "No trace of one tenant's runs (run id or a marker sent in the task) appears in another tenant's usage readback",
  level: 'required',
  needs: { credentials: ['v1:other-tenant'], fixtures: ['v1.tasks.completes'] },
  destructive: 'mutate',
  spec: { section: 'Endpoints', quote: '`200` JSON, tenant-scoped usage and spend readback' },
  async check(ctx) {
    const tenants = [primaryKey(ctx), otherTenantKey(ctx)] as const;
    // Field names are not shown, so the readbacks are searched as text for what only the other tenant could know.
    const traces: Array<{ key: Credential; needles: string[] }> = [];
    for (const key of tenants) {
      const marker = newKey('apicert-usage-marker');
      const runId = await startRun(ctx, 'completes', { credential: key, label: `setup: a run of tenant ${key.tenant}` });
      const body = taskBody(ctx, 'completes');
      const marked = await postExecute(ctx, { ...body, task: { ...(body.task as object), apicertMarker: marker } }, { credential: key, label: `setup: a marked run of tenant ${key.tenant}` });
      const markedRun = taskResponse.safeParse(marked.json);
      traces.push({ key, needles: [runId, marker, ...(markedRun.success ? [markedRun.data.run_id] : [])] });
    }
    for (const [i, mine] of traces.entries()) {
      const other = traces[1 - i]!;
      const own = await readUsage(ctx, mine.key, `usage of tenant ${mine.key.tenant}`);
      ctx.expect(own.status === 200, `usage for ${mine.key.name} answered ${own.status}, expected 200`);
      ctx.observe(`own runs visible in tenant ${mine.key.tenant}'s usage`, mine.needles.some((n) => own.text.includes(n)), 'when false, the readback names no run, and the leak check can only see aggregate fields');
      const leaked = other.needles.filter((n) => own.text.includes(n));
      ctx.expect(leaked.length === 0, `tenant ${mine.key.tenant}'s usage readback contains ${leaked.join(', ')} from tenant ${other.key.tenant}`);
    }
  },
});
