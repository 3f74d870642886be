import { TERMINAL_STATUSES, type MissionProjection, type MissionStatus, type ResourceBudget } from '../../../contract/v8/missions.ts';
import { defaultMissionScript, missionScenarios, scenarioForTask, type ScriptBeat } from '../../../../scenarios/v8/missions.ts';
import { uuidv4, uuidv7 } from '../../../util/uuid.ts';
import type { FakeContext } from '../../context.ts';
import { SensitiveValues } from '../redaction.ts';
import { traceIdFor, traceOfFailedStep, type TraceRecord } from '../traces/record.ts';
import { AFTER_TERMINAL_NOTE, cursorNumber, cursorOf, eventData, initialStatus, notesAfterTerminal, projectionBody, replayWindow, signalEndsWaiting, startDelayMs, stepIdOf, stepStatusWord, stepSummaries, timeLimitEndsFailed } from './variants.ts';

export interface StoredEvent {
  n: number;
  id: string;
  event: string;
  data: string;
  /** Step events carry no id under the fault that drops them. */
  sendId: boolean;
}

export interface Mission {
  runId: string;
  principal: string;
  status: MissionStatus;
  sequence: number;
  steps: Array<{ stepId: string; status: string }>;
  events: StoredEvent[];
  listeners: Set<(event: StoredEvent) => void>;
  timers: NodeJS.Timeout[];
  budget: ResourceBudget;
  goalSpec: Record<string, unknown>;
  signals: Array<{ signal: string; payload: unknown }>;
  /** Signals that arrived before the first step; they are traced with it. */
  untracedSignals: Array<Record<string, unknown>>;
  /** Parked by its script's wait beat (not merely created `waiting`). */
  parked?: boolean;
  /** Tool calls made so far, against `budget.maximumToolCalls`. */
  toolCalls: number;
}

export function isTerminal(status: MissionStatus): boolean {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}

/** The "fails" mission under `v8.missions/fails-before-steps`: rejected at planning, no step. */
const FAILED_BEFORE_STEPS: ScriptBeat[] = [{ afterMs: 10, do: 'finish', status: 'failed' }];

/** Missions and their scripted lives inside one fake. */
export class MissionEngine {
  readonly missions = new Map<string, Mission>();
  readonly traces = new Map<string, TraceRecord>();

  private readonly fake: FakeContext;
  private readonly sensitive: SensitiveValues;
  constructor(fake: FakeContext) {
    this.fake = fake;
    this.sensitive = new SensitiveValues(fake);
  }

  create(principal: string, goalSpec: Record<string, unknown>, budget: ResourceBudget): Mission {
    const runId = this.fake.faults.has('v8.missions.create.accepted/runid-not-v7') ? uuidv4() : uuidv7();
    const mission: Mission = {
      runId,
      principal,
      status: initialStatus(this.fake),
      sequence: 1,
      steps: [],
      events: [],
      listeners: new Set(),
      timers: [],
      budget,
      goalSpec,
      signals: [],
      untracedSignals: [],
      toolCalls: 0,
    };
    this.missions.set(runId, mission);
    const task = typeof goalSpec.task === 'string' ? goalSpec.task : '';
    const scenario = scenarioForTask(task);
    // A policy rejection ends a mission `failed` before any step ("policy rejection or unrecoverable error"): the "fails" mission so, under the variant.
    const script = scenario === missionScenarios.fails && this.fake.variants.has('v8.missions/fails-before-steps') ? FAILED_BEFORE_STEPS : (scenario?.script ?? defaultMissionScript);
    mission.timers.push(this.fake.lifecycle.later(startDelayMs(this.fake), () => this.begin(mission, script)));
    return mission;
  }

  projection(mission: Mission): MissionProjection {
    return projectionBody(this.fake, { runId: mission.runId, status: mission.status, sequence: mission.sequence, steps: stepSummaries(this.fake, mission.steps.map((s) => ({ ...s }))) });
  }

  /** Events after `afterIndex` (exclusive); -1 for all. */
  eventsAfter(mission: Mission, afterIndex: number): StoredEvent[] {
    return mission.events.slice(afterIndex + 1);
  }

  /** The index of the event a cursor names, 'outside' when it is not in the replay window. */
  locate(mission: Mission, lastEventId: string): number | 'outside' {
    const n = cursorNumber(this.fake, mission.runId, lastEventId);
    if (n === undefined || !(n >= 0 && n < mission.events.length) || n < mission.events.length - replayWindow(this.fake)) return 'outside';
    return n;
  }

