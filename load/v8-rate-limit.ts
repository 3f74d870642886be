/**
 * /v8 per-principal rate limit: a ramping arrival rate of reads of a mission no one has (404 costs
 * the target only its limiter). The seed gives no numbers, so this records where 429 starts; each
 * 429 must be a problem, and (with APICERT_V8_OTHER_PRINCIPAL_TOKEN, one probe per VU) another
 * principal must not be limited meanwhile. Rules: load.v8.rate-limit.limit-observed,
 * load.v8.rate-limit.429-problem, load.v8.rate-limit.per-principal.
 */
import { ABSENT_MISSION_ID } from '../src/load/config.ts';
import { v8RateLimitStep } from '../src/load/scenarios/rate-limit.ts';
import { configFor, k6Transport, rampClock, rampOptions, Recorder } from './lib/k6.ts';

const { config, credential } = configFor('v8-rate-limit');
const recorder = new Recorder('v8-rate-limit', ['v8_rate_429_at_ms', 'v8_rate_429_at_rps']);

export const options = rampOptions(config, recorder, 'default');

// Each VU is its own JS runtime: this flag caps the other principal's requests at one per VU.
let probedOther = false;
const mayProbeOther = () => !probedOther && (probedOther = true);

export default recorder.iteration(() =>
  v8RateLimitStep(k6Transport, { baseUrl: config.baseUrl, token: credential, otherToken: config.v8OtherToken, mayProbeOther, missionId: ABSENT_MISSION_ID, ...rampClock(config) }),
);

export const handleSummary = recorder.handleSummary(config);
