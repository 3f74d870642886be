/** States and transitions as a whole: random sequences of mission operations checked against a model of the seeds. */
import { section } from '../../../rule/index.ts';
import { runModel } from '../../stateful/driver.ts';
import { cancelLeftovers, missionCommands, missionsModel, missionsStart } from './lifecycle-model.ts';

const rule = section({ surface: 'v8', document: 'v8-integration-gateway.md' });

export const lifecycleModel = rule({
  id: 'v8.missions.lifecycle.model',
  title: 'Random sequences of create, replay, get, signal, cancel, read and resume (some of them at once) get only answers the seeds allow',
  level: 'required',
  destructive: 'mutate',
  activeOnly: 'random sequences of operations judged step by step against a model that knows what apicert sent and when (overlapping commands, shrunk to a minimal sequence)',
  needs: { fixtures: ['v8.missions.waits'] },
  spec: {
    section: 'States and transitions; Endpoints > Rules; Events > Rules',
    quote:
      'monotonically increasing; a higher value is a later state … `succeeded`, `failed` and `cancelled` are terminal. … Replay with the same key and the same body returns the original response without re-executing. … A signal to a mission in a terminal state gives `409`. … The stream is resumable within a bounded replay window. … Events after a terminal event are informational only, not state-changing.',
  },
  async check(ctx) {
    await runModel(ctx, { commands: missionCommands(), model: () => missionsModel(ctx), start: missionsStart, cleanup: cancelLeftovers });
  },
});
