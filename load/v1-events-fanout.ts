/**
 * /v1 run-events fan-out: each iteration starts a task-mode run and has APICERT_READERS clients
 * follow GET /v1/runs/{id}/events at once, then APICERT_RESUMERS resume by sequence. Rules:
 * load.v1.events.fanout-same-events, load.v1.events.fanout-resume.
 */
import { v1EventsFanout } from '../src/load/scenarios/stream-fanout.ts';
import { configFor, iterationOptions, k6Transport, newKey, Recorder } from './lib/k6.ts';

const { config, credential } = configFor('v1-events-fanout');
const recorder = new Recorder('v1-events-fanout', ['v1_fanout_readers_judged']);

export const options = iterationOptions('fanout', config, config.readers, recorder);

export default recorder.iteration(() => v1EventsFanout(k6Transport, { ...config, token: credential, key: newKey }));

export const handleSummary = recorder.handleSummary(config);
