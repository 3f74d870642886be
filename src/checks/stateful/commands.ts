/**
 * The shape every command of a model-based rule shares, written once. A model file gives only what
 * differs, as plain objects: its requests, its model updates and its wording. These classes make
 * fast-check commands of them: a command that makes a thing (a mission, a run), commands on one
 * thing picked by a generated index, a resume of its event stream, and a race of operations on it.
 */
import fc from 'fast-check';
import { TransportError, type CheckContext, type ProbeResponse, type SseEvent, type StreamRequest, type StreamResponse } from '../../rule/index.ts';
import { ModelCommand, type Real, type Stepped } from './driver.ts';
import type { EventLog } from './event-log.ts';
import type { Transcript } from './transcript.ts';

/** How many things one sequence makes at most, and their labels in messages. */
const MAX_MADE = 3;
const LABELS = 'ABC';

/** The generated index a command picks its thing by. */
const pickIndex = (): fc.Arbitrary<number> => fc.nat({ max: MAX_MADE - 1 });

export type Command<M extends object> = fc.AsyncCommand<M, Real>;

/** The things a sequence made, as commands pick them: missions, runs. */
export interface Things<M extends Stepped, T extends { label: string }> {
  noun: string;
  items(model: Readonly<M>): readonly T[];
}

/** Makes a thing from one of the profile's fixtures: `name(fixture)` in a sequence. */
export interface MakeAction<M extends Stepped, F extends string> {
  name: string;
  /** Whether the model holds this fixture (the profile may lack it). */
  has(model: Readonly<M>, fixture: F): boolean;
  /** Sends the request, judges the answer and adds the thing to the model under `label`. */
  act(model: M, real: Real, label: string, fixture: F): Promise<void>;
}

class Make<M extends Stepped, T extends { label: string }, F extends string> extends ModelCommand<M> {
  private readonly things: Things<M, T>;
  private readonly action: MakeAction<M, F>;
  private readonly fixture: F;
  constructor(things: Things<M, T>, action: MakeAction<M, F>, fixture: F) {
    super();
    this.things = things;
    this.action = action;
    this.fixture = fixture;
  }
  check(model: Readonly<M>): boolean {
    return this.things.items(model).length < MAX_MADE && this.action.has(model, this.fixture);
  }
  toString(): string {
    return `${this.action.name}(${this.fixture})`;
  }
  protected async act(model: M, real: Real): Promise<void> {
    model.step += 1;
    await this.action.act(model, real, LABELS[this.things.items(model).length]!, this.fixture);
  }
}

export function make<M extends Stepped, T extends { label: string }, F extends string>(things: Things<M, T>, action: MakeAction<M, F>, fixture: F): ModelCommand<M> {
  return new Make(things, action, fixture);
}

/** Makes things from the fixtures `weighted` lists (a fixture named twice comes twice as often). */
export function making<M extends Stepped, T extends { label: string }, F extends string>(things: Things<M, T>, action: MakeAction<M, F>, weighted: F[]): fc.Arbitrary<Command<M>> {
  return fc.constantFrom(...weighted).map((f) => make(things, action, f));
}

/**
 * A command on one picked thing. `P` is what else was generated for it (a cursor, a flag); it
 * prints as `name(n)`, or `name(n, args)`.
 */
export interface PickAction<M extends Stepped, T extends { label: string }, P = undefined> {
  name: string;
  args?: (p: P) => string;
  /** Titles the step in the transcript: `<verb> <noun> <label>`. */
  verb: string | ((p: P) => string);
  /** Whether it applies to the picked thing, beyond there being one. */
  applies?: (thing: Readonly<T>, p: P) => boolean;
  act(thing: T, model: M, real: Real, p: P): Promise<void>;
}

