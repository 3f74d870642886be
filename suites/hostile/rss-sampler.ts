/**
 * A worker that samples the peak resident set (VmHWM) of a process tree from /proc until told to
 * stop, then posts it in KiB (or undefined where /proc is not readable). It runs on its own thread
 * because the test's main thread judges a finished run's outputs for seconds at a time while other
 * runs go on: a sampler there missed whole runs (a peak of 28 MiB reported for a 150 MiB run).
 * VmHWM is a high-water mark, so any sample taken before the process ends holds its peak.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

/** The peak resident sets (VmHWM) of a process and its descendants, summed: apicert, and its launcher where that stays resident. */
function peakRssKiB(pid: number): number | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const m = /VmHWM:\s+(\d+) kB/.exec(status);
  if (!m) return undefined;
  return childrenOf(pid).reduce((total, child) => total + (peakRssKiB(child) ?? 0), Number(m[1]));
}

/** A thread that ends while we walk (apicert's threads come and go) loses its own entry, never the sample. */
function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((task) => {
    try {
      return readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
}

if (parentPort && typeof workerData?.pid === 'number') {
  const pid = workerData.pid as number;
  const port = parentPort;
  let peak: number | undefined;
  const sample = () => {
    const now = peakRssKiB(pid);
    if (now !== undefined) peak = Math.max(peak ?? 0, now);
  };
  sample();
  const timer = setInterval(sample, 25);
  port.once('message', () => {
    clearInterval(timer);
    sample();
    port.postMessage(peak);
    port.close();
  });
}
