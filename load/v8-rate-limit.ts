/**
 * /v8 per-principal rate limit: a ramping arrival rate (with APICERT_V8_RATE_LIMIT_TOKEN, a
 * principal on a tier the ramp can exhaust) of mission creates, each under a fresh key: the Errors
 * table gives 429 to POST /v8/missions only, as certify's burst reads it. The seed gives no numbers, so this records where 429 starts; each
 * 429 must be a problem, and (with APICERT_V8_OTHER_PRINCIPAL_TOKEN, one probe per VU) another
 * principal must not be limited meanwhile. Rules: load.v8.rate-limit.limit-observed,
 * load.v8.rate-limit.429-problem, load.v8.rate-limit.per-principal.
 */
import { V8_OTHER_PRINCIPAL, v8RateLimitStep } from '../src/load/scenarios/rate-limit.ts';
import { k6Transport, newKey, rampClock, rampOptions, Recorder, runConfigFor, settingsFor } from './lib/k6.ts';

const config = settingsFor('v8-rate-limit');
const runConfig = runConfigFor('v8-rate-limit');
const recorder = new Recorder('v8-rate-limit', ['v8_rate_429_at_ms', 'v8_rate_429_at_rps', V8_OTHER_PRINCIPAL.servedAtMs, V8_OTHER_PRINCIPAL.refusedAtMs]);

export const options = rampOptions(config, recorder, 'default');

export const setup = recorder.setup(runConfig);

// Each VU is its own JS runtime: this flag caps the other principal's requests at one per VU.
let probedOther = false;
const mayProbeOther = () => !probedOther && (probedOther = true);

export default recorder.iteration(() => {
  const c = runConfig();
  return v8RateLimitStep(k6Transport, { baseUrl: c.baseUrl, token: c.credential, otherToken: c.v8OtherToken, mayProbeOther, missionBody: c.missionBody, key: newKey, ...rampClock(c) });
});

export const handleSummary = recorder.handleSummary(config);
