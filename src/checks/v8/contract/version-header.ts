/** Versioning: the contract header on every /v8 response. */
import { CONTRACT_HEADER, CONTRACT_VERSION } from '../../../contract/v8/common.ts';
import { section } from '../../../rule/index.ts';
import { errorBattery, readSurfaceSuccesses } from '../support/battery.ts';
import { createMission, writer, MISSIONS } from '../support/missions.ts';

const rule = section({ destructive: 'mutate', surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:missions:write+missions:read', 'v8:primary'], fixtures: ['v8.missions.succeeds'] } });

export const versionHeader = rule({
  id: 'v8.contract.version-header',
  title: 'Every /v8 response, success, stream or error, carries x-service-contract-version: service-integration-gateway-v8.1',
  level: 'required',
  spec: {
    section: 'Versioning',
    quote: 'Every response carries header `x-service-contract-version` with the value `service-integration-gateway-v8.1`.',
  },
  async check(ctx) {
    const mission = await createMission(ctx, 'succeeds');
    const observed = await errorBattery(ctx);
    const get = await ctx.http.send({ method: 'GET', path: `${MISSIONS}/${mission.runId}`, credential: writer(ctx), label: 'get mission' });
    observed.push({ what: 'get mission (200)', ...get, exchange: ctx.http.exchangeOf(get) });
    const stream = await ctx.http.stream({ method: 'GET', path: `${MISSIONS}/${mission.runId}/events`, credential: writer(ctx), label: 'event stream', onEvent: () => 'disconnect' });
    observed.push({ what: 'event stream (200)', status: stream.status, headers: stream.headers, json: undefined, contentType: stream.contentType, exchange: ctx.http.exchangeOf(stream) });
    observed.push(...(await readSurfaceSuccesses(ctx)));
    for (const o of observed) {
      const value = o.headers[CONTRACT_HEADER];
      ctx.check(value === CONTRACT_VERSION, `${o.what}: ${CONTRACT_HEADER} is ${value === undefined ? 'missing' : `"${value}"`}, expected "${CONTRACT_VERSION}"`, o.exchange);
    }
  },
});
