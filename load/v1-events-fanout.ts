/**
 * /v1 run-events fan-out: each iteration starts a task-mode run and has APICERT_READERS clients
 * follow GET /v1/runs/{id}/events at once, then APICERT_RESUMERS resume by sequence. Rules:
 * load.v1.events.fanout-same-events, load.v1.events.fanout-resume.
 */
import { v1EventsFanout } from '../src/load/scenarios/stream-fanout.ts';
import { iterationOptions, k6Transport, newKey, Recorder, runConfigFor, settingsFor } from './lib/k6.ts';

const config = settingsFor('v1-events-fanout');
const runConfig = runConfigFor('v1-events-fanout');
const recorder = new Recorder('v1-events-fanout', ['v1_fanout_readers_judged', 'v1_fanout_readers_timed_out']);

export const options = iterationOptions('fanout', config, config.readers, recorder);

export const setup = recorder.setup(runConfig);

export default recorder.iteration(() => {
  const c = runConfig();
  return v1EventsFanout(k6Transport, { ...c, token: c.credential, key: newKey });
});

export const handleSummary = recorder.handleSummary(config);
