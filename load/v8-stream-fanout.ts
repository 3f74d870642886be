/**
 * /v8 stream fan-out: each iteration creates a mission and has APICERT_READERS clients follow its
 * event stream at once (k6 returns a stream when the server closes it, after the terminal event),
 * then APICERT_RESUMERS clients resume from cursors spread over it. Rules:
 * load.v8.events.fanout-same-events, load.v8.events.fanout-one-terminal, load.v8.events.fanout-resume.
 */
import { v8StreamFanout } from '../src/load/scenarios/stream-fanout.ts';
import { configFor, iterationOptions, k6Transport, newKey, Recorder } from './lib/k6.ts';

const { config, credential } = configFor('v8-stream-fanout');
const recorder = new Recorder('v8-stream-fanout', ['v8_fanout_readers_judged']);

export const options = iterationOptions('fanout', config, config.readers, recorder);

export default recorder.iteration(() => v8StreamFanout(k6Transport, { ...config, token: credential, key: newKey }));

export const handleSummary = recorder.handleSummary(config);
