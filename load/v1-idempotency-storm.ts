/**
 * /v1 idempotency storm: APICERT_STORM concurrent task-mode executes with one key and body (one
 * run_id), as many turn-mode executes with one key and body (every admission but one replayed),
 * then the task key with other bodies (409 conflict). Rules: load.v1.idempotency.storm-one-run,
 * load.v1.idempotency.storm-replayed, load.v1.idempotency.storm-conflict.
 */
import { V1_IN_FLIGHT_FIGURE, v1IdempotencyStorm } from '../src/load/scenarios/idempotency-storm.ts';
import { iterationOptions, k6Transport, newKey, Recorder, runConfigFor, settingsFor } from './lib/k6.ts';

const config = settingsFor('v1-idempotency-storm');
const runConfig = runConfigFor('v1-idempotency-storm');
const recorder = new Recorder('v1-idempotency-storm', [V1_IN_FLIGHT_FIGURE]);

export const options = iterationOptions('storm', config, config.storm, recorder);

export const setup = recorder.setup(runConfig);

export default recorder.iteration(() => {
  const c = runConfig();
  return v1IdempotencyStorm(k6Transport, { ...c, token: c.credential, key: newKey });
});

export const handleSummary = recorder.handleSummary(config);
