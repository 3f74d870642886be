/** Where known values stand verbatim in a text, by label and offset: one linear read however many values (form-automaton.ts). */
import { FormAutomaton } from './form-automaton.ts';
import { SECRET_RUN } from './fragments.ts';

export interface VerbatimHit {
  label: string;
  /** Character offset in the text read. */
  at: number;
}

export class VerbatimFinder {
  private readonly long = new FormAutomaton();
  /** Values shorter than a run: few, and found by a bounded search each. */
  private readonly short = new Map<string, string>();

  get size(): number {
    return this.long.size + this.short.size;
  }

  add(value: string, label: string): void {
    if (value.length >= SECRET_RUN) this.long.add(value, label);
    else if (value.length > 0) this.short.set(value, label);
  }

  in(text: string): VerbatimHit[] {
    const hits: VerbatimHit[] = [];
    this.long.scan(text, (stretch) => {
      if (stretch.whole) hits.push({ label: stretch.form.label, at: stretch.start });
    });
    for (const [value, label] of this.short) for (let i = text.indexOf(value); i !== -1; i = text.indexOf(value, i + 1)) hits.push({ label, at: i });
    return hits;
  }
}
