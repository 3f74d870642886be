/**
 * The run's 2xx JSON answers, from every check's probe: what the cross-cutting rules judge
 * (`<surface>.contract.generated.response-schema` reads every exchange of the run, not only its own).
 */
import { serviceKey, type EvidenceEntry } from '../rule/index.ts';

export interface JournalEntry {
  method: string;
  /** Path and query as sent. */
  path: string;
  status: number;
  contentType: string;
  json: unknown;
  /** The redacted evidence of the exchange, for a failing case. */
  evidence: EvidenceEntry;
}

/** Enough for every run apicert makes of its own accord; a longer run keeps the first ones and counts the rest. */
const JOURNAL_LIMIT = 20_000;

export class ExchangeJournal {
  readonly entries: JournalEntry[] = [];
  dropped = 0;

  add(entry: JournalEntry): void {
    if (this.entries.length >= JOURNAL_LIMIT) this.dropped += 1;
    else this.entries.push(entry);
  }
}

export const RUN_EXCHANGES = serviceKey<ExchangeJournal>('run-exchanges');
