/**
 * What one generated sequence did, step by step, with the requests each step sent: the shrunk
 * failing sequence becomes a numbered list a person can replay with curl.
 */
import { reproduceLine, type EvidenceEntry, type Http } from '../../rule/index.ts';

export interface TranscriptStep {
  title: string;
  /** The requests of this step, in the order they completed (a race sends several at once). */
  requests: EvidenceEntry[];
  /** How the scheduler ordered a race, when the step was one. */
  schedule?: string;
}

export class Transcript {
  readonly steps: TranscriptStep[] = [];
  private readonly http: Http;
  private openedAt = 0;
  private current: TranscriptStep | undefined;

  constructor(http: Http) {
    this.http = http;
  }

  begin(title: string): void {
    this.current = { title, requests: [] };
    this.steps.push(this.current);
    this.openedAt = this.http.evidence.length;
  }

  /** A step learns what it did only while it runs (which mission, which cursor): it can retitle itself. */
  retitle(title: string): void {
    if (this.current) this.current.title = title;
  }

  schedule(order: string): void {
    if (this.current) this.current.schedule = order;
  }

  end(): void {
    if (!this.current) return;
    this.current.requests = this.http.evidence.slice(this.openedAt);
    this.current = undefined;
  }
}

function status(entry: EvidenceEntry): string {
  if (entry.error) return `no answer (${entry.error})`;
  const res = entry.response;
  if (!res) return 'no answer';
  const events = res.events ? `, ${res.events.length} event(s)${res.events.length ? `: ${res.events.map((e) => e.event ?? 'message').join(', ')}` : ''}` : '';
  return `${res.status}${events}${res.closedBy ? ` (closed by ${res.closedBy})` : ''}`;
}

export interface ReplayHint {
  ruleId: string;
  seed: number;
  /** fast-check's shrink path: with the seed it regenerates exactly this sequence. */
  path: string | undefined;
  runs: number;
}

/**
 * The counterexample as the report prints it: the seed and the command that reruns it, then every
 * step with its requests as curl lines; the violation is stated under the step that broke it.
 */
export function formatCounterexample(steps: readonly TranscriptStep[], violation: string, hint: ReplayHint): string {
  const lines = [
    `Shrunk counterexample after ${hint.runs} sequence(s): ${steps.length} step(s), seed ${hint.seed}${hint.path ? `, fast-check path ${hint.path}` : ''}.`,
    `${reproduceLine(hint.ruleId, hint.seed)} (a live target may need a few tries: its timing is part of the sequence).`,
    '',
  ];
  let request = 0;
  steps.forEach((step, i) => {
    lines.push(`${i + 1}. ${step.title}${step.schedule ? ` [scheduler: ${step.schedule}]` : ''}`);
    for (const entry of step.requests) {
      request += 1;
      lines.push(`   request ${request}: ${entry.request.method} ${new URL(entry.request.url).pathname} -> ${status(entry)}`);
      lines.push(`     ${entry.curl}`);
    }
    if (i === steps.length - 1) lines.push(`   VIOLATION: ${violation}`);
  });
  return lines.join('\n');
}
