/**
 * /v1 rate limit: a ramping arrival rate (APICERT_RATE_START to APICERT_RATE_MAX requests/s over
 * APICERT_RAMP) of GET /v1/usage on one key until and past its 429; with
 * APICERT_V1_LIMITER_DOWN_KEY, a few requests on a key whose limiter is down. Rules:
 * load.v1.rate-limit.429-shape, .retry-after, .refusals-are-429, .unavailable-503, .limit-reached.
 */
import { V1_RATE_FIGURE_NAMES, v1LimiterDownStep, v1RateLimitStep } from '../src/load/scenarios/rate-limit.ts';
import { k6Transport, rampClock, rampOptions, Recorder, runConfigFor, settingsFor } from './lib/k6.ts';

const config = settingsFor('v1-rate-limit');
const runConfig = runConfigFor('v1-rate-limit');
const recorder = new Recorder('v1-rate-limit', V1_RATE_FIGURE_NAMES);

// The limiter-down key gets a few requests of its own. The scenario is there whether or not the
// key is given (credentials are read when the test runs, never at init); without the key its
// iterations judge nothing and the rule is untestable. APICERT_VUS of them, so that each execution
// segment of a distributed run (one per VU at least) judges the rule too.
export const options = rampOptions(config, recorder, 'ramp', {
  limiterDown: { executor: 'shared-iterations', exec: 'limiterDown', vus: config.vus, iterations: Math.max(config.limiterDownRequests, config.vus), maxDuration: config.maxDuration },
});

export const setup = recorder.setup(runConfig);

// Per VU (k6 gives each its own module state): whether this VU saw the ramp's key, and the limiter-down key, served.
const keyServed = { seen: false };
const limiterDownServed = { seen: false };

export const ramp = recorder.iteration(() => {
  const c = runConfig();
  return v1RateLimitStep(k6Transport, { baseUrl: c.baseUrl, token: c.credential, keyServed, ...rampClock(c) });
});
export const limiterDown = recorder.iteration(() => {
  const c = runConfig();
  if (!c.v1LimiterDownKey) return Promise.resolve({ judgments: [], figures: [] });
  return v1LimiterDownStep(k6Transport, { baseUrl: c.baseUrl, token: c.v1LimiterDownKey, keyServed: limiterDownServed, ...rampClock(c) });
});

export const handleSummary = recorder.handleSummary(config);