  /**
   * Records a signal durably and traces its receipt on the mission's latest step, with sensitive
   * values redacted as everything the gateway echoes.
   */
  recordSignal(mission: Mission, signal: string, payload: unknown): void {
    mission.signals.push({ signal, payload });
    const operation: Record<string, unknown> = {
      operationId: `op-signal-${mission.signals.length}`,
      kind: 'observation',
      startedAt: new Date().toISOString(),
      input: { signal, payload: this.sensitive.signalPayload(payload) },
    };
    const trace = mission.steps.length > 0 ? this.traces.get(this.traceIdOf(mission, mission.steps.length)) : undefined;
    if (trace) trace.steps.push(operation);
    else mission.untracedSignals.push(operation);
    if (mission.parked && !isTerminal(mission.status) && signalEndsWaiting(this.fake)) this.finish(mission, 'succeeded', 'mission.completed', { runId: mission.runId });
  }

  private traceIdOf(mission: Mission, k: number): string {
    return traceIdFor(this.fake, mission.runId, k);
  }

  /** `recheck: false` only under the fault that commits a cancel without looking at the state again. */
  cancel(mission: Mission, reason: string, options: { recheck?: boolean } = {}): void {
    if (isTerminal(mission.status) && options.recheck !== false) return;
    this.finish(mission, 'cancelled', 'mission.cancelled', { runId: mission.runId, reason });
  }

  private begin(mission: Mission, script: ScriptBeat[]): void {
    if (mission.status === 'waiting') {
      mission.status = 'running';
      mission.sequence += 1;
    }
    if (!this.fake.faults.has('v8.missions.events.started/no-started')) this.emit(mission, 'mission.started', { runId: mission.runId });
    if (!this.fake.faults.has('v8.missions.time-limit.terminal/ignored')) {
      mission.timers.push(this.fake.lifecycle.later(mission.budget.maximumElapsedMs, () => this.timeUp(mission)));
    }
    this.play(mission, script, 0);
  }

  private timeUp(mission: Mission): void {
    if (!timeLimitEndsFailed(this.fake)) this.cancel(mission, 'maximumElapsedMs elapsed');
    else if (!isTerminal(mission.status)) this.finish(mission, 'failed', 'mission.failed', { runId: mission.runId, reason: 'maximumElapsedMs elapsed' });
  }

  private play(mission: Mission, script: ScriptBeat[], index: number): void {
    const beat = script[index];
    if (!beat || isTerminal(mission.status)) return;
    mission.timers.push(
      this.fake.lifecycle.later(beat.afterMs, () => {
        if (isTerminal(mission.status)) return;
        if (beat.do === 'wait') {
          // A signal that came before the mission parked is what it waits for (under the variant).
          if (mission.signals.length > 0 && signalEndsWaiting(this.fake)) {
            this.finish(mission, 'succeeded', 'mission.completed', { runId: mission.runId });
            return;
          }
          mission.status = 'waiting';
          mission.sequence += 1;
          mission.parked = true;
          return; // parked until cancelled or out of time
        }
        if (beat.do === 'finish') {
          this.finish(mission, beat.status, beat.status === 'succeeded' ? 'mission.completed' : 'mission.failed', { runId: mission.runId });
          return;
        }
        if (mission.steps.length >= mission.budget.maximumSteps && !this.fake.faults.has('v8.missions.budget.steps/ignored')) {
          this.finish(mission, 'failed', 'mission.failed', { runId: mission.runId, reason: 'maximumSteps reached' });
          return;
        }
        if (!this.step(mission, beat.outcome, beat.toolCalls ?? 0)) {
          this.finish(mission, 'failed', 'mission.failed', { runId: mission.runId, reason: 'maximumToolCalls reached' });
          return;
        }
        this.play(mission, script, index + 1);
      }),
    );
  }

