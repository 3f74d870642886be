/** Finding a program as `spawn` finds it, before anything starts, so a missing one is said plainly. */
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

export async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Where `program` is: the path as given when it names one, else the first directory of PATH that holds it; undefined when none does. */
export async function findProgram(program: string, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  if (program.includes('/')) return (await isExecutable(program)) ? program : undefined;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && (await isExecutable(join(dir, program)))) return join(dir, program);
  }
  return undefined;
}
