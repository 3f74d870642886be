/**
 * The proxy's judging thread yields the CPU to forwarding: it lowers its own scheduling priority.
 * On Linux a thread's nice value is its own (threads are tasks, and setpriority(2) on id 0 sets the
 * calling thread's), so the forwarding thread keeps its priority; elsewhere the call could lower
 * the whole process, so it is made on Linux only, where the duty limit of live.ts is the only limit.
 */
import { setPriority } from 'node:os';

/** The judging thread's nice value: the lowest priority, so judging takes what forwarding and the machine leave. */
export const JUDGING_NICE = 19;

/** Called on the judging thread as it starts. */
export function yieldToForwarding(): void {
  if (process.platform !== 'linux') return;
  try {
    setPriority(0, JUDGING_NICE);
  } catch {
    // Not allowed here (a sandbox): judging keeps its priority and its duty limit.
  }
}
