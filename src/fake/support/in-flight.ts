/**
 * The keyed requests a fake surface is still processing under an `in-flight-409` variant (v1.execute,
 * v8.missions): per surface state, a request's scope and key to what identifies its body, so a
 * same-key request meanwhile can be refused 409 "in progress" (same body) or as a conflict.
 */
const inFlight = new WeakMap<object, Map<string, string>>();

/** The requests in flight of the surface whose state is `owner`. */
export function inFlightOf(owner: object): Map<string, string> {
  let held = inFlight.get(owner);
  if (!held) inFlight.set(owner, (held = new Map()));
  return held;
}
