/**
 * /v8 idempotency storm: each iteration sends APICERT_STORM concurrent creates with one new key
 * and one body (one mission must answer all), then as many with the same key and other bodies
 * (each must get 409). Rules: load.v8.idempotency.storm-one-mission, load.v8.idempotency.storm-conflict.
 */
import { v8IdempotencyStorm } from '../src/load/scenarios/idempotency-storm.ts';
import { configFor, iterationOptions, k6Transport, newKey, Recorder } from './lib/k6.ts';

const { config, credential } = configFor('v8-idempotency-storm');
const recorder = new Recorder('v8-idempotency-storm', []);

export const options = iterationOptions('storm', config, config.storm, recorder);

export default recorder.iteration(() => v8IdempotencyStorm(k6Transport, { ...config, token: credential, key: newKey }));

export const handleSummary = recorder.handleSummary(config);
