import { OwnBoundReached } from '../rule/index.ts';

/** Shared by every check of a run: the profile's `safety.requestBudget` caps the whole certification. */
export class RequestBudget {
  used = 0;
  readonly limit: number;
  constructor(limit: number) {
    this.limit = limit;
  }

  get remaining(): number {
    return Math.max(0, this.limit - this.used);
  }

  take(): void {
    if (this.used >= this.limit) {
      throw new OwnBoundReached(`the profile's request budget (safety.requestBudget = ${this.limit}) is used up; raise it to run the remaining rules`);
    }
    this.used += 1;
  }
}