/** A command on one of the things a sequence made, picked by a generated index. */
abstract class PickCommand<M extends Stepped, T extends { label: string }> extends ModelCommand<M> {
  protected readonly things: Things<M, T>;
  protected readonly n: number;
  constructor(things: Things<M, T>, n: number) {
    super();
    this.things = things;
    this.n = n;
  }
  check(model: Readonly<M>): boolean {
    return this.things.items(model).length > 0;
  }
  protected picked(model: Readonly<M>): T {
    const items = this.things.items(model);
    return items[this.n % items.length]!;
  }
  /** Counts the step, and titles it with what it does to which one. */
  protected target(model: M, real: Real, verb: string): T {
    model.step += 1;
    const item = this.picked(model);
    real.transcript.retitle(`${verb} ${this.things.noun} ${item.label}`);
    return item;
  }
}

class Picked<M extends Stepped, T extends { label: string }, P> extends PickCommand<M, T> {
  private readonly action: PickAction<M, T, P>;
  private readonly p: P;
  constructor(things: Things<M, T>, action: PickAction<M, T, P>, n: number, p: P) {
    super(things, n);
    this.action = action;
    this.p = p;
  }
  override check(model: Readonly<M>): boolean {
    return super.check(model) && (this.action.applies?.(this.picked(model), this.p) ?? true);
  }
  toString(): string {
    return `${this.action.name}(${this.n}${this.action.args ? `, ${this.action.args(this.p)}` : ''})`;
  }
  protected async act(model: M, real: Real): Promise<void> {
    const verb = typeof this.action.verb === 'string' ? this.action.verb : this.action.verb(this.p);
    await this.action.act(this.target(model, real, verb), model, real, this.p);
  }
}

export function pickOne<M extends Stepped, T extends { label: string }>(things: Things<M, T>, action: PickAction<M, T>, n: number): ModelCommand<M> {
  return new Picked(things, action, n, undefined);
}

/** The arbitrary of a command on a picked thing. */
export function picking<M extends Stepped, T extends { label: string }>(things: Things<M, T>, action: PickAction<M, T>): fc.Arbitrary<Command<M>> {
  return pickIndex().map((i) => pickOne(things, action, i));
}

/** The same, with a generated parameter. */
export function pickingWith<M extends Stepped, T extends { label: string }, P>(things: Things<M, T>, param: fc.Arbitrary<P>, action: PickAction<M, T, P>): fc.Arbitrary<Command<M>> {
  return fc.tuple(pickIndex(), param).map(([i, p]) => new Picked(things, action, i, p));
}

/** Resumes a thing's event stream after one of the events its log holds with an id (the generated cursor picks which). */
export function resuming<M extends Stepped, T extends { label: string; log: EventLog }>(things: Things<M, T>, read: (thing: T, model: M, real: Real, after: number, id: string) => Promise<void>): fc.Arbitrary<Command<M>> {
  return pickingWith(things, fc.nat({ max: 50 }), {
    name: 'resume',
    args: (cursor) => String(cursor),
    verb: 'resume',
    applies: (thing) => thing.log.cursors().length > 0,
    async act(thing, model, real, cursor) {
      const cursors = thing.log.cursors();
      const after = cursors[cursor % cursors.length]!;
      const event = thing.log.events[after]!;
      real.transcript.retitle(`resume the events of ${things.noun} ${thing.label} after event #${after + 1} (${event.kind}, Last-Event-ID ${event.id})`);
      await read(thing, model, real, after, event.id!);
    },
  });
}

/** One race on a thing, planned before anything is sent: the operations it sends, and how to judge their answers. */
export interface RacePlan<Op extends string> {
  ops: Op[];
  send(op: Op, i: number, label: string): Promise<ProbeResponse>;
  /** Judges each answer against every order the race allows, then reads the thing again. */
  judge(answers: ProbeResponse[]): Promise<void>;
}

/**
 * Several operations on one thing at once; `fc.scheduler` decides the order they are sent in, the
 * target sees them overlap.
 */
