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
/**
 * Bytes of answer text kept (as parsed JSON) across the run: a target that answers with huge
 * bodies must not grow apicert past its memory promise (300 MB); answers past it are counted.
 */
const JOURNAL_BYTES = 12 * 1024 * 1024;
/** One answer bigger than this is not kept all run: it is counted with the dropped ones (the schema rule observes how many it did not judge). */
const ENTRY_BYTES = 64 * 1024;

export class ExchangeJournal {
  readonly entries: JournalEntry[] = [];
  dropped = 0;
  private bytes = 0;

  /** Keeps an answer whose text was `size` characters, unless a bound is reached. */
  add(entry: JournalEntry, size = 0): void {
    if (this.entries.length >= JOURNAL_LIMIT || size > ENTRY_BYTES || this.bytes + size > JOURNAL_BYTES) {
      this.dropped += 1;
      return;
    }
    this.bytes += size;
    this.entries.push(entry);
  }
}

export const RUN_EXCHANGES = serviceKey<ExchangeJournal>('run-exchanges');