  /**
   * Plays one step with the tool calls it needs, as many as the budget leaves ("`0` means planning
   * only"). False when the step needed more: the budget limit was reached, so the step failed and
   * the mission ends `failed` ("budget limit reached ... | `failed`").
   */
  private step(mission: Mission, wanted: 'completed' | 'failed', toolCalls: number): boolean {
    const k = mission.steps.length + 1;
    const stepId = stepIdOf(this.fake, mission.runId, k);
    const traceId = this.traceIdOf(mission, k);
    const startedAt = new Date().toISOString();
    const left = Math.max(0, mission.budget.maximumToolCalls - mission.toolCalls);
    const made = this.fake.faults.has('v8.missions.budget.tool-calls/ignored') ? toolCalls : Math.min(toolCalls, left);
    const withinBudget = made === toolCalls;
    const outcome = withinBudget ? wanted : 'failed';
    mission.steps.push({ stepId, status: stepStatusWord(this.fake, 'running') });
    mission.sequence += 1;
    this.emit(mission, 'mission.step.started', { stepId, traceId });
    // An event type beyond the six listed: the table does not close the list.
    if (this.fake.variants.has('v8.missions/extra-event-type')) this.emit(mission, 'mission.step.progress', { stepId, traceId, note: 'working' });
    const trace: TraceRecord = {
      traceId,
      missionRunId: mission.runId,
      principal: mission.principal,
      stepId,
      startedAt,
      steps: [
        // The goal is echoed as the agent saw it, so it goes through redaction like any echo.
        { operationId: `op-${k}`, kind: 'observation', startedAt, input: { note: 'scripted step', goalSpec: this.sensitive.value(mission.goalSpec) }, output: { ok: outcome === 'completed' } },
        ...this.toolCallOperations(mission, k, made, startedAt),
        ...mission.untracedSignals.splice(0),
      ],
    };
    if (outcome === 'failed') traceOfFailedStep(this.fake, trace);
    this.traces.set(traceId, trace);
    mission.steps[k - 1] = { stepId, status: stepStatusWord(this.fake, outcome) };
    mission.sequence += 1;
    if (outcome === 'completed') {
      trace.completedAt = new Date().toISOString();
      trace.elapsedMs = 0;
      const data: Record<string, unknown> = { stepId, traceId, summary: `step ${k} completed` };
      if (this.fake.faults.has('v8.missions.events.trace-id/missing-on-completed')) delete data.traceId;
      this.emit(mission, 'mission.step.completed', data);
    }
    return withinBudget;
  }

  /** The `tool-call` operations of step k, each under a toolCallId unique in the mission. */
  private toolCallOperations(mission: Mission, k: number, count: number, startedAt: string): Array<Record<string, unknown>> {
    return Array.from({ length: count }, (_, i) => {
      mission.toolCalls += 1;
      const n = mission.toolCalls;
      return { operationId: `op-${k}-tool-${i + 1}`, kind: 'tool-call', toolCallId: `tc-${mission.runId.slice(-12)}-${n}`, startedAt, input: { tool: 'apicert.scenario-tool', call: n }, output: { ok: true } };
    });
  }

  private finish(mission: Mission, status: MissionStatus, event: string, data: Record<string, unknown>): void {
    mission.status = status === 'failed' && this.fake.faults.has('v8.missions.states.terminal-event-matches-status/failed-reads-succeeded') ? 'succeeded' : status;
    mission.sequence = this.fake.faults.has('v8.missions.sequence.monotonic/reset-on-terminal') ? 0 : mission.sequence + 1;
    for (const timer of mission.timers) this.fake.lifecycle.cancel(timer);
    mission.timers = [];
    this.emit(mission, event, data);
    // Stored like any event, so a resume from the terminal event's cursor finds it too.
    if (notesAfterTerminal(this.fake)) this.emit(mission, AFTER_TERMINAL_NOTE, {});
    if (status === 'succeeded' && this.fake.faults.has('v8.missions.events.after-terminal/late-event-changes-state')) {
      this.fake.lifecycle.later(20, () => {
        mission.status = 'failed';
        mission.sequence += 1;
        this.emit(mission, 'mission.failed', { runId: mission.runId, reason: 'late event' });
      });
    }
  }

  private emit(mission: Mission, event: string, data: Record<string, unknown>): void {
    const n = mission.events.length;
    const stored: StoredEvent = {
      n,
      id: cursorOf(this.fake, mission.runId, n),
      event,
      data: event === 'mission.started' && this.fake.faults.has('v8.missions.events.shape/data-not-json') ? 'under way' : JSON.stringify(eventData(this.fake, event, data)),
      sendId: !(event.startsWith('mission.step.') && this.fake.faults.has('v8.missions.events.shape/step-without-id')),
    };
    mission.events.push(stored);
    for (const listener of mission.listeners) listener(stored);
  }
}
