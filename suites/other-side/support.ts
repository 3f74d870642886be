import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const SAMPLES = fileURLToPath(new URL('../../samples/', import.meta.url));
export const TEST_SECRET = `whsec_apicert_test_${Date.now().toString(36)}_secret`;

export interface SampleReceiver {
  url: string;
  stop(): void;
}

/** Starts samples/receiver.ts on a free loopback port, bounded to 60 s; stopped by its PID. */
export function startSampleReceiver(fault?: string): Promise<SampleReceiver> {
  const args = [`${SAMPLES}receiver.ts`, '--port', '0', '--max-seconds', '60', ...(fault ? ['--fault', fault] : [])];
  const child: ChildProcess = spawn(process.execPath, args, { env: { ...process.env, WEBHOOK_SECRET: TEST_SECRET }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout!.on('data', (c: Buffer) => {
      const url = /listening on (\S+)/.exec(c.toString())?.[1];
      if (url) resolve({ url, stop: () => void (child.pid && child.exitCode === null && process.kill(child.pid, 'SIGTERM')) });
    });
    child.once('exit', (code) => reject(new Error(`the sample receiver exited (${code}) before listening: ${stderr}`)));
  });
}

export const sampleClient = (fault?: string): string[] => [process.execPath, `${SAMPLES}client.ts`, ...(fault ? ['--fault', fault] : [])];
