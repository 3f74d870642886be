/**
 * /v8 idempotency storm: each iteration sends APICERT_STORM concurrent creates with one new key
 * and one body (one mission must answer every one accepted; a 409 while the first is in flight
 * admits nothing), then as many with the same key and other bodies (each must get 409). Rules: load.v8.idempotency.storm-one-mission, load.v8.idempotency.storm-conflict.
 */
import { v8IdempotencyStorm } from '../src/load/scenarios/idempotency-storm.ts';
import { iterationOptions, k6Transport, newKey, Recorder, runConfigFor, settingsFor } from './lib/k6.ts';

const config = settingsFor('v8-idempotency-storm');
const runConfig = runConfigFor('v8-idempotency-storm');
const recorder = new Recorder('v8-idempotency-storm', []);

export const options = iterationOptions('storm', config, config.storm, recorder);

export const setup = recorder.setup(runConfig);

export default recorder.iteration(() => {
  const c = runConfig();
  return v8IdempotencyStorm(k6Transport, { ...c, token: c.credential, key: newKey });
});

export const handleSummary = recorder.handleSummary(config);