class Race<M extends Stepped, T extends { label: string }, Op extends string> extends PickCommand<M, T> {
  private readonly plan: (thing: T, model: M, ops: readonly Op[], real: Real) => RacePlan<Op>;
  private readonly ops: Op[];
  private readonly scheduler: fc.Scheduler;
  constructor(things: Things<M, T>, plan: Race<M, T, Op>['plan'], n: number, ops: Op[], scheduler: fc.Scheduler) {
    super(things, n);
    this.plan = plan;
    this.ops = ops;
    this.scheduler = scheduler;
  }
  toString(): string {
    return `race(${this.n}, [${this.ops.join(', ')}])`;
  }
  [fc.cloneMethod](): Race<M, T, Op> {
    // A scheduler remembers the order it chose: a replayed or shrunk race needs a fresh one.
    return new Race(this.things, this.plan, this.n, this.ops, fc.cloneIfNeeded(this.scheduler));
  }
  protected async act(model: M, real: Real): Promise<void> {
    const thing = this.target(model, real, 'race');
    const race = this.plan(thing, model, this.ops, real);
    const where = `${this.things.noun} ${thing.label}`;
    real.transcript.retitle(`send ${race.ops.join(' + ')} to ${where} at once`);
    const answers = await sendInSchedulerOrder(this.scheduler, race.ops, (op, i) => race.send(op, i, `${op} #${i + 1} of the race on ${where}`), real.transcript);
    await race.judge(answers);
  }
}

/** Races of two or three operations drawn from `ops` (an operation named twice comes twice as often). */
export function racing<M extends Stepped, T extends { label: string }, Op extends string>(things: Things<M, T>, ops: Op[], plan: Race<M, T, Op>['plan']): fc.Arbitrary<Command<M>> {
  const drawn = fc.array(fc.constantFrom(...ops), { minLength: 2, maxLength: 3 });
  return fc.tuple(pickIndex(), drawn, fc.scheduler()).map(([i, o, s]) => new Race(things, plan, i, o, s));
}

/**
 * Sends operations at once, released in the order the fast-check scheduler picks (the target
 * sees them overlap); the transcript records that order.
 */
async function sendInSchedulerOrder<Op extends string, R>(s: fc.Scheduler, ops: readonly Op[], send: (op: Op, i: number) => Promise<R>, transcript: Transcript): Promise<R[]> {
  const pending = ops.map((op, i) => s.schedule(Promise.resolve(), `${op}#${i + 1}`).then(() => send(op, i)));
  await s.waitIdle();
  // Every operation is let finish before a refusal ends the step, so none runs on into the next sequence.
  const settled = await Promise.allSettled(pending);
  transcript.schedule(s.report().map((t) => t.label).join(' -> '));
  const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<R>).value);
}

/** How long a read of a stream that has not ended listens before it stops (the stream stays open). */
const READ_MS = 200;

/**
 * How long a read waits for the stream's response headers: the profile's request timeout. No
 * sentence sets a time to the first byte, and a stream with nothing to send yet may hold its
 * headers back (a buffering proxy, compression middleware) until its first event.
 */
export function headersMs(ctx: CheckContext): number {
  return ctx.profile.safety.requestTimeoutMs;
}

/** Whether a read ended because the server sent no response headers within `headersMs`. */
function headersTimedOut(error: unknown): boolean {
  return error instanceof TransportError && /HEADERS_TIMEOUT|Headers Timeout/i.test(error.message);
}

/**
 * One bounded read of a thing's event stream, stopping at a terminal event. Undefined when the
 * server sent no headers in time while the thing is not known to have ended (`ended`): a stream
 * with nothing to send yet may hold them back until its first event, which tells nothing.
 */
export async function readEvents(ctx: CheckContext, request: Pick<StreamRequest, 'path' | 'credential' | 'label'>, isTerminal: (event: SseEvent) => boolean, ended: boolean, lastEventId?: string): Promise<StreamResponse | undefined> {
  const full: StreamRequest = { method: 'GET', ...request, maxMs: READ_MS, timeoutMs: headersMs(ctx), onEvent: (event) => (isTerminal(event) ? 'terminal' : 'continue') };
  if (lastEventId !== undefined) full.lastEventId = lastEventId;
  try {
    return await ctx.http.stream(full);
  } catch (error) {
    if (headersTimedOut(error) && !ended) return undefined;
    throw error;
  }
}
