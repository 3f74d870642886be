/**
 * Legal choices of /v8 the descriptions leave open on the request side (docs/legal-variation.md):
 * each variant takes the other choice from the fake's default before the route runs. Each area's
 * choices live in that area's file (`suites/variants.test.ts` holds a variant to its area).
 */
import type { FakeContext } from '../context.ts';
import type { RouteRequest } from '../http.ts';
import { bodyJson } from '../support/route-body.ts';
import { contractOpenChoice, contractWireChoice, type WriteProblem } from './contract.ts';
import { missionsOpenChoice } from './missions/open-choices.ts';

/** The request to route (its body perhaps rewritten), or undefined when a variant already answered. */
export async function openChoiceRoute(fake: FakeContext, wire: RouteRequest, writeProblem: WriteProblem): Promise<RouteRequest | undefined> {
  const r = await contractWireChoice(fake, wire, writeProblem);
  if (r === undefined || r.req.method !== 'POST') return r;
  const body = await bodyJson(r);
  const routed = contractOpenChoice(fake.variants, r, body, writeProblem);
  // A rewritten body is the one the missions' choices read.
  return routed && missionsOpenChoice(fake.variants, routed, routed === r ? body : await bodyJson(routed), writeProblem);
}
