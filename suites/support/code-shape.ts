/**
 * The shape of source files as the structure rules see it: line counts, and the line span of every
 * function-like node (declarations, expressions, arrows, methods, accessors, constructors), nested
 * ones included in their parent's span. Parsed by the project's TypeScript (7, native) through its API.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { isFunctionLikeDeclaration, type Node, type SourceFile } from 'typescript/unstable/ast';
import { API } from 'typescript/unstable/sync';

export interface FunctionSpan {
  file: string;
  /** The function's name, or `<anonymous>` with the line it starts on. */
  name: string;
  startLine: number;
  lines: number;
}

/** Every .ts file under `dir`, as paths relative to `root`. */
export function tsFilesUnder(root: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (abs: string) => {
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      const path = join(abs, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) out.push(relative(root, path));
    }
  };
  walk(join(root, dir));
  return out.sort();
}

export function lineCount(root: string, file: string): number {
  const text = readFileSync(join(root, file), 'utf8');
  return text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i += 1) if (text.charCodeAt(i) === 10) line += 1;
  return line;
}

function nameOf(node: Node, text: string, start: number): string {
  const named = (node as { name?: { text?: string } }).name;
  if (named && typeof named.text === 'string') return named.text;
  return `<anonymous@${lineOf(text, start)}>`;
}

/** The spans of every function-like node in `files` (paths relative to `root`, inside its tsconfig project). */
export function functionSpans(rootDir: string, files: readonly string[]): FunctionSpan[] {
  const root = resolve(rootDir);
  const api = new API({ cwd: root });
  try {
    const project = api.updateSnapshot({ openProject: join(root, 'tsconfig.json') }).getProjects()[0];
    if (!project) throw new Error('TypeScript found no project for tsconfig.json');
    const spans: FunctionSpan[] = [];
    for (const file of files) {
      const sf: SourceFile | undefined = project.program.getSourceFile(join(root, file));
      if (!sf) throw new Error(`${file} is not part of the tsconfig project`);
      const text = sf.text;
      const visit = (node: Node): void => {
        if (isFunctionLikeDeclaration(node)) {
          const start = node.getStart(sf);
          const startLine = lineOf(text, start);
          spans.push({ file, name: nameOf(node, text, start), startLine, lines: lineOf(text, node.end) - startLine + 1 });
        }
        node.forEachChild(visit);
      };
      sf.forEachChild(visit);
    }
    return spans;
  } finally {
    api.close();
  }
}
