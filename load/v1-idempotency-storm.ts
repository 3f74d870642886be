/**
 * /v1 idempotency storm: APICERT_STORM concurrent task-mode executes with one key and body (one
 * run_id), as many turn-mode executes with one key and body (every admission but one replayed),
 * then the task key with other bodies (409 conflict). Rules: load.v1.idempotency.storm-one-run,
 * load.v1.idempotency.storm-replayed, load.v1.idempotency.storm-conflict.
 */
import type { Options } from 'k6/options';
import { v1IdempotencyStorm } from '../src/load/scenarios/idempotency-storm.ts';
import { configFor, k6Transport, newKey, Recorder } from './lib/k6.ts';

const { config, credential } = configFor('v1-idempotency-storm');
const recorder = new Recorder('v1-idempotency-storm', []);

export const options: Options = {
  scenarios: { storm: { executor: 'shared-iterations', vus: config.vus, iterations: config.iterations, maxDuration: config.maxDuration } },
  batch: config.storm,
  batchPerHost: config.storm,
  thresholds: recorder.thresholds(),
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(95)', 'count'],
};

export default recorder.iteration(() => v1IdempotencyStorm(k6Transport, { ...config, token: credential, key: newKey }));

export const handleSummary = recorder.handleSummary(config);
