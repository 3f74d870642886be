/** Versioning: the contract header on every /v8 response. */
import { CONTRACT_HEADER, CONTRACT_VERSION } from '../../../contract/v8/common.ts';
import { section } from '../../../rule/index.ts';
import { onSurface } from '../../../traffic/read.ts';
import { errorBattery, readSurfaceSuccesses } from '../support/battery.ts';
import { createMission, writer, MISSIONS } from '../support/missions.ts';

const rule = section({ destructive: 'mutate', surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:missions:write+missions:read', 'v8:primary'], fixtures: ['v8.missions.succeeds'] } });

export const versionHeader = rule({
  id: 'v8.contract.version-header',
  title: 'Every /v8 response, success, stream or error, carries x-service-contract-version: service-integration-gateway-v8.1',
  level: 'required',
  // "Every response": every answer of the run is judged, whichever check sent it, and so still when this check's own requests were stopped (a limiter).
  judgesTheRun: true,
  spec: {
    section: 'Versioning',
    quote: 'Every response carries header `x-service-contract-version` with the value `service-integration-gateway-v8.1`.',
  },
  judgement: {
    record: 'any answered /v8 request',
    judge(j) {
      for (const ex of j.exchanges) {
        if (!onSurface(ex, 'v8') || ex.status === undefined) continue;
        const value = ex.responseHeaders[CONTRACT_HEADER];
        j.check(ex, value === CONTRACT_VERSION, `${CONTRACT_HEADER} is ${value === undefined ? 'missing' : `"${value}"`}, expected "${CONTRACT_VERSION}"`);
      }
    },
  },
  async provoke(ctx) {
    // A success, a stream, every kind of error and every read surface: each answer carries the header.
    const mission = await createMission(ctx, 'succeeds');
    await errorBattery(ctx);
    await ctx.http.send({ method: 'GET', path: `${MISSIONS}/${mission.runId}`, credential: writer(ctx), label: 'get mission' });
    await ctx.http.stream({ method: 'GET', path: `${MISSIONS}/${mission.runId}/events`, credential: writer(ctx), label: 'event stream', onEvent: () => 'disconnect' });
    await readSurfaceSuccesses(ctx);
  },
});
