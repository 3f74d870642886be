/**
 * /v1 rate limit: a ramping arrival rate (APICERT_RATE_START to APICERT_RATE_MAX requests/s over
 * APICERT_RAMP) of GET /v1/usage on one key until and past its 429; with
 * APICERT_V1_LIMITER_DOWN_KEY, a few requests on a key whose limiter is down. Rules:
 * load.v1.rate-limit.429-shape, .retry-after, .refusals-are-429, .unavailable-503, .limit-reached.
 */
import type { Scenario } from 'k6/options';
import { v1LimiterDownStep, v1RateLimitStep } from '../src/load/scenarios/rate-limit.ts';
import { configFor, k6Transport, rampClock, rampOptions, Recorder } from './lib/k6.ts';

const { config, credential } = configFor('v1-rate-limit');
const recorder = new Recorder('v1-rate-limit', ['v1_rate_429_at_ms', 'v1_rate_429_at_rps', 'v1_rate_503_at_ms']);

// The limiter-down key gets a few requests of its own, when the profile has one.
const limiterDownScenario: Record<string, Scenario> = config.v1LimiterDownKey
  ? { limiterDown: { executor: 'shared-iterations', exec: 'limiterDown', vus: 1, iterations: config.limiterDownRequests, maxDuration: config.maxDuration } }
  : {};

export const options = rampOptions(config, recorder, 'ramp', limiterDownScenario);

export const ramp = recorder.iteration(() => v1RateLimitStep(k6Transport, { baseUrl: config.baseUrl, token: credential, ...rampClock(config) }));
export const limiterDown = recorder.iteration(() => v1LimiterDownStep(k6Transport, { baseUrl: config.baseUrl, token: config.v1LimiterDownKey!, ...rampClock(config) }));

export const handleSummary = recorder.handleSummary(config);
