/** States and transitions as a whole: random sequences of run operations checked against a model of the seeds. */
import { section } from '../../../rule/index.ts';
import { runModel } from '../../stateful/driver.ts';
import { cancelLeftovers, runCommands, runsModel, runsPromised, runsStart } from './lifecycle-model.ts';

const rule = section({ surface: 'v1', document: 'v1-execution-fabric.md' });

export const lifecycleModel = rule({
  id: 'v1.runs.lifecycle.model',
  title: 'Random sequences of execute, replay, approve (right and wrong digest), cancel, read and resume (some of them at once) get only answers the seeds allow',
  level: 'required',
  activeOnly: 'random sequences of operations judged by their own model of the run states',
  destructive: 'mutate',
  needs: { fixtures: ['v1.tasks.parks', 'v1.approval'] },
  spec: {
    section: 'States and transitions; Endpoints > Rules; Events > Run event stream',
    quote:
      'cancellation accepted | a terminal `request.cancelled` event is emitted on the run\'s stream … run is parked awaiting approval | the resume is delivered and confirmed; the response is `200` … Same key with the same request replays safely. … Resume: `Last-Event-ID` carries the `sequence` value of the stored run event.',
  },
  async check(ctx) {
    await runModel(ctx, { commands: runCommands(), model: () => runsModel(ctx), start: runsStart, cleanup: cancelLeftovers, promised: runsPromised(ctx) });
  },
});
