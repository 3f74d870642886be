/**
 * /v8 stream fan-out: each iteration creates a mission and has APICERT_READERS clients follow its
 * event stream at once (k6 returns a stream when the server closes it, after the terminal event),
 * then APICERT_RESUMERS clients resume from cursors spread over it. Rules:
 * load.v8.events.fanout-same-events, load.v8.events.fanout-one-terminal, load.v8.events.fanout-resume.
 */
import { v8StreamFanout } from '../src/load/scenarios/stream-fanout.ts';
import { iterationOptions, k6Transport, newKey, Recorder, runConfigFor, settingsFor } from './lib/k6.ts';

const config = settingsFor('v8-stream-fanout');
const runConfig = runConfigFor('v8-stream-fanout');
const recorder = new Recorder('v8-stream-fanout', ['v8_fanout_readers_judged', 'v8_fanout_readers_timed_out', 'v8_fanout_resumes_409']);

export const options = iterationOptions('fanout', config, config.readers, recorder);

export const setup = recorder.setup(runConfig);

export default recorder.iteration(() => {
  const c = runConfig();
  return v8StreamFanout(k6Transport, { ...c, token: c.credential, key: newKey });
});

export const handleSummary = recorder.handleSummary(config);
