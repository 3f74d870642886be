/** Where known values stand verbatim in a text, by label and offset: one linear read however many values (form-automaton.ts). */
import { FormAutomaton } from './form-automaton.ts';
import { SECRET_RUN } from './fragments.ts';

export interface VerbatimHit {
  label: string;
  /** Character offset in the text read. */
  at: number;
}

/** What `in` gives for a text that holds no value: shared, never written to. */
const NOTHING: readonly VerbatimHit[] = Object.freeze([]);

export class VerbatimFinder {
  private readonly long = new FormAutomaton();
  /** Values shorter than a run: few, and found by a bounded search each. */
  private readonly short = new Map<string, string>();
  /** The length of the shortest value: a shorter text holds none. */
  private shortest = Infinity;

  get size(): number {
    return this.long.size + this.short.size;
  }

  add(value: string, label: string): void {
    if (value.length >= SECRET_RUN) this.long.add(value, label);
    else if (value.length > 0) this.short.set(value, label);
    if (value.length > 0) this.shortest = Math.min(this.shortest, value.length);
  }

  /**
   * Each value `text` holds, once, at its first place. Every caller asks which values and where one
   * stands; a periodic value inside a long run of itself stands at every character of the run, and
   * listing each place made an array as long as the text.
   */
  in(text: string): readonly VerbatimHit[] {
    if (text.length < this.shortest) return NOTHING;
    let hits: VerbatimHit[] | undefined;
    let seen: Set<string> | undefined;
    this.long.scan(text, (stretch) => {
      if (!stretch.whole || seen?.has(stretch.form.label)) return;
      (seen ??= new Set()).add(stretch.form.label);
      (hits ??= []).push({ label: stretch.form.label, at: stretch.start });
    });
    for (const [value, label] of this.short) {
      if (seen?.has(label)) continue;
      const at = text.indexOf(value);
      if (at === -1) continue;
      (seen ??= new Set()).add(label);
      (hits ??= []).push({ label, at });
    }
    return hits ?? NOTHING;
  }
}
