import type { FakeContext } from '../context.ts';
import { V1Responder } from './respond.ts';
import { v1State, type V1State } from './state.ts';

/** What every /v1 area's routes share: the fake, the /v1 responder and the /v1 state of this instance. */
export interface V1Surface {
  fake: FakeContext;
  v1: V1Responder;
  state: V1State;
}

export function v1Surface(fake: FakeContext): V1Surface {
  return { fake, v1: new V1Responder(fake), state: v1State(fake) };
}
